"""The win rule of the `cards` family: `highest_total` (the highest total once someone reaches the target)
or `first_to_target` (whoever reached the target in the earliest round; several in that round: a tie)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.outlook import what_it_takes
from app.rules.scoring import PRESETS, Player, Score, score_game, validate_rules, with_params

ANA, BEN, CY = 1, 2, 3
DUTCH_BLITZ = PRESETS["dutch_blitz"]
HIGHEST = with_params(DUTCH_BLITZ, {"win": "highest_total"})
FIRST = with_params(DUTCH_BLITZ, {"win": "first_to_target"})
FIRST_SHARED = with_params(FIRST, {"tie_break": "shared"})
HIGHEST_SHARED = with_params(HIGHEST, {"tie_break": "shared"})


def seat(start: dict[int, int]) -> list[Player]:
    return [Player(pid, name, start.get(pid, 0)) for pid, name in ((ANA, "Ana"), (BEN, "Ben"), (CY, "Cy"))]


def rnd(ana: tuple[int, int], ben: tuple[int, int], cy: tuple[int, int] = (0, 0)) -> list[Score]:
    return [Score(ANA, *ana), Score(BEN, *ben), Score(CY, *cy)]


def outcome(state) -> tuple[bool, tuple[int, ...], bool]:
    return state.over, state.winners, state.tie_break_due


# The rules page's own example: Ana 58 → 80, Ben 70 → 78, both past 75 in the same round.
BOTH = ({ANA: 58, BEN: 70, CY: 30}, [rnd((22, 0), (14, 3), (11, 5))])
# Ben reaches 75 a round before Ana, who then passes him.
BEN_FIRST = ({ANA: 60, BEN: 70}, [rnd((10, 3), (10, 0)), rnd((30, 0), (0, 5))])  # Ana 64 Ben 80; Ana 94 Ben 70
ONE = ({ANA: 70, BEN: 50}, [rnd((10, 0), (5, 2))])  # Ana 80, Ben 51
NOBODY = ({ANA: 10, BEN: 20}, [rnd((10, 0), (5, 2))])
# Both reach it in round 1 (80 and 78), then a tie-break round: Ana +2, Ben +5.
PLAY_OFF = ({ANA: 58, BEN: 70}, [rnd((22, 0), (14, 3)), rnd((2, 0), (5, 0))])
PLAY_OFF_EVEN = ({ANA: 58, BEN: 70}, [rnd((22, 0), (14, 3)), rnd((5, 0), (5, 0))])  # equal points: on again


@pytest.mark.parametrize(
    ("rules", "game", "expected"),
    [
        pytest.param(HIGHEST, BOTH, (True, (ANA,), False), id="highest-both-reach-higher-wins"),
        pytest.param(FIRST, BOTH, (False, (), True), id="first-both-reach-tie-plays-on"),
        pytest.param(FIRST_SHARED, BOTH, (True, (ANA, BEN), False), id="first-both-reach-shared-whatever-totals"),
        pytest.param(HIGHEST_SHARED, BOTH, (True, (ANA,), False), id="highest-shared-unequal-totals-no-tie"),
        pytest.param(HIGHEST, ONE, (True, (ANA,), False), id="highest-one-reaches"),
        pytest.param(FIRST, ONE, (True, (ANA,), False), id="first-one-reaches"),
        pytest.param(HIGHEST, NOBODY, (False, (), False), id="highest-nobody"),
        pytest.param(FIRST, NOBODY, (False, (), False), id="first-nobody"),
        pytest.param(FIRST, PLAY_OFF, (True, (BEN,), False), id="first-tie-break-round-most-points-wins"),
        pytest.param(FIRST, PLAY_OFF_EVEN, (False, (), True), id="first-tie-break-round-even-plays-on"),
        # Rounds after the tying one (a switch from play_on to shared mid play-off): still all of them.
        pytest.param(FIRST_SHARED, PLAY_OFF, (True, (ANA, BEN), False), id="first-shared-after-more-rounds-all-win"),
    ],
)
def test_who_wins_by_the_win_rule(rules, game, expected):
    start, rounds = game
    assert outcome(score_game(seat(start), rules, rounds)) == expected


def test_first_to_target_the_earlier_round_wins_over_a_higher_total():
    """A rules change recomputes a played game: Ben reached 75 in round 1, Ana only in round 2 with more."""
    start, rounds = BEN_FIRST
    players = [p for p in seat(start) if p.id != CY]
    rounds = [[s for s in r if s.player_id != CY] for r in rounds]
    lowered = with_params(FIRST, {"target": 65})  # Ana 64 after round 1, 94 after round 2; Ben 80, 70
    assert outcome(score_game(players, lowered, rounds)) == (True, (BEN,), False)
    assert outcome(score_game(players, with_params(HIGHEST, {"target": 65}), rounds)) == (True, (ANA,), False)


def test_first_to_target_tie_names_the_tied_players_as_leaders_whatever_their_totals():
    start, rounds = BOTH
    state = score_game(seat(start), FIRST, rounds)
    assert state.leaders == (ANA, BEN)
    assert [s.player.id for s in state.standings][:2] == [ANA, BEN]  # the standings stay by totals
    assert what_it_takes(state, [ANA, BEN, CY]) == []  # the tie is being played off


def test_first_to_target_a_tied_player_who_left_is_out_of_the_tie():
    _, rounds = BOTH
    players = [Player(ANA, "Ana", 58), Player(BEN, "Ben", 70, left_after=1), Player(CY, "Cy", 30)]
    assert outcome(score_game(players, FIRST, rounds)) == (True, (ANA,), False)


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        pytest.param(with_params(FIRST, {"end": "rounds"}), [("win_needs_target", "win")], id="rounds-first"),
        pytest.param(with_params(HIGHEST, {"end": "rounds"}), [], id="rounds-highest"),
        pytest.param(FIRST, [], id="target-first"),
        pytest.param(with_params(PRESETS["dutch"], {"win": "first_to_target"}), [], id="not-the-cards-family"),
    ],
)
def test_first_to_target_needs_end_at_the_target(rules, expected):
    assert sorted((p.code, p.field) for p in validate_rules(rules)) == expected


def test_every_preset_wins_by_the_highest_total():
    assert {rules.win.value for rules in PRESETS.values()} == {"highest_total"}


@settings(max_examples=100)
@given(
    st.lists(st.integers(-100, 100), min_size=2, max_size=6),
    st.lists(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 10)), min_size=6, max_size=6), max_size=8),
    st.sampled_from(["play_on", "shared"]),
)
def test_property_with_at_most_one_player_reaching_the_target_the_two_rules_agree(starts, table, tie_break):
    players = [Player(i + 1, f"P{i + 1}", start) for i, start in enumerate(starts)]
    rounds = [[Score(p.id, *row[i]) for i, p in enumerate(players)] for row in table]
    rounds = [[Score(s.player_id, s.dutch, 0) if i == 0 else s for i, s in enumerate(r)] for r in rounds]
    rules = with_params(DUTCH_BLITZ, {"tie_break": tie_break})
    played = score_game(players, rules, rounds).rounds
    # A game stops after the first round that takes someone to the target (its tie-break rounds aside).
    end = next((r.number for r in played if any(s.total >= rules.target for s in r.scores)), len(rounds))
    rounds = rounds[:end]
    highest = score_game(players, rules, rounds)
    first = score_game(players, with_params(rules, {"win": "first_to_target"}), rounds)
    past = {s.player_id for s in highest.rounds[-1].scores if s.total >= rules.target} if rounds else set()
    if len(past) <= 1:
        assert outcome(first) == outcome(highest)
    else:  # several reached it in that round: a tie among exactly them
        assert set(first.winners or first.leaders) == past
        assert first.over == (tie_break == "shared")


def test_first_to_target_ranks_the_winner_first_even_below_another_total():
    """Ana and Ben tie at 75 in round 1 and play it off; Cy, not in the tie, passes them both meanwhile but
    can't win: the winner ranks 1 and Cy 2 (a table's places and head-to-head read these ranks)."""
    start = {ANA: 58, BEN: 70, CY: 60}
    rounds = [rnd((22, 0), (14, 3), (10, 0)), rnd((6, 0), (2, 0), (30, 0))]  # Ana 80 → 86, Ben 78 → 80, Cy 70 → 100
    state = score_game(seat(start), FIRST, rounds)
    assert outcome(state) == (True, (ANA,), False)
    assert [(s.player.id, s.rank) for s in state.standings] == [(ANA, 1), (CY, 2), (BEN, 3)]
