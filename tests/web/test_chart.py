"""The score chart of a long game: at most MAX_POINTS points a line, whatever the rounds, keeping the
start and the last round, each line's extremes and every lead change (the round where the leader
changes and the one before it) while they fit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.scoring import Player, Rules, Score, score_game
from app.web.chart import MAX_POINTS, PHONE, TV, build_chart, kept_rounds, lead_changes

# A line's budget holds the start, the last round and two extremes, and two points per lead change.
FITTING_CHANGES = (MAX_POINTS - 4) // 2


@st.composite
def series_of(draw: st.DrawFn) -> list[list[int]]:
    """Each player's points per round: 2-6 players, 1-400 rounds. The points come from a few values the
    example picks (a small set makes ties and lead changes common), placed by a seeded random: drawing
    2,400 integers one by one through Hypothesis cost seconds per test for nothing it could shrink better."""
    players = draw(st.integers(min_value=2, max_value=6))
    length = draw(st.integers(min_value=1, max_value=400))
    values = draw(st.lists(st.integers(min_value=-20, max_value=40), min_size=1, max_size=6, unique=True))
    random = draw(st.randoms(use_true_random=False))
    return [[random.choice(values) for _ in range(length)] for _ in range(players)]


def running(steps: list[list[int]]) -> dict[int, list[int]]:
    """Each player's running total from 0, by round (0 the start), from each round's points."""
    series = {}
    for pid, points in enumerate(steps, 1):
        total, line = 0, [0]
        for p in points:
            total += p
            line.append(total)
        series[pid] = line
    return series


@settings(max_examples=200, deadline=None)
@given(series_of(), st.booleans())
def test_a_line_never_has_more_points_than_the_cap_and_keeps_its_ends_and_extremes(steps, lowest):
    series = running(steps)
    changes = lead_changes(series, lowest=lowest)
    for values in series.values():
        kept = kept_rounds(values, changes)
        assert len(kept) <= MAX_POINTS
        assert kept == sorted(set(kept))
        assert kept[0] == 0 and kept[-1] == len(values) - 1
        shown = [values[i] for i in kept]
        assert max(shown) == max(values) and min(shown) == min(values)
        if len(values) <= MAX_POINTS:
            assert kept == list(range(len(values)))  # a short game is drawn point for point


@settings(max_examples=200, deadline=None)
@given(series_of(), st.booleans())
def test_every_lead_change_is_kept_while_they_fit_and_the_latest_ones_otherwise(steps, lowest):
    series = running(steps)
    changes = lead_changes(series, lowest=lowest)
    for values in series.values():
        kept = set(kept_rounds(values, changes))
        fitting = changes if len(changes) <= FITTING_CHANGES else changes[-FITTING_CHANGES:]
        for change in fitting:
            assert {change - 1, change} <= kept, (change, changes)


def test_a_lead_change_is_where_the_leaders_differ_from_the_round_before():
    series = {1: [0, 5, 5, 9, 9], 2: [0, 3, 6, 6, 9]}
    assert lead_changes(series) == [1, 2, 3, 4]  # tie at 0, Ana, Ben, Ana, tie again
    assert lead_changes(series, lowest=True) == [1, 2, 3, 4]
    assert lead_changes({1: [0, 1, 2], 2: [0, 0, 0]}) == [1]


@pytest.mark.parametrize("size", [PHONE, TV])
@pytest.mark.parametrize("length", [10, MAX_POINTS, 1000])
def test_a_long_games_chart_has_at_most_the_cap_and_ends_at_the_last_round(size, length):
    players = [Player(i, f"P{i}", 0) for i in range(1, 9)]
    rounds = []
    for n in range(length):
        # Everyone scores a little; the player whose turn it is goes out: the lead moves around.
        out = n % 8 + 1
        rounds.append([Score(p.id, 5 + (p.id * n) % 7, 0 if p.id == out else 3) for p in players])
    state = score_game(players, Rules(target=1_000_000), rounds)
    chart = build_chart(players, state, size)
    right_edge = max(p.x for line in chart.lines for p in line.points)
    for line in chart.lines:
        assert len(line.points) == len(line.rounds) <= MAX_POINTS
        assert line.rounds[0] == 0 and line.rounds[-1] == length
        if length + 1 <= MAX_POINTS:
            assert len(line.points) == length + 1
        else:  # thinned, but still a line with most of its budget drawn
            assert MAX_POINTS // 2 < len(line.points) <= MAX_POINTS
        assert line.points[-1].x == right_edge  # the last round is at the right edge
        xs = [p.x for p in line.points]
        assert xs == sorted(xs)
        assert line.marked == (line.points if length <= 30 else line.points[-1:])
