"""The pure parts of a table's standings pages: the period a query asks for (app.web.periods),
the head-to-head's short column labels (app.web.standings.short_labels) and the geometry of a person's
results chart (app.web.results_chart), table-driven."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from starlette.datastructures import QueryParams

from app.web.periods import read_period
from app.web.results_chart import MAX_GAMES, build_results_chart
from app.web.standings import short_labels

NOW = datetime(2026, 11, 7, 1, 30, tzinfo=UTC)  # the small hours after a Friday night


@pytest.mark.parametrize(
    ("query", "key", "since", "day", "link"),
    [
        ("", "all", None, "2026-01-01", ""),
        ("period=tonight", "tonight", datetime(2026, 11, 6, 13, 30, tzinfo=UTC), "2026-01-01", "?period=tonight"),
        ("period=30d", "30d", datetime(2026, 10, 8, 1, 30, tzinfo=UTC), "2026-01-01", "?period=30d"),
        ("from=2026-09-01", "season", datetime(2026, 9, 1, tzinfo=UTC), "2026-09-01", "?from=2026-09-01"),
        (
            "from=2026-09-01&period=tonight",
            "season",
            datetime(2026, 9, 1, tzinfo=UTC),
            "2026-09-01",
            "?from=2026-09-01",
        ),
        ("from=%202026-09-01%20", "season", datetime(2026, 9, 1, tzinfo=UTC), "2026-09-01", "?from=2026-09-01"),
        ("period=all", "all", None, "2026-01-01", ""),
        ("period=<script>", "all", None, "2026-01-01", ""),
    ],
)
def test_the_period_a_query_asks_for(query: str, key: str, since: datetime | None, day: str, link: str):
    period = read_period(QueryParams(query), NOW)
    assert (period.key, period.since, period.day, period.error, period.query) == (key, since, day, None, link)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "Pick the day the season began."),
        ("tomorrow", "That is not a date: pick a day."),
        ("2026-02-30", "That is not a date: pick a day."),
        ("20260901", "That is not a date: pick a day."),  # fromisoformat would take it; a date field never sends it
        ("2026-09-01T10:00", "That is not a date: pick a day."),
        ("x" * 500, "That is not a date: pick a day."),
    ],
)
def test_a_season_that_is_not_a_date_is_all_time_with_a_message(typed: str, message: str):
    period = read_period(QueryParams({"from": typed}), NOW)
    assert (period.key, period.since, period.error, period.query) == ("all", None, message, "")
    assert period.day == typed.strip()[:40]  # shown back in the field, as typed (bounded)


def test_tonight_is_the_last_twelve_hours_and_a_season_starts_at_midnight_utc():
    assert NOW - read_period(QueryParams("period=tonight"), NOW).since == timedelta(hours=12)
    assert NOW - read_period(QueryParams("period=30d"), NOW).since == timedelta(days=30)
    assert read_period(QueryParams("from=2026-11-07"), NOW).since == datetime(2026, 11, 7, tzinfo=UTC)


@pytest.mark.parametrize(
    ("names", "labels"),
    [
        ([], []),
        (["Ana", "Ben", "Cy", "Dee"], ["A", "B", "C", "D"]),
        (["Ana", "Ben", "Bea", "Cy"], ["A", "Ben", "Bea", "C"]),
        (["Ana", "Ana Maria", "ana b"], ["Ana", "Ana M", "ana b"]),
        (["Ana Maria", "Ana"], ["Ana M", "Ana"]),  # whichever comes first
        (["B", "Bx", "by"], ["B", "Bx", "by"]),
        (["ben", "BEA"], ["ben", "BEA"]),  # ignoring case, as the roster does
        (["Émile", "Eve", "Ève"], ["É", "E", "È"]),  # an accent tells letters apart
        (["E\u0301mile", "Eve"], ["E\u0301", "E"]),  # an accent typed apart stays with its letter
        (["👩\u200d👩\u200d👧 Fam", "👩 Mum"], ["👩\u200d👩\u200d👧", "👩"]),  # a ZWJ emoji is one letter
        (["Alexander", "Alexandra"], ["Alexande", "Alexandr"]),
    ],
)
def test_short_labels_are_the_shortest_that_tell_people_apart(names: list[str], labels: list[str]):
    assert short_labels(names) == labels


def test_a_results_chart_puts_higher_totals_higher_and_wins_as_stars():
    chart = build_results_chart([40, 81, 75, 16], [False, True, True, False])
    ys = [m.y for m in chart.marks]
    assert ys[1] < ys[2] < ys[0] < ys[3]  # 81 at the top, 16 at the bottom
    xs = [m.x for m in chart.marks]
    assert xs == sorted(xs) and chart.left < xs[0] and xs[-1] < chart.right
    assert [m.won for m in chart.marks] == [False, True, True, False]
    assert [v for v, _ in chart.ticks] == [0, 20, 40, 60, 80, 100]  # round steps around every total
    assert [n for n, _ in chart.x_labels] == [1, 2, 3, 4]
    assert chart.path.count(",") == 4


def test_a_results_chart_of_places_has_first_at_the_top():
    chart = build_results_chart([1, 3, 2], [True, False, False], places=True)
    assert [v for v, _ in chart.ticks] == [1, 2, 3]
    assert chart.marks[0].y < chart.marks[2].y < chart.marks[1].y
    assert dict(chart.ticks)[1] == chart.marks[0].y


def test_one_game_sits_in_the_middle_and_a_level_chart_still_has_a_scale():
    chart = build_results_chart([75], [True])
    assert chart.marks[0].x == pytest.approx((chart.left + chart.right) / 2)
    assert len(chart.ticks) >= 2 and chart.ticks[0][1] != chart.ticks[-1][1]
    negative = build_results_chart([-30, -12], [False, False])
    assert negative.ticks[0][0] <= -30 and all(0 <= m.y <= negative.height for m in negative.marks)


def test_the_game_numbers_under_a_full_chart_fit_beside_each_other():
    chart = build_results_chart(list(range(MAX_GAMES)), [False] * MAX_GAMES)
    numbers = [n for n, _ in chart.x_labels]
    assert numbers[0] == 1 and len(numbers) < MAX_GAMES
    xs = [x for _, x in chart.x_labels]
    width = 0.6 * chart.font * 3  # "50" and a gap
    assert all(b - a >= width for a, b in itertools.pairwise(xs))
