"""SQLModel tables and the API's model family per entity.

Tables hold only what was played and chosen: games (with their rules), players, rounds and each
player's cards in a round. Totals, ranks, round numbers and the winner are derived by app.scoring
every time, so there is no second truth to drift.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Strict
from pydantic import Field as PField
from sqlalchemy import Column, DateTime, ForeignKey, Index, Integer, LargeBinary, String
from sqlmodel import Field, SQLModel

from app import scoring


def utcnow() -> datetime:
    return datetime.now(UTC)


def _timestamp() -> Column:
    return Column(DateTime(timezone=True), nullable=False)


# --- tables -----------------------------------------------------------------------------------


class Game(SQLModel, table=True):
    id: str = Field(primary_key=True, max_length=32)  # public, random, in the view link
    name: str = Field(default="", max_length=200)
    version: int = Field(default=1)
    edit_key_hash: str = Field(max_length=64)  # sha256 of the secret edit key; the key is never stored
    target: int = Field(default=75)
    dutch_points: int = Field(default=1)
    blitz_points: int = Field(default=-2)
    tie_break: str = Field(default="play_on", max_length=16)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    updated_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())


class Player(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(
        sa_column=Column(String(32), ForeignKey("game.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    seat: int  # the order the players were entered in, which is the order the table sits in
    name: str = Field(max_length=200)
    starting_score: int = Field(default=0)


class Round(SQLModel, table=True):
    # Rounds are numbered by their order (id), not by a stored number, so deleting one moves the
    # later rounds up without rewriting them.
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(
        sa_column=Column(String(32), ForeignKey("game.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    created_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())


class RoundScore(SQLModel, table=True):
    __tablename__ = "round_score"

    round_id: int = Field(sa_column=Column(Integer, ForeignKey("round.id", ondelete="CASCADE"), primary_key=True))
    player_id: int = Field(sa_column=Column(Integer, ForeignKey("player.id", ondelete="CASCADE"), primary_key=True))
    dutch: int
    blitz: int


class IdempotencyRecord(SQLModel, table=True):
    """What a retry of a write sent with an Idempotency-Key needs to get the first answer back.

    Not the answer itself (a long game's answer is large, and a client can send many keys): the
    game's inputs as they were after the write, compressed (`snapshot`), from which app.idempotency
    rebuilds the same answer; and, for a creation or a key rotation, the new edit key sealed with
    AES-GCM under the server secret (`sealed_key`, app.sealing). The Idempotency-Key and the request's
    fingerprint are kept only as HMACs under that secret.
    """

    __tablename__ = "idempotency_record"
    __table_args__ = (Index("ix_idempotency_record_created_at", "created_at"),)

    scope: str = Field(primary_key=True, max_length=40)  # the game's id, or "new-game" for creation
    key: str = Field(primary_key=True, max_length=64)  # HMAC of the Idempotency-Key (and client, for creation)
    request_mac: str = Field(max_length=64)  # HMAC of what was asked (and with which edit key)
    operation: str = Field(max_length=16)  # "create", "rotate" or "write"
    status_code: int
    version: int  # the game's version the answer was built at
    snapshot: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    sealed_key: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())


# --- API models -------------------------------------------------------------------------------

# Ranges come from the rules engine so the API, the pages and the engine can't disagree.
# Numbers are strict JSON integers: true, "5" and 5.0 are refused (lax parsing would read true as 1).
Name = str  # trimmed and checked by names.name_problem (the 64 KiB body limit bounds it before that)
StartingScore = Annotated[int, Strict(), PField(ge=scoring.STARTING_SCORE_RANGE[0], le=scoring.STARTING_SCORE_RANGE[1])]
Points = Annotated[int, Strict(), PField(ge=scoring.POINTS_RANGE[0], le=scoring.POINTS_RANGE[1])]
Target = Annotated[int, Strict(), PField(ge=scoring.TARGET_RANGE[0], le=scoring.TARGET_RANGE[1])]
CardCount = Annotated[int, Strict(), PField(ge=-1_000_000, le=1_000_000)]  # real bounds are the rules' messages
PlayerRef = Annotated[int, Strict(), PField(ge=-(2**31), le=2**31 - 1)]
TieBreakName = Literal["play_on", "shared"]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RulesBase(StrictModel):
    target: Target = 75
    dutch_points: Points = 1
    blitz_points: Points = -2
    tie_break: TieBreakName = "play_on"


class RulesCreate(RulesBase):
    pass


class RulesUpdate(StrictModel):
    target: Target | None = None
    dutch_points: Points | None = None
    blitz_points: Points | None = None
    tie_break: TieBreakName | None = None


class RulesPublic(RulesBase):
    pass


class PlayerCreate(StrictModel):
    name: Name
    starting_score: StartingScore = 0


class GameCreate(StrictModel):
    name: Name = ""
    players: list[PlayerCreate] = PField(max_length=100)
    rules: RulesCreate = PField(default_factory=RulesCreate)


class GameUpdate(StrictModel):
    name: Name | None = None
    rules: RulesUpdate | None = None


class ScoreIn(StrictModel):
    player_id: PlayerRef
    dutch: CardCount
    blitz: CardCount


class RoundIn(StrictModel):
    scores: list[ScoreIn] = PField(max_length=100)


class PlayerPublic(BaseModel):
    id: int
    name: str
    starting_score: int
    total: int
    rank: int


class ScorePublic(BaseModel):
    player_id: int
    dutch: int
    blitz: int
    points: int
    total: int


class RoundPublic(BaseModel):
    number: int
    scores: list[ScorePublic]


class GamePublic(BaseModel):
    id: str
    name: str
    version: int
    created_at: datetime
    updated_at: datetime
    status: Literal["playing", "finished"]
    winners: list[int]
    tie_break: bool  # true while a tie-break round is due (play_on and the top is tied)
    leaders: list[int]
    rules: RulesPublic
    players: list[PlayerPublic]  # in seating order
    rounds: list[RoundPublic]


class GameUrls(BaseModel):
    view: str
    edit: str


class GameCreated(GamePublic):
    edit_key: str
    urls: GameUrls


class FieldError(BaseModel):
    field: str
    message: str


class ProblemDetails(BaseModel):
    type: str
    title: str
    status: int
    detail: str
    errors: list[FieldError] | None = None
    request_id: str | None = None  # on a 500 or 503: the id in our logs (also the X-Request-ID header)
