"""31's house rule `thirty_and_a_half`: three of a kind counts 30½, which beats every hand but a 31.

The expected values are worked out by hand from the rules source ("If it counts 30.5, it beats all hands
except a 31"): 30½ against 30 is the higher hand, against 31 the lower; a knocker tied for the lowest 30½
is safe. A hand is a whole number from 0 to 31, or 30½ only when the rule is on; anything else is a
problem on the field `hand` that names the player.
"""

from __future__ import annotations

import pytest

from app.rules.scoring import (
    PRESETS,
    Player,
    Score,
    hand_from_store,
    hand_to_store,
    score_game,
    validate_round,
    with_params,
)

ANA, BEN, CY = 1, 2, 3
NAMES = {ANA: "Ana", BEN: "Ben", CY: "Cy"}
PLAYERS = [Player(pid, name) for pid, name in NAMES.items()]
HALF = with_params(PRESETS["thirty_one"], {"thirty_and_a_half": True})
WHOLE = PRESETS["thirty_one"]


def hands(table: dict[int, int | float], knocker: int | None = None) -> list[Score]:
    return [Score(pid, hand=hand, called=pid == knocker) for pid, hand in table.items()]


def test_the_rule_is_off_in_the_preset():
    assert WHOLE.thirty_and_a_half is False and HALF.thirty_and_a_half is True


@pytest.mark.parametrize(
    ("table", "knocker", "lost"),
    [
        pytest.param({ANA: 30.5, BEN: 30, CY: 25}, None, {ANA: 0, BEN: 0, CY: 1}, id="30½-beats-30"),
        pytest.param({ANA: 30.5, BEN: 30, CY: 31}, None, {ANA: 1, BEN: 1, CY: 0}, id="31-beats-30½"),
        pytest.param({ANA: 30.5, BEN: 31}, None, {ANA: 1, BEN: 0}, id="a-lone-30½-against-31-loses"),
        pytest.param({ANA: 30.5, BEN: 30}, None, {ANA: 0, BEN: 1}, id="30-lowest-against-30½"),
        pytest.param({ANA: 30.5, BEN: 30.5, CY: 30}, None, {ANA: 0, BEN: 0, CY: 1}, id="two-30½-safe"),
        pytest.param({ANA: 30.5, BEN: 30.5}, None, {ANA: 1, BEN: 1}, id="two-30½-tied-lowest"),
        pytest.param({ANA: 30.5, BEN: 30}, ANA, {ANA: 0, BEN: 1}, id="knocker-with-30½-safe"),
        pytest.param({ANA: 30.5, BEN: 31, CY: 31}, ANA, {ANA: 1, BEN: 0, CY: 0}, id="knocker-30½-two-31s"),
        pytest.param({ANA: 30.5, BEN: 30.5, CY: 31}, None, {ANA: 1, BEN: 1, CY: 0}, id="two-30½-one-31"),
        pytest.param({ANA: 30.5, BEN: 30.5, CY: 31}, ANA, {ANA: 1, BEN: 1, CY: 0}, id="a-31-spares-no-knocker"),
    ],
)
def test_thirty_and_a_half_lives_lost(table, knocker, lost):
    state = score_game(PLAYERS[: len(table)], HALF, [hands(table, knocker)])
    scored = state.rounds[0]
    assert {s.player_id: s.lives_lost for s in scored.scores} == lost
    assert {s.player_id: s.hand for s in scored.scores} == table


def test_a_knocker_tied_for_lowest_at_30_and_a_half_is_safe():
    state = score_game(PLAYERS, HALF, [hands({ANA: 30.5, BEN: 30.5, CY: 30.5}, ANA)])
    assert {s.player_id: s.lives_lost for s in state.rounds[0].scores} == {ANA: 0, BEN: 1, CY: 1}


def found(problems) -> list[tuple[str, str, int | None]]:
    return [(p.code, p.field, p.player_id) for p in problems]


@pytest.mark.parametrize(
    ("rules", "cy", "expected"),
    [
        pytest.param(HALF, 30.5, [], id="30½-with-the-rule"),
        pytest.param(HALF, 30, [], id="30-with-the-rule"),
        pytest.param(HALF, 31, [], id="31-with-the-rule"),
        pytest.param(WHOLE, 30.5, [("hand_whole", "hand", CY)], id="30½-without-the-rule"),
        pytest.param(HALF, 12.5, [("hand_whole_or_half", "hand", CY)], id="12½-with-the-rule"),
        pytest.param(WHOLE, 12.5, [("hand_whole", "hand", CY)], id="12½-without-the-rule"),
        pytest.param(HALF, 31.5, [("hand_whole_or_half", "hand", CY)], id="31½-with-the-rule"),
        pytest.param(HALF, 30.0, [("hand_whole_or_half", "hand", CY)], id="a-whole-hand-as-a-float"),
        pytest.param(HALF, 32, [("hand_range", "hand", CY)], id="32"),
        pytest.param(HALF, True, [("hand_whole_or_half", "hand", CY)], id="true-is-no-hand"),
    ],
)
def test_which_hands_a_round_takes(rules, cy, expected):
    assert found(validate_round(PLAYERS, hands({ANA: 20, BEN: 25, CY: cy}), rules)) == expected


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        (WHOLE, "Cy's hand must be a whole number from 0 to 31."),
        (HALF, "Cy's hand must be a whole number from 0 to 31, or 30½ for three of a kind."),
    ],
)
def test_the_message_says_what_a_hand_may_be(rules, message):
    (problem,) = validate_round(PLAYERS, hands({ANA: 20, BEN: 25, CY: 12.5}), rules)
    assert problem.message == message


def test_dutch_hands_are_whole_numbers_too():
    dutch = PRESETS["dutch"]
    (problem,) = validate_round(PLAYERS, hands({ANA: 20, BEN: 25, CY: 30.5}), dutch)
    assert (problem.code, problem.message) == ("hand_whole", "Cy's hand must be a whole number from 0 to 250.")


@pytest.mark.parametrize(
    ("hand", "stored"),
    [(30.5, (30, True)), (30, (30, False)), (0, (0, False)), (31, (31, False)), (None, (None, False))],
)
def test_a_hand_stored_and_read_back(hand, stored):
    assert hand_to_store(hand) == stored
    back = hand_from_store(*stored)
    assert back == hand and type(back) is type(hand)  # a whole hand comes back an int, never 30.0
