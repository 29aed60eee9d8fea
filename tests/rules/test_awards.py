"""The end-of-game awards (app.rules.awards): a table of games of every kind, each worked out by hand from the
rules, then hypothesis properties over many generated games played to their end.

Round points by hand: `cards` is Dutch cards less 2 per Blitz card left; `lowest` (Dutch) is the hand,
0 for a caller with the lowest hand (or, when the caller is not lowest, for the lowest hands); `lives`
(31) loses a life for the lowest hand, two for a sole-lowest knocker.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.awards import CODES, Award, awards
from app.rules.scoring import PRESETS, GameState, Player, Rules, Score, score_game, validate_round, with_params

ANA, BEN, CY, DEE = 1, 2, 3, 4
NAMES = {ANA: "Ana", BEN: "Ben", CY: "Cy", DEE: "Dee"}
DUTCH_BLITZ = PRESETS["dutch_blitz"]
SHARED = with_params(DUTCH_BLITZ, {"tie_break": "shared"})
LIGRETTO = PRESETS["ligretto"]
DUTCH = PRESETS["dutch"]
T31 = PRESETS["thirty_one"]  # 3 lives, the county


def seated(starts: Sequence[int]) -> list[Player]:
    return [Player(pid, NAMES[pid], start) for pid, start in zip(NAMES, starts, strict=False)]


def cards(*counts: tuple[int, int]) -> list[Score]:
    """A `cards` round: (Dutch cards, Blitz cards left) in seat order."""
    return [Score(pid, dutch, blitz) for pid, (dutch, blitz) in zip(NAMES, counts, strict=False)]


def hands(*shown: int | None, called: int | None = None) -> list[Score]:
    """A Dutch or 31 round: hands in seat order (None: out of the game), and who called or knocked."""
    return [Score(pid, hand=h, called=pid == called) for pid, h in zip(NAMES, shown, strict=False) if h is not None]


def played(rules: Rules, starts: Sequence[int], rounds: list[list[Score]]) -> GameState:
    players = seated(starts)
    for number, scores in enumerate(rounds, start=1):  # every round as a real table could enter it
        before = score_game(players, rules, rounds[: number - 1])
        assert not before.over, f"round {number} comes after the end"
        caller = next((s.player_id for s in scores if s.called), None)
        assert validate_round(players, scores, rules, caller, before) == [], number
    return score_game(players, rules, rounds)


# The worked example of DESIGN.md: before the round Ana 58, Ben 70, Cy 30, Dee 20; Ana wins with 80.
WORKED = (DUTCH_BLITZ, [58, 70, 30, 20], [cards((22, 0), (14, 3), (11, 5), (9, 7))])

# Cy trails, then wins. Points and totals (Ana, Ben, Cy) per round:
# +20 +11 −7 (20 11 −7: Cy 3rd); +4 +18 +8 (24 29 1: Cy 3rd); 0 +6 +30 (24 35 31); +6 +6 +30 (30 41 61);
# +8 +2 +20 (38 43 81): Cy reaches 75. Population standard deviations: Ana √45.44, Ben √30.24, Cy more.
COMEBACK = (
    DUTCH_BLITZ,
    [0, 0, 0],
    [
        cards((20, 0), (15, 2), (5, 6)),
        cards((10, 3), (18, 0), (12, 2)),
        cards((8, 4), (10, 2), (30, 0)),
        cards((10, 2), (12, 3), (30, 0)),
        cards((10, 1), (10, 4), (20, 0)),
    ],
)

# A shared win (house rule): Ana 20 5 30 20, Ben 5 20 30 20, Cy 10 10 −20 2 -> 75 75 2. Ana and Ben
# scored the same points in another order: the same spread (√79.6875). Ben was 3rd after round 1.
SHARED_WIN = (
    SHARED,
    [0, 0, 0],
    [
        cards((20, 0), (9, 2), (10, 0)),
        cards((9, 2), (20, 0), (10, 0)),
        cards((30, 0), (30, 0), (0, 10)),
        cards((20, 0), (20, 0), (6, 2)),
    ],
)

# Another shared win: Ana 10 30 10 25, Ben 20 0 30 25, Cy 30 −2 −2 −2. Totals 10 20 30 (Ana 3rd),
# 40 20 28 (Ben 3rd), 50 50 26, 75 75 24. Each scored +30 once, in a round of their own.
APART = (
    SHARED,
    [0, 0, 0],
    [
        cards((10, 0), (20, 0), (30, 0)),
        cards((30, 0), (8, 4), (0, 1)),
        cards((10, 0), (30, 0), (0, 1)),
        cards((25, 0), (25, 0), (0, 1)),
    ],
)

# Dutch (the game of tests/web/test_game_pages_kinds.py): totals 0 10 20 (Ana called lowest), 15 10 50 (Ana
# called, Ben lowest: Ana 2nd), 25 25 110 (a tie-break), 30 32 110 (Ana called, Cy lowest): Ana wins. Everyone
# scored 0 once.
# Points: Ana 0 15 10 5 (√31.25), Ben 10 0 15 7 (√29.5), Cy 20 30 60 0.
DUTCH_GAME = (
    DUTCH,
    [0, 0, 0],
    [hands(3, 10, 20, called=ANA), hands(15, 2, 30, called=ANA), hands(10, 15, 60), hands(5, 7, 1, called=ANA)],
)

# 31: Ana knocks and loses two, then one, then is out in round 3; Ben's 31; Cy knocks and loses two,
# then is out in round 6. Ben never stood below first (tied with Cy after round 1).
T31_GAME = (
    T31,
    [0, 0, 0],
    [
        hands(10, 20, 25, called=ANA),
        hands(10, 20, 25),
        hands(10, 20, 25),
        hands(None, 31, 20),
        hands(None, 20, 10, called=CY),
        hands(None, 20, 10),
    ],
)

# 31 won from last place: Ana loses a life in round 1 (lives 2 3 3: 3rd), then keeps the rest; Ben knocks
# in round 4 and is out in round 5, Cy knocks in round 6 and is out in round 7.
T31_COMEBACK = (
    T31,
    [0, 0, 0],
    [
        hands(5, 20, 25),
        hands(20, 5, 25),
        hands(20, 25, 5),
        hands(20, 5, 25, called=BEN),
        hands(20, 5, 25),
        hands(20, None, 5, called=CY),
        hands(20, None, 5),
    ],
)

CASES: list[tuple[str, tuple[Rules, list[int], list[list[Score]]], tuple[Award, ...]]] = [
    ("worked example: one round, no comeback, no steadiest", WORKED, (
        Award("best_round", (ANA,), 22, 1),
        Award("most_calls", (ANA,), 1),
    )),
    ("a comeback from 3rd after round 2", COMEBACK, (
        Award("best_round", (CY,), 30, 3),  # scored in rounds 3 and 4: the first counts
        Award("most_calls", (CY,), 3),
        Award("comeback", (CY,), 3, 2, rank=3),  # 3rd after rounds 1 and 2: the latest
        Award("steadiest", (BEN,), math.sqrt(30.24)),
    )),
    ("a shared win: ties share the best round, the calls and the steadiest", SHARED_WIN, (
        Award("best_round", (ANA, BEN), 30, 3),
        Award("most_calls", (ANA, BEN), 3),
        Award("comeback", (BEN,), 3, 1, rank=3),  # Ana led throughout: only Ben came back
        Award("steadiest", (ANA, BEN), math.sqrt(79.6875)),
    )),
    ("co-winners low in different rounds; a best round everyone scored", APART, (
        Award("most_calls", (ANA,), 4),
        Award("comeback", (ANA, BEN), 3, None, rank=3),
        Award("steadiest", (ANA,), math.sqrt(79.6875)),
    )),
    ("two rounds: no steadiest yet; a best round in different rounds", (DUTCH_BLITZ, [0, 50, 0], [
        cards((20, 0), (10, 2), (5, 5)),  # +20 +6 −5: 20 56 −5
        cards((10, 4), (20, 0), (6, 4)),  # +2 +20 −2: 22 76 −7, Ben wins having led throughout
    ]), (
        Award("best_round", (ANA, BEN), 20, None),
        Award("most_calls", (ANA, BEN), 1),
    )),
    ("Ligretto: nobody went out, so no most calls", (LIGRETTO, [95, 0, 0], [cards((10, 1), (5, 3), (4, 2))]), (
        Award("best_round", (ANA,), 8, 1),
    )),
    ("Dutch: every player scored 0 once, so no best round", DUTCH_GAME, (
        Award("most_calls", (ANA,), 3),
        Award("comeback", (ANA,), 2, 2, rank=2),
        Award("steadiest", (BEN,), math.sqrt(29.5)),
    )),
    ("Dutch: the lowest round is the best; nobody called", (DUTCH, [0, 0, 95], [hands(4, 6, 8)]), (
        Award("best_round", (ANA,), 4, 1),
    )),
    ("Dutch: starting scores count in the ranks", (DUTCH, [30, 0, 0], [
        hands(0, 5, 10, called=ANA),  # 30 5 10: Ana 3rd
        hands(0, 30, 40, called=ANA),  # 30 35 50
        hands(0, 40, 50, called=ANA),  # 30 75 100: Ana wins
    ]), (
        Award("best_round", (ANA,), 0, 1),
        Award("most_calls", (ANA,), 3),
        Award("comeback", (ANA,), 3, 1, rank=3),
        Award("steadiest", (ANA,), 0.0),
    )),
    ("31: knocks shared, no comeback for a winner never below first, no best round or steadiest", T31_GAME, (
        Award("most_calls", (ANA, CY), 1),
    )),
    ("31: from last place by lives to the win", T31_COMEBACK, (
        Award("most_calls", (BEN, CY), 1),
        Award("comeback", (ANA,), 3, 1, rank=3),
    )),
]  # fmt: skip


def same(found: tuple[Award, ...], expected: tuple[Award, ...]) -> None:
    """Equal, a standard deviation to the float's precision (√30.24 is not exact in binary)."""
    assert [a.code for a in found] == [a.code for a in expected], found
    for got, want in zip(found, expected, strict=True):
        assert (got.player_ids, got.round_number, got.rank) == (want.player_ids, want.round_number, want.rank), got
        assert type(got.value) is type(want.value) and math.isclose(got.value, want.value), got


@pytest.mark.parametrize(("game", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_awards_of_a_finished_game(game: tuple[Rules, list[int], list[list[Score]]], expected: tuple[Award, ...]):
    state = played(*game)
    assert state.over
    same(awards(state), expected)


# Games not over: no awards, whatever the rounds held.
NOT_OVER = [
    ("no rounds", (DUTCH_BLITZ, [0, 0, 0], [])),
    ("short of the target", (DUTCH_BLITZ, [0, 0, 0], COMEBACK[2][:4])),
    ("a tie at the top: a tie-break round is due", (DUTCH_BLITZ, [70, 70], [cards((5, 0), (5, 0))])),
    ("Dutch in a tie-break", (DUTCH, [0, 0, 0], DUTCH_GAME[2][:3])),
    ("31 with two players still in", (T31, [0, 0, 0], T31_GAME[2][:5])),
]


@pytest.mark.parametrize("game", [c[1] for c in NOT_OVER], ids=[c[0] for c in NOT_OVER])
def test_a_game_that_is_not_over_has_no_awards(game: tuple[Rules, list[int], list[list[Score]]]):
    state = played(*game)
    assert not state.over
    assert awards(state) == ()


def test_ties_are_named_in_seating_order_not_by_the_standings():
    # Each round: Ana +5, Ben +28, Cy +6, Dee +12; Ana and Dee call Blitz. Ben wins on 84 after three.
    state = played(DUTCH_BLITZ, [0, 0, 0, 0], [cards((5, 0), (30, 1), (10, 2), (12, 0)) for _ in range(3)])
    assert [s.player.id for s in state.standings] == [BEN, DEE, CY, ANA]
    same(
        awards(state),
        (
            Award("best_round", (BEN,), 28, 1),
            Award("most_calls", (ANA, DEE), 3),
            # Nobody's points ever changed: all four "steadiest" at 0 says nothing, so no award.
        ),
    )


# --- properties ---------------------------------------------------------------------------------


@st.composite
def games(draw: st.DrawFn, kind: str) -> tuple[Rules, list[int], list[list[Score]]]:
    """A game of this kind as a table could play it: valid rounds, none after the end (which most reach)."""
    n = draw(st.integers(2, 4))
    if kind == "cards":
        tie = draw(st.sampled_from(["play_on", "shared"]))
        rules = with_params(DUTCH_BLITZ, {"target": draw(st.sampled_from([20, 40, 75])), "tie_break": tie})
        starts = draw(st.lists(st.sampled_from([-10, 0, 10, 30]), min_size=n, max_size=n))
    elif kind == "lowest":
        rules = with_params(DUTCH, {"target": draw(st.sampled_from([30, 60])), "tie_break": "play_on"})
        starts = draw(st.lists(st.sampled_from([0, 5, 20]), min_size=n, max_size=n))
    else:
        rules, starts = with_params(T31, {"lives": draw(st.integers(1, 3))}), [0] * n
    players = seated(starts)
    rounds: list[list[Score]] = []
    state = score_game(players, rules, rounds)
    while not state.over and len(rounds) < 30:
        if kind == "cards":
            counts = draw(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 10)), min_size=n, max_size=n))
            out = draw(st.integers(0, n - 1))
            counts[out] = (counts[out][0], 0)  # someone called Blitz
            scores = cards(*counts)
        else:
            high = 30 if kind == "lowest" else 31
            shown = [None if p.id in state.out else draw(st.integers(0, high)) for p in players]
            caller = draw(
                st.sampled_from([None] + [p.id for p, h in zip(players, shown, strict=True) if h is not None])
            )
            scores = hands(*shown, called=caller)
        rounds.append(scores)
        state = score_game(players, rules, rounds)
    return rules, starts, rounds


def check(rules: Rules, starts: list[int], rounds: list[list[Score]]) -> None:
    """Every award against what the rounds and the game's own standings after each round say."""
    players = seated(starts)
    state = score_game(players, rules, rounds)
    found = {a.code: a for a in awards(state)}
    if not state.over:
        assert found == {}
        return
    seats = [p.id for p in players]
    assert list(found) == [code for code in CODES if code in found]
    for award in found.values():
        assert award.player_ids and list(award.player_ids) == [pid for pid in seats if pid in award.player_ids]

    kind = rules.kind.value
    points = {pid: [s.points for r in state.rounds for s in r.scores if s.player_id == pid] for pid in seats}
    if kind == "lives":
        assert "best_round" not in found and "steadiest" not in found
    else:
        best = (min if kind == "lowest" else max)(p for row in points.values() for p in row)
        scored = tuple(pid for pid in seats if best in points[pid])
        if len(scored) == len(seats):
            assert "best_round" not in found
        else:
            award = found["best_round"]
            assert (award.value, award.player_ids) == (best, scored)
            if award.round_number is not None:  # the first round in which every one of them scored it
                first = state.rounds[award.round_number - 1]
                assert all(s.points == best for s in first.scores if s.player_id in scored)

    def called(score, scored_round) -> bool:
        return score.blitz == 0 if kind == "cards" else score.called and not scored_round.void

    calls = {pid: sum(called(s, r) for r in state.rounds for s in r.scores if s.player_id == pid) for pid in seats}
    most = max(calls.values())
    named = tuple(pid for pid in seats if calls[pid] == most)
    assert ("most_calls" in found) == (most > 0 and len(named) < len(seats))
    if "most_calls" in found:
        assert (found["most_calls"].value, found["most_calls"].player_ids) == (most, named)

    # The comeback from the game's own standings after each round (score_game of every prefix).
    places = [
        {s.player.id: s.rank for s in score_game(players, rules, rounds[:n]).standings}
        for n in range(1, len(rounds) + 1)
    ]
    worst = max(after[w] for after in places for w in state.winners)
    if worst == 1:
        assert "comeback" not in found
    else:
        award = found["comeback"]
        assert set(award.player_ids) <= set(state.winners)
        assert award.value == award.rank == worst
        assert award.player_ids == tuple(w for w in seats if w in state.winners and max(a[w] for a in places) == worst)
        if award.round_number is not None:
            assert all(places[award.round_number - 1][w] == worst for w in award.player_ids)

    if kind != "lives":
        spread = {pid: statistics.pstdev(points[pid]) for pid in seats}
        least = min(spread.values())
        named = tuple(pid for pid in seats if math.isclose(spread[pid], least, rel_tol=1e-12, abs_tol=1e-12))
        assert ("steadiest" in found) == (len(state.rounds) >= 3 and len(named) < len(seats))
        if "steadiest" in found:
            assert found["steadiest"].player_ids == named
            assert math.isclose(found["steadiest"].value, least, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["cards", "lowest", "lives"]).flatmap(games))
def test_every_award_agrees_with_the_rounds_and_the_standings(game: tuple[Rules, list[int], list[list[Score]]]):
    check(*game)


@pytest.mark.parametrize("game", [c[1] for c in CASES + NOT_OVER], ids=[c[0] for c in CASES + NOT_OVER])
def test_the_property_check_agrees_with_the_worked_cases(game: tuple[Rules, list[int], list[list[Score]]]):
    check(*game)
