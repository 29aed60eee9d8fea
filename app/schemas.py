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
Hand = Annotated[
    int,
    Strict(),
    PField(ge=-1_000_000, le=1_000_000),
    WithJsonSchema({"type": "integer", "minimum": 0, "maximum": scoring.HAND_RANGE[1]}),
]
PileSize = Annotated[int, Strict(), PField(ge=scoring.BOUNDS["pile_size"][0], le=scoring.BOUNDS["pile_size"][1])]
DeckSize = Annotated[int, Strict(), PField(ge=scoring.BOUNDS["deck_size"][0], le=scoring.BOUNDS["deck_size"][1])]
RoundCount = Annotated[int, Strict(), PField(ge=scoring.BOUNDS["rounds"][0], le=scoring.BOUNDS["rounds"][1])]
Lives = Annotated[int, Strict(), PField(ge=scoring.BOUNDS["lives"][0], le=scoring.BOUNDS["lives"][1])]
Flag = Annotated[bool, Strict()]
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
KindName = Literal["cards", "lowest", "lives"]
PresetName = Literal["dutch_blitz", "dutch_blitz_100", "nerts", "ligretto", "dutch", "thirty_one"]
EndName = Literal["target", "rounds"]

NAME_TEXT = "1–40 characters after trimming, any script, no control or text-direction characters"
TARGET_TEXT = (
    "The total that ends the game: whoever reaches it (exactly counts) after a round. "
    "`cards`: the highest total then wins; `lowest`: the lowest."
)
DUTCH_POINTS_TEXT = "`cards`: points per card a player played to the centre (the Dutch piles)."
BLITZ_POINTS_TEXT = "`cards`: points per card left in a player's own pile (Blitz, Nerts, Ligretto; usually negative)."
TIE_BREAK_TEXT = (
    "When several players share first place as the game would end: `play_on` plays another round, "
    "`shared` makes them all winners."
)
KIND_TEXT = (
    "The rule family: `cards` (Dutch Blitz, Nerts, Ligretto: cards played and left), `lowest` (Dutch: "
    "hand points, lowest total wins), `lives` (31: the lowest hand loses a life). Left out: the preset's; "
    "fixed once the game is created."
)
PRESET_TEXT = (
    "The game, which fills in every parameter (`GET /api/v1/presets`): `dutch_blitz` (the default), "
    "`dutch_blitz_100`, `nerts`, `ligretto`, `dutch`, `thirty_one`. Fixed once the game is created."
)
PILE_TEXT = "`cards`: the cards in each player's own pile at the start (Blitz 10, Nerts 13, Ligretto 10)."
DECK_TEXT = "`cards`: the cards in each player's deck (Dutch Blitz 40, Nerts 52)."
MUST_GO_OUT_TEXT = "`cards`: whether a round needs a player who emptied their pile (Ligretto allows a stuck round)."
END_TEXT = "`cards`: `target` ends the game at the target, `rounds` after `rounds` rounds (highest total wins)."
ROUNDS_TEXT = "`cards` with `end: rounds`: how many rounds the game lasts."
LIVES_TEXT = "`lives`: the lives (pennies) each player starts with."
COUNTY_TEXT = (
    '`lives`: with no lives left a player is "on the county" and plays on until they lose again; '
    "without it, the last life lost is out."
)


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Params:
    def params(self) -> dict[str, object]:
        """The parameters sent (not the kind and preset)."""
        return {
            name: value
            for name, value in self.model_dump(exclude_none=True).items()  # type: ignore[attr-defined]
            if name not in ("kind", "preset")
        }


class RulesUpdate(_Params, StrictModel):
    """Only the rules sent change; the game is re-scored under them. The parameters are those of the
    game's kind (`GET /api/v1/presets` lists them with their bounds); the kind and preset can't change."""

    kind: KindName | None = PField(None, description=KIND_TEXT)
    preset: PresetName | None = PField(None, description=PRESET_TEXT)
    target: Target | None = PField(None, description=TARGET_TEXT)
    dutch_points: Points | None = PField(None, description=DUTCH_POINTS_TEXT)
    blitz_points: Points | None = PField(None, description=BLITZ_POINTS_TEXT)
    tie_break: TieBreakName | None = PField(None, description=TIE_BREAK_TEXT)
    pile_size: PileSize | None = PField(None, description=PILE_TEXT)
    deck_size: DeckSize | None = PField(None, description=DECK_TEXT)
    must_go_out: Flag | None = PField(None, description=MUST_GO_OUT_TEXT)
    end: EndName | None = PField(None, description=END_TEXT)
    rounds: RoundCount | None = PField(None, description=ROUNDS_TEXT)
    lives: Lives | None = PField(None, description=LIVES_TEXT)
    county: Flag | None = PField(None, description=COUNTY_TEXT)


class RulesCreate(_Params, StrictModel):
    """The game and its house rules; every field may be left out: Dutch Blitz with the official
    rules (target 75, +1, −2, play on). A parameter left out takes the preset's value."""

    kind: KindName = PField(None, description=KIND_TEXT)  # type: ignore[assignment]
    preset: PresetName = PField(None, description=PRESET_TEXT)  # type: ignore[assignment]
    target: Target = PField(None, description=TARGET_TEXT)  # type: ignore[assignment]
    dutch_points: Points = PField(None, description=DUTCH_POINTS_TEXT)  # type: ignore[assignment]
    blitz_points: Points = PField(None, description=BLITZ_POINTS_TEXT)  # type: ignore[assignment]
    tie_break: TieBreakName = PField(None, description=TIE_BREAK_TEXT)  # type: ignore[assignment]
    pile_size: PileSize = PField(None, description=PILE_TEXT)  # type: ignore[assignment]
    deck_size: DeckSize = PField(None, description=DECK_TEXT)  # type: ignore[assignment]
    must_go_out: Flag = PField(None, description=MUST_GO_OUT_TEXT)  # type: ignore[assignment]
    end: EndName = PField(None, description=END_TEXT)  # type: ignore[assignment]
    rounds: RoundCount = PField(None, description=ROUNDS_TEXT)  # type: ignore[assignment]
    lives: Lives = PField(None, description=LIVES_TEXT)  # type: ignore[assignment]
    county: Flag = PField(None, description=COUNTY_TEXT)  # type: ignore[assignment]


class CardsRulesPublic(BaseModel):
    """A `cards` game's rules (Dutch Blitz, Nerts, Ligretto)."""

    kind: Literal["cards"] = PField(description=KIND_TEXT)
    preset: PresetName = PField(description=PRESET_TEXT)
    target: int = PField(description=TARGET_TEXT)
    dutch_points: int = PField(description=DUTCH_POINTS_TEXT)
    blitz_points: int = PField(description=BLITZ_POINTS_TEXT)
    tie_break: TieBreakName = PField(description=TIE_BREAK_TEXT)
    pile_size: int = PField(description=PILE_TEXT)
    deck_size: int = PField(description=DECK_TEXT)
    must_go_out: bool = PField(description=MUST_GO_OUT_TEXT)
    end: EndName = PField(description=END_TEXT)
    rounds: int = PField(description=ROUNDS_TEXT)


class LowestRulesPublic(BaseModel):
    """A `lowest` game's rules (Dutch)."""

    kind: Literal["lowest"] = PField(description=KIND_TEXT)
    preset: PresetName = PField(description=PRESET_TEXT)
    target: int = PField(description=TARGET_TEXT)
    tie_break: TieBreakName = PField(description=TIE_BREAK_TEXT)


class LivesRulesPublic(BaseModel):
    """A `lives` game's rules (31)."""

    kind: Literal["lives"] = PField(description=KIND_TEXT)
    preset: PresetName = PField(description=PRESET_TEXT)
    lives: int = PField(description=LIVES_TEXT)
    county: bool = PField(description=COUNTY_TEXT)


RulesPublic = Annotated[CardsRulesPublic | LowestRulesPublic | LivesRulesPublic, PField(discriminator="kind")]


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
    # Each may be left out (a kind needs only its own), but not sent as null.
    dutch: DutchCount = PField(  # type: ignore[assignment]
        None, description="`cards`: cards the player put on the Dutch piles (the centre) this round. Required there."
    )
    blitz: BlitzCount = PField(  # type: ignore[assignment]
        None,
        description="`cards`: cards left in the player's Blitz (Nerts, Ligretto) pile; 0: they went out. Required there.",
    )
    hand: Hand = PField(  # type: ignore[assignment]
        None,
        description="`lowest` and `lives`: the points in the player's hand (Dutch: 0 and up; 31: 0–31). Required there.",
    )


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
        description="One score per player of the game, each once (`lives`: each player still in). Dutch "
        "Blitz: at most 40 cards each, and at least one player with 0 Blitz cards.",
    )
    caller: PlayerRef | None = PField(None, description='`lowest`: the player who called "Dutch", if anyone did.')
    knocker: PlayerRef | None = PField(None, description="`lives`: the player who knocked, if anyone did.")
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
    total: int = PField(description="Starting score plus every round's points (`lives`: the lives left).")
    rank: int = PField(
        description="1 for first place; equal places share a rank (1, 1, 3). `cards`: by the highest total, "
        "`lowest`: by the lowest, `lives`: by lives left, then the later out the higher."
    )


class LivesPlayerPublic(PlayerPublic):
    """A player of a `lives` game (31)."""

    lives: int = PField(description="The lives left (0: on the county, or out).")
    out: bool = PField(description="Out of the game.")


class ScorePublic(BaseModel):
    """A player's part of a `cards` round."""

    player_id: int
    dutch: int = PField(description="Cards played to the centre (the Dutch piles).")
    blitz: int = PField(description="Cards left in the player's own pile.")
    points: int = PField(description="This round's points under the game's rules.")
    total: int = PField(description="The player's running total after this round.")


class HandScorePublic(BaseModel):
    """A player's part of a `lowest` round (Dutch)."""

    player_id: int
    hand: int = PField(description="The points in the player's hand.")
    points: int = PField(description="This round's points: the hand, or 0 (see the rules in the README).")
    total: int = PField(description="The player's running total after this round.")


class LivesScorePublic(BaseModel):
    """A player's part of a `lives` round (31)."""

    player_id: int
    hand: int = PField(description="The hand's value, 0–31.")
    lives_lost: int = PField(description="The lives this round cost the player (0, 1 or 2).")
    lives: int = PField(description="The player's lives left after this round.")


class RoundPublic(BaseModel):
    """A `cards` round."""

    number: int = PField(description="1 for the first round; deleting a round renumbers the later ones.")
    scores: list[ScorePublic] = PField(description="In seating order.")
    started_at: datetime | None = PField(description='When the round started (its "Blitz!"); null when unknown.')
    duration_s: int | None = PField(description="How long the round lasted, in seconds; null when unknown.")


class LowestRoundPublic(BaseModel):
    """A `lowest` round (Dutch)."""

    number: int = PField(description="1 for the first round; deleting a round renumbers the later ones.")
    scores: list[HandScorePublic] = PField(description="In seating order.")
    caller: int | None = PField(description='Who called "Dutch" (null: nobody).')
    penalty: int | None = PField(
        description="A caller who did not have the lowest hand, and takes a penalty card next round."
    )
    started_at: datetime | None = PField(description="When the round started; null when unknown.")
    duration_s: int | None = PField(description="How long the round lasted, in seconds; null when unknown.")


class LivesRoundPublic(BaseModel):
    """A `lives` round (31)."""

    number: int = PField(description="1 for the first round; deleting a round renumbers the later ones.")
    scores: list[LivesScorePublic] = PField(description="The players still in, in seating order.")
    knocker: int | None = PField(description="Who knocked (null: nobody).")
    void: bool = PField(description="It would have put every player out at once, so it counts for nothing.")
    started_at: datetime | None = PField(description="When the round started; null when unknown.")
    duration_s: int | None = PField(description="How long the round lasted, in seconds; null when unknown.")


class GamePublic(BaseModel):
    id: str = PField(description="The game's id, as in its links.")
    name: str
    version: int = PField(description='Bumped by every change; the ETag is `"<version>"`.')
    created_at: datetime
    updated_at: datetime = PField(description="When the game last changed.")
    status: Literal["playing", "finished"]
    winners: list[int] = PField(description="Player ids; more than one only with `tie_break: shared`.")
    tie_break: bool = PField(description="True while a tie-break round is due (play_on and first place is tied).")
    leaders: list[int] = PField(description="Player ids in first place now (`lowest`: the lowest total).")
    rules: RulesPublic
    players: list[LivesPlayerPublic | PlayerPublic] = PField(description="In seating order.")
    rounds: list[RoundPublic | LowestRoundPublic | LivesRoundPublic]
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
    dutch: int | None = PField(None, description="`cards`: cards the player put on the Dutch piles.")
    blitz: int | None = PField(None, description="`cards`: cards left in the player's Blitz pile.")
    hand: int | None = PField(None, description="`lowest`, `lives`: the hand's points.")


class RoundCardsPublic(BaseModel):
    """A round as entered, every player's part, in seating order."""

    scores: list[CardsPublic]
    caller: int | None = PField(None, description="`lowest`: who called Dutch; `lives`: who knocked.")


class SettingsPublic(BaseModel):
    """The settings a rules change touched, and only those."""

    name: str | None = None
    target: int | None = None
    dutch_points: int | None = None
    blitz_points: int | None = None
    tie_break: TieBreakName | None = None
    pile_size: int | None = None
    deck_size: int | None = None
    must_go_out: bool | None = None
    end: EndName | None = None
    rounds: int | None = None
    lives: int | None = None
    county: bool | None = None


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


class ParamPublic(BaseModel):
    default: int | bool | str = PField(description="The preset's value.")
    type: Literal["integer", "boolean", "string"]
    minimum: int | None = PField(None, description="For integers: the least value allowed.")
    maximum: int | None = PField(None, description="For integers: the greatest value allowed.")
    enum: list[str] | None = PField(None, description="For strings: the values allowed.")


class PresetPublic(BaseModel):
    """A game Blitzboard keeps: its rule family and every parameter, filled in, with its bounds."""

    name: PresetName = PField(description="What `rules.preset` takes.")
    kind: KindName = PField(description="Its rule family, what `rules.kind` says.")
    params: dict[str, ParamPublic] = PField(description="Each parameter of the kind, by its name in `rules`.")
