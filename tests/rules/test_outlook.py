"""What it takes to win next round (app/rules/outlook.py), table-driven: who is in reach of the target, the
least round score that gets them there, and who must stay under it."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.rules.outlook import Chance, Limit, near_the_limit, round_score_range, what_it_takes
from app.rules.scoring import Kind, Player, Rules, Score, TieBreak, score_game

ANA, BEN, CY, DEE = 1, 2, 3, 4


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (Rules(), (-20, 40)),  # all ten Blitz cards left; all forty cards played
        (Rules(target=100, dutch_points=2, blitz_points=-1), (-10, 80)),
        (Rules(dutch_points=-1, blitz_points=1), (-40, 10)),  # a house rule upside down
        (Rules(dutch_points=0, blitz_points=0), (0, 0)),
    ],
)
def test_round_score_range(rules: Rules, expected: tuple[int, int]):
    assert round_score_range(rules) == expected


def state(starts: list[int], rules: Rules, rounds: list[list[tuple[int, int]]]):
    """A game from starting scores and rounds, each round a (Dutch, Blitz) pair per player in seat order."""
    players = [Player(i + 1, f"P{i + 1}", s) for i, s in enumerate(starts)]
    played = [[Score(i + 1, d, b) for i, (d, b) in enumerate(r)] for r in rounds]
    return score_game(players, rules, played), [p.id for p in players]


@pytest.mark.parametrize(
    ("starts", "rules", "rounds", "expected"),
    [
        pytest.param([0, 0, 0], Rules(), [], [], id="nobody-in-reach-at-the-start"),
        pytest.param([70, 10], Rules(), [], [Chance(ANA, 5, ())], id="one-in-reach-wins-with-the-target"),
        pytest.param(
            [66, 40, 20],
            Rules(),
            [],
            [Chance(ANA, 9, ((BEN, 35),)), Chance(BEN, 35, ((ANA, 9),))],
            id="two-in-reach-each-needs-the-other-under",
        ),
        pytest.param([35, 34], Rules(), [], [Chance(ANA, 40, ())], id="forty-short-is-in-reach-forty-one-is-not"),
        pytest.param(
            [30, 10, 0],
            Rules(target=100, dutch_points=2, blitz_points=-1),
            [],
            [Chance(ANA, 70, ())],
            id="house-rules-widen-the-reach",
        ),
        pytest.param([58, 70, 30, 20], Rules(), [[(22, 0), (14, 3), (11, 5), (9, 7)]], [], id="game-over"),
        pytest.param([70, 70], Rules(), [[(10, 0), (10, 0)]], [], id="tie-past-the-target-played-off"),
        pytest.param([70, 70], Rules(tie_break=TieBreak.SHARED), [[(10, 0), (10, 0)]], [], id="shared-win-is-over"),
        pytest.param(
            [74, 74, 74, 0],
            Rules(),
            [],
            [
                Chance(ANA, 1, ((BEN, 1), (CY, 1))),
                Chance(BEN, 1, ((ANA, 1), (CY, 1))),
                Chance(CY, 1, ((ANA, 1), (BEN, 1))),
            ],
            id="three-one-point-short",
        ),
    ],
)
def test_what_it_takes(starts, rules, rounds, expected):
    game, seats = state(starts, rules, rounds)
    assert what_it_takes(game, seats) == expected


def test_the_view_page_says_what_it_takes(client: TestClient, make_game):
    game = make_game(players=[{"name": "Ana", "starting_score": 66}, {"name": "Ben", "starting_score": 40},
                              {"name": "Cy", "starting_score": 20}])  # fmt: skip
    page = BeautifulSoup(client.get(f"/g/{game.id}").text, "html.parser")
    lines = [li.get_text() for li in page.select("#scoreboard #what-it-takes li")]
    assert lines == [
        "Ana wins with +9 or more if Ben gets under +35",
        "Ben wins with +35 or more if Ana gets under +9",
    ]
    alone = make_game(players=[{"name": "Ana", "starting_score": 70}, {"name": "Ben"}])
    page = BeautifulSoup(client.get(f"/g/{alone.id}").text, "html.parser")
    assert [li.get_text() for li in page.select("#what-it-takes li")] == ["Ana wins next round with +5 or more"]
    start = make_game(players=[{"name": "Ana"}, {"name": "Ben"}])
    assert BeautifulSoup(client.get(f"/g/{start.id}").text, "html.parser").select("#what-it-takes") == []


# --- Dutch: who is near the limit (the lowest total wins; reaching the target ends the game) ----------

DUTCH_RULES = Rules(kind=Kind.LOWEST, preset="dutch", target=100)


def hands(starts: list[int], rounds: list[list[int]]):
    players = [Player(i + 1, name, start) for i, (name, start) in enumerate(zip("ABCD", starts, strict=False))]
    return score_game(players, DUTCH_RULES, [[Score(i + 1, hand=h) for i, h in enumerate(r)] for r in rounds])


@pytest.mark.parametrize(
    ("starts", "rounds", "expected"),
    [
        ([0, 0, 0], [], []),  # nobody near
        ([0, 0, 0], [[10, 50, 49]], [Limit(BEN, 50)]),  # 50 to go: one four-card hand (13+13+12+12) away
        ([60, 95, 0], [[0, 0, 0]], [Limit(BEN, 5), Limit(ANA, 40)]),  # the closest first
        ([0, 0, 0], [[0, 100, 0]], []),  # Ben reached it: the game is over
        ([90, 90, 95], [[9, 9, 5]], []),  # a tie for the lowest at the end: played off, the banner says so
    ],
)
def test_near_the_limit(starts, rounds, expected):
    assert near_the_limit(hands(starts, rounds)) == expected


def test_near_the_limit_is_dutchs_only():
    assert near_the_limit(state([90, 0], Rules(), [])[0]) == []
