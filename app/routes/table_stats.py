"""/api/v1/tables/{id}/stats, /head-to-head and /stats.csv: a table's standings and who beats whom,
computed by app.tables.standings. Thin: parse the period and the kind, call, answer.

The ETag is a digest of the answer itself. The table's version is not enough: a round corrected in
one of its games changes the standings without changing the table. So a 304 saves the transfer, not
the queries (they are aggregates over indexed rows: bench/tables.py).
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import AfterValidator, AwareDatetime, BaseModel, BeforeValidator, ConfigDict
from pydantic import Field as PField
from pydantic_core import PydanticCustomError

from app.http.jsonanswer import JSONAnswer
from app.http.problems import problem_responses
from app.i18n import _
from app.preconditions import none_match
from app.routes.deps import IfNoneMatch, SessionDep, TableId, operation_id
from app.spreadsheet import spreadsheet_safe
from app.tables import standings
from app.tables.answers import StatsKind, TableHeadToHead, TableStats

router = APIRouter(prefix="/api/v1", tags=["tables"], generate_unique_id_function=operation_id)


def _iso_8601(value: Any) -> Any:
    """Only ISO 8601 text (pydantic would take a number as seconds since 1970), with a `+` offset sent
    unencoded in a query string (where a + means a space: " 01:00") taken back as the `+` it was."""
    if not isinstance(value, str):
        return value
    if not re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        raise PydanticCustomError("datetime_parsing", "Input should be an ISO 8601 date and time")
    if match := re.fullmatch(r"(.+T[0-9:.,]+) ([0-9]{2}(:?[0-9]{2})?)", value):
        return f"{match[1]}+{match[2]}"
    return value


def _in_utc(value: datetime | None) -> datetime | None:
    """The same moment in UTC; one that UTC can't hold (0001-01-01T00:00+01:00) is refused, not a 500."""
    if value is None:
        return None
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise PydanticCustomError("datetime_parsing", "Input should be an ISO 8601 date and time") from None


Moment = Annotated[AwareDatetime | None, BeforeValidator(_iso_8601), AfterValidator(_in_utc)]


class Period(BaseModel):
    """The query of all three: which games count. An unknown parameter is a 422, not ignored: a client
    that wrote `since=` would otherwise get every game's figures and never know."""

    model_config = ConfigDict(extra="forbid")

    since: Moment = PField(
        None,
        alias="from",
        description="Only games finished at or after this moment: ISO 8601 with a timezone "
        "(`2026-11-01T00:00:00Z`; write a `+` offset as `%2B`). Left out: from the first game.",
    )
    until: Moment = PField(
        None, alias="to", description="Only games finished before this moment, like `from`. Left out: up to now."
    )
    kind: StatsKind | None = PField(
        None,
        description="Only games of this rule family (`cards`, `lowest`, `lives`) or preset (`dutch_blitz`, "
        "`nerts`, ...). Left out: every game.",
    )

    def checked(self) -> Period:
        if self.since is not None and self.until is not None and self.since >= self.until:
            message = _("“to” must be later than “from”.")
            error = {"type": "value_error", "loc": ("query", "to"), "msg": message, "ctx": {"error": message}}
            raise RequestValidationError([error | {"input": self.until}])
        return self


PeriodQuery = Annotated[Period, Query()]

_PERIOD = (
    "`from` and `to` (ISO 8601 with a timezone, `from` included, `to` excluded) pick the games by the moment "
    "they finished (their last round saved); `kind` a rule family or a preset. The `ETag` is a digest of the "
    "answer: send it as `If-None-Match` to get 304 while the figures are unchanged."
)


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _answer(response: Response, if_none_match: str | None) -> Response:
    etag = _etag(response.body)
    if none_match(if_none_match, etag):
        return Response(status_code=304, headers={"ETag": etag})
    response.headers["ETag"] = etag
    return response


@router.get(
    "/tables/{table_id}/stats",
    response_model=TableStats,
    responses=problem_responses(404, 422),
    summary="A table's standings",
    description="Per game (preset) and person: games, wins (shared wins counted, and how many were shared), win "
    "rate, rounds, average points per round, best round, highest and lowest final total, rounds they went out "
    "(called Blitz with 0 left, called Dutch, knocked), average cards left, current winning streak. Only "
    "finished games count. No key needed. " + _PERIOD,
)
def table_stats(
    table_id: TableId,
    session: SessionDep,
    query: PeriodQuery,
    if_none_match: IfNoneMatch = None,
) -> Response:
    period = query.checked()
    body = standings.table_stats(session, table_id, period.since, period.until, period.kind)
    return _answer(JSONAnswer(body), if_none_match)


@router.get(
    "/tables/{table_id}/head-to-head",
    response_model=TableHeadToHead,
    responses=problem_responses(404, 422),
    summary="Who finished ahead of whom at a table",
    description="For every two people who finished a game together: the games, how often each finished ahead "
    "of the other (a better place) and how often they finished level. Only finished games count. No key "
    "needed. " + _PERIOD,
)
def table_head_to_head(
    table_id: TableId,
    session: SessionDep,
    query: PeriodQuery,
    if_none_match: IfNoneMatch = None,
) -> Response:
    period = query.checked()
    body = standings.head_to_head(session, table_id, period.since, period.until, period.kind)
    return _answer(JSONAnswer(body), if_none_match)


# The CSV's columns: the group's, then each person's figures as the JSON names them.
CSV_COLUMNS = (
    "preset",
    "kind",
    "person_id",
    "name",
    "games",
    "wins",
    "shared_wins",
    "win_rate",
    "rounds",
    "average_points",
    "best_round",
    "highest_total",
    "lowest_total",
    "calls",
    "average_cards_left",
    "streak",
)


def standings_csv(stats: dict[str, Any]) -> str:
    """The standings as CSV: a header row, then a row per person and preset (empty where the JSON has null)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for group in stats["groups"]:
        for person in group["people"]:
            row = {"preset": group["preset"], "kind": group["kind"], **person}
            row["name"] = spreadsheet_safe(person["name"])
            writer.writerow("" if row[column] is None else row[column] for column in CSV_COLUMNS)
    return "\ufeff" + out.getvalue()  # a BOM, so spreadsheets read the names as UTF-8


@router.get(
    "/tables/{table_id}/stats.csv",
    summary="A table's standings as CSV",
    description="The standings of `GET /tables/{id}/stats` for a spreadsheet: a header row (`"
    + "`, `".join(CSV_COLUMNS)
    + "`), then one row per preset and person in the same order; empty cells where the JSON has null. "
    + _PERIOD,
    response_class=Response,
    responses={
        200: {"content": {"text/csv": {}}, "description": "The standings as CSV"},
        **problem_responses(404, 422),
    },
)
def table_stats_csv(
    table_id: TableId,
    session: SessionDep,
    query: PeriodQuery,
    if_none_match: IfNoneMatch = None,
) -> Response:
    period = query.checked()
    text = standings_csv(standings.table_stats(session, table_id, period.since, period.until, period.kind))
    response = Response(
        text,
        media_type="text/csv; charset=utf-8",
        # The columns are a data format (English in every language, like a game's CSV).
        headers={
            "Content-Disposition": f'attachment; filename="blitzboard-table-{table_id}-standings.csv"',
            "Content-Language": "en",
        },
    )
    return _answer(response, if_none_match)
