"""The API's models, a family per entity: what a request may carry (strict JSON integers, the ranges
of the rules engine, so the API, the pages and the engine can't disagree) and what an answer holds.
The tables are in app.models.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Strict, WithJsonSchema
from pydantic import Field as PField

from app import scoring, timing
from app.i18n import _

# Ranges come from the rules engine so the API, the pages and the engine can't disagree.
# Numbers are strict JSON integers: true, "5" and 5.0 are refused (lax parsing would read true as 1).
Name = str  # trimmed and checked by names.name_problem (the 64 KiB body limit bounds it before that)
StartingScore = Annotated[int, Strict(), PField(ge=scoring.STARTING_SCORE_RANGE[0], le=scoring.STARTING_SCORE_RANGE[1])]
Points = Annotated[int, Strict(), PField(ge=scoring.POINTS_RANGE[0], le=scoring.POINTS_RANGE[1])]
Target = Annotated[int, Strict(), PField(ge=scoring.TARGET_RANGE[0], le=scoring.TARGET_RANGE[1])]
# Card counts are parsed wide and judged by the rules, whose messages name the player ("Ana's Blitz
# cards must be between 0 and 10"); the document declares the real ranges.
DutchCount = Annotated[
    int,
    Strict(),
    PField(ge=-1_000_000, le=1_000_000),
    WithJsonSchema({"type": "integer", "minimum": 0, "maximum": scoring.DECK_SIZE}),
]
BlitzCount = Annotated[
    int,
    Strict(),
    PField(ge=-1_000_000, le=1_000_000),
    WithJsonSchema({"type": "integer", "minimum": 0, "maximum": scoring.BLITZ_PILE_SIZE}),
]
RoundSeconds = Annotated[int, Strict(), PField(ge=0, le=timing.MAX_ROUND_SECONDS)]


def _moment(value: datetime) -> datetime:
    # In UTC, within years a timezone conversion can't overflow (year 9999 at -05:00 would).
    if not timing.EARLIEST_YEAR <= value.year <= timing.LATEST_YEAR:
        # In the request's language: pydantic puts it in the 422's message (app.validation).
        raise ValueError(
            _("must be in the years {earliest}–{latest}").format(
                earliest=timing.EARLIEST_YEAR, latest=timing.LATEST_YEAR
            )
        )
    return value.astimezone(UTC)


_EXAMPLE = "2026-11-30T21:04:05Z"


def _iso_text(value: object) -> object:
    # Only ISO 8601 text: a number would be read as seconds since 1970, which nobody means here.
    if not isinstance(value, str | datetime):
        raise ValueError(
            _("must be an ISO 8601 date and time with a timezone, like {example}").format(example=_EXAMPLE)
        )
    return value


Moment = Annotated[AwareDatetime, BeforeValidator(_iso_text), AfterValidator(_moment)]
PlayerRef = Annotated[int, Strict(), PField(ge=-(2**31), le=2**31 - 1)]
TieBreakName = Literal["play_on", "shared"]

NAME_TEXT = "1–40 characters after trimming, any script, no control or text-direction characters"
TARGET_TEXT = "The total that ends the game: whoever reaches it (exactly counts) after a round."
DUTCH_POINTS_TEXT = "Points per card a player put on the Dutch piles."
BLITZ_POINTS_TEXT = "Points per card left in a player's Blitz pile (usually negative)."
TIE_BREAK_TEXT = (
    "When several players share the top total at or past the target: `play_on` plays another round, "
    "`shared` makes them all winners."
)


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RulesBase(StrictModel):
    target: Target = PField(75, description=TARGET_TEXT)
    dutch_points: Points = PField(1, description=DUTCH_POINTS_TEXT)
    blitz_points: Points = PField(-2, description=BLITZ_POINTS_TEXT)
    tie_break: TieBreakName = PField("play_on", description=TIE_BREAK_TEXT)


class RulesCreate(RulesBase):
    """House rules; every field may be left out for the official rules."""


class RulesUpdate(StrictModel):
    """Only the rules sent change; the game is re-scored under them."""

    target: Target | None = PField(None, description=TARGET_TEXT)
    dutch_points: Points | None = PField(None, description=DUTCH_POINTS_TEXT)
    blitz_points: Points | None = PField(None, description=BLITZ_POINTS_TEXT)
    tie_break: TieBreakName | None = PField(None, description=TIE_BREAK_TEXT)


class RulesPublic(RulesBase):
    """The game's rules."""


class PlayerCreate(StrictModel):
    name: Name = PField(description=f"The player's name: {NAME_TEXT}; unique in the game ignoring case.")
    starting_score: StartingScore = PField(0, description="Points carried over (from a paper sheet, say).")


class GameCreate(StrictModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "name": "Friday night",
                    "players": [{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy", "starting_score": 12}],
                    "rules": {"target": 75},
                }
            ]
        },
    )

    name: Name = PField("", description="The game's name, up to 80 characters; empty for none.")
    players: list[PlayerCreate] = PField(
        max_length=100,
        description=f"In seating order: {scoring.MIN_PLAYERS}–{scoring.MAX_PLAYERS} players.",
        json_schema_extra={"minItems": scoring.MIN_PLAYERS, "maxItems": scoring.MAX_PLAYERS},
    )
    rules: RulesCreate = PField(default_factory=RulesCreate, description="House rules (optional).")


class GameUpdate(StrictModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"name": "Saturday", "rules": {"target": 100}}]}
    )

    name: str | None = PField(None, description="A new name for the game (empty: none).")
    rules: RulesUpdate | None = PField(None, description="Rules to change.")


class ScoreIn(StrictModel):
    player_id: PlayerRef = PField(description="A player's `id`, as the game lists them.")
    dutch: DutchCount = PField(description="Cards the player put on the Dutch piles this round.")
    blitz: BlitzCount = PField(description="Cards left in the player's Blitz pile (0: they called Blitz).")


class RoundIn(StrictModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "scores": [
                        {"player_id": 1, "dutch": 22, "blitz": 0},
                        {"player_id": 2, "dutch": 14, "blitz": 3},
                    ]
                }
            ]
        },
    )

    scores: list[ScoreIn] = PField(
        max_length=100,
        description="One score per player of the game, each once. At most 40 cards in all, and at least "
        "one player with 0 Blitz cards.",
    )
    started_at: Moment | None = PField(
        None,
        description='When the round started (its "Blitz!"), with a timezone. Left out: the start the '
        "scorekeeper gave with `POST /games/{id}/start`, if any (a correction keeps the round's own).",
    )
    duration_s: RoundSeconds | None = PField(
        None,
        description=f"How long the round lasted, in seconds (0–{timing.MAX_ROUND_SECONDS}). Left out: the "
        "time from its start to this save (a correction keeps the round's own).",
    )


class PlayerPublic(BaseModel):
    id: int = PField(description="The player's id in this game (for scores).")
    name: str
    starting_score: int
    total: int = PField(description="Starting score plus every round's points.")
    rank: int = PField(description="1 for the top total; equal totals share a rank (1, 1, 3).")


class ScorePublic(BaseModel):
    player_id: int
    dutch: int
    blitz: int
    points: int = PField(description="This round's points under the game's rules.")
    total: int = PField(description="The player's running total after this round.")


class RoundPublic(BaseModel):
    number: int = PField(description="1 for the first round; deleting a round renumbers the later ones.")
    scores: list[ScorePublic]
    started_at: datetime | None = PField(description='When the round started (its "Blitz!"); null when unknown.')
    duration_s: int | None = PField(description="How long the round lasted, in seconds; null when unknown.")


class GamePublic(BaseModel):
    id: str = PField(description="The game's id, as in its links.")
    name: str
    version: int = PField(description='Bumped by every change; the ETag is `"<version>"`.')
    created_at: datetime
    updated_at: datetime = PField(description="When the game last changed.")
    status: Literal["playing", "finished"]
    winners: list[int] = PField(description="Player ids; more than one only with `tie_break: shared`.")
    tie_break: bool = PField(description="True while a tie-break round is due (play_on and the top is tied).")
    leaders: list[int] = PField(description="Player ids holding the top total now.")
    rules: RulesPublic
    players: list[PlayerPublic] = PField(description="In seating order.")
    rounds: list[RoundPublic]
    round_started_at: datetime | None = PField(
        description='The running round\'s start (its "Blitz!", which may be a few seconds ahead), from '
        "`POST /games/{id}/start`; null when no round was started since the last one was saved."
    )


class RoundStarted(GamePublic):
    blitz_at: datetime = PField(
        description=f'When "Blitz!" happens: the server\'s time now plus {timing.COUNTDOWN_S} s.'
    )
    server_now: datetime = PField(
        description="The server's time as it answered: a client's offset is `server_now` minus its own clock "
        'on receipt, and its "Blitz!" is `blitz_at` minus that offset in its own clock.'
    )


class GameUrls(BaseModel):
    view: str = PField(description="The view link: anyone with it watches the game live.")
    edit: str = PField(description="The edit link: it hands the edit key to a browser. Keep it secret.")


class GameCreated(GamePublic):
    edit_key: str = PField(description="The secret that changes this game (Authorization: Bearer). Shown only here.")
    urls: GameUrls


class FieldError(BaseModel):
    field: str = PField(description='Where in the request: "players[1].name", "scores", "rules.target", a header.')
    message: str = PField(description="What is wrong, for people.")


class ProblemDetails(BaseModel):
    """RFC 9457 problem details, as application/problem+json."""

    type: str = PField(description="A URI naming the kind of problem; stable, for programs.")
    title: str = PField(description="A short summary of the kind of problem.")
    status: int = PField(description="The HTTP status, repeated.")
    detail: str = PField(description="What went wrong this time, for people.")
    errors: list[FieldError] | None = PField(None, description="On 422: each problem and where it is.")
    request_id: str | None = PField(
        None, description="On a 500 or 503: the id in the server's logs (also the X-Request-ID header)."
    )


class CardsPublic(BaseModel):
    player_id: int
    dutch: int = PField(description="Cards the player put on the Dutch piles.")
    blitz: int = PField(description="Cards left in the player's Blitz pile.")


class RoundCardsPublic(BaseModel):
    """A round's cards, every player's, in seating order."""

    scores: list[CardsPublic]


class SettingsPublic(BaseModel):
    """The settings a rules change touched, and only those."""

    name: str | None = None
    target: int | None = None
    dutch_points: int | None = None
    blitz_points: int | None = None
    tie_break: TieBreakName | None = None


class ChangePublic(BaseModel):
    id: int = PField(description="The change's id in this game (for a revert).")
    at: datetime = PField(description="When it was made (UTC).")
    kind: Literal["correction", "deletion", "restoration", "rules"] = PField(
        description="`correction`: a round's cards were replaced; `deletion`: a round was deleted; "
        "`restoration`: a deleted round came back (a revert of its deletion); `rules`: the name or house rules."
    )
    round: int | None = PField(
        description="The round's number when it changed (later deletions may have moved it since); null for rules."
    )
    reverts: int | None = PField(description="The id of the change this one undid, when it was a revert.")
    revertable: bool = PField(
        description="Whether it can be reverted now: what it touched is still as it left it (and, for a "
        "deletion, the round's place is still there)."
    )
    old: RoundCardsPublic | SettingsPublic | None = PField(
        description="What was there before: the round's cards (null for a restoration), or the settings' old values."
    )
    new: RoundCardsPublic | SettingsPublic | None = PField(
        description="What was there after: the round's cards (null for a deletion), or the settings' new values."
    )
