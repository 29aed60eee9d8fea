"""The answer models of a table's standings and head-to-head (app.tables.standings builds the dicts; these
describe them in the OpenAPI document, and tests/tables/test_table_stats.py checks every answer against them).
Apart from app.answers, which holds the games' and the table's own answers."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict
from pydantic import Field as PField

from app.schemas import KindName, PresetName
from app.tables.standings import STATS_KINDS

# A rule family or a preset, as `kind` of the query and of the answer.
StatsKind = Literal[STATS_KINDS]  # type: ignore[valid-type]

KIND_FILTER_TEXT = "The `kind` asked for: a rule family (`cards`, `lowest`, `lives`) or a preset; null: every game."
FROM_TEXT = "The start of the period asked for (games finished at or after it), in UTC; null: from the first game."
TO_TEXT = "The end of the period asked for (games finished before it), in UTC; null: up to now."


class PersonStanding(BaseModel):
    person_id: int = PField(description="The person's id at the table.")
    name: str = PField(description="The person's name, as on the roster.")
    games: int = PField(description="Finished games they played.")
    wins: int = PField(description="Games they won, shared wins included.")
    shared_wins: int = PField(description="How many of their wins were shared with others (tie_break `shared`).")
    win_rate: float = PField(description="wins / games, rounded to 4 places.")
    rounds: int = PField(description="Rounds they played in those games (`lives`: the rounds they were still in).")
    average_points: float | None = PField(
        description="Their mean points per round, starting scores left out, rounded to 4 places: `cards` Dutch "
        "cards × points per Dutch card + Blitz cards left × points per Blitz card; `lowest` the hand as the round "
        "scored it; `lives` null."
    )
    best_round: int | None = PField(
        description="Their best single round: `cards` the most points, `lowest` the fewest; `lives` null."
    )
    highest_total: int = PField(description="Their highest final total (`lives`: lives left at the end).")
    lowest_total: int = PField(description="Their lowest final total (`lives`: lives left at the end).")
    calls: int = PField(
        description="Rounds they went out: `cards` with 0 cards left in their pile (called Blitz), `lowest` "
        "rounds they called Dutch, `lives` rounds they knocked."
    )
    average_cards_left: float | None = PField(
        description="`cards`: their mean cards left in the pile per round, rounded to 4 places; otherwise null."
    )
    streak: int = PField(
        description="Their current winning streak: how many of their most recent finished games (in the period "
        "and the preset) they won in a row."
    )


class StandingsGroup(BaseModel):
    preset: PresetName = PField(description="The game these standings are of (`GET /api/v1/presets`).")
    kind: KindName = PField(description="Its rule family: `cards`, `lowest` (Dutch) or `lives` (31).")
    people: list[PersonStanding] = PField(
        description="Everyone who finished a game of this preset in the period: by wins, then win rate (both "
        "highest first), then name."
    )


class _Query(BaseModel):
    # `from` is a Python keyword: the field is from_, named "from" in JSON.
    model_config = ConfigDict(populate_by_name=True)

    table_id: str = PField(description="The table's id.")
    from_: datetime | None = PField(alias="from", description=FROM_TEXT)
    to: datetime | None = PField(description=TO_TEXT)
    kind: StatsKind | None = PField(description=KIND_FILTER_TEXT)


class TableStats(_Query):
    groups: list[StandingsGroup] = PField(
        description="One group per preset with finished games in the period, in the order of `GET /presets`."
    )


class HeadToHeadPerson(BaseModel):
    person_id: int = PField(description="The person's id at the table.")
    name: str = PField(description="The person's name, as on the roster.")


class HeadToHeadPair(BaseModel):
    a: int = PField(description="One person's id (the smaller of the two).")
    b: int = PField(description="The other person's id.")
    games: int = PField(description="Finished games they both played.")
    a_ahead: int = PField(description="Games `a` finished ahead of `b` (a better place).")
    b_ahead: int = PField(description="Games `b` finished ahead of `a`.")
    level: int = PField(description="Games they finished level (the same place: both winners, or tied).")


class TableHeadToHead(_Query):
    people: list[HeadToHeadPerson] = PField(
        description="Everyone who finished a game in the period, by name (the matrix's rows and columns)."
    )
    pairs: list[HeadToHeadPair] = PField(
        description="Every two people who finished a game together in the period, by `a`, then `b`."
    )
