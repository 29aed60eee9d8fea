"""SQLModel tables (the API's request and answer models are in app.schemas).

Tables hold only what was played and chosen: games (with their rules), players, rounds and each
player's cards in a round. Totals, ranks, round numbers and the winner are derived by app.scoring
every time, so there is no second truth to drift.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, Boolean, Column, DateTime, ForeignKey, Index, Integer, LargeBinary, String, false, true
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


def _timestamp(nullable: bool = False) -> Column:
    return Column(DateTime(timezone=True), nullable=nullable)


def _text(length: int, default: str) -> Column:
    # With a server default, so the games stored before the column existed have the value (migration 0006).
    return Column(String(length), nullable=False, server_default=default)


def _number(default: int) -> Column:
    return Column(Integer, nullable=False, server_default=str(default))


def _flag(default: bool) -> Column:
    return Column(Boolean, nullable=False, server_default=true() if default else false())


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
    # The game's kind and preset (app.rules) and the parameters of the other kinds; a game stored
    # before there were several is Dutch Blitz (the server defaults, migration 0006).
    kind: str = Field(default="cards", sa_column=_text(16, "cards"))
    preset: str = Field(default="dutch_blitz", sa_column=_text(24, "dutch_blitz"))
    pile_size: int = Field(default=10, sa_column=_number(10))
    deck_size: int = Field(default=40, sa_column=_number(40))
    must_go_out: bool = Field(default=True, sa_column=_flag(True))
    end_by: str = Field(default="target", sa_column=_text(8, "target"))  # app.rules' `end`
    round_limit: int = Field(default=10, sa_column=_number(10))  # app.rules' `rounds`
    lives: int = Field(default=3, sa_column=_number(3))
    county: bool = Field(default=True, sa_column=_flag(True))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    updated_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    # The running round's "Blitz!" (the scorekeeper's "Start round" plus the countdown); None when no
    # round was started since the last save. The next saved round takes it as its start (app.timing).
    round_started_at: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))


class DeletedGame(SQLModel, table=True):
    """A game its scorekeeper deleted: only its id and when, so its links answer 410 Gone, not 404."""

    __tablename__ = "deleted_game"
    id: str = Field(sa_column=Column(String(32), primary_key=True))
    deleted_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())


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
    # When the round started ("Blitz!") and how long it lasted; None when nobody timed it.
    started_at: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    duration_s: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))


class RoundScore(SQLModel, table=True):
    __tablename__ = "round_score"

    round_id: int = Field(sa_column=Column(Integer, ForeignKey("round.id", ondelete="CASCADE"), primary_key=True))
    player_id: int = Field(sa_column=Column(Integer, ForeignKey("player.id", ondelete="CASCADE"), primary_key=True))
    dutch: int  # `cards`; 0 in the other kinds
    blitz: int
    hand: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))  # `lowest`, `lives`
    called: bool = Field(default=False, sa_column=_flag(False))  # called Dutch, or knocked


class RoundChange(SQLModel, table=True):
    """A change to a past round (corrected, deleted, restored) or to the rules, as the table saw it:
    when, which round, and the values before and after (app.changes). History only: scores are derived
    from the rounds, never from this log, and a game's creation and new rounds are play, not changes."""

    __tablename__ = "round_change"

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(
        sa_column=Column(String(32), ForeignKey("game.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    kind: str = Field(max_length=16)  # "correction", "deletion", "restoration" or "rules"
    round_number: int | None = None  # the round's number when it changed (None: the rules)
    round_id: int | None = None  # the round's row; no foreign key, as a deleted round's row is gone
    reverts: int | None = None  # the change this one undid (its id), if it was a revert
    old: dict | None = Field(default=None, sa_column=Column(JSON(none_as_null=True), nullable=True))
    new: dict | None = Field(default=None, sa_column=Column(JSON(none_as_null=True), nullable=True))


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
