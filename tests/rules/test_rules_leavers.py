"""A player who left the game (issue 32, item 6): their rounds stay, they sit in no later round, they are
listed after the players still in, and they can't win or end the game. One table of cases per kind."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.rules.presets import PRESETS
from app.rules.scoring import Player, Score, score_game, validate_round

DUTCH_BLITZ, DUTCH, THIRTY_ONE = PRESETS["dutch_blitz"], PRESETS["dutch"], PRESETS["thirty_one"]


def cards(dutch: int, blitz: int, pid: int) -> Score:
    return Score(pid, dutch, blitz)


def hand(points: int, pid: int, called: bool = False) -> Score:
    return Score(pid, hand=points, called=called)


ANA, BEN, CY = Player(1, "Ana"), Player(2, "Ben"), Player(3, "Cy")
CY_LEFT_AFTER_1 = replace(CY, left_after=1)

# (rules, one full round for all three, a round for Ana and Ben only)
KINDS = {
    "cards": (DUTCH_BLITZ, [cards(10, 0, 1), cards(8, 2, 2), cards(20, 0, 3)], [cards(10, 0, 1), cards(8, 2, 2)]),
    "lowest": (DUTCH, [hand(3, 1), hand(9, 2), hand(1, 3)], [hand(3, 1), hand(9, 2)]),
    "lives": (THIRTY_ONE, [hand(20, 1), hand(25, 2), hand(30, 3)], [hand(20, 1), hand(25, 2)]),
}


@pytest.mark.parametrize("kind", KINDS)
def test_a_leaver_keeps_their_rounds_and_gets_no_new_rows(kind: str) -> None:
    rules, full, two = KINDS[kind]
    state = score_game([ANA, BEN, CY_LEFT_AFTER_1], rules, [full, two, two])
    seated = [[s.player_id for s in r.scores] for r in state.rounds]
    assert seated == [[1, 2, 3], [1, 2], [1, 2]]
    assert 3 in state.out
    assert [s.player.id for s in state.standings][-1] == 3  # listed after the players still in
    assert state.standings[-1].left
    assert 3 not in state.leaders
    assert [p.id for p in state.playing([ANA, BEN, CY_LEFT_AFTER_1])] == [1, 2]


@pytest.mark.parametrize("kind", KINDS)
def test_a_leavers_score_in_a_new_round_is_refused_and_not_required(kind: str) -> None:
    rules, full, two = KINDS[kind]
    players = [ANA, BEN, CY_LEFT_AFTER_1]
    before = score_game(players, rules, [full])
    assert validate_round(players, two, rules, before=before) == []
    problems = validate_round(players, full, rules, before=before)
    assert [(p.code, p.player_id) for p in problems] == [("player_left", 3)]
    # Round 1, which they sat in, still needs them.
    assert [p.code for p in validate_round(players, two, rules, before=score_game(players, rules, []))] == [
        "player_missing"
    ]


def test_a_leaver_past_the_target_does_not_end_a_dutch_blitz_game() -> None:
    ahead = [cards(40, 0, 1), cards(0, 10, 2), cards(0, 10, 3)]
    runner = replace(ANA, starting_score=40, left_after=1)
    state = score_game([runner, BEN, CY], DUTCH_BLITZ, [ahead, [cards(5, 0, 2), cards(1, 3, 3)]])
    assert state.totals[1] == 80 and not state.over
    assert state.leaders == (2,)
    assert [(s.player.id, s.rank) for s in state.standings] == [(2, 1), (3, 2), (1, 3)]


def test_a_leaver_past_the_target_does_not_end_a_dutch_game() -> None:
    high = replace(ANA, starting_score=95, left_after=1)
    state = score_game([high, BEN, CY], DUTCH, [[hand(9, 1), hand(2, 2), hand(3, 3)], [hand(4, 2), hand(5, 3)]])
    assert state.totals[1] == 104 and not state.over and state.winners == ()
    assert state.leaders == (2,)


def test_when_one_player_is_left_in_thirty_one_they_win() -> None:
    state = score_game([ANA, replace(BEN, left_after=1), CY_LEFT_AFTER_1], THIRTY_ONE, [KINDS["lives"][1]])
    assert state.over and state.winners == (1,)


def test_no_outlook_for_a_leaver() -> None:
    from app.rules.outlook import near_the_limit, what_it_takes

    near = [cards(30, 0, 1), cards(30, 0, 2), cards(0, 10, 3)]
    ahead = [replace(ANA, starting_score=40), replace(BEN, starting_score=40, left_after=1), CY]
    state = score_game(ahead, DUTCH_BLITZ, [near])
    assert [c.player_id for c in what_it_takes(state, [1, 2, 3])] == [1]
    close = score_game([ANA, replace(BEN, left_after=1), CY], DUTCH, [[hand(80, 1), hand(90, 2), hand(1, 3)]])
    assert [n.player_id for n in near_the_limit(close)] == [1]


@pytest.mark.parametrize("kind", KINDS)
def test_awards_of_a_finished_game_with_someone_who_left_before_any_round(kind: str) -> None:
    from app.rules.awards import awards

    rules, _, _two = KINDS[kind]
    rules = replace(rules, target=10) if kind == "cards" else replace(rules, target=12) if kind == "lowest" else rules
    if kind == "cards":
        rounds = [[cards(12, 0, 1), cards(2, 4, 2)]]
    elif kind == "lowest":
        rounds = [[hand(3, 1), hand(13, 2)]]
    else:
        rounds = [[hand(20, 1), hand(25, 2)]] * 4
    state = score_game([ANA, BEN, replace(CY, left_after=0)], rules, rounds)
    assert state.over and 3 not in state.winners
    found = awards(state)
    assert all(3 not in award.player_ids for award in found)
