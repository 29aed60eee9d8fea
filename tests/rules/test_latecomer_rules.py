"""A latecomer in the pure rules (app/rules): who sits in which round, what they start with by default, and
a game of each kind replayed with one."""

from __future__ import annotations

import pytest

from app.rules import scoring
from app.rules.scoring import Kind, Player, Rules, Score


@pytest.mark.parametrize(
    ("player", "seated"),
    [
        (Player(1, "Ana"), [1, 2, 3, 4]),
        (Player(1, "Ana", joined_after=0), [1, 2, 3, 4]),
        (Player(1, "Ana", joined_after=2), [3, 4]),
        (Player(1, "Ana", left_after=2), [1, 2]),
        (Player(1, "Ana", left_after=3, joined_after=1), [2, 3]),
    ],
)
def test_who_sits_in_which_round(player: Player, seated: list[int]):
    assert [n for n in range(1, 5) if player.sits_in(n)] == seated
    assert [n for n in range(1, 5) if player.id not in scoring.away([player], n)] == seated


def _state(kind: str, totals: list[int], out: frozenset[int] = frozenset()) -> scoring.GameState:
    rules = scoring.with_params(Rules(), {}) if kind == "cards" else scoring.PRESETS[kind]
    standings = tuple(scoring.Standing(Player(i, f"P{i}"), total, 1, 0, out=i in out) for i, total in enumerate(totals))
    return scoring.GameState(rules, (), standings, dict(enumerate(totals)), (), False, (), False, out)


@pytest.mark.parametrize(
    ("kind", "totals", "out", "start"),
    [
        ("cards", [30, 12, 21], frozenset(), 12),  # the lowest: last place
        ("cards", [30, 12, 21], frozenset({1}), 21),  # not a leaver's
        ("cards", [-8, 4], frozenset(), -8),
        ("dutch", [40, 71, 12], frozenset(), 71),  # lowest wins: the highest is last place
        ("thirty_one", [3, 1, 2], frozenset(), 1),  # the fewest lives
        ("thirty_one", [3, 0, 2], frozenset(), 1),  # on the county: still at least one
        ("thirty_one", [3, 0, 2], frozenset({1}), 2),  # out: not counted
    ],
)
def test_a_latecomer_starts_at_last_places_total(kind: str, totals: list[int], out: frozenset[int], start: int):
    assert scoring.latecomer_start(_state(kind, totals, out)) == start


def test_a_latecomer_in_each_kind_scores_from_their_starting_total():
    ana, ben, cy = Player(1, "Ana"), Player(2, "Ben"), Player(3, "Cy", 4, joined_after=1)
    cards = scoring.score_game(
        [ana, ben, cy], Rules(target=1000), [[Score(1, 10, 0), Score(2, 3, 2)], [Score(p, 5, 1) for p in (1, 2, 3)]]
    )
    assert cards.totals == {1: 13, 2: 2, 3: 7}
    assert [len(r.scores) for r in cards.rounds] == [1 + 1, 3]
    dutch = scoring.PRESETS["dutch"]
    lowest = scoring.score_game(
        [ana, ben, cy],
        dutch,
        [[Score(1, hand=3, called=True), Score(2, hand=9)], [Score(p, hand=5) for p in (1, 2, 3)]],
    )
    assert lowest.totals[3] == 4 + lowest.rounds[1].scores[2].points
    thirty_one = scoring.PRESETS["thirty_one"]
    late = Player(3, "Cy", -2, joined_after=1)  # came with one life of three
    lives = scoring.score_game([ana, ben, late], thirty_one, [[Score(1, hand=25), Score(2, hand=20)]])
    assert lives.totals == {1: 3, 2: 2, 3: 1}


@pytest.mark.parametrize(("start", "ok"), [(0, True), (-2, True), (-3, False), (1, False)])
def test_in_thirty_one_a_latecomer_comes_with_one_life_to_all(start: int, ok: bool):
    rules = scoring.PRESETS["thirty_one"]
    players = [Player(1, "Ana"), Player(2, "Ben"), Player(3, "Cy", start, joined_after=1)]
    assert (scoring.validate_players(players, rules) == []) is ok
    assert scoring.validate_players([Player(1, "Ana", -1), Player(2, "Ben")], rules)  # from the start: refused
    assert rules.kind == Kind.LIVES


def test_in_dutch_someone_not_in_the_round_cant_call_it():
    # Cy left after round 1: calling Dutch in round 2 is refused in Dutch's words, not 31's "can't knock".
    rules = scoring.PRESETS["dutch"]
    players = [Player(1, "Ana"), Player(2, "Ben"), Player(3, "Cy", left_after=1)]
    before = scoring.score_game(players, rules, [[Score(p, hand=5) for p in (1, 2, 3)]])
    problems = scoring.validate_round(players, [Score(1, hand=5), Score(2, hand=7)], rules, caller=3, before=before)
    assert [(p.code, p.field) for p in problems] == [("caller_not_in_round", "caller")]
