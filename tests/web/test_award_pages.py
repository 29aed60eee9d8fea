"""The awards on the game-over banner: games played to the end through the API, the
view and scorekeeper's pages parsed with BeautifulSoup and checked by CSS selectors. What each award
is lives in tests/rules/test_awards.py; here, that the banner shows them in each game's own words.
"""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from app import i18n
from tests.helpers import CLOSE, OPEN, WORKED_EXAMPLE_ROUND, GameHandle, claim, html
from tests.helpers import text_of as text

THREE = [{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}]
# Cy trails, then wins (tests/rules/test_awards.py's COMEBACK): totals 20 11 −7, 24 29 1, 24 35 31, 30 41 61,
# 38 43 81. Cy scores +30 in rounds 3 and 4 and calls Blitz three times; Ben's points vary least.
COMEBACK = [
    [(20, 0), (15, 2), (5, 6)],
    [(10, 3), (18, 0), (12, 2)],
    [(8, 4), (10, 2), (30, 0)],
    [(10, 2), (12, 3), (30, 0)],
    [(10, 1), (10, 4), (20, 0)],
]


def view(client: TestClient, game: GameHandle, query: str = "") -> BeautifulSoup:
    response = client.get(f"/g/{game.id}{query}")
    assert response.status_code == 200, response.text
    return html(response)


def line(node: Tag) -> str:
    """A line as it reads: a name's <bdi> runs into the comma after it (text_of would put a space there)."""
    return " ".join(node.get_text().split())


def shown(page: BeautifulSoup) -> dict[str, str]:
    """Each award on the banner: its code -> its text."""
    items = page.select("#banner ul.awards > li.award")
    codes = [next(c for c in li["class"] if c.startswith("award-")).removeprefix("award-") for li in items]
    return dict(zip(codes, (line(li) for li in items), strict=True))


def hand_round(game: GameHandle, hands: list[int | None], who: int | None = None) -> None:
    """A Dutch or 31 round through the API: hands in seat order (None: out), the caller/knocker's seat."""
    body: dict[str, Any] = {
        "scores": [{"player_id": p, "hand": h} for p, h in zip(game.player_ids, hands, strict=True) if h is not None]
    }
    if who is not None:
        body["knocker" if game.body["rules"]["kind"] == "lives" else "caller"] = game.player_ids[who]
    response = game.client.post(f"/api/v1/games/{game.id}/rounds", json=body, headers=game.auth)
    assert response.status_code == 201, response.text


def test_a_dutch_blitz_game_won_from_behind_shows_all_four_awards(client: TestClient, make_game):
    game = make_game(THREE)
    for counts in COMEBACK:
        assert game.add_round(counts).status_code == 201
    page = view(client, game)
    assert text(page.select_one("#banner.banner-won h2")) == "🏆 Cy wins with 81!"
    assert page.select_one("#banner ul.awards")["aria-label"] == "Awards"
    assert shown(page) == {
        "best_round": "Best round: Cy, +30 in round 3",
        "most_calls": "Most Blitz calls: Cy (3)",
        "comeback": "Biggest comeback: Cy, from place 3 after round 2 to the win",
        "steadiest": "Most even rounds: Ben",
    }
    assert [text(b) for b in page.select("#banner .awards bdi")] == ["Cy", "Cy", "Cy", "Ben"]
    # The awards come after the final totals, in the banner the scorekeeper and the TV see too.
    assert page.select_one("#banner .final-totals + ul.awards") is not None
    claim(client, game.id, game.key)
    assert shown(view(client, game, "/score")) == shown(page) == shown(view(client, game, "?tv=1"))


def test_ties_share_an_award_with_the_names_joined(client: TestClient, make_game):
    # Two rounds, Ben on 50 to start: +20 +6 −5, then +2 +20 −2: Ben wins on 76, having led throughout.
    game = make_game([{"name": "Ana"}, {"name": "Ben", "starting_score": 50}, {"name": "Cy"}])
    game.add_round([(20, 0), (10, 2), (5, 5)])
    game.add_round([(10, 4), (20, 0), (6, 4)])
    page = view(client, game)
    assert shown(page) == {
        "best_round": "Best round: Ana and Ben, +20 each",  # in different rounds
        "most_calls": "Most Blitz calls: Ana and Ben (1)",
    }
    assert [text(b) for b in page.select("#banner .awards bdi")] == ["Ana and Ben", "Ana and Ben"]


def test_the_worked_example_has_a_best_round_and_a_call_only(client: TestClient, make_game):
    game = make_game()
    game.add_round(WORKED_EXAMPLE_ROUND)
    assert shown(view(client, game)) == {
        "best_round": "Best round: Ana, +22 in round 1",
        "most_calls": "Most Blitz calls: Ana (1)",
    }


@pytest.mark.parametrize(
    ("preset", "words"),
    [
        ("dutch_blitz", "Most Blitz calls"),
        ("dutch_blitz_100", "Most Blitz calls"),
        ("nerts", "Most Nerts calls"),
        ("ligretto", "Most Ligretto calls"),
    ],
)
def test_each_card_game_names_its_own_call(client: TestClient, make_game, preset: str, words: str):
    target = {"dutch_blitz": 75, "dutch_blitz_100": 100, "nerts": 100, "ligretto": 99}[preset]
    game = make_game([{"name": "Ana", "starting_score": target - 10}, {"name": "Ben"}, {"name": "Cy"}],
                     {"preset": preset})  # fmt: skip
    assert game.add_round([(10, 0), (5, 2), (3, 4)]).status_code == 201  # Ana +10 reaches the target
    assert shown(view(client, game)) == {
        "best_round": "Best round: Ana, +10 in round 1",
        "most_calls": f"{words}: Ana (1)",
    }


def test_a_dutch_game_says_dutch_calls_and_counts_the_lowest_round_best(client: TestClient, make_game):
    # Ana starts 30 behind: 30 5 10 (Ana 3rd, calling with 0), 30 35 50, 30 75 100: Ana wins.
    game = make_game([{"name": "Ana", "starting_score": 30}, {"name": "Ben"}, {"name": "Cy"}], {"preset": "dutch"})
    for hands in ([0, 5, 10], [0, 30, 40], [0, 40, 50]):
        hand_round(game, hands, 0)
    assert shown(view(client, game)) == {
        "best_round": "Best round: Ana, 0 in round 1",
        "most_calls": "Most Dutch calls: Ana (3)",
        "comeback": "Biggest comeback: Ana, from place 3 after round 1 to the win",
        "steadiest": "Most even rounds: Ana",
    }


def test_a_31_game_shows_knocks_and_a_comeback_by_lives(client: TestClient, make_game):
    # Ana loses a life in round 1 (3rd by lives), then Ben and Cy knock, lose and go out: Ana wins.
    game = make_game(THREE, {"preset": "thirty_one"})
    for hands, who in [
        ([5, 20, 25], None),
        ([20, 5, 25], None),
        ([20, 25, 5], None),
        ([20, 5, 25], 1),
        ([20, 5, 25], None),
        ([20, None, 5], 2),
        ([20, None, 5], None),
    ]:
        hand_round(game, hands, who)
    page = view(client, game)
    assert text(page.select_one("#banner.banner-last h2")) == "🏆 Ana is the last player in and wins!"
    assert shown(page) == {
        "most_calls": "Most knocks: Ben and Cy (1)",
        "comeback": "Biggest comeback: Ana, from place 3 after round 1 to the win",
    }


def test_no_awards_while_the_game_is_on_nor_on_a_tie_break_banner(client: TestClient, make_game):
    game = make_game([{"name": "Ana", "starting_score": 70}, {"name": "Ben", "starting_score": 70}])
    game.add_round([(3, 0), (2, 2)])  # 73 68: not over
    assert view(client, game).select("#banner, .awards") == []
    game.add_round([(2, 0), (7, 0)])  # 75 75: a tie-break round is due
    page = view(client, game)
    assert page.select_one("#banner.banner-tie") is not None
    assert page.select(".awards") == []
    game.add_round([(1, 0), (3, 0)])  # 76 78: Ben wins, from 2nd after round 1
    assert shown(view(client, game))["comeback"] == "Biggest comeback: Ben, from place 2 after round 1 to the win"


def test_names_in_the_awards_are_escaped(client: TestClient, make_game):
    evil = "<b>Eve</b>"
    game = make_game([{"name": evil, "starting_score": 70}, {"name": "Ben"}])
    game.add_round([(5, 0), (2, 2)])
    page = view(client, game)
    assert page.select("#banner .awards b") == []
    assert [text(b) for b in page.select("#banner .awards bdi")] == [evil, evil]


def test_every_award_is_worded_through_the_catalogs(client: TestClient, make_game, pseudo: str):
    client.cookies.set(i18n.COOKIE, pseudo)
    game = make_game(THREE)
    for counts in COMEBACK:
        game.add_round(counts)
    page = view(client, game)
    items = page.select("#banner .awards li")
    assert len(items) == 4
    for li in items:  # the whole line is one message, its names and numbers inside it
        assert li.get_text().strip().startswith(OPEN) and li.get_text().strip().endswith(CLOSE), li
    assert page.select_one("#banner .awards")["aria-label"] == f"{OPEN}Awards{CLOSE}"
