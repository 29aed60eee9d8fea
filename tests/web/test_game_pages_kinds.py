"""The other games' pages through the TestClient: the scorekeeper's form and the view of every kind
(Nerts and Ligretto, Dutch, 31), parsed with BeautifulSoup and checked by CSS selectors.

Every expected number is worked out by hand from the rules (docs/rules.md, "The other games"):
Dutch: a caller with the lowest hand scores 0, the rest their hand; a caller without it scores their
hand, the lowest hands 0, and takes a penalty card; nobody called: everyone their hand; lowest wins.
31: the lowest hand loses a life (a sole-lowest knocker two); a 31 costs everyone else one; at 0 a player
is on the county (with it), below it out; a round that would put everyone left out counts for nothing.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from tests.helpers import GameHandle, claim, form_data, html
from tests.helpers import text_of as text

NAMES = ["Ana", "Ben", "Cy"]
DUTCH = {"preset": "dutch"}
T31 = {"preset": "thirty_one"}  # 3 lives, the county
# A Dutch game: (hands, caller seat). Totals after each: (0, 10, 20), (15, 10, 50) with Ana's penalty,
# (25, 25, 110): Cy past 100 and Ana and Ben tied lowest, so a tie-break; then (30, 32, 110): Ana wins.
DUTCH_ROUNDS = [((3, 10, 20), 0), ((15, 2, 30), 0), ((10, 15, 60), None), ((5, 7, 1), 0)]
# A 31 game: (hands, None for a player out; knocker seat). Lives after each: Ana a sole-lowest knocker
# (1, 3, 3); Ana on the county (0, 3, 3); Ana out in round 3; Ben's 31 (out, 3, 2); Cy a sole-lowest
# knocker (out, 3, 0) on the county; Cy out in round 6: Ben is the last player in.
ALL_IN = (10, 20, 25)
T31_ROUNDS = [
    (ALL_IN, 0),
    (ALL_IN, None),
    (ALL_IN, None),
    ((None, 31, 20), None),
    ((None, 20, 10), 2),
    ((None, 20, 10), None),
]


def new_game(make_game, rules: dict[str, Any]) -> GameHandle:
    return make_game([{"name": name} for name in NAMES], rules)


def play(game: GameHandle, hands: tuple[int | None, ...], who: int | None = None) -> dict[str, Any]:
    """A Dutch or 31 round through the API: hands in seat order (None: out), and the caller/knocker's seat."""
    body: dict[str, Any] = {
        "scores": [{"player_id": p, "hand": h} for p, h in zip(game.player_ids, hands, strict=True) if h is not None]
    }
    if who is not None:
        body["knocker" if game.body["rules"]["kind"] == "lives" else "caller"] = game.player_ids[who]
    response = game.client.post(f"/api/v1/games/{game.id}/rounds", json=body, headers=game.auth)
    assert response.status_code == 201, response.text
    return response.json()


def play_cards(game: GameHandle, counts: list[tuple[int, int]]) -> None:
    body = {
        "scores": [{"player_id": p, "dutch": d, "blitz": b} for p, (d, b) in zip(game.player_ids, counts, strict=True)]
    }
    response = game.client.post(f"/api/v1/games/{game.id}/rounds", json=body, headers=game.auth)
    assert response.status_code == 201, response.text


def played(make_game, rules: dict[str, Any], rounds: list[tuple[tuple[int | None, ...], int | None]]) -> GameHandle:
    game = new_game(make_game, rules)
    for hands, who in rounds:
        play(game, hands, who)
    return game


def view(client: TestClient, game: GameHandle, query: str = "") -> BeautifulSoup:
    response = client.get(f"/g/{game.id}{query}")
    assert response.status_code == 200, response.text
    return html(response)


class Keeper:
    """The scorekeeper's browser for one game (the edit link opened, so it has the cookie)."""

    def __init__(self, game: GameHandle):
        self.game, self.client = game, game.client
        claim(self.client, game.id, game.key)

    def page(self, query: str = "") -> BeautifulSoup:
        response = self.client.get(f"/g/{self.game.id}/score{query}")
        assert response.status_code == 200, response.text
        return html(response)

    def post(self, hands: dict[int, str], caller: int | None = None, query: str = "", **headers: str) -> httpx.Response:
        """The round form (or correction, `query` "?edit=n") with these hands typed by seat, and who called."""
        form = self.page(query).select_one("#round-entry form")
        assert form is not None
        data = form_data(form) | {f"hand-{self.game.player_ids[seat]}": value for seat, value in hands.items()}
        data["caller"] = "" if caller is None else str(self.game.player_ids[caller])
        return self.client.post(str(form["action"]), data=data, headers=headers, follow_redirects=False)

    def rounds(self) -> list[dict[str, Any]]:
        return self.game.get()["rounds"]


def standings(page: BeautifulSoup) -> list[tuple[str, str, str]]:
    """(rank, name, total) per scoreboard row, top first."""
    return [
        (text(li.select_one(".rank")), text(li.select_one(".name bdi")), text(li.select_one("[data-total]")))
        for li in page.select("#scoreboard li.standing")
    ]


def row(page: BeautifulSoup, game: GameHandle, seat: int) -> Tag:
    node = page.select_one(f'#scoreboard li.standing[data-player-id="{game.player_ids[seat]}"]')
    assert node is not None
    return node


def cells(page: BeautifulSoup, number: int) -> dict[str, str]:
    """One round's history card: name -> "points total cards" as shown."""
    card = page.select_one(f'#history li.round-card[data-round="{number}"]')
    assert card is not None
    return {
        text(li.select_one(".who")): text(li)[len(text(li.select_one(".who"))) + 1 :] for li in card.select("li.score")
    }


def radios(page: BeautifulSoup) -> list[tuple[str, bool]]:
    return [(str(r["value"]), r.has_attr("checked")) for r in page.select('#round-entry input[name="caller"]')]


def field_error(page: BeautifulSoup, name: str) -> str:
    field = page.select_one(f"#{name}")
    assert field is not None and field.get("aria-invalid") == "true", field
    assert field["aria-describedby"] == f"{name}-error"
    message = field.find_parent(class_="count").select_one(f"p.field-error#{name}-error")
    assert message is not None
    return text(message)


# --- the scorekeeper's form in Dutch -------------------------------------------------------------------


def test_the_dutch_form_asks_each_hand_and_who_called(make_game):
    game = new_game(make_game, DUTCH)
    page = Keeper(game).page()
    form = page.select_one("#round-entry form")
    for pid, name in zip(game.player_ids, NAMES, strict=True):
        hand = form.select_one(f"#hand-{pid}")
        assert (hand["name"], hand["data-min"], hand["data-max"], hand["value"]) == (f"hand-{pid}", "0", "250", "")
        assert text(form.select_one(f'label[for="hand-{pid}"]')) == f"Hand points — {name}"
    assert radios(page) == [(str(pid), False) for pid in game.player_ids] + [("", True)]
    assert text(page.select_one(".nobody-called label")) == "Nobody called (someone went out)"
    assert form.select('input[name^="dutch-"], input[name^="blitz-"], button.blitz') == []


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_a_dutch_round_is_saved_from_the_form_with_its_hands_and_caller(make_game, htmx: bool):
    game = new_game(make_game, DUTCH)
    keeper = Keeper(game)
    headers = {"HX-Request": "true"} if htmx else {}
    response = keeper.post({0: "15", 1: "2", 2: "30"}, caller=0, **headers)
    if htmx:
        assert response.status_code == 200, response.text
        assert text(html(response).select_one("#game #done p")) == "Round 1 saved."
    else:
        assert response.status_code == 303, response.text
        assert response.headers["location"] == f"/g/{game.id}/score?saved=1#game"
    ana, ben, cy = game.player_ids
    [saved] = keeper.rounds()
    assert (saved["caller"], saved["penalty"]) == (ana, ana)  # Ana called without the lowest hand
    assert saved["scores"] == [
        {"player_id": ana, "hand": 15, "points": 15, "total": 15},
        {"player_id": ben, "hand": 2, "points": 0, "total": 0},
        {"player_id": cy, "hand": 30, "points": 30, "total": 30},
    ]


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_dutch_hands_that_cannot_be_read_are_refused_beside_them_keeping_what_was_typed(make_game, htmx: bool):
    game = new_game(make_game, DUTCH)
    keeper = Keeper(game)
    ana, ben, cy = game.player_ids
    headers = {"HX-Request": "true"} if htmx else {}
    response = keeper.post({0: "", 1: "abc", 2: "5"}, caller=2, **headers)
    assert response.status_code == 422, response.text
    page = html(response)
    assert field_error(page, f"hand-{ana}") == "Enter Ana's hand."
    assert field_error(page, f"hand-{ben}") == "Ben: a hand must be a whole number."
    assert page.select_one(f"#hand-{cy}").get("aria-invalid") is None
    assert [page.select_one(f"#hand-{pid}")["value"] for pid in (ana, ben, cy)] == ["", "abc", "5"]
    assert radios(page) == [(str(ana), False), (str(ben), False), (str(cy), True), ("", False)]
    assert keeper.rounds() == []


def test_a_dutch_hand_over_250_is_refused_beside_it(make_game):
    game = new_game(make_game, DUTCH)
    keeper = Keeper(game)
    ana, ben, _ = game.player_ids
    response = keeper.post({0: "300", 1: "4", 2: "9"}, caller=1)
    assert response.status_code == 422, response.text
    page = html(response)
    assert field_error(page, f"hand-{ana}") == "Ana: a hand must be between 0 and 250 points."
    assert page.select_one(f"#hand-{ana}")["value"] == "300"
    assert [v for v, checked in radios(page) if checked] == [str(ben)]
    assert keeper.rounds() == []


def test_correcting_a_dutch_round_prefills_its_hands_and_caller_and_saves_the_change(make_game):
    game = played(make_game, DUTCH, DUTCH_ROUNDS[1:2])  # (15, 2, 30), Ana called
    keeper = Keeper(game)
    ana, ben, cy = game.player_ids
    page = keeper.page("?edit=1")
    assert text(page.select_one("#round-entry h2")) == "Correct round 1"
    assert page.select_one("#round-entry form")["action"] == f"/g/{game.id}/rounds/1"
    assert [page.select_one(f"#hand-{pid}")["value"] for pid in (ana, ben, cy)] == ["15", "2", "30"]
    assert radios(page) == [(str(ana), True), (str(ben), False), (str(cy), False), ("", False)]
    response = keeper.post({0: "1"}, caller=None, query="?edit=1")  # Ana had 1, and nobody called
    assert response.status_code == 303, response.text
    assert response.headers["location"] == f"/g/{game.id}/score?corrected=1#game"
    [corrected] = keeper.rounds()
    assert (corrected["caller"], corrected["penalty"]) == (None, None)
    assert [(s["hand"], s["points"], s["total"]) for s in corrected["scores"]] == [(1, 1, 1), (2, 2, 2), (30, 30, 30)]


# --- the scorekeeper's form in 31 ----------------------------------------------------------------------


def test_a_31_form_skips_a_player_who_is_out_and_a_correction_asks_who_was_in_then(make_game):
    # 2 lives, no county: Ana's hand is the lowest twice, so she is out after round 2.
    game = played(make_game, {"preset": "thirty_one", "lives": 2, "county": False}, [((10, 20, 25), None)] * 2)
    keeper = Keeper(game)
    ana, ben, cy = game.player_ids
    page = keeper.page()
    assert page.select_one(f"#hand-{ana}") is None
    out = page.select_one(f'#round-entry .player-entry.out[data-player-id="{ana}"]')
    assert text(out) == "Ana out of the game"
    assert [(h["id"], h["data-max"]) for h in page.select("#round-entry input.num")] == [
        (f"hand-{ben}", "31"),
        (f"hand-{cy}", "31"),
    ]
    assert text(page.select_one(f'label[for="hand-{ben}"]')) == "Hand value — Ben"
    assert radios(page) == [(str(ben), False), (str(cy), False), ("", True)]
    # A knocker who is out is refused beside the choice, and nothing is saved.
    refused = keeper.post({1: "20", 2: "25"}, caller=0)
    assert refused.status_code == 422, refused.text
    assert text(html(refused).select_one("p.field-error#caller-error")) == (
        "Choose who knocked from the players in this round."
    )
    assert len(keeper.rounds()) == 2
    # Cy knocks with 25, Ben's 20 is the lowest: Ben loses one of his two lives.
    response = keeper.post({1: "20", 2: "25"}, caller=2)
    assert response.status_code == 303, response.text
    third = keeper.rounds()[2]
    assert third["knocker"] == cy and third["void"] is False
    assert third["scores"] == [
        {"player_id": ben, "hand": 20, "lives_lost": 1, "lives": 1},
        {"player_id": cy, "hand": 25, "lives_lost": 0, "lives": 2},
    ]
    for number in (1, 2):  # Ana was in rounds 1 and 2
        page = keeper.page(f"?edit={number}")
        assert [page.select_one(f"#hand-{pid}")["value"] for pid in (ana, ben, cy)] == ["10", "20", "25"]
        assert page.select("#round-entry .player-entry.out") == []
        assert radios(page) == [(str(ana), False), (str(ben), False), (str(cy), False), ("", True)]
    page = keeper.page("?edit=3")
    assert page.select_one(f"#hand-{ana}") is None and radios(page)[1] == (str(cy), True)
    # Ana's 22 would leave Ben lowest in round 1: she'd still be in, yet is not in round 3.
    refused = keeper.post({0: "22"}, query="?edit=1", **{"HX-Request": "true"})
    assert refused.status_code == 422, refused.text
    page = html(refused)
    assert text(page.select_one("#round-error")) == (
        "This would make round 3 impossible: Ana would still be in the game but is not in that round."
    )
    assert text(page.select_one("#round-entry h2")) == "Correct round 1"
    assert page.select_one(f"#hand-{ana}")["value"] == "22"
    too_high = html(keeper.post({1: "32", 2: "25"}))
    assert field_error(too_high, f"hand-{ben}") == "Ben: a hand must be between 0 and 31 points."
    assert len(keeper.rounds()) == 3
    corrected = keeper.post({2: "24"}, query="?edit=1")  # Cy had 24: still not the lowest
    assert corrected.status_code == 303, corrected.text
    assert [s["hand"] for s in keeper.rounds()[0]["scores"]] == [10, 20, 24]


# --- the view of each kind --------------------------------------------------------------------------------


def test_the_dutch_view_ranks_the_lowest_first_and_says_so(client: TestClient, make_game):
    game = played(make_game, DUTCH, DUTCH_ROUNDS[:2])
    page = view(client, game)
    assert standings(page) == [("1", "Ben", "10"), ("2", "Ana", "15"), ("3", "Cy", "50")]
    assert [li["data-player-id"] for li in page.select("#scoreboard li.leader")] == [str(game.player_ids[1])]
    line = page.select_one("#scoreboard .rules-line")
    assert text(line.select_one("strong")) == "Lowest total wins"
    assert text(line) == "Lowest total wins · the game ends when someone reaches 100"
    assert page.select("#banner") == []
    # Cy, at 50, can reach the limit with one bad hand: what it takes is how far the limit is.
    assert [text(li) for li in page.select("#what-it-takes li")] == ["Cy is out at 100: 50 to go"]
    assert page.select_one("#round-entry") is None  # a viewer has no form


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", ["Cy is out at 100: 5 to go", "Ana is out at 100: 45 to go"]),
        ("ru", ["Cy выбывает на 100: осталось 5", "Ana выбывает на 100: осталось 45"]),
        ("de", ["Cy ist bei 100 raus: noch 5", "Ana ist bei 100 raus: noch 45"]),
    ],
)
def test_dutch_bars_show_danger_and_what_it_takes_is_the_limit(
    client: TestClient, make_game, language: str, said: list[str]
):
    # Ben 10, Ana 15 + 40 = 55, Cy 50 + 45 = 95: Cy about to lose, Ana past half the limit.
    game = played(make_game, DUTCH, [*DUTCH_ROUNDS[:2], ((40, 0, 45), None)])
    response = client.get(f"/g/{game.id}", headers={"Accept-Language": language})
    page = html(response)
    ana, ben, cy = (str(pid) for pid in game.player_ids)
    assert standings(page) == [("1", "Ben", "10"), ("2", "Ana", "55"), ("3", "Cy", "95")]
    assert [li["data-player-id"] for li in page.select("#scoreboard li.standing.risk-high")] == [cy]
    assert [li["data-player-id"] for li in page.select("#scoreboard li.standing.risk-mid")] == [ana]
    assert page.select_one(f"#scoreboard li[data-player-id='{ben}']:not(.risk-mid):not(.risk-high) progress.bar")
    assert [text(li) for li in page.select("#what-it-takes li")] == said  # the closest first
    # The bars of a game the highest total wins keep the players' colours: no danger there.
    blitz = make_game([{"name": name} for name in NAMES])
    play_cards(blitz, [(30, 0), (10, 2), (5, 1)])
    assert view(client, blitz).select("#scoreboard .risk-mid, #scoreboard .risk-high") == []


def test_the_danger_colours_are_dutchs_only(client: TestClient):
    css = client.get("/static/app.css").text
    for rule in (
        ".scoreboard-lowest .bar{",
        ".scoreboard-lowest .risk-mid .bar{",
        ".scoreboard-lowest .risk-high .bar{",
    ):
        assert rule.replace(" ", "") in css.replace(" ", ""), rule


def test_no_limit_line_once_the_dutch_game_is_over(client: TestClient, make_game):
    game = played(make_game, DUTCH, [((3, 10, 20), 0), ((0, 0, 95), None)])
    page = view(client, game)
    assert page.select("#banner")  # Cy past 100: over
    assert page.select("#what-it-takes") == []


def test_the_31_view_shows_hearts_the_county_and_who_is_out(client: TestClient, make_game):
    game = played(make_game, T31, T31_ROUNDS[:2])
    page = view(client, game)
    assert standings(page) == [("1", "Ben", "3"), ("1", "Cy", "3"), ("3", "Ana", "0")]
    assert text(row(page, game, 1).select_one(".hearts")) == "♥♥♥"
    assert "3 lives left" in text(row(page, game, 1).select_one(".lives-left"))
    ana = row(page, game, 0)
    assert "♥" not in text(ana.select_one(".hearts"))
    assert "on the county" in text(ana.select_one(".lives-left")) and "out" not in ana["class"]
    assert (
        text(page.select_one("#scoreboard .rules-line"))
        == "3 lives each · last player in wins · with the county (no lives left: one more chance)"
    )
    assert page.select("#scoreboard progress") == []
    play(game, *T31_ROUNDS[2])  # Ana loses on the county: out
    play(game, *T31_ROUNDS[3])  # Ben's 31 costs Cy a life
    page = view(client, game)
    assert standings(page) == [("1", "Ben", "3"), ("2", "Cy", "2"), ("3", "Ana", "0")]
    assert text(row(page, game, 2).select_one(".hearts")) == "♥♥♡"
    ana = row(page, game, 0)
    assert "out" in ana["class"] and "leader" not in ana["class"]
    assert "out in round 3" in text(ana.select_one(".lives-left"))
    assert "on the county" not in text(ana)


# Per cards game: its rules, the form's column heads, the two counts' labels and maxima, the "went out"
# button, and the rules line.
CARD_GAMES = {
    "dutch-blitz": (
        {},
        "Dutch|Blitz left",
        "Dutch cards|Blitz cards left",
        "40|10",
        "Blitz!",
        "To 75 · +1 per Dutch card · −2 per Blitz card",
    ),
    "nerts": (
        {"preset": "nerts"},
        "Centre|Pile left",
        "Centre cards|Nerts pile left",
        "52|13",
        "Nerts!",
        "To 100 · +1 per centre card · −2 per card left in the pile",
    ),
    "ligretto": (
        {"preset": "ligretto"},
        "Centre|Pile left",
        "Centre cards|Ligretto pile left",
        "40|10",
        "Ligretto!",
        "To 99 · +1 per centre card · −2 per card left in the pile · a round may end with nobody out",
    ),
}


@pytest.mark.parametrize(("rules", "heads", "labels", "most", "out", "rules_line"), CARD_GAMES.values(), ids=CARD_GAMES)
def test_a_cards_game_names_its_counts_per_game(
    client: TestClient, make_game, rules, heads, labels, most, out, rules_line
):
    game = new_game(make_game, rules)
    page = Keeper(game).page()
    assert [text(span) for span in page.select("#round-entry .entry-head span")] == ["Player", *heads.split("|")]
    for pid, name in zip(game.player_ids, NAMES, strict=True):
        fields = (f"dutch-{pid}", f"blitz-{pid}")
        assert [text(page.select_one(f'label[for="{f}"]')) for f in fields] == [
            f"{label} — {name}" for label in labels.split("|")
        ]
        assert [page.select_one(f"#{f}")["data-max"] for f in fields] == most.split("|")
        button = page.select_one(f'#round-entry fieldset[data-player-id="{pid}"] button.blitz')
        assert (text(button), button["aria-label"]) == (out, f"{out} — {name}")
    assert text(page.select_one("#scoreboard .rules-line")) == rules_line
    assert text(view(client, game).select_one("#scoreboard .rules-line")) == rules_line


def test_a_nerts_round_and_a_ligretto_round_with_nobody_out_score_by_the_cards(client: TestClient, make_game):
    nerts = new_game(make_game, {"preset": "nerts"})
    play_cards(nerts, [(20, 0), (15, 5), (30, 3)])  # 20, 15 − 10, 30 − 6
    page = view(client, nerts)
    assert standings(page) == [("1", "Cy", "24"), ("2", "Ana", "20"), ("3", "Ben", "5")]
    assert text(row(page, nerts, 2).select_one(".to-target")) == "76 to go"
    ligretto = new_game(make_game, {"preset": "ligretto"})
    play_cards(ligretto, [(10, 2), (5, 1), (12, 4)])  # stuck: 6, 3, 4
    assert standings(view(client, ligretto)) == [("1", "Ana", "6"), ("2", "Cy", "4"), ("3", "Ben", "3")]


def test_a_game_of_n_rounds_says_so_and_has_no_bars_or_target_line(client: TestClient, make_game):
    game = new_game(make_game, {"end": "rounds", "rounds": 3})
    play_cards(game, [(10, 0), (8, 2), (5, 1)])  # 10, 4, 3
    page = view(client, game)
    assert standings(page) == [("1", "Ana", "10"), ("2", "Ben", "4"), ("3", "Cy", "3")]
    assert text(page.select_one("#scoreboard .rules-line")).startswith("3 rounds, highest total wins · ")
    assert page.select("#scoreboard progress, #what-it-takes") == []
    assert page.select("#chart .target-line, #chart .target-label") == []


# --- the history -----------------------------------------------------------------------------------------


def test_the_dutch_history_shows_hands_the_caller_and_the_penalty(client: TestClient, make_game):
    game = played(make_game, DUTCH, DUTCH_ROUNDS[:2])
    page = view(client, game)
    assert cells(page, 1) == {"Ana": "0 0 hand 3 · called Dutch", "Ben": "+10 10 hand 10", "Cy": "+20 20 hand 20"}
    assert cells(page, 2) == {
        "Ana": "+15 15 hand 15 · called Dutch · takes a penalty card",
        "Ben": "0 10 hand 2",
        "Cy": "+30 50 hand 30",
    }


def test_the_31_history_shows_only_the_players_in_with_lives_lost_and_the_knocker(client: TestClient, make_game):
    game = played(make_game, T31, T31_ROUNDS[:4])
    page = view(client, game)
    assert cells(page, 1) == {"Ana": "−2 ♥ ♥ hand 10 · knocked", "Ben": "±0 ♥♥♥ hand 20", "Cy": "±0 ♥♥♥ hand 25"}
    assert cells(page, 3) == {"Ana": "−1 ♥ 0 hand 10", "Ben": "±0 ♥♥♥ hand 20", "Cy": "±0 ♥♥♥ hand 25"}
    assert cells(page, 4) == {"Ben": "±0 ♥♥♥ hand 31", "Cy": "−1 ♥ ♥♥ hand 20"}  # Ana is out
    labels = [s["aria-label"] for s in page.select('#history li[data-round="4"] .total')]
    assert labels == ["lives left: 3", "lives left: 2"]
    assert page.select("#history .void, #history li.start") == []


def test_a_void_31_round_says_it_counts_for_nothing(client: TestClient, make_game):
    # One life, no county: both lowest hands would put everyone out, so the round is void.
    game = played(make_game, {"preset": "thirty_one", "lives": 1, "county": False}, [((10, 10, 10), None)])
    page = view(client, game)
    note = page.select_one('#history li[data-round="1"] p.void')
    assert text(note) == "Everyone left would have been out: this hand counts for nothing, and they play another hand."
    assert cells(page, 1) == {name: "±0 ♥ hand 10" for name in NAMES}
    assert standings(page) == [("1", name, "1") for name in NAMES]


# --- the banner --------------------------------------------------------------------------------------------


def test_a_finished_31_game_names_the_last_player_in(client: TestClient, make_game):
    game = played(make_game, T31, T31_ROUNDS)
    page = view(client, game)
    assert text(page.select_one("#banner.banner-last h2")) == "🏆 Ben is the last player in and wins!"
    assert [text(li) for li in page.select("#banner .final-totals li")] == [
        "Ben ♥♥♥",
        "Cy out in round 6",
        "Ana out in round 3",
    ]
    assert standings(page) == [("1", "Ben", "3"), ("2", "Cy", "0"), ("3", "Ana", "0")]
    assert "out in round 6" in text(row(page, game, 2).select_one(".lives-left"))
    keeper = Keeper(game).page()
    assert keeper.select_one("#round-entry") is None and keeper.select_one("#banner form") is not None  # Rematch


def test_a_dutch_tie_for_the_lowest_total_then_the_winner(client: TestClient, make_game):
    game = played(make_game, DUTCH, DUTCH_ROUNDS[:3])
    page = view(client, game)
    assert text(page.select_one("#banner.banner-tie h2")) == "Tie for the lowest total: Ana and Ben have 25."
    assert "until one player is lowest" in text(page.select_one("#banner p"))
    assert page.select("#banner .final-totals") == []
    assert standings(page) == [("1", "Ana", "25"), ("1", "Ben", "25"), ("3", "Cy", "110")]
    assert text(Keeper(game).page().select_one("#round-entry h2")) == "Round 4 (tie-break)"
    play(game, *DUTCH_ROUNDS[3])  # Cy's 1 is lowest: Ana called without it and scores 5
    page = view(client, game)
    assert text(page.select_one("#banner.banner-won h2")) == "🏆 Ana wins with 30!"
    assert [text(li) for li in page.select("#banner .final-totals li")] == ["Ana 30", "Ben 32", "Cy 110"]


# --- the chart --------------------------------------------------------------------------------------------


def chart_lines(page: BeautifulSoup, game: GameHandle) -> dict[int, list[int]]:
    """Each player's line as values, read back through the y axis's ticks."""
    grid = page.select_one("#chart g.grid")
    ys = [line["y1"] for line in grid.select("line")]  # one per y tick; the round numbers follow
    ticks = {y: int(text(t)) for y, t in zip(ys, grid.select("text.tick")[: len(ys)], strict=True)}
    lines = {}
    for pid in game.player_ids:
        points = page.select_one(f'#chart g.series[data-player-id="{pid}"] polyline')["points"].split()
        lines[pid] = [ticks[point.split(",")[1]] for point in points]
    return lines


def test_the_31_chart_counts_lives_from_the_start_without_a_target(client: TestClient, make_game):
    game = played(make_game, T31, T31_ROUNDS[:4])
    page = view(client, game)
    assert text(page.select_one("#chart-title")) == "Lives"
    assert page.select("#chart .target-line, #chart .target-label") == []
    ana, ben, cy = game.player_ids
    assert chart_lines(page, game) == {ana: [3, 1, 0, 0], ben: [3, 3, 3, 3, 3], cy: [3, 3, 3, 3, 2]}
    assert "Lives of each player" in text(page.select_one("#chart desc"))


def test_a_dutch_chart_has_its_target_line(client: TestClient, make_game):
    game = played(make_game, DUTCH, DUTCH_ROUNDS[:2])
    page = view(client, game)
    assert text(page.select_one("#chart-title")) == "Running totals"
    assert page.select_one("#chart .target-line") is not None
    assert text(page.select_one("#chart .target-label")) == "target 100"
    assert [len(line["points"].split()) for line in page.select("#chart polyline")] == [3, 3, 3]


# --- the TV view -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "setup",
    [
        pytest.param(lambda mg: played(mg, DUTCH, DUTCH_ROUNDS[:2]), id="dutch"),
        pytest.param(lambda mg: played(mg, T31, T31_ROUNDS[:3]), id="thirty-one"),
        pytest.param(lambda mg: played(mg, T31, T31_ROUNDS), id="thirty-one-finished"),
        pytest.param(lambda mg: new_game(mg, {"preset": "nerts"}), id="nerts"),
        pytest.param(lambda mg: new_game(mg, {"preset": "ligretto"}), id="ligretto"),
    ],
)
def test_the_tv_view_of_each_kind_shows_the_same_scoreboard(client: TestClient, make_game, setup):
    game = setup(make_game)
    page, tv = view(client, game), view(client, game, "?tv=1")
    assert standings(tv) == standings(page) and standings(tv)
    assert text(tv.select_one("#scoreboard .rules-line")) == text(page.select_one("#scoreboard .rules-line"))
    assert [text(h) for h in tv.select(".hearts")] == [text(h) for h in page.select(".hearts")]
    assert tv.select("#history") == [] and tv.select_one("#round-entry") is None


# --- bugs ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [DUTCH, T31, {"preset": "nerts"}], ids=["dutch", "thirty-one", "nerts"])
def test_an_unnamed_game_of_another_kind_is_not_titled_dutch_blitz(client: TestClient, make_game, rules):
    game = new_game(make_game, rules)
    assert game.body["name"] == ""
    assert "Dutch Blitz" not in text(view(client, game).select_one("h1.game-title bdi"))


@pytest.mark.parametrize("rules", [DUTCH, T31], ids=["dutch", "thirty-one"])
def test_the_keepers_rules_form_of_dutch_or_31_renames_the_game(make_game, rules):
    game = new_game(make_game, rules)
    keeper = Keeper(game)
    form = keeper.page().select_one("#rules form")
    data = form_data(form) | {"game_name": "Friday"}  # the rules as the form shows them, a new name
    response = keeper.client.post(str(form["action"]), data=data, follow_redirects=False)
    assert response.status_code == 303, [text(p) for p in html(response).select(".field-error, .form-error")]
    assert game.get()["name"] == "Friday"


@pytest.mark.parametrize(
    ("rules", "rounds"), [(DUTCH, DUTCH_ROUNDS[:2]), (T31, T31_ROUNDS[:2])], ids=["dutch", "thirty-one"]
)
def test_the_pages_of_a_dutch_or_31_game_show_its_corrections_and_deletions(client, make_game, rules, rounds):
    game = played(make_game, rules, rounds)
    body = {"scores": [{"player_id": p, "hand": h} for p, h in zip(game.player_ids, (4, 20, 25), strict=True)]}
    corrected = client.put(f"/api/v1/games/{game.id}/rounds/1", json=body, headers=game.auth)
    assert corrected.status_code == 200, corrected.text
    assert client.delete(f"/api/v1/games/{game.id}/rounds/2", headers=game.auth).status_code in (200, 204)
    response = client.get(f"/g/{game.id}")
    assert response.status_code == 200, response.text[-300:]
    log = [text(li.select_one(".change-text")) for li in html(response).select("#changes li.change")]
    assert log[0].startswith("Round 2 deleted at ") and log[1].startswith("Round 1 corrected at ")
    assert "Ana" in log[1] and "hand " in log[1] and "→" in log[1]  # "Ana, hand 7 → 4"
    assert Keeper(game).page().select_one("#changes") is not None


@pytest.mark.parametrize(
    ("rules", "word"),
    [
        ({"preset": "dutch_blitz"}, "Blitz!"),
        ({"preset": "dutch_blitz_100"}, "Blitz!"),
        ({"preset": "nerts"}, "Go!"),
        ({"preset": "dutch"}, "Go!"),
        ({"preset": "thirty_one"}, "Go!"),
    ],
)
def test_the_countdown_ends_in_blitz_only_in_dutch_blitz(client: TestClient, make_game, rules, word):
    game = new_game(make_game, rules)
    meta = view(client, game).select_one('meta[name="js-text"]')
    assert json.loads(meta["content"])["blitz"] == word
