"""The API's request models, a family per entity: what a request may carry (strict JSON integers, the
ranges of the rules engine, so the API, the pages and the engine can't disagree). What an answer
holds is in app.answers, the tables in app.models.

Past 400 lines (about 465), on purpose, as app.answers is: the OpenAPI document's request side,
one small model per shape with each field's description (most of its lines), read as one by a client's
author; a split by entity would scatter the shared bounds (counts, names, keys) it defines once at the top.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainValidator,
    Strict,
    WithJsonSchema,
)
from pydantic import Field as PField
from pydantic_core import PydanticCustomError

from app.i18n import _
from app.rules import scoring, timing

# Ranges come from the rules engine so the API, the pages and the engine can't disagree.
# Numbers are strict JSON integers: true, "5" and 5.0 are refused (lax parsing would read true as 1).
Name = str  # trimmed and checked by names.name_problem (the 64 KiB body limit bounds it before that)
StartingScore = Annotated[int, Strict(), PField(ge=scoring.STARTING_SCORE_RANGE[0], le=scoring.STARTING_SCORE_RANGE[1])]
Points = Annotated[int, Strict(), PField(ge=scoring.POINTS_RANGE[0], le=scoring.POINTS_RANGE[1])]
Target = Annotated[int, Strict(), PField(ge=scoring.TARGET_RANGE[0], le=scoring.TARGET_RANGE[1])]
# Card counts are parsed wide and judged by the rules, whose messages name the player ("Ana's Blitz
# cards must be between 0 and 10"); the document declares the widest ranges any game's house rules
# allow (a deck of up to 208 cards, a pile of up to 52: Dutch Blitz's own 40 and 10 are its preset's,
# listed with every game's by GET /api/v1/presets), so it never refuses a round a game takes.
DutchCount = Annotated[
    int,
    Strict(),
    PField(ge=-1_000_000, le=1_000_000),
    WithJsonSchema({"type": "integer", "minimum": 0, "maximum": scoring.BOUNDS["deck_size"][1]}),
]
BlitzCount = Annotated[
    int,
    Strict(),
    PField(ge=-1_000_000, le=1_000_000),
    WithJsonSchema({"type": "integer", "minimum": 0, "maximum": scoring.BOUNDS["pile_size"][1]}),
]


_WIDE = 1_000_000  # a hand is parsed this wide and judged by the rules, whose messages name the player


def _hand_number(value: object) -> int | float:
    """A whole hand is a JSON integer (true, "5" and 5.0 are refused, as every count is); a number with a
    fraction goes on to the rules, which take 31's 30.5 under its house rule and say what is wrong with any
    other. One plain validator, so a refusal names the field itself (`scores[0].hand`)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    if isinstance(value, float) and (value.is_integer() or not math.isfinite(value)):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    if value < -_WIDE:
        raise PydanticCustomError("greater_than_equal", "Input should be greater than or equal to {ge}", {"ge": -_WIDE})
    if value > _WIDE:
        raise PydanticCustomError("less_than_equal", "Input should be less than or equal to {le}", {"le": _WIDE})
    return value


# A hand: a whole number, or 30.5 (31's three of a kind, with the house rule `thirty_and_a_half`).
Hand = Annotated[
    int | float,
    PlainValidator(_hand_number),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": scoring.HAND_RANGE[1]},
                {"type": "number", "const": scoring.HALF_HAND},
            ]
        }
    ),
]
PileSize = Annotated[int, Strict(), PField(ge=scoring.BOUNDS["pile_size"][0], le=scoring.BOUNDS["pile_size"][1])]
DeckSize = Annotated[int, Strict(), PField(ge=scoring.BOUNDS["deck_size"][0], le=scoring.BOUNDS["deck_size"][1])]
RoundCount = Annotated[int, Strict(), PField(ge=scoring.BOUNDS["rounds"][0], le=scoring.BOUNDS["rounds"][1])]
Lives = Annotated[int, Strict(), PField(ge=scoring.BOUNDS["lives"][0], le=scoring.BOUNDS["lives"][1])]
# The cards on the centre piles ("Check the piles"): parsed wide and judged against the game (its players
# and deck), whose message says the bound; the document declares the widest any game allows.
PileCount = Annotated[
    int,
    Strict(),
    PField(ge=-1_000_000, le=1_000_000),
    WithJsonSchema({"type": "integer", "minimum": 0, "maximum": scoring.MAX_PLAYERS * scoring.BOUNDS["deck_size"][1]}),
]
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
WinName = Literal["highest_total", "first_to_target"]

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
WIN_TEXT = (
    "`cards` with `end: target`: who wins once someone reaches the target. `highest_total` (the default): the "
    "highest total then; `first_to_target`: whoever reached it in the earliest round, several who reached it "
    "in that round being tied whatever their totals (the tie-break decides: `shared`, or `play_on`: the most "
    "points scored since). `first_to_target` with `end: rounds` is refused."
)
THIRTY_AND_A_HALF_TEXT = (
    "`lives`: three of a kind counts 30½ (a round's `hand` of 30.5), which beats every hand but a 31; "
    "off by default (a hand is then a whole number)."
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
    thirty_and_a_half: Flag | None = PField(None, description=THIRTY_AND_A_HALF_TEXT)
    win: WinName | None = PField(None, description=WIN_TEXT)


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
    thirty_and_a_half: Flag = PField(None, description=THIRTY_AND_A_HALF_TEXT)  # type: ignore[assignment]
    win: WinName = PField(None, description=WIN_TEXT)  # type: ignore[assignment]


class PlayerCreate(StrictModel):
    name: Name = PField(description=f"The player's name: {NAME_TEXT}; unique in the game ignoring case.")
    starting_score: StartingScore = PField(0, description="Points carried over (from a paper sheet, say).")


TableId = Annotated[str, PField(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
TABLE_NAME_TEXT = "The table's name (a family, a club): up to 80 characters, not empty."


class PlayerUpdate(StrictModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"name": "Ana"}, {"left": True}, {"name": "Ana", "left": False}]},
    )

    name: Name | None = PField(
        None,
        description=f"The player's new name: {NAME_TEXT}; unique in the game ignoring case. At a table, the "
        "roster's person of that name (a name not on the roster is refused). Left out: the name stays.",
    )
    left: Flag | None = PField(  # type: ignore[assignment]
        None,
        description="`true`: the player has left the game: they keep the rounds they played and are in no new "
        "round. `false`: they are back, only while no round was played since they left. Left out: unchanged.",
    )


class PlayerIn(StrictModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"name": "Cy"}, {"name": "Cy", "starting_score": 20}, {"name": "Cy", "lives": 2}]
        },
    )

    name: Name = PField(
        description=f"The latecomer's name: {NAME_TEXT}; unique in the game ignoring case. At a table, someone on "
        "the roster (the player takes the roster's spelling)."
    )
    starting_score: StartingScore | None = PField(  # type: ignore[assignment]
        None,
        description="The total they start with. Left out: last place's total among the players still in (the "
        "lowest; in Dutch, lowest wins, the highest), so nobody who played all along is put behind them. "
        "Not in 31 (send `lives`).",
    )
    lives: Annotated[int, Strict()] | None = PField(  # checked by the use case, with the message
        None,
        description="31 only: the lives they come with, 1 to the rules' `lives`. Left out: the fewest lives of "
        "the players still in (at least 1).",
    )


class SeatClaim(StrictModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"link": "0f3c9a…"}]})

    link: str = PField(
        max_length=200,
        description="The seat link's key: the last part of the game's seat link (`GET .../seats`, the scorekeeper's).",
    )


class DraftRowIn(StrictModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"round": 3, "dutch": 12, "blitz": 0}, {"round": 3, "hand": 7, "called": True}]
        },
    )

    round: Annotated[int, Strict()] = PField(
        ge=1,
        le=100_000,
        description="The round this row is for: the game's rounds plus one (409 when the round was saved since).",
    )
    dutch: Annotated[int, Strict()] | None = PField(
        None, ge=0, le=1000, description="`cards`: the cards played to the centre (Dutch cards)."
    )
    blitz: Annotated[int, Strict()] | None = PField(
        None, ge=0, le=1000, description="`cards`: the cards left in the player's own pile (Blitz cards)."
    )
    hand: Hand | None = PField(
        None,
        description="`lowest` and `lives`: the points in the player's hand (31: 0–31, or 30.5 with "
        "`thirty_and_a_half`).",
    )
    called: Flag = PField(  # type: ignore[assignment]
        False, description="`lowest`: this player called Dutch; `lives`: this player knocked."
    )


PERSON_NAME_TEXT = f"The person's name: {NAME_TEXT}; unique at the table ignoring case."


class PersonIn(StrictModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"name": "Ana"}]})

    name: Name = PField(description=PERSON_NAME_TEXT)


class TableCreate(StrictModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"name": "The Millers", "people": [{"name": "Ana"}, {"name": "Ben"}]}]},
    )

    name: Name = PField(description=TABLE_NAME_TEXT)
    people: list[PersonIn] = PField(
        default_factory=list, max_length=200, description="The roster to start with (more join with each game)."
    )


class TableUpdate(StrictModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"name": "The Millers, Tuesdays"}]})

    name: Name = PField(description=TABLE_NAME_TEXT)


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
    table_id: TableId | None = PField(
        None,
        description="Play the game at a table (`POST /tables`): send the table's edit key as "
        "`Authorization: Bearer <table key>`. Each player is the person of the table's roster with that "
        "name (ignoring case, the roster's spelling kept); a new name joins the roster.",
    )


class SeatSettings(StrictModel):
    """How players entering their own rows (their seats) work in this game; only the settings sent change."""

    model_config = ConfigDict(extra="forbid")

    save_round: Flag | None = PField(  # type: ignore[assignment]
        None,
        description="The round saves by itself once every player still in has sent their row and the rows "
        "make a valid round (off by default: the scorekeeper saves it).",
    )
    on_view: Flag | None = PField(  # type: ignore[assignment]
        None,
        description="The view page offers the seat link to everyone who follows the game (off by default: "
        "only the scorekeeper hands it out).",
    )


class GameUpdate(StrictModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"name": "Saturday", "rules": {"target": 100}}]}
    )

    name: str | None = PField(None, description="A new name for the game (empty: none).")
    rules: RulesUpdate | None = PField(None, description="Rules to change.")
    seats: SeatSettings | None = PField(None, description="How players entering their own rows works.")


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
        description="`lowest` and `lives`: the points in the player's hand (Dutch: 0 and up; 31: 0–31, or 30.5 "
        "for three of a kind when the game's rules say `thirty_and_a_half`). Required there.",
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
    piles: PileCount | None = PField(  # type: ignore[assignment]
        None,
        description="`cards`: the cards on the centre piles at the round's end as the table counted them "
        '("Check the piles"), from 0 to the players\' decks together. Kept with the round. When it differs '
        "from the sum of the rows' `dutch`, the round is refused (422 `piles-differ`) unless `piles_anyway` "
        "is true. A correction: left out keeps the round's count, null clears it.",
    )
    piles_anyway: Flag = PField(  # type: ignore[assignment]
        False,
        description="Save the round with its `piles` even though they differ from the rows' `dutch` (the "
        'house decides, as the form\'s "Save anyway"). Not kept.',
    )
