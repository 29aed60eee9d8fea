"""The HTML pages through the TestClient, parsed with BeautifulSoup and checked by CSS selectors.

Everything here is the no-JavaScript path (plain form posts and redirects) plus the htmx answers
(`HX-Request: true`), which the browser tests in tests/browser/ then drive for real. Whenever a post
is refused, the game is read back through the API to prove that nothing changed.
"""

from __future__ import annotations

import re
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.helpers import (
    EVIL,
    WORKED_EXAMPLE_PLAYERS,
    WORKED_EXAMPLE_ROUND,
    GameHandle,
    form_data,
    html,
    round_form,
    v1_rules,
)
from tests.helpers import text_of as text

NAMES = [p["name"] for p in WORKED_EXAMPLE_PLAYERS]  # Ana, Ben, Cy, Dee
STARTS = [p["starting_score"] for p in WORKED_EXAMPLE_PLAYERS]  # 58, 70, 30, 20


# --- helpers -------------------------------------------------------------------------------------


def texts(nodes: list[Tag]) -> list[str]:
    return [text(node) for node in nodes]


def set_cookies(response: httpx.Response) -> SimpleCookie:
    cookies: SimpleCookie = SimpleCookie()
    for header in response.headers.get_list("set-cookie"):
        cookies.load(header)
    return cookies


def game_id_of(location: str) -> str:
    match = re.fullmatch(r"/g/([^/]+)/score", location)
    assert match, location
    return match[1]


def start_game(
    client: TestClient, names: list[str], starts: list[int] | None = None, **fields: str
) -> tuple[str, httpx.Response]:
    """Create a game through the start page's form, the way a browser without JavaScript does."""
    data = {"player_count": str(len(names)), "action": "start"}
    data |= {f"player-{i}": name for i, name in enumerate(names)}
    data |= {f"start-{i}": str(score) for i, score in enumerate(starts or [])}
    data |= fields
    response = client.post("/games", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    return game_id_of(response.headers["location"]), response


class Table:
    """One game seen by one browser (a TestClient and its cookies): the scorekeeper's page and its forms."""

    def __init__(self, client: TestClient, game_id: str):
        self.client = client
        self.id = game_id

    @property
    def url(self) -> str:
        return f"/g/{self.id}/score"

    def page(self, query: str = "", **headers: str) -> BeautifulSoup:
        response = self.client.get(self.url + query, headers=headers)
        assert response.status_code == 200, response.text
        return html(response)

    def api(self) -> dict[str, Any]:
        response = self.client.get(f"/api/v1/games/{self.id}")
        assert response.status_code == 200, response.text
        return response.json()

    def player_ids(self, page: BeautifulSoup | None = None) -> list[str]:
        page = page or self.page()
        return [str(fs["data-player-id"]) for fs in page.select("#round-entry fieldset.player-entry")]

    def round_post(
        self, counts: list[tuple[Any, Any]], page: BeautifulSoup | None = None
    ) -> tuple[str, dict[str, str]]:
        """The round form's action and data with these (dutch, blitz) counts typed, in seat order."""
        page = page or self.page()
        form = page.select_one("#round-entry form")
        assert form is not None
        data = form_data(form)
        return str(form["action"]), data | round_form(self.player_ids(page), counts, data["csrf"])

    def save_round(
        self, counts: list[tuple[Any, Any]], page: BeautifulSoup | None = None, **headers: str
    ) -> httpx.Response:
        action, data = self.round_post(counts, page)
        return self.client.post(action, data=data, headers=headers, follow_redirects=False)

    def submit(self, form: Tag, changes: dict[str, str] | None = None, **headers: str) -> httpx.Response:
        data = form_data(form) | (changes or {})
        return self.client.post(str(form["action"]), data=data, headers=headers, follow_redirects=False)


@pytest.fixture
def stranger(app: FastAPI) -> TestClient:
    """Another browser: same server, no cookies (no lifespan of its own, so the app's broker stays bound)."""
    return TestClient(app)


@pytest.fixture
def worked(client: TestClient) -> Table:
    """The worked example's game, created from the start page, with its starting scores and no rounds."""
    game_id, _ = start_game(client, NAMES, STARTS)
    return Table(client, game_id)


def scoreboard(page: BeautifulSoup) -> list[dict[str, str]]:
    return [
        {
            "rank": text(li.select_one(".rank")),
            "name": text(li.select_one(".name bdi")),
            "total": text(li.select_one("[data-total]")),
            "to_go": text(li.select_one(".to-target")),
            "leader": "leader" if "leader" in li["class"] else "",
        }
        for li in page.select("#scoreboard li.standing")
    ]


def totals_of(page: BeautifulSoup) -> dict[str, int]:
    return {
        row["name"]: int(row["total"].replace("\u2212", "-")) for row in scoreboard(page)
    }  # a real minus on the page


def history(page: BeautifulSoup) -> list[list[str]]:
    """Each round's card in the history, oldest first (the page shows the latest first):
    [number, "points total dutch/blitz" per player...]."""
    cards = page.select("#history li.round-card[data-round]")
    numbers = [int(card["data-round"]) for card in cards]
    assert numbers == sorted(numbers, reverse=True), "the latest round comes first"
    return [
        [card["data-round"]]
        + [
            f"{text(s.select_one('.points'))} {text(s.select_one('.total'))} {text(s.select_one('.cards')).replace(' ', '')}"
            for s in card.select(".round-scores li.score")
        ]
        for card in reversed(cards)
    ]


def field_error(page: BeautifulSoup, name: str) -> str:
    """The message beside a field: a p.field-error with id <name>-error in the field's own container."""
    field = page.select_one(f"#{name}")
    assert field is not None, name
    assert field.get("aria-invalid") == "true", field
    container = field.find_parent(class_=["count", "player-row", "inline-field"])
    assert container is not None
    message = container.select_one(f"p.field-error#{name}-error")
    assert message is not None, container
    return text(message)


def no_errors(page: BeautifulSoup) -> None:
    assert page.select(".field-error, .form-error, #round-error") == []


# --- the start page ------------------------------------------------------------------------------


def test_start_page_offers_two_player_fields_and_the_rules_behind_disclosures(client: TestClient):
    page = html(client.get("/"))
    form = page.select_one("form#new-game")
    assert form is not None
    assert form["method"] == "post"
    assert form["action"] == "/games"
    assert [i["name"] for i in form.select("li.player-row input")] == ["player-0", "player-1"]
    assert texts(form.select("li.player-row label")) == ["Player 1", "Player 2"]
    assert form.select_one("button[name=action][value=add]") is not None
    assert form.select("button[name=action][value^=remove-]") == []  # never fewer than two
    summaries = texts(form.select("details.options > summary"))
    assert summaries[0].startswith("Starting scores")
    assert summaries[1] == "House rules"
    assert not any(d.has_attr("open") for d in form.select("details.options"))
    assert [i["name"] for i in form.select("details.options input[name^=start-]")] == ["start-0", "start-1"]
    for name in ("target", "dutch_points", "blitz_points"):
        assert form.select_one(f"details.options input[name={name}]") is not None
    assert [r["value"] for r in form.select("input[name=tie_break]")] == ["play_on", "shared"]
    assert form.select_one("input[name=tie_break][value=play_on]").has_attr("checked")
    assert text(form.select_one("button.primary[type=submit][value=start]")) == "Start game"
    unseen = form.select("button[type=submit]")[0]  # Enter's, without JavaScript: out of sight and of the tabs
    assert unseen["value"] == "start" and "visually-hidden" in unseen["class"] and unseen["tabindex"] == "-1"
    assert page.select_one("#your-games") is not None


def test_add_player_keeps_what_was_typed_and_stops_at_eight(client: TestClient):
    data = {"player_count": "2", "player-0": "Ana", "player-1": "Ben", "start-1": "12", "action": "add"}
    page = html(client.post("/games", data=data))
    form = page.select_one("form#new-game")
    assert [i.get("value") for i in form.select("li.player-row input")] == ["Ana", "Ben", ""]
    assert form.select_one("input[name=player_count]")["value"] == "3"
    assert form.select_one("input#start-1")["value"] == "12"
    assert form.select_one("details.options").has_attr("open")  # a typed starting score stays visible
    assert len(form.select("button[name=action][value^=remove-]")) == 3

    for count in range(3, 8):
        data = form_data(form) | {"action": "add"}
        form = html(client.post("/games", data=data)).select_one("form#new-game")
        assert len(form.select("li.player-row input")) == count + 1
    assert form.select_one("button[name=action][value=add]") is None
    assert text(form.select_one("fieldset.players legend")) == "Players (8 of 8)"
    # A crafted "add" past eight changes nothing.
    form = html(client.post("/games", data=form_data(form) | {"action": "add"})).select_one("form#new-game")
    assert len(form.select("li.player-row input")) == 8


def test_remove_player_drops_that_one_field(client: TestClient):
    data = {"player_count": "3", "player-0": "Ana", "player-1": "Ben", "player-2": "Cy", "action": "remove-1"}
    form = html(client.post("/games", data=data)).select_one("form#new-game")
    assert [i.get("value") for i in form.select("li.player-row input")] == ["Ana", "Cy"]
    assert form.select("button[name=action][value^=remove-]") == []
    # At two players a crafted remove is ignored.
    form = html(client.post("/games", data=form_data(form) | {"action": "remove-0"})).select_one("form#new-game")
    assert [i.get("value") for i in form.select("li.player-row input")] == ["Ana", "Cy"]


def test_add_and_remove_with_htmx_answer_only_the_form(client: TestClient):
    response = client.post(
        "/games", data={"player_count": "2", "player-0": "Ana", "action": "add"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    page = html(response)
    assert page.select_one("html") is None
    assert page.select_one("form#new-game") is not None
    assert len(page.select("form#new-game li.player-row input")) == 3


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"player-1": ""}, "player-1", "Enter a name."),
        ({"player-1": "   "}, "player-1", "Enter a name."),
        ({"player-1": "ana"}, "player-1", "Two players are called ana; give each player a different name."),
        ({"target": "abc"}, "target", "The target must be a whole number."),
        ({"target": "0"}, "target", "The target must be between 1 and 10000 points."),
        ({"dutch_points": "1000"}, "dutch_points", "Points per Dutch card must be between -100 and 100."),
        ({"blitz_points": "x"}, "blitz_points", "Points per Blitz card must be a whole number."),
        ({"start-0": "20000"}, "start-0", "Ana's starting score must be between -10000 and 10000."),
        ({"start-1": "ten"}, "start-1", "A starting score must be a whole number."),
    ],
)
def test_create_with_a_mistake_is_422_with_the_message_beside_the_field(
    client: TestClient, fields: dict[str, str], field: str, message: str
):
    data = {"player_count": "2", "player-0": "Ana", "player-1": "Ben", "action": "start", "game_name": "Friday"}
    data |= fields
    response = client.post("/games", data=data, follow_redirects=False)
    assert response.status_code == 422
    assert "set-cookie" not in response.headers
    page = html(response)
    assert field_error(page, field) == message
    assert len(page.select(".field-error")) == 1
    assert text(page.select_one("#new-game .form-error")) == "Please check the fields marked below."
    form = page.select_one("form#new-game")
    for name, value in data.items():  # everything typed comes back as typed
        if name not in ("action", "player_count"):
            assert form.select_one(f"input[name={name}]")["value"] == value
    details = form.select_one(f"#{field}").find_parent("details")
    if details is not None:
        assert details.has_attr("open")  # the field with the message is not hidden
    assert client.get("/api/v1/games/none").status_code == 404
    assert html(client.get("/")).select("#your-games li") == []


def test_every_mistake_of_a_new_game_is_shown_at_once_whether_unreadable_or_out_of_range(client: TestClient):
    # The form reads what it can; the use case's one check of a new game judges the rest, even when
    # another field could not be read (so fixing one message does not reveal the next).
    data = {
        "player_count": "3", "player-0": "Ana", "player-1": "ana", "player-2": "Cy", "action": "start",
        "target": "seventy", "dutch_points": "500", "start-2": "-20000",
    }  # fmt: skip
    response = client.post("/games", data=data, follow_redirects=False)
    assert response.status_code == 422
    page = html(response)
    assert {field: field_error(page, field) for field in ("player-1", "target", "dutch_points", "start-2")} == {
        "player-1": "Two players are called ana; give each player a different name.",
        "target": "The target must be a whole number.",
        "dutch_points": "Points per Dutch card must be between -100 and 100.",
        "start-2": "Cy's starting score must be between -10000 and 10000.",
    }
    assert len(page.select(".field-error")) == 4
    assert html(client.get("/")).select("#your-games li") == []


def test_create_redirects_to_the_scorekeeper_page_and_sets_the_edit_cookie(client: TestClient):
    game_id, response = start_game(client, ["Ana", "Ben"], target="50", tie_break="shared", game_name="Friday")
    assert response.headers["location"] == f"/g/{game_id}/score"
    cookie = set_cookies(response)[f"bb_edit_{game_id}"]
    assert cookie["httponly"] is True
    assert cookie["samesite"].lower() == "lax"
    assert cookie["path"] == "/"
    assert len(cookie.value) >= 32
    game = Table(client, game_id).api()
    assert [p["name"] for p in game["players"]] == ["Ana", "Ben"]
    assert game["name"] == "Friday"
    assert v1_rules(game) == {"target": 50, "dutch_points": 1, "blitz_points": -2, "tie_break": "shared"}
    page = Table(client, game_id).page()
    assert [row["name"] for row in scoreboard(page)] == ["Ana", "Ben"]


def test_create_with_htmx_answers_204_and_hx_redirect(client: TestClient):
    data = {"player_count": "2", "player-0": "Ana", "player-1": "Ben", "action": "start"}
    response = client.post("/games", data=data, headers={"HX-Request": "true"}, follow_redirects=False)
    assert response.status_code == 204
    game_id = game_id_of(response.headers["HX-Redirect"])
    assert f"bb_edit_{game_id}" in set_cookies(response)
    assert client.get(f"/g/{game_id}/score").status_code == 200


def test_create_with_htmx_and_a_mistake_answers_the_form_fragment(client: TestClient):
    data = {"player_count": "2", "player-0": "Ana", "player-1": "", "action": "start"}
    response = client.post("/games", data=data, headers={"HX-Request": "true"})
    assert response.status_code == 422
    page = html(response)
    assert page.select_one("html") is None
    assert field_error(page, "player-1") == "Enter a name."


# --- keeping score without JavaScript -------------------------------------------------------------


def test_round_form_has_labelled_numeric_fields_and_a_save_button(worked: Table):
    page = worked.page()
    form = page.select_one("#round-entry form")
    assert form["method"] == "post"
    assert form["action"] == f"/g/{worked.id}/rounds"
    assert set(form_data(form)) >= {"csrf", "version", "request_id"}
    for fieldset, name in zip(form.select("fieldset.player-entry"), NAMES, strict=True):
        assert text(fieldset.select_one("legend bdi")) == name
        pid = fieldset["data-player-id"]
        for kind, label in (("dutch", "Dutch cards"), ("blitz", "Blitz cards left")):
            field = fieldset.select_one(f"input#{kind}-{pid}")
            assert field["name"] == f"{kind}-{pid}"
            assert field["inputmode"] == "numeric"
            labels = page.select(f'label[for="{kind}-{pid}"]')
            assert texts(labels) == [f"{label} — {name}"]
            assert labels[0].select_one(".visually-hidden") is not None
        steppers = fieldset.select("button.step")
        assert [b["aria-label"] for b in steppers] == [
            f"One Dutch card fewer — {name}",
            f"One Dutch card more — {name}",
            f"One Blitz card fewer — {name}",
            f"One Blitz card more — {name}",
        ]
        assert all(b["type"] == "button" for b in steppers)
        blitz = fieldset.select_one("button.blitz")
        assert blitz["aria-label"] == f"Blitz! — {name}"
        assert blitz["data-blitz"] == f"blitz-{pid}"
        assert fieldset.select_one("output[data-points]") is not None
    submits = form.select("button[type=submit]")
    assert texts(submits) == ["Save round"]


def test_the_worked_example_played_without_javascript(worked: Table):
    page = worked.page()
    assert text(page.select_one("#round-entry h2")) == "Round 1"
    assert texts(page.select("#scoreboard li.standing .name bdi")) == ["Ben", "Ana", "Cy", "Dee"]

    response = worked.save_round(WORKED_EXAMPLE_ROUND, page)
    assert response.status_code == 303
    assert response.headers["location"] == f"{worked.url}?saved=1#game"  # lands on the scores, confirmed
    assert text(html(worked.client.get(response.headers["location"])).select_one("#done[role=status] p")) == (
        "Round 1 saved."
    )

    page = worked.page()
    assert scoreboard(page) == [
        # Once the game is over, "to go" means nothing more: only those who reached the target say so.
        {"rank": "1", "name": "Ana", "total": "80", "to_go": "reached 75", "leader": "leader"},
        {"rank": "2", "name": "Ben", "total": "78", "to_go": "reached 75", "leader": ""},
        {"rank": "3", "name": "Cy", "total": "31", "to_go": "", "leader": ""},
        {"rank": "4", "name": "Dee", "total": "15", "to_go": "", "leader": ""},
    ]
    assert texts(page.select("#scoreboard .last-points")) == [
        "last round: +22",
        "last round: +8",
        "last round: +1",
        "last round: −5",
    ]
    assert [text(s) for s in page.select("#scoreboard .last-points .visually-hidden")] == ["last round:"] * 4
    assert page.select_one("#scoreboard li.leader .leader-mark") is not None
    assert [p["value"] for p in page.select("#scoreboard progress")] == ["75", "75", "31", "15"]
    assert texts(page.select("#history li[data-round='1'] .who")) == NAMES
    assert texts(page.select("#history li.start .who")) == NAMES
    assert texts(page.select("#history li.start .total")) == ["58", "70", "30", "20"]
    assert history(page) == [["1", "+22 80 22/0", "+8 78 14/3", "+1 31 11/5", "−5 15 9/7"]]

    banner = page.select_one("#banner")
    assert banner is not None
    assert "banner-won" in banner["class"]
    assert text(banner.select_one("h2")) == "🏆 Ana wins with 80!"
    assert texts(banner.select(".final-totals li")) == ["Ana 80", "Ben 78", "Cy 31", "Dee 15"]
    rematch = banner.select_one("form")
    assert rematch["action"] == f"/g/{worked.id}/rematch"
    assert text(rematch.select_one("button[type=submit]")) == "Rematch"
    assert page.select_one("#round-entry") is None  # the game is over: no new round
    assert text(page.select_one(".round-count")) == "· after round 1"

    game = worked.api()
    assert game["status"] == "finished"
    assert [p["total"] for p in game["players"]] == [80, 78, 31, 15]


def test_points_preview_is_rendered_by_the_server_for_typed_values(worked: Table):
    response = worked.save_round([(22, 0), (14, 3), (11, 5), ("", 7)])
    assert response.status_code == 422
    page = html(response)
    assert texts(page.select("#round-entry output[data-points]")) == ["+22", "+8", "+1", ""]


def test_no_points_preview_for_a_count_the_rules_refuse(worked: Table):
    response = worked.save_round([(41, 0), (14, 11), (30, 10), (9, 7)])  # 41 Dutch; 11 left; 40 in all
    assert response.status_code == 422
    page = html(response)
    assert texts(page.select("#round-entry output[data-points]")) == ["", "", "+10", "−5"]


def test_the_start_page_says_how_a_game_is_won(client: TestClient):
    # Dutch Blitz's line in the game picker: to a target, then the highest total (not "first past 75").
    intro = text(html(client.get("/")).select_one("section.intro #preset-dutch_blitz-line"))
    assert intro.endswith("to 75, highest total wins")
    assert "first past" not in intro


def test_your_games_come_before_the_form_once_there_are_some(client: TestClient):
    first_visit = html(client.get("/"))
    order = [el.get("id") for el in first_visit.select("main form#new-game, main #your-games")]
    assert order == ["new-game", "your-games"]  # a first visit starts with the form
    start_game(client, ["Ana", "Ben"])
    back = html(client.get("/"))
    order = [el.get("id") for el in back.select("main form#new-game, main #your-games")]
    assert order == ["your-games", "new-game"]  # a scorekeeper coming back finds their game first


def test_adding_a_player_focuses_the_new_field(client: TestClient):
    data = {"player_count": "2", "player-0": "Ana", "player-1": "Ben", "action": "add"}
    for headers in ({}, {"HX-Request": "true"}):  # without JavaScript too: the browser honours autofocus
        page = html(client.post("/games", data=data, headers=headers))
        assert [i["name"] for i in page.select("input[autofocus]")] == ["player-2"]
    removed = html(client.post("/games", data=data | {"player_count": "3", "action": "remove-2"}))
    assert removed.select("input[autofocus]") == []


@pytest.mark.parametrize(
    ("counts", "where", "message"),
    [
        (
            [(22, 1), (14, 3), (11, 5), (9, 7)],
            "round",
            "Nobody called Blitz: at least one player must have 0 Blitz cards left.",
        ),
        ([(41, 0), (14, 3), (11, 5), (9, 7)], "dutch-0", "Ana: Dutch cards must be between 0 and 40."),
        ([(22, 0), (14, 11), (11, 5), (9, 7)], "blitz-1", "Ben: Blitz cards left must be between 0 and 10."),
        (
            [(22, 0), (35, 8), (11, 5), (9, 7)],
            "dutch-1",
            "Ben: 35 Dutch cards and 8 Blitz cards left make 43, but a deck has only 40 cards.",
        ),
        ([(22, 0), (14, 3), ("", 5), (9, 7)], "dutch-2", "Enter Cy's Dutch cards."),
        ([(22, 0), (14, 3), (11, 5), (9, "abc")], "blitz-3", "Dee: Blitz cards left must be a whole number."),
        ([(22, 0), (14, 3), (11, "-1"), (9, 7)], "blitz-2", "Cy: Blitz cards left must be between 0 and 10."),
    ],
)
def test_a_round_with_a_mistake_is_422_keeps_what_was_typed_and_saves_nothing(
    worked: Table, counts: list[tuple[Any, Any]], where: str, message: str
):
    before = worked.api()
    page = worked.page()
    ids = worked.player_ids(page)
    response = worked.save_round(counts, page)
    assert response.status_code == 422
    page = html(response)
    if where == "round":
        assert texts(page.select("#round-error p")) == [message]
        assert page.select(".field-error") == []
    else:
        kind, seat = where.split("-")
        assert field_error(page, f"{kind}-{ids[int(seat)]}") == message
        assert len(page.select(".field-error")) == 1
        assert page.select_one("#round-error") is None
    typed = [(page.select_one(f"#dutch-{pid}")["value"], page.select_one(f"#blitz-{pid}")["value"]) for pid in ids]
    assert typed == [(str(d), str(b)) for d, b in counts]
    assert text(page.select_one("#round-entry button[type=submit]")) == "Save round"
    assert worked.api() == before


def test_the_same_request_id_posted_twice_stores_one_round(worked: Table):
    action, data = worked.round_post([(3, 0), (2, 4), (1, 6), (0, 8)])
    first = worked.client.post(action, data=data, follow_redirects=False)
    second = worked.client.post(action, data=data, follow_redirects=False)
    assert (first.status_code, second.status_code) == (303, 303)
    game = worked.api()
    assert len(game["rounds"]) == 1
    assert game["version"] == 2
    # A new page load brings a new request id, so the next round is a new round.
    assert worked.save_round([(3, 0), (2, 4), (1, 6), (0, 8)]).status_code == 303
    assert len(worked.api()["rounds"]) == 2


def test_a_stale_version_is_409_with_a_message_and_saves_nothing(worked: Table):
    old_page = worked.page()
    assert worked.save_round([(3, 0), (2, 4), (1, 6), (0, 8)]).status_code == 303  # another device saves
    before = worked.api()
    response = worked.save_round([(5, 0), (2, 4), (1, 6), (0, 8)], old_page)
    assert response.status_code == 409
    page = html(response)
    assert texts(page.select("#round-error p")) == [
        "The game changed on another device while you typed. Check the scores below and save again."
    ]
    ids = worked.player_ids(page)
    assert page.select_one(f"#dutch-{ids[0]}")["value"] == "5"  # kept, ready to save again
    assert page.select_one("#round-entry input[name=version]")["value"] == str(before["version"])
    assert worked.api() == before


def test_saving_with_htmx_answers_the_game_fragment(worked: Table):
    response = worked.save_round(WORKED_EXAMPLE_ROUND, **{"HX-Request": "true"})
    assert response.status_code == 200
    page = html(response)
    assert page.select_one("html") is None
    game = page.select_one("#game")
    assert game is not None
    assert game["data-version"] == "2"
    assert text(page.select_one("#banner h2")) == "🏆 Ana wins with 80!"
    assert response.headers["Vary"] == "HX-Request, Accept-Language, Cookie"


def test_a_mistake_with_htmx_answers_422_with_the_fragment(worked: Table):
    response = worked.save_round([(22, 1), (14, 3), (11, 5), (9, 7)], **{"HX-Request": "true"})
    assert response.status_code == 422
    page = html(response)
    assert page.select_one("html") is None
    assert page.select_one("#game #round-error") is not None


# --- correcting, deleting, undoing ---------------------------------------------------------------


def test_correct_a_past_round(client: TestClient):
    table = Table(client, start_game(client, ["Ana", "Ben"])[0])
    table.save_round([(10, 0), (5, 2)])
    table.save_round([(4, 3), (8, 0)])
    page = table.page()
    edit_links = page.select("#history li[data-round] .row-actions a[aria-label^=Edit]")
    assert [a["href"] for a in edit_links] == [f"{table.url}?edit=2", f"{table.url}?edit=1"]  # the latest first

    page = table.page("?edit=1")
    assert text(page.select_one("#round-entry h2")) == "Correct round 1"
    ids = table.player_ids(page)
    assert [page.select_one(f"#{kind}-{pid}")["value"] for pid in ids for kind in ("dutch", "blitz")] == [
        "10",
        "0",
        "5",
        "2",
    ]
    form = page.select_one("#round-entry form")
    assert form["action"] == f"/g/{table.id}/rounds/1"
    assert text(form.select_one("button[type=submit]")) == "Save correction"
    assert form.select_one(f'a[href="{table.url}"]') is not None  # cancel

    assert totals_of(table.page()) == {"Ana": 10 - 2, "Ben": 1 + 8}
    response = table.save_round([(20, 0), (5, 2)], page)
    assert response.status_code == 303
    page = table.page()
    assert totals_of(page) == {"Ana": 20 - 2, "Ben": 1 + 8}
    assert history(page)[0] == ["1", "+20 20 20/0", "+1 1 5/2"]
    assert text(page.select_one("#round-entry h2")) == "Round 3"
    assert len(table.api()["rounds"]) == 2


def test_a_correction_with_a_mistake_stays_a_correction(client: TestClient):
    table = Table(client, start_game(client, ["Ana", "Ben"])[0])
    table.save_round([(10, 0), (5, 2)])
    before = table.api()
    response = table.save_round([(10, 1), (5, 2)], table.page("?edit=1"))
    assert response.status_code == 422
    page = html(response)
    assert text(page.select_one("#round-entry h2")) == "Correct round 1"
    assert page.select_one("#round-error") is not None
    assert table.api() == before


def test_unknown_edit_or_delete_number_shows_the_normal_page(worked: Table):
    for query in ("?edit=5", "?delete=5", "?edit=0", "?delete=-1"):
        page = worked.page(query)
        assert text(page.select_one("#round-entry h2")) == "Round 1"
        assert page.select_one("#confirm-delete") is None


def test_delete_asks_first_and_later_rounds_move_up(client: TestClient):
    table = Table(client, start_game(client, ["Ana", "Ben"])[0])
    table.save_round([(10, 0), (5, 2)])
    table.save_round([(4, 3), (8, 0)])
    table.save_round([(1, 0), (2, 5)])
    page = table.page("?delete=2")
    confirm = page.select_one("#confirm-delete")
    assert text(confirm.select_one("h2")) == "Delete round 2?"
    assert "Later rounds move up a number." in text(confirm)
    assert page.select_one("#round-entry") is None  # nothing else to fill in while confirming
    form = confirm.select_one("form")
    assert form["action"] == f"/g/{table.id}/rounds/2/delete"
    assert text(form.select_one("button[type=submit]")) == "Delete round 2"
    assert confirm.select_one(f'a[href="{table.url}"]') is not None  # cancel
    assert table.api()["version"] == 4  # showing the confirmation changed nothing

    response = table.submit(form)
    assert response.status_code == 303
    assert response.headers["location"] == table.url
    page = table.page()
    assert history(page) == [["1", "+10 10 10/0", "+1 1 5/2"], ["2", "+1 11 1/0", "−8 −7 2/5"]]
    assert totals_of(page) == {"Ana": 11, "Ben": -7}
    # The same confirmation posted again is stale now: 409 and nothing more is deleted.
    response = table.submit(form)
    assert response.status_code == 409
    assert text(html(response).select_one("#game .form-error")) == (
        "The game changed on another device; nothing was deleted."
    )
    assert len(table.api()["rounds"]) == 2


def test_undo_last_round_points_at_the_confirmation_of_the_last_round(client: TestClient):
    table = Table(client, start_game(client, ["Ana", "Ben"])[0])
    assert table.page().select_one("#undo") is None  # nothing to undo yet
    table.save_round([(10, 0), (5, 2)])
    table.save_round([(4, 3), (8, 0)])
    undo = table.page().select_one("#history a#undo")
    assert text(undo) == "Undo last round"
    assert undo["href"] == f"{table.url}?delete=2"
    page = table.page("?delete=2")
    assert text(page.select_one("#confirm-delete h2")) == "Delete round 2?"
    assert table.submit(page.select_one("#confirm-delete form")).status_code == 303
    assert history(table.page()) == [["1", "+10 10 10/0", "+1 1 5/2"]]


def test_deleting_the_deciding_round_reopens_the_game(worked: Table):
    worked.save_round(WORKED_EXAMPLE_ROUND)
    page = worked.page("?delete=1")
    assert worked.submit(page.select_one("#confirm-delete form")).status_code == 303
    page = worked.page()
    assert page.select_one("#banner") is None
    assert text(page.select_one("#round-entry h2")) == "Round 1"
    assert page.select_one("#history li[data-round]") is None


# --- ties, rules, rematch ---------------------------------------------------------------------------


def test_a_tie_at_the_top_under_play_on_calls_for_a_tie_break_round(client: TestClient):
    table = Table(client, start_game(client, ["Ana", "Ben", "Cy"], [70, 70, 0])[0])
    table.save_round([(5, 0), (5, 0), (2, 4)])
    page = table.page()
    banner = page.select_one("#banner")
    assert "banner-tie" in banner["class"]
    assert text(banner.select_one("h2")) == "Tie at the top: Ana and Ben have 75."
    assert text(banner.select_one("p")) == "Play a tie-break round: the game goes on until one player is ahead."
    assert banner.select_one("form") is None  # no rematch yet
    assert [(r["rank"], r["name"], r["leader"]) for r in scoreboard(page)] == [
        ("1", "Ana", "leader"),
        ("1", "Ben", "leader"),
        ("3", "Cy", ""),
    ]
    assert text(page.select_one("#round-entry h2")) == "Round 2 (tie-break)"

    assert table.save_round([(1, 0), (3, 0), (0, 10)], page).status_code == 303
    page = table.page()
    assert text(page.select_one("#banner h2")) == "🏆 Ben wins with 78!"
    assert texts(page.select("#banner .final-totals li")) == ["Ben 78", "Ana 76", "Cy −26"]
    assert page.select_one("#round-entry") is None


def test_a_tie_under_shared_names_both_winners(client: TestClient):
    table = Table(client, start_game(client, ["Ana", "Ben"], [70, 70], tie_break="shared")[0])
    table.save_round([(5, 0), (5, 0)])
    banner = table.page().select_one("#banner")
    assert "banner-shared" in banner["class"]
    assert text(banner.select_one("h2")) == "🏆 Ana and Ben share the win with 75!"


def test_changing_the_house_rules_mid_game_recomputes_the_totals(client: TestClient):
    table = Table(client, start_game(client, ["Ana", "Ben"])[0])
    table.save_round([(10, 0), (5, 2)])
    page = table.page()
    rules = page.select_one("details#rules")
    assert not rules.has_attr("open")
    form = rules.select_one("form")
    assert form["action"] == f"/g/{table.id}/rules"
    assert form_data(form) | {"csrf": "", "version": ""} == {
        "csrf": "",
        "version": "",
        "game_name": "",
        "target": "75",
        "dutch_points": "1",
        "blitz_points": "-2",
        "tie_break": "play_on",
        # Every parameter of Dutch Blitz, the box with its marker (unchecked sends nothing).
        "end": "target",
        "rounds": "10",
        "pile_size": "10",
        "deck_size": "40",
        "must_go_out": "1",
        "must_go_out_shown": "1",
        "win": "highest_total",
    }
    response = table.submit(form, {"dutch_points": "3", "blitz_points": "-5", "target": "30"})
    assert response.status_code == 303
    page = table.page()
    assert totals_of(page) == {"Ana": 30, "Ben": 5}
    assert history(page) == [["1", "+30 30 10/0", "+5 5 5/2"]]
    assert text(page.select_one("#banner h2")) == "🏆 Ana wins with 30!"
    assert text(page.select_one("#scoreboard .rules-line")) == "To 30 · +3 per Dutch card · −5 per Blitz card"
    assert v1_rules(table.api()) == {"target": 30, "dutch_points": 3, "blitz_points": -5, "tie_break": "play_on"}


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"target": "abc"}, "target", "The target must be a whole number."),
        ({"target": ""}, "target", "The target can't be empty."),
        ({"target": "0"}, "target", "The target must be between 1 and 10000 points."),
        ({"dutch_points": "101"}, "dutch_points", "Points per Dutch card must be between -100 and 100."),
        ({"blitz_points": "-2.5"}, "blitz_points", "Points per Blitz card must be a whole number."),
    ],
)
def test_a_bad_house_rule_is_422_with_the_message_beside_the_field(
    client: TestClient, changes: dict[str, str], field: str, message: str
):
    table = Table(client, start_game(client, ["Ana", "Ben"])[0])
    table.save_round([(10, 0), (5, 2)])
    before = table.api()
    response = table.submit(table.page().select_one("#rules form"), changes)
    assert response.status_code == 422
    page = html(response)
    rules = page.select_one("details#rules")
    assert rules.has_attr("open")
    assert field_error(rules, field) == message
    assert rules.select_one(f"input[name={field}]")["value"] == changes[field]
    assert table.api() == before


def test_rematch_starts_a_new_game_with_the_same_players_and_rules(client: TestClient):
    old_id, _ = start_game(
        client, ["Ana", "Ben"], [70, 0], target="80", dutch_points="2", blitz_points="-3", tie_break="shared"
    )
    table = Table(client, old_id)
    table.save_round([(5, 0), (3, 2)])
    page = table.page()
    assert text(page.select_one("#banner h2")) == "🏆 Ana wins with 80!"
    response = table.submit(page.select_one("#banner form"))
    assert response.status_code == 303
    new_id = game_id_of(response.headers["location"])
    assert new_id != old_id
    assert f"bb_edit_{new_id}" in set_cookies(response)
    new = Table(client, new_id)
    page = new.page()
    assert [r["name"] for r in scoreboard(page)] == ["Ana", "Ben"]
    assert [r["total"] for r in scoreboard(page)] == ["0", "0"]
    game = new.api()
    assert [(p["name"], p["starting_score"]) for p in game["players"]] == [("Ana", 0), ("Ben", 0)]
    assert v1_rules(game) == {"target": 80, "dutch_points": 2, "blitz_points": -3, "tie_break": "shared"}
    assert game["rounds"] == []
    assert table.api()["status"] == "finished"  # the old game is kept as it was


def test_rematch_with_htmx_answers_hx_redirect(worked: Table):
    worked.save_round(WORKED_EXAMPLE_ROUND)
    response = worked.submit(worked.page().select_one("#banner form"), **{"HX-Request": "true"})
    assert response.status_code == 204
    new_id = game_id_of(response.headers["HX-Redirect"])
    assert f"bb_edit_{new_id}" in set_cookies(response)


# --- the view page ---------------------------------------------------------------------------------


def test_view_page_is_read_only_with_scoreboard_history_chart_and_qr(client: TestClient, worked: Table):
    worked.save_round(WORKED_EXAMPLE_ROUND)
    response = client.get(f"/g/{worked.id}")
    assert response.status_code == 200
    page = html(response)
    assert page.select_one("body.viewer") is not None
    language_switch(page).decompose()  # the one form a reader has: it changes this browser's language only
    assert page.select("form") == []
    assert page.select("[hx-post], [hx-put], [hx-delete], [hx-patch]") == []
    assert page.select("input[name=csrf]") == []
    assert page.select("button[type=submit], #undo, .row-actions, #round-entry, #rules") == []
    game = page.select_one("#game")
    assert game["data-version"] == "2"
    # Live through htmx's SSE extension: the stream on a wrapper that is never swapped, and a refresh
    # that sends the version shown (#since, inside the swapped #game) and swaps the whole of #game.
    live = page.select_one("#live[hx-ext=sse]")
    assert live["sse-connect"] == f"/g/{worked.id}/events"
    assert live.select_one("#game") is game
    refresh = live.select_one("#live-refresh")
    assert (refresh["hx-get"], refresh["hx-trigger"]) == (f"/g/{worked.id}", "sse:version, refresh")
    assert (refresh["hx-target"], refresh["hx-swap"], refresh["hx-include"]) == (
        "#game",
        "outerHTML",
        "#since, #history-page",
    )
    assert game.select_one("input#since[type=hidden][name=since]")["value"] == "2"
    assert [s["src"].split("?")[0] for s in page.select("script[src]")] == [
        "/static/vendor/htmx-2.0.11.min.js",
        "/static/vendor/htmx-ext-sse-2.2.4.min.js",
        "/static/app.js",
    ]

    assert [r["name"] for r in scoreboard(page)] == ["Ana", "Ben", "Cy", "Dee"]
    assert text(page.select_one("#banner h2")) == "🏆 Ana wins with 80!"
    assert history(page) == [["1", "+22 80 22/0", "+8 78 14/3", "+1 31 11/5", "−5 15 9/7"]]

    chart = page.select_one("#chart svg.chart")
    assert chart is not None
    series = chart.select("g.series")
    assert len(series) == 4
    assert all(len(g.select("polyline.line")) == 1 for g in series)
    assert all(len(g["points"].split()) == 2 for g in chart.select("polyline.line"))  # start + round 1
    assert len({tuple(g["class"]) for g in series}) == 4  # a colour each
    assert len({g.select_one("use.marker")["href"] for g in series}) == 4  # and a marker shape each
    assert chart.select_one("line.target-line") is not None
    assert text(chart.select_one(".target-label")) == "target 75"
    assert texts(page.select("#chart .legend li bdi")) == NAMES
    assert "Ana 80" in text(chart.select_one("desc"))

    qr = page.select_one("#share .qr svg")
    assert qr is not None
    assert qr.select_one("path") is not None
    assert qr.has_attr("viewbox") and not qr.has_attr("width")  # scales into its CSS box, never cropped
    assert page.select_one("#view-link")["value"] == f"http://testserver/g/{worked.id}"
    assert page.select_one("#handover") is None
    assert page.select_one(f'a[href="/g/{worked.id}?tv=1"]') is not None


def test_chart_leaves_room_for_long_axis_labels(client: TestClient):
    game_id, _ = start_game(client, ["Ana", "Ben"], [-9999, 9000], target="10000")
    page = html(client.get(f"/g/{game_id}"))
    labels = page.select("#chart svg .grid text.tick[text-anchor=end]")
    assert "\u221210000" in texts(labels)  # a real minus, as the totals have
    left = min(float(line["x1"]) for line in page.select("#chart svg .grid line"))
    longest = max(len(text(label)) for label in labels)
    assert left >= 8 + 6 * longest  # about 6 px a character at the ticks' 10 px font
    starts = [float(p["points"].split()[0].split(",")[0]) for p in page.select("#chart polyline.line")]
    assert starts == [left, left]


def test_tv_layout(client: TestClient, worked: Table):
    worked.save_round(WORKED_EXAMPLE_ROUND)
    page = html(client.get(f"/g/{worked.id}?tv=1"))
    assert page.select_one("body.tv.viewer") is not None
    assert page.select_one("#scoreboard") is not None
    assert page.select_one("#chart svg") is not None
    assert page.select_one("#share") is None
    assert page.select_one("#live-refresh")["hx-get"] == f"/g/{worked.id}?tv=1"


def test_view_page_without_rounds_and_for_an_unknown_game(client: TestClient, worked: Table):
    page = html(client.get(f"/g/{worked.id}"))
    assert text(page.select_one("#history")) == "Rounds No rounds yet."
    assert len(page.select("#chart polyline.line")) == 4
    response = client.get("/g/no-such-game")
    assert response.status_code == 404
    assert text(html(response).select_one("h1")) == "Not found"


def test_view_fragment_for_htmx(client: TestClient, worked: Table):
    response = client.get(f"/g/{worked.id}", headers={"HX-Request": "true"})
    assert response.status_code == 200
    page = html(response)
    assert page.select_one("html") is None
    assert page.select_one("#game #scoreboard") is not None
    assert page.select("form") == []


# --- who may keep score --------------------------------------------------------------------------


def keeper_posts(table: Table) -> list[tuple[str, dict[str, str]]]:
    """Every state-changing form of the scorekeeper's page, filled in as the page would send it."""
    table.save_round([(3, 0), (2, 4), (1, 6), (0, 8)])
    page = table.page()
    posts = [table.round_post([(5, 0), (2, 4), (1, 6), (0, 8)], page)]
    edit = table.page("?edit=1")
    posts.append(table.round_post([(6, 0), (2, 4), (1, 6), (0, 8)], edit))
    for form in (
        table.page("?delete=1").select_one("#confirm-delete form"),
        page.select_one("#rules form"),
        table.page("?handover=1").select_one("#handover form"),
    ):
        data = form_data(form)
        if "target" in data:
            data["target"] = "10"
        posts.append((str(form["action"]), data))
    posts.append((f"/g/{table.id}/rematch", {"csrf": form_data(page.select_one("#rules form"))["csrf"]}))
    return posts


def test_a_browser_without_the_cookie_may_watch_but_not_keep_score(worked: Table, stranger: TestClient):
    posts = keeper_posts(worked)
    before = worked.api()
    response = stranger.get(worked.url)
    assert response.status_code == 403
    assert response.headers["Referrer-Policy"] == "no-referrer"
    page = html(response)
    assert text(page.select_one("h1")) == "You can watch this game"
    assert page.select_one(f'a[href="/g/{worked.id}"]') is not None
    language_switch(page).decompose()
    assert page.select("form") == []
    for action, data in posts:
        response = stranger.post(action, data=data, follow_redirects=False)
        assert response.status_code == 403, action
        assert "set-cookie" not in response.headers
        assert html(response).select_one("h1") is not None
    assert worked.api() == before
    assert stranger.get(f"/g/{worked.id}").status_code == 200


@pytest.mark.parametrize(
    "forgery",
    [
        pytest.param({"csrf": "0" * 32}, id="wrong-csrf"),
        pytest.param({"csrf": ""}, id="empty-csrf"),
        pytest.param({"csrf": None}, id="missing-csrf"),
        pytest.param({"headers": {"Origin": EVIL}}, id="cross-site-origin"),
        pytest.param({"headers": {"Origin": EVIL, "Sec-Fetch-Site": "cross-site"}}, id="cross-site-fetch"),
        pytest.param({"headers": {"Origin": "null", "Sec-Fetch-Site": "cross-site"}}, id="null-origin-cross-site"),
        pytest.param({"headers": {"Sec-Fetch-Site": "same-site"}}, id="sibling-subdomain"),
    ],
)
def test_a_forged_cross_site_post_is_refused_and_changes_nothing(worked: Table, forgery: dict[str, Any]):
    posts = keeper_posts(worked)
    before = worked.api()
    cookies_before = dict(worked.client.cookies)
    for action, data in posts:
        data = dict(data)
        if "csrf" in forgery:
            if forgery["csrf"] is None:
                del data["csrf"]
            else:
                data["csrf"] = forgery["csrf"]
        response = worked.client.post(action, data=data, headers=forgery.get("headers"), follow_redirects=False)
        assert response.status_code == 403, action
        assert "set-cookie" not in response.headers
        assert text(html(response).select_one("h1")) == "Not allowed"
    assert worked.api() == before
    assert dict(worked.client.cookies) == cookies_before


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"Origin": "http://testserver"}, id="origin"),
        pytest.param({"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}, id="htmx"),
        # A plain form post from a page with Referrer-Policy: no-referrer (the keeper's pages) carries
        # Origin: null; Sec-Fetch-Site (or, in older browsers, the CSRF token alone) vouches for it.
        pytest.param({"Origin": "null", "Sec-Fetch-Site": "same-origin"}, id="no-js-form"),
        pytest.param({"Origin": "null"}, id="no-js-form-older-browser"),
    ],
)
def test_a_same_origin_post_is_accepted(worked: Table, headers: dict[str, str]):
    response = worked.save_round(WORKED_EXAMPLE_ROUND, **headers)
    assert response.status_code == 303
    assert worked.api()["version"] == 2


def test_the_edit_link_sets_the_cookie_and_leaves_the_key_out_of_the_url(make_game, stranger: TestClient):
    game: GameHandle = make_game()
    response = stranger.get(f"/g/{game.id}/edit/{game.key}", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/g/{game.id}/score"
    assert game.key not in response.headers["location"]
    assert response.headers["Referrer-Policy"] == "no-referrer"
    cookie = set_cookies(response)[f"bb_edit_{game.id}"]
    assert cookie.value == game.key
    assert cookie["httponly"] is True
    assert cookie["samesite"].lower() == "lax"
    page = html(stranger.get(f"/g/{game.id}/score"))
    assert page.select_one("#round-entry form") is not None
    assert page.select_one('meta[name="referrer"]')["content"] == "no-referrer"


def test_a_wrong_edit_link_is_403(make_game, stranger: TestClient):
    game: GameHandle = make_game()
    response = stranger.get(f"/g/{game.id}/edit/{game.key[:-2]}xx", follow_redirects=False)
    assert response.status_code == 403
    assert "set-cookie" not in response.headers
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert text(html(response).select_one("h1")) == "Not allowed"
    assert stranger.get(f"/g/{game.id}/score").status_code == 403
    assert stranger.get(f"/g/nope/edit/{game.key}", follow_redirects=False).status_code == 404


def test_hand_over_scorekeeping_shows_the_edit_link_only_on_request(worked: Table, stranger: TestClient):
    key = worked.client.cookies[f"bb_edit_{worked.id}"]
    page = worked.page()
    assert page.select_one("#edit-link") is None
    assert key not in str(page)
    show = page.select_one("#handover a#share-editing")  # "Share editing": the edit link, both keep score
    assert show["href"] == f"{worked.url}?handover=1#handover"

    response = worked.client.get(worked.url + "?handover=1")
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == "no-store"
    page = html(response)
    edit_url = page.select_one("#handover input#edit-link")["value"]
    assert edit_url == f"http://testserver/g/{worked.id}/edit/{key}"
    assert page.select_one("#handover .qr svg path") is not None
    assert text(page.select_one("#handover .warning")).startswith("Anyone with this link can change the scores.")

    # The next scorekeeper opens it and may keep score.
    claimed = stranger.get(urlsplit(edit_url).path, follow_redirects=False)
    assert claimed.status_code == 303
    assert stranger.get(worked.url).status_code == 200

    for query in ("", "?tv=1", "?handover=1"):
        view = worked.client.get(f"/g/{worked.id}{query}")
        assert key not in view.text
        assert html(view).select_one("#edit-link") is None


def test_a_new_edit_link_locks_out_the_old_one(worked: Table, stranger: TestClient):
    old_key = worked.client.cookies[f"bb_edit_{worked.id}"]
    assert stranger.get(f"/g/{worked.id}/edit/{old_key}", follow_redirects=False).status_code == 303
    other_phone = Table(stranger, worked.id)
    other_page = other_phone.page()  # a second scorekeeper, with the old key in its cookie
    form = worked.page("?handover=1").select_one("#handover form")
    assert form["action"] == f"/g/{worked.id}/key"
    response = worked.submit(form)
    assert response.status_code == 303
    assert response.headers["location"] == f"{worked.url}?handover=1"
    new_key = set_cookies(response)[f"bb_edit_{worked.id}"].value
    assert new_key != old_key
    assert worked.page("?handover=1").select_one("#edit-link")["value"].endswith(f"/edit/{new_key}")
    before = worked.api()
    response = other_phone.save_round(WORKED_EXAMPLE_ROUND, other_page)
    assert response.status_code == 403
    assert text(html(response).select_one(".error-detail")) == (
        "This browser's edit key doesn't work any more: scorekeeping was handed over to another phone, "
        "or a new edit link was made for this game. "
        "Ask the scorekeeper for it, or watch the game."
    )
    assert worked.api() == before
    assert stranger.get(other_phone.url).status_code == 403
    assert stranger.get(f"/g/{worked.id}/edit/{old_key}", follow_redirects=False).status_code == 403


# --- headers, scripts, fragments -------------------------------------------------------------------


def csp_directives(response: httpx.Response) -> dict[str, list[str]]:
    policy = response.headers["Content-Security-Policy"]
    directives = {}
    for part in policy.split(";"):
        name, *values = part.split()
        directives[name.lower()] = values
    return directives


def language_switch(page: BeautifulSoup) -> Tag:
    """The header's language switch (every page has it): a form that posts only the language."""
    switch = page.select_one("header form.lang-switch")
    assert switch is not None
    assert switch["action"] == "/language"
    assert {field["name"] for field in switch.select("input, button")} == {"next", "lang"}
    return switch


def assert_no_inline_script(page: BeautifulSoup) -> None:
    scripts = page.select("script")
    assert scripts, "the page loads its scripts"
    assert all(s.get("src") for s in scripts)
    assert all(not s.get_text(strip=True) for s in scripts)
    handlers = [(el.name, attr) for el in page.find_all(True) for attr in el.attrs if attr.lower().startswith("on")]
    assert handlers == []
    assert page.select('[href^="javascript:" i], [action^="javascript:" i]') == []


def test_every_page_has_a_strict_csp_and_no_inline_script(client: TestClient, worked: Table, stranger: TestClient):
    worked.save_round(WORKED_EXAMPLE_ROUND)
    responses = {
        "start": client.get("/"),
        "keeper": client.get(worked.url),
        "keeper-edit": client.get(worked.url + "?edit=1"),
        "keeper-delete": client.get(worked.url + "?delete=1"),
        "keeper-handover": client.get(worked.url + "?handover=1"),
        "view": client.get(f"/g/{worked.id}"),
        "tv": client.get(f"/g/{worked.id}?tv=1"),
        "new-game-error": client.post("/games", data={"player_count": "2", "action": "start"}),
        "round-error": worked.save_round([(41, 0), (0, 1), (0, 1), (0, 1)], worked.page("?edit=1")),
        "not-found": client.get("/g/unknown"),
        "not-keeper": stranger.get(worked.url),
        "wrong-edit-link": stranger.get(f"/g/{worked.id}/edit/wrong"),
        "forged": client.post(f"/g/{worked.id}/rules", data={"target": "10"}),
        "unknown-path": client.get("/no/such/page"),
    }
    statuses = {name: r.status_code for name, r in responses.items()}
    assert statuses == {
        "start": 200,
        "keeper": 200,
        "keeper-edit": 200,
        "keeper-delete": 200,
        "keeper-handover": 200,
        "view": 200,
        "tv": 200,
        "new-game-error": 422,
        "round-error": 422,
        "not-found": 404,
        "not-keeper": 403,
        "wrong-edit-link": 403,
        "forged": 403,
        "unknown-path": 404,
    }
    for name, response in responses.items():
        directives = csp_directives(response)
        scripts = directives.get("script-src", directives.get("default-src"))
        assert scripts is not None, name
        assert "'unsafe-inline'" not in scripts, name
        assert "'unsafe-eval'" not in scripts, name
        assert "*" not in scripts, name
        assert directives["object-src"] == ["'none'"], name
        assert directives["frame-ancestors"] == ["'none'"], name
        assert response.headers["X-Content-Type-Options"] == "nosniff", name
        if response.headers["content-type"].startswith("text/html"):
            assert_no_inline_script(html(response))


def test_pages_vary_on_hx_request_and_htmx_gets_the_fragment(client: TestClient, worked: Table):
    for url in ("/", worked.url, f"/g/{worked.id}", f"/g/{worked.id}?tv=1"):
        assert "HX-Request" in client.get(url).headers["Vary"], url
    response = client.get(worked.url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert "HX-Request" in response.headers["Vary"]
    page = html(response)
    assert page.select_one("html") is None
    assert page.select_one("head") is None
    roots = [child for child in page.children if isinstance(child, Tag)]
    assert [(root.name, root.get("id")) for root in roots] == [("div", "game")]
    assert page.select_one("#game #round-entry form") is not None
    full = html(client.get(worked.url))
    assert full.select_one("html #game") is not None
    # The page includes the same fragment htmx swaps in.
    assert full.select_one("#game").select("[id]") and [e["id"] for e in full.select("#game [id]")] == [
        e["id"] for e in page.select("#game [id]")
    ]


def test_keeper_pages_are_not_cached_and_send_no_referrer(worked: Table):
    response = worked.client.get(worked.url)
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert html(response).select_one('meta[name="referrer"]')["content"] == "no-referrer"


# --- escaping -------------------------------------------------------------------------------------

SCRIPT_NAME = "<script>alert(1)</script>"
TEMPLATE_NAME = "{{7*7}}"


def test_names_that_look_like_code_render_as_text(client: TestClient):
    game_id, _ = start_game(client, [SCRIPT_NAME, TEMPLATE_NAME, "Ana"], game_name="<b>bold</b> {{ 6*7 }}")
    table = Table(client, game_id)
    table.save_round([(10, 0), (5, 2), (1, 1)])
    names = [SCRIPT_NAME, TEMPLATE_NAME, "Ana"]
    pages = {
        "keeper": table.page(),
        "keeper-delete": table.page("?delete=1"),
        "view": html(client.get(f"/g/{game_id}")),
        "tv": html(client.get(f"/g/{game_id}?tv=1")),
        "start": html(client.get("/")),
    }
    for name, page in pages.items():
        assert_no_inline_script(page)
        assert page.select("b") == [], name
        assert "49" not in page.get_text(), name
        assert "42" not in page.get_text(), name
    for name in ("keeper", "view", "tv"):
        page = pages[name]
        assert sorted(texts(page.select("#scoreboard .name bdi"))) == sorted(names), name
        assert texts(page.select("#chart .legend li bdi")) == names, name
        assert text(page.select_one("h1.game-title bdi")) == "<b>bold</b> {{ 6*7 }}", name
        assert SCRIPT_NAME in text(page.select_one("#chart desc")), name
    assert texts(pages["keeper"].select("#round-entry legend bdi")) == names
    assert texts(pages["keeper"].select(f'label[for="dutch-{table.player_ids()[1]}"]')) == ["Dutch cards — {{7*7}}"]
    assert texts(pages["view"].select("#history li.round-card .who")) == names
    assert f"{SCRIPT_NAME} +10" in text(pages["keeper-delete"].select_one("#confirm-delete p"))
    assert text(pages["start"].select_one("#your-games li a bdi")) == "<b>bold</b> {{ 6*7 }}"


def test_a_name_that_looks_like_code_comes_back_in_the_new_game_form(client: TestClient):
    data = {"player_count": "2", "player-0": SCRIPT_NAME, "player-1": "", "action": "start"}
    page = html(client.post("/games", data=data))
    assert page.select_one("#player-0")["value"] == SCRIPT_NAME
    assert text(page.select_one('label[for="start-0"]')) == f"Starting score — {SCRIPT_NAME}"
    assert_no_inline_script(page)


# --- your games ---------------------------------------------------------------------------------


def test_your_games_lists_the_games_this_browser_keeps_score_of(client: TestClient, make_game, stranger):
    first, _ = start_game(client, ["Ana", "Ben"])
    second, _ = start_game(client, ["Cy", "Dee"], game_name="Friday")
    Table(client, first).save_round([(10, 0), (5, 2)])
    not_mine: GameHandle = make_game()  # created through the API: this browser has no cookie for it
    page = html(client.get("/"))
    rows = page.select("#your-games ul.game-list li")
    assert [row.select_one("a")["href"] for row in rows] == [f"/g/{first}/score", f"/g/{second}/score"]
    assert texts([row.select_one("a") for row in rows]) == ["Ana and Ben", "Friday"]
    assert texts([row.select_one(".muted") for row in rows]) == ["1 round · playing", "Cy and Dee · 0 rounds · playing"]
    assert page.select_one(f'#your-games a[href="/g/{not_mine.id}/score"]') is None
    assert html(stranger.get("/")).select("#your-games li") == []


def test_your_games_drops_a_game_whose_key_was_rotated(client: TestClient, stranger: TestClient):
    game_id, _ = start_game(client, ["Ana", "Ben"])
    other, _ = start_game(client, ["Cy", "Dee"])
    key = client.cookies[f"bb_edit_{game_id}"]
    # Another phone takes over and makes a new edit link: this browser's key is now stale.
    assert stranger.get(f"/g/{game_id}/edit/{key}", follow_redirects=False).status_code == 303
    form = html(stranger.get(f"/g/{game_id}/score?handover=1")).select_one("#handover form")
    assert stranger.post(str(form["action"]), data=form_data(form), follow_redirects=False).status_code == 303

    response = client.get("/")
    rows = html(response).select("#your-games ul.game-list li a")
    assert [a["href"] for a in rows] == [f"/g/{other}/score"]
    assert set_cookies(response)[f"bb_edit_{game_id}"]["max-age"] == "0"  # and forgets the stale cookie
    assert client.get(f"/g/{game_id}/score").status_code == 403


def test_the_share_box_links_to_the_csv_export_of_the_same_rounds(worked: Table, stranger: TestClient):
    worked.save_round(WORKED_EXAMPLE_ROUND)
    view = html(stranger.get(f"/g/{worked.id}"))
    link = view.select_one("#share a[download]")
    # The page's own sheet (in the page's language: tests/web/test_spreadsheet_download.py), the same
    # rows as the API's data format.
    assert link is not None and link["href"] == f"/g/{worked.id}/export.csv"
    sheet = stranger.get(link["href"])
    assert sheet.status_code == 200 and sheet.headers["content-type"] == "text/csv; charset=utf-8"
    csv_answer = stranger.get(f"/api/v1/games/{worked.id}/export.csv")
    assert csv_answer.status_code == 200
    assert csv_answer.headers["content-type"] == "text/csv; charset=utf-8"
    rows = [line.split(",") for line in csv_answer.text.lstrip("\ufeff").splitlines()]
    assert rows[0][:5] == ["round", "Ana dutch", "Ana blitz", "Ana points", "Ana total"]
    assert rows[1] == ["start", "", "", "", "58", "", "", "", "70", "", "", "", "30", "", "", "", "20"]
    assert rows[2] == ["1", "22", "0", "22", "80", "14", "3", "8", "78", "11", "5", "1", "31", "9", "7", "-5", "15"]
    page_rows = [line.split(",") for line in sheet.text.lstrip("\ufeff").splitlines()]
    assert page_rows[0][:5] == ["Round", "Ana: Dutch cards", "Ana: Blitz cards left", "Ana: Points", "Ana: Total"]
    assert page_rows[1][0] == "Start" and page_rows[1][1:] == rows[1][1:] and page_rows[2] == rows[2]


def test_what_it_takes_with_two_in_reach_says_who_must_stay_under_what(client: TestClient, make_game):
    # "Ana needs +15 and Ben under +20" left "needs" and "under" to be guessed: the line says the win.
    players = [{"name": n, "starting_score": s} for n, s in (("Ana", 60), ("Ben", 55), ("Cy", 0), ("Dee", 0))]
    game = make_game(players=players)
    page = html(client.get(f"/g/{game.id}"))
    said = [text(li) for li in page.select("#what-it-takes li")]
    assert len(said) == 2, said
    assert re.fullmatch(r"Ana wins with \+15 or more if Ben gets under \+\d+", said[0]), said
    assert re.fullmatch(r"Ben wins with \+20 or more if Ana gets under \+\d+", said[1]), said
