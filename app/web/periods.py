"""The period picker of a table's pages: which finished games their figures count, read from
the page's query string, so every period is a plain link (or, for a season, a GET form) that works
without JavaScript and can be shared.

- "Tonight" (`?period=tonight`): games that finished in the last 12 hours. A game night that began at
  19:00 is still "tonight" at 2 in the morning, and last night's games (a day earlier) are not; the
  server knows nobody's time zone or bedtime, and 12 hours needs neither.
- "Last 30 days" (`?period=30d`): games that finished in the last 30 × 24 hours.
- "This season" (`?from=YYYY-MM-DD`): games that finished on or after that day, from its start in UTC
  (the server does not know the viewer's time zone: east or west of UTC the season starts a few hours
  off their midnight). The viewer picks the day with `<input type=date>`; until they do, the form
  offers the first of January of this year.
- "All time" (no query, or `?period=all`): every finished game, the default; the table's page opens on
  "Tonight" instead when one of its games finished in the last 12 hours (a table night: the route asks,
  app.tables.nights), and its "All time" link then says `?period=all`.

An unknown `period` shows all time (a stale or mangled link still shows the figures, marked as all
time); a `from` that is not a date comes back beside the date field, with the figures of all time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlencode

from starlette.datastructures import QueryParams

from app.i18n import _
from app.tables.nights import TONIGHT

MONTH = timedelta(days=30)
KEYS = ("tonight", "30d", "season", "all")  # the picker's order
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True, slots=True)
class Period:
    key: str  # one of KEYS
    since: datetime | None  # the first moment that counts; None: from the first game
    day: str  # the season's first day as the form shows it (YYYY-MM-DD)
    error: str | None = None  # why the typed day was not taken
    default: str = "all"  # the period the page shows without a query ("tonight" on a table night)

    @property
    def query(self) -> str:
        """The query string that picks this period again ("" for all time), for links and form actions."""
        if self.key == "season":
            return "?" + urlencode({"from": self.day})
        if self.key in ("tonight", "30d") or self.default != "all":
            return "?" + urlencode({"period": self.key})
        return ""


def read_period(params: QueryParams, now: datetime, default: str = "all") -> Period:
    """The period a page's query asks for (`from` first: a season picked by its form); `default` ("all" or
    "tonight"): what a query that picks none shows."""
    first_of_year = date(now.year, 1, 1).isoformat()
    if "from" in params:
        typed = params["from"].strip()[:40]
        day = _day(typed)
        if day is None:
            message = _("Pick the day the season began.") if not typed else _("That is not a date: pick a day.")
            return Period("all", None, typed, message, default)
        return Period("season", datetime(day.year, day.month, day.day, tzinfo=UTC), day.isoformat(), None, default)
    period = params.get("period", default)
    if period == "tonight":
        return Period("tonight", now - TONIGHT, first_of_year, None, default)
    if period == "30d":
        return Period("30d", now - MONTH, first_of_year, None, default)
    return Period("all", None, first_of_year, None, default)


def _day(typed: str) -> date | None:
    # Only YYYY-MM-DD (what <input type=date> sends), not the other shapes fromisoformat takes.
    if not _DATE.fullmatch(typed):
        return None
    try:
        return date.fromisoformat(typed)
    except ValueError:
        return None


def period_links(path: str, period: Period) -> list[dict[str, object]]:
    """The picker's links (the season is its form), each with where it goes and whether it is shown now."""
    return [
        {
            "key": key,
            "url": path + Period(key, None, period.day, None, period.default).query,
            "current": period.key == key,
        }
        for key in KEYS
        if key != "season"
    ]
