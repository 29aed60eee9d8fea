"""The table pages through the TestClient, parsed with BeautifulSoup and checked by CSS
selectors: a table made on the start page, its page for anyone with the link, its edit link, the
forms of the browser that keeps it (with and without htmx), "New game at this table" on the start page,
a rematch that keeps the table, and the link from every game page of a game at a table.

Whenever a post is refused, the table is read back through the API to prove that nothing changed.
"""

from __future__ import annotations

import re
from http.cookies import SimpleCookie
from typing import Any

import httpx
import pytest
from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.errors import KeyMissing, KeyWrong
from app.games.usecases import Games
from app.models import CardTable
from app.schemas import GameCreate, PlayerCreate
from app.security import Credential
from app.tables.roster import RematchOf
from tests.helpers import EVIL, count_games, form_data, html
from tests.helpers import text_of as text

PEOPLE = ["Ana", "Ben", "Cy", "Dee"]
SCRIPT_NAME = "<script>alert(1)</script>"
HTMX = {"HX-Request": "true"}


# --- helpers -------------------------------------------------------------------------------------


def texts(nodes: list[Tag]) -> list[str]:
    return [text(node) for node in nodes]


def set_cookies(response: httpx.Response) -> SimpleCookie:
    cookies: SimpleCookie = SimpleCookie()
    for header in response.headers.get_list("set-cookie"):
        cookies.load(header)
    return cookies


def make_table(client: TestClient, name: str = "Millers", people: list[str] | None = None) -> str:
    """A table made with the start page's "New table" form, the way a browser without JavaScript does."""
    data = {"table_name": name, "people": "\n".join(PEOPLE if people is None else people)}
    response = client.post("/tables", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    match = re.fullmatch(r"/t/([A-Za-z0-9_-]+)", response.headers["location"])
    assert match, response.headers["location"]
    return match[1]


def api_table(client: TestClient, table_id: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/tables/{table_id}")
    assert response.status_code == 200, response.text
    return response.json()


def api_game(client: TestClient, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/games/{game_id}")
    assert response.status_code == 200, response.text
    return response.json()


def person_id(client: TestClient, table_id: str, name: str) -> int:
    return next(p["id"] for p in api_table(client, table_id)["people"] if p["name"] == name)


def page_of(client: TestClient, path: str, **headers: str) -> BeautifulSoup:
    response = client.get(path, headers=headers)
    assert response.status_code == 200, response.text
    return html(response)


def submit(client: TestClient, form: Tag, changes: dict[str, str] | None = None, **headers: str) -> httpx.Response:
    data = form_data(form) | (changes or {})
    return client.post(str(form["action"]), data=data, headers=headers, follow_redirects=False)


def field_error(page: BeautifulSoup, name: str) -> str:
    """The message beside a field: p.field-error#<name>-error, and the field marked invalid."""
    field = page.select_one(f"#{name}")
    assert field is not None, name
    assert field.get("aria-invalid") == "true", field
    message = page.select_one(f"p.field-error#{name}-error")
    assert message is not None, name
    return text(message)


def start_at_table(
    client: TestClient, table_id: str, ticked: list[str], newcomers: list[str] | None = None, **fields: str
) -> httpx.Response:
    """ "New game at this table" as a browser without JavaScript: tick people (the ones the page ticked, the
    last game's, unticked first), type newcomers, start."""
    page = page_of(client, f"/?table={table_id}")
    form = page.select_one("form#new-game")
    assert form is not None
    data = {name: value for name, value in form_data(form).items() if not name.startswith("plays-")}
    for name in ticked:
        box = next(li.select_one("input") for li in form.select("#roster-picks li") if text(li) == name)
        data[str(box["name"])] = "1"
    newcomers = newcomers or []
    data |= {"player_count": str(max(1, len(newcomers)))}
    data |= {f"player-{i}": name for i, name in enumerate(newcomers)}
    data |= {"action": "start"} | fields
    return client.post("/games", data=data, follow_redirects=False)


def game_id_of(response: httpx.Response) -> str:
    assert response.status_code == 303, response.text
    match = re.fullmatch(r"/g/([^/]+)/score", response.headers["location"])
    assert match, response.headers["location"]
    return match[1]


def play_to_the_end(client: TestClient, game_id: str) -> None:
    """One round that decides a game to 10 (the first player reaches the target), with the game's key."""
    key = client.cookies[f"bb_edit_{game_id}"]
    game = api_game(client, game_id)
    counts = [(10, 0), (5, 2), (3, 4), (1, 6)]
    scores = [
        {"player_id": p["id"], "dutch": d, "blitz": b} for p, (d, b) in zip(game["players"], counts, strict=False)
    ]
    response = client.post(
        f"/api/v1/games/{game_id}/rounds", json={"scores": scores}, headers={"Authorization": f"Bearer {key}"}
    )
    assert response.status_code == 201, response.text
    assert api_game(client, game_id)["status"] == "finished"


def no_inline_script(page: BeautifulSoup) -> None:
    assert all(s.get("src") and not s.get_text(strip=True) for s in page.select("script"))
    assert [a for el in page.find_all(True) for a in el.attrs if a.lower().startswith("on") or a == "style"] == []


@pytest.fixture
def stranger(app: FastAPI) -> TestClient:
    """Another browser: same server, no cookies."""
    return TestClient(app)


@pytest.fixture
def table(client: TestClient) -> str:
    """The Millers (Ana, Ben, Cy, Dee), made on the start page: `client` keeps it."""
    return make_table(client)


# --- a new table from the start page -------------------------------------------------------------


def test_the_start_page_offers_a_new_table_and_lists_none_yet(client: TestClient):
    page = page_of(client, "/")
    form = page.select_one("#your-tables form#new-table")
    assert form is not None
    assert (form["method"], form["action"], form["hx-post"]) == ("post", "/tables", "/tables")
    assert [f["name"] for f in form.select("input[name], textarea[name]")] == ["table_name", "people"]
    assert page.select("#your-tables ul.game-list li") == []
    assert text(page.select_one("#your-tables h2")) == "Your tables"


def test_a_new_table_keeps_its_key_in_a_cookie_and_opens_its_page(client: TestClient):
    response = client.post(
        "/tables", data={"table_name": "  Millers ", "people": "Ana\n\n Ben \n"}, follow_redirects=False
    )
    assert response.status_code == 303
    table_id = response.headers["location"].removeprefix("/t/")
    cookie = set_cookies(response)[f"bb_table_{table_id}"]
    assert cookie["httponly"] is True and cookie["samesite"].lower() == "lax" and cookie["path"] == "/"
    assert cookie.value not in response.headers["location"]
    body = api_table(client, table_id)
    assert (body["name"], [p["name"] for p in body["people"]]) == ("Millers", ["Ana", "Ben"])
    page = page_of(client, f"/t/{table_id}")
    assert text(page.select_one("#table h1")) == "Millers"
    assert texts(page.select("#roster .person-name")) == ["Ana", "Ben"]
    assert page.select_one("a#new-game-at-table")["href"] == f"/?table={table_id}"
    # and the start page lists it under "Your tables"
    rows = page_of(client, "/").select("#your-tables ul.game-list li")
    assert [row.select_one("a")["href"] for row in rows] == [f"/t/{table_id}"]
    assert texts(rows) == ["Millers 2 people · 0 games"]


def test_a_new_table_with_htmx_answers_hx_redirect(client: TestClient):
    response = client.post("/tables", data={"table_name": "Millers", "people": ""}, headers=HTMX)
    assert response.status_code == 204
    assert response.headers["HX-Redirect"].startswith("/t/")
    assert set_cookies(response)[f"bb_table_{response.headers['HX-Redirect'].removeprefix('/t/')}"].value


def count_tables(app: FastAPI) -> int:
    with Session(app.state.engine) as session:
        return session.exec(select(func.count()).select_from(CardTable)).one()


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_a_new_table_with_mistakes_comes_back_with_them_beside_the_fields(app: FastAPI, client: TestClient, htmx: bool):
    data = {"table_name": "   ", "people": "Ana\nBen\n\nana\n" + "x" * 41}  # lines 4 and 5 are refused
    response = client.post("/tables", data=data, headers=HTMX if htmx else {})
    assert response.status_code == 422
    page = html(response)
    if htmx:
        assert response.headers["HX-Retarget"] == "#new-table"
        assert [t.name for t in page.children if isinstance(t, Tag)] == ["form"]
    else:
        assert page.select_one("#your-tables details.new-table-box")["open"] is not None
        assert page.select_one("form#new-game") is not None  # the whole start page
    assert field_error(page, "table_name") == "Give the table a name."
    messages = texts(page.select("p.field-error#people-error"))
    assert messages == [
        "Line 4: Someone at this table is already called ana; give each person a different name.",
        "Line 5: A name can have at most 40 characters.",
    ]
    assert page.select_one("#people").get_text() == data["people"]  # as typed
    assert page.select_one("#table_name")["value"] == "   "
    assert count_tables(app) == 0
    assert "set-cookie" not in response.headers


def test_a_new_table_from_another_site_is_refused(app: FastAPI, client: TestClient):
    response = client.post(
        "/tables", data={"table_name": "Millers"}, headers={"Origin": EVIL, "Sec-Fetch-Site": "cross-site"}
    )
    assert response.status_code == 403
    assert count_tables(app) == 0


# --- the table's page, for anyone with the link ----------------------------------------------------


def test_anyone_with_the_link_sees_the_table_but_no_forms(client: TestClient, table: str, stranger: TestClient):
    game_id = game_id_of(start_at_table(client, table, ["Ana", "Ben"], target="10"))
    play_to_the_end(client, game_id)
    response = stranger.get(f"/t/{table}")
    assert response.status_code == 200
    assert "HX-Request" in response.headers["Vary"]
    page = html(response)
    no_inline_script(page)
    assert text(page.select_one("#table h1")) == "Millers"
    assert text(page.select_one(".table-counts")) == "4 people · 1 game"
    people = {
        text(li.select_one(".person-name")): text(li.select_one(".person-games"))
        for li in page.select("#roster li.person")
    }
    assert people == {"Ana": "1 game", "Ben": "1 game", "Cy": "0 games", "Dee": "0 games"}
    [row] = page.select("#games ul.game-list li")
    assert row.select_one("a")["href"] == f"/g/{game_id}"  # the view page: this browser keeps no score
    assert text(row.select_one("a")) == "Ana and Ben"
    assert text(row.select_one(".game-line")).startswith("Dutch Blitz · ")
    assert text(row.select_one(".game-status")) == "finished"
    assert text(row.select_one(".winners")) == "won by Ana"
    # No form that changes anything (the period picker's GET form is anyone's: test_table_stats_pages.py).
    assert page.select("#table form[method=post], #new-game-at-table, #share form, #handover") == []
    share = page.select_one("#share")
    assert share.select_one("#view-link")["value"] == f"http://testserver/t/{table}"
    assert share.select_one(".qr svg") is not None
    assert page.select_one('meta[name="referrer"]')["content"] == "strict-origin-when-cross-origin"
    # the keeper, who keeps score of that game, gets its keeper page
    keeper_row = page_of(client, f"/t/{table}").select_one("#games ul.game-list li a")
    assert keeper_row["href"] == f"/g/{game_id}/score"


def test_an_unknown_table_is_404(client: TestClient):
    assert client.get("/t/nosuchtable").status_code == 404
    assert text(html(client.get("/t/nosuchtable")).select_one("h1")) == "Not found"
    assert client.get("/t/nosuchtable/edit/whatever", follow_redirects=False).status_code == 404
    assert client.get("/?table=nosuchtable").status_code == 404


def test_htmx_gets_the_table_fragment_and_the_page_includes_the_same(client: TestClient, table: str):
    response = client.get(f"/t/{table}", headers=HTMX)
    assert response.status_code == 200 and "HX-Request" in response.headers["Vary"]
    fragment = html(response)
    assert [(t.name, t.get("id")) for t in fragment.children if isinstance(t, Tag)] == [("div", "table")]
    assert fragment.select("#share, .qr") == []
    full = page_of(client, f"/t/{table}")
    assert [e["id"] for e in full.select("#table [id]")] == [e["id"] for e in fragment.select("#table [id]")]


# --- the edit link --------------------------------------------------------------------------------


def test_the_edit_link_keeps_the_key_in_a_cookie_and_leaves_the_url(
    client: TestClient, table: str, stranger: TestClient
):
    key = client.cookies[f"bb_table_{table}"]
    response = stranger.get(f"/t/{table}/edit/{key}", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/t/{table}"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    cookie = set_cookies(response)[f"bb_table_{table}"]
    assert (cookie.value, cookie["httponly"], cookie["samesite"].lower()) == (key, True, "lax")
    response = stranger.get(f"/t/{table}")
    assert response.headers["Cache-Control"] == "no-store"
    page = html(response)
    assert page.select_one('meta[name="referrer"]')["content"] == "no-referrer"
    assert page.select_one("form.add-person") is not None
    assert key not in response.text  # the key itself is shown only on request ("Share editing")


def test_a_wrong_edit_link_is_403_and_sets_nothing(client: TestClient, table: str, stranger: TestClient):
    key = client.cookies[f"bb_table_{table}"]
    response = stranger.get(f"/t/{table}/edit/{key[:-2]}xx", follow_redirects=False)
    assert response.status_code == 403
    assert "set-cookie" not in response.headers
    page = html(response)
    assert text(page.select_one("h1")) == "Not allowed"
    assert "not valid any more" in text(page.select_one(".error-detail"))
    assert page.select_one("header form.lang-switch input[name=next]")["value"] == "/"  # never the key's URL
    assert html(stranger.get(f"/t/{table}")).select("#table form[method=post]") == []


# --- the keeper's forms ----------------------------------------------------------------------------


def keeper_form(client: TestClient, table: str, selector: str, query: str = "") -> Tag:
    form = page_of(client, f"/t/{table}{query}").select_one(selector)
    assert form is not None, selector
    return form


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_the_keeper_renames_the_table_and_adds_renames_and_removes_people(client: TestClient, table: str, htmx: bool):
    headers = HTMX if htmx else {}

    def done(response: httpx.Response) -> BeautifulSoup:
        if not htmx:
            assert (response.status_code, response.headers["location"]) == (303, f"/t/{table}")
            return page_of(client, f"/t/{table}")
        assert response.status_code == 200 and "HX-Retarget" not in response.headers
        page = html(response)
        assert [(t.name, t.get("id")) for t in page.children if isinstance(t, Tag)] == [("div", "table")]
        return page

    page = done(
        submit(client, keeper_form(client, table, ".rename-table form"), {"table_name": "Millers, Tuesdays"}, **headers)
    )
    assert text(page.select_one("#table h1")) == "Millers, Tuesdays"
    page = done(submit(client, keeper_form(client, table, "form.add-person"), {"name": "Eve"}, **headers))
    assert texts(page.select("#roster .person-name")) == [*PEOPLE, "Eve"]
    cy = person_id(client, table, "Cy")
    page = done(submit(client, keeper_form(client, table, f"#person-{cy}-row form"), {"name": "Cyrus"}, **headers))
    assert texts(page.select("#roster .person-name")) == ["Ana", "Ben", "Cyrus", "Dee", "Eve"]
    eve = person_id(client, table, "Eve")
    remove = keeper_form(client, table, f"#person-{eve}-row form[action$='/remove']")
    page = done(submit(client, remove, **headers))
    assert texts(page.select("#roster .person-name")) == ["Ana", "Ben", "Cyrus", "Dee"]
    body = api_table(client, table)
    assert (body["name"], [p["name"] for p in body["people"]]) == ("Millers, Tuesdays", ["Ana", "Ben", "Cyrus", "Dee"])


def test_renaming_a_person_renames_them_in_their_games(client: TestClient, table: str):
    game_id = game_id_of(start_at_table(client, table, ["Ana", "Ben"]))
    ana = person_id(client, table, "Ana")
    response = submit(client, keeper_form(client, table, f"#person-{ana}-row form"), {"name": "Anna"})
    assert response.status_code == 303
    assert [p["name"] for p in api_game(client, game_id)["players"]] == ["Anna", "Ben"]
    assert text(page_of(client, f"/t/{table}").select_one("#games li a")) == "Anna and Ben"


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_mistakes_come_back_beside_the_field_with_what_was_typed(client: TestClient, table: str, htmx: bool):
    headers = HTMX if htmx else {}
    before = api_table(client, table)
    ben = person_id(client, table, "Ben")

    def refused(response: httpx.Response, status: int) -> BeautifulSoup:
        assert response.status_code == status, response.text
        if htmx:
            assert (response.headers["HX-Retarget"], response.headers["HX-Reswap"]) == ("#table", "outerHTML")
        page = html(response)
        assert page.select_one("#table") is not None
        return page

    page = refused(
        submit(client, keeper_form(client, table, ".rename-table form"), {"table_name": "  "}, **headers), 422
    )
    assert field_error(page, "table_name") == "Give the table a name."
    assert page.select_one("#table_name")["value"] == "  "
    assert page.select_one("details.rename-table").has_attr("open")

    page = refused(submit(client, keeper_form(client, table, "form.add-person"), {"name": "ana"}, **headers), 422)
    assert (
        field_error(page, "person_name")
        == "Someone at this table is already called Ana; give each person a different name."
    )
    assert page.select_one("#person_name")["value"] == "ana"

    row = f"#person-{ben}-row"
    page = refused(submit(client, keeper_form(client, table, f"{row} form"), {"name": "DEE"}, **headers), 422)
    assert (
        field_error(page, f"person-{ben}")
        == "Someone at this table is already called Dee; give each person a different name."
    )
    assert page.select_one(f"#person-{ben}")["value"] == "DEE"
    assert page.select_one(f"{row} details.person-edit").has_attr("open")
    assert [d.has_attr("open") for d in page.select("details.person-edit")].count(True) == 1
    assert api_table(client, table) == before


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_someone_who_played_is_offered_no_remove_and_a_removal_anyway_is_409(
    client: TestClient, table: str, htmx: bool
):
    remove_ana = keeper_form(client, table, f"#person-{person_id(client, table, 'Ana')}-row form[action$='/remove']")
    game_id_of(start_at_table(client, table, ["Ana", "Ben"]))
    page = page_of(client, f"/t/{table}")
    ana = person_id(client, table, "Ana")
    assert page.select(f"#person-{ana}-row form[action$='/remove']") == []
    assert page.select(f"#person-{person_id(client, table, 'Cy')}-row form[action$='/remove']") != []
    before = api_table(client, table)
    response = submit(client, remove_ana, **(HTMX if htmx else {}))  # the form from before Ana played
    assert response.status_code == 409
    page = html(response)
    assert field_error_text(page, f"person-{ana}") == "Ana has played 1 game at this table, so stays on its roster."
    assert page.select_one(f"#person-{ana}-row details").has_attr("open")
    assert api_table(client, table) == before


def field_error_text(page: BeautifulSoup, name: str) -> str:
    message = page.select_one(f"p.field-error#{name}-error")
    assert message is not None, name
    return text(message)


def keeper_posts(client: TestClient, table: str) -> list[tuple[str, dict[str, str]]]:
    """Every post the table's keeper can make, as their page has it."""
    page = page_of(client, f"/t/{table}?share=1")
    forms = page.select("#table form[method=post], #handover form")
    posts = [(str(f["action"]), form_data(f)) for f in forms]
    assert {action.rsplit("/", 1)[-1] for action, _ in posts} >= {"name", "people", "remove", "key"}
    return posts


@pytest.mark.parametrize(
    "forgery",
    [
        pytest.param({"csrf": "0" * 32}, id="wrong-csrf"),
        pytest.param({"csrf": None}, id="missing-csrf"),
        pytest.param({"headers": {"Origin": EVIL, "Sec-Fetch-Site": "cross-site"}}, id="cross-site"),
        pytest.param({"headers": {"Sec-Fetch-Site": "same-site"}}, id="sibling-subdomain"),
    ],
)
def test_a_forged_post_is_refused_and_changes_nothing(client: TestClient, table: str, forgery: dict[str, Any]):
    posts = keeper_posts(client, table)
    before = api_table(client, table)
    cookies = dict(client.cookies)
    for action, data in posts:
        data = dict(data)
        if "csrf" in forgery:
            data.pop("csrf")
            if forgery["csrf"] is not None:
                data["csrf"] = forgery["csrf"]
        response = client.post(action, data=data, headers=forgery.get("headers"), follow_redirects=False)
        assert response.status_code == 403, action
        assert "set-cookie" not in response.headers
        assert text(html(response).select_one("h1")) == "Not allowed"
    assert api_table(client, table) == before
    assert dict(client.cookies) == cookies


def test_a_browser_without_the_tables_key_can_change_nothing(client: TestClient, table: str, stranger: TestClient):
    posts = keeper_posts(client, table)
    before = api_table(client, table)
    for action, data in posts:
        response = stranger.post(action, data=data, follow_redirects=False)
        assert response.status_code == 403, action
        assert "doesn't keep this table" in text(html(response).select_one(".error-detail"))
    action, data = posts[0]
    response = stranger.post(action, data=data, headers=HTMX)  # htmx: the message in the page's error slot
    assert (response.status_code, response.headers["HX-Retarget"]) == (403, "#request-error")
    assert api_table(client, table) == before


def test_share_editing_shows_the_edit_link_and_a_new_one_locks_out_the_old(
    client: TestClient, table: str, stranger: TestClient
):
    old_key = client.cookies[f"bb_table_{table}"]
    assert page_of(client, f"/t/{table}").select("#edit-link") == []
    share = page_of(client, f"/t/{table}?share=1")
    assert share.select_one("#edit-link")["value"] == f"http://testserver/t/{table}/edit/{old_key}"
    assert share.select_one("#handover .qr svg") is not None
    assert page_of(stranger, f"/t/{table}?share=1").select("#edit-link, #handover") == []
    # another phone shares editing with the old link
    assert stranger.get(f"/t/{table}/edit/{old_key}", follow_redirects=False).status_code == 303
    rotate = share.select_one("#handover form")
    response = submit(client, rotate)
    assert (response.status_code, response.headers["location"]) == (303, f"/t/{table}?share=1#handover")
    new_key = set_cookies(response)[f"bb_table_{table}"].value
    assert new_key != old_key
    assert page_of(client, f"/t/{table}?share=1").select_one("#edit-link")["value"].endswith(f"/edit/{new_key}")
    assert client.get(f"/t/{table}/edit/{old_key}", follow_redirects=False).status_code == 403
    # the other phone's key stopped working: its page shows no forms, its post is told why
    before = api_table(client, table)
    assert page_of(stranger, f"/t/{table}").select("#table form[method=post]") == []
    form = keeper_form(client, table, "form.add-person")
    data = form_data(form) | {"name": "Eve", "csrf": form_data(rotate)["csrf"]}  # its old page's token
    response = stranger.post(str(form["action"]), data=data, follow_redirects=False)
    assert response.status_code == 403
    assert "a new edit link was made" in text(html(response).select_one(".error-detail"))
    assert set_cookies(response)[f"bb_table_{table}"]["max-age"] == "0"
    assert api_table(client, table) == before


def test_your_tables_forgets_a_table_whose_key_was_replaced(client: TestClient, stranger: TestClient):
    table = make_table(client, "Millers")
    other = make_table(client, "Club")
    key = client.cookies[f"bb_table_{table}"]
    assert stranger.get(f"/t/{table}/edit/{key}", follow_redirects=False).status_code == 303
    rotate = page_of(stranger, f"/t/{table}?share=1").select_one("#handover form")
    assert submit(stranger, rotate).status_code == 303
    response = client.get("/")
    assert [a["href"] for a in html(response).select("#your-tables ul.game-list li a")] == [f"/t/{other}"]
    assert set_cookies(response)[f"bb_table_{table}"]["max-age"] == "0"


# --- a new game at the table -----------------------------------------------------------------------


def test_new_game_at_the_table_offers_its_people_to_tick(client: TestClient, table: str):
    page = page_of(client, f"/?table={table}")
    assert text(page.select_one("section.intro h1")) == "New game at Millers"
    assert page.select_one("section.intro h1 a")["href"] == f"/t/{table}"
    form = page.select_one("form#new-game")
    assert form.select_one("input[name=table_id]")["value"] == table
    assert form.select_one("input[name=csrf]")["value"]
    boxes = form.select("#roster-picks input[type=checkbox]")
    assert texts([box.find_parent("label") for box in boxes]) == PEOPLE
    assert not any(box.has_attr("checked") for box in boxes)
    assert texts(form.select(".players label[for^=player-]")) == ["New player 1"]
    assert form.select("button[value^=remove-]") == []
    assert page.select_one("header form.lang-switch input[name=next]")["value"] == f"/?table={table}"
    # the form comes first: "Your tables" and "Your games" after it
    assert "intro" in page.select_one("main > section")["class"]


def test_new_game_at_the_table_with_people_and_a_newcomer(client: TestClient, table: str):
    version = api_table(client, table)["version"]
    game_id = game_id_of(start_at_table(client, table, ["Ana", "Cy"], ["Eve"]))
    game = api_game(client, game_id)
    assert game["table_id"] == table
    people = {p["name"]: p["id"] for p in api_table(client, table)["people"]}
    assert [(p["name"], p["person_id"]) for p in game["players"]] == [(n, people[n]) for n in ("Ana", "Cy", "Eve")]
    body = api_table(client, table)
    assert [p["name"] for p in body["people"]] == [*PEOPLE, "Eve"]  # the newcomer joined the roster
    assert body["version"] > version
    rows = page_of(client, f"/t/{table}").select("#games ul.game-list li")
    assert [(row.select_one("a")["href"], text(row.select_one("a"))) for row in rows] == [
        (f"/g/{game_id}/score", "Ana, Cy and Eve")
    ]


def ticked(page: BeautifulSoup) -> list[str]:
    return texts([box.find_parent("label") for box in page.select("#roster-picks input[checked]")])


def test_new_game_at_the_table_ticks_the_last_games_people(client: TestClient, table: str):
    """A table night: the next game starts with the last one's people ticked, so Start is one tap."""
    start_at_table(client, table, ["Ana", "Cy"], ["Eve"])
    page = page_of(client, f"/?table={table}")
    assert ticked(page) == ["Ana", "Cy", "Eve"]
    assert [i["value"] for i in page.select(".players input[id^=player-]")] == [""]  # no newcomer yet
    data = form_data(page.select_one("form#new-game")) | {"action": "start"}  # Start, as the page is
    again = game_id_of(client.post("/games", data=data, follow_redirects=False))
    assert [p["name"] for p in api_game(client, again)["players"]] == ["Ana", "Cy", "Eve"]
    # the most recent game's people, whether it is finished or not
    start_at_table(client, table, ["Ben", "Dee"])
    assert ticked(page_of(client, f"/?table={table}")) == ["Ben", "Dee"]


def test_a_form_back_with_a_mistake_keeps_the_ticks_the_user_changed(client: TestClient, table: str):
    start_at_table(client, table, ["Ana", "Ben"])
    data = form_data(page_of(client, f"/?table={table}").select_one("form#new-game"))
    ana, dee = person_id(client, table, "Ana"), person_id(client, table, "Dee")
    del data[f"plays-{ana}"]  # Ana goes home, Dee sits down
    data |= {f"plays-{dee}": "1", f"start-p{dee}": "x", "action": "start"}
    response = client.post("/games", data=data, follow_redirects=False)
    assert response.status_code == 422
    assert ticked(html(response)) == ["Ben", "Dee"]


def test_a_newcomer_whose_name_is_on_the_roster_is_that_person(client: TestClient, table: str):
    game_id = game_id_of(start_at_table(client, table, ["Ana"], ["ben"]))
    assert [p["name"] for p in api_game(client, game_id)["players"]] == ["Ana", "Ben"]  # the roster's spelling
    assert len(api_table(client, table)["people"]) == 4


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_new_game_at_the_table_with_mistakes_keeps_what_was_ticked_and_typed(
    app: FastAPI, client: TestClient, table: str, htmx: bool
):
    before = api_table(client, table)
    headers = HTMX if htmx else {}
    page = page_of(client, f"/?table={table}")
    data = form_data(page.select_one("form#new-game"))
    ana, dee = person_id(client, table, "Ana"), person_id(client, table, "Dee")
    data |= {f"plays-{ana}": "1", "player_count": "2", "player-0": "ANA", "player-1": "", "action": "start"}
    data |= {f"start-p{ana}": "x", f"start-p{dee}": "7"}  # Dee's is not asked: Dee doesn't play
    response = client.post("/games", data=data, headers=headers)
    assert response.status_code == 422
    if htmx:
        assert response.headers["HX-Retarget"] == "#new-game"
    page = html(response)
    assert field_error(page, "player-0") == "Two players are called ANA; give each player a different name."
    assert field_error(page, f"start-p{ana}") == "A starting score must be a whole number."
    assert not page.select_one(f"#start-p{dee}").has_attr("aria-invalid")
    assert page.select_one(f"#plays-{ana}").has_attr("checked")
    assert not page.select_one(f"#plays-{dee}").has_attr("checked")
    assert page.select_one("#player-0")["value"] == "ANA"
    assert (page.select_one(f"#start-p{ana}")["value"], page.select_one(f"#start-p{dee}")["value"]) == ("x", "7")
    assert page.select_one("input[name=table_id]")["value"] == table
    # one player alone: said above the name fields
    data = form_data(page_of(client, f"/?table={table}").select_one("form#new-game")) | {
        f"plays-{ana}": "1",
        "action": "start",
    }
    page = html(client.post("/games", data=data, headers=headers))
    assert field_error_text(page, "players") == "A game has 2 to 8 players; this one has 1."
    assert api_table(client, table) == before


def test_add_player_at_the_table_keeps_the_ticks_and_the_table(client: TestClient, table: str):
    data = form_data(page_of(client, f"/?table={table}").select_one("form#new-game"))
    ben = person_id(client, table, "Ben")
    data |= {f"plays-{ben}": "1", "player-0": "Eve", "action": "add"}
    page = html(client.post("/games", data=data, headers=HTMX))
    assert page.select_one(f"#plays-{ben}").has_attr("checked")
    assert [i["value"] for i in page.select(".players input[id^=player-]")] == ["Eve", ""]
    assert page.select_one("input[name=table_id]")["value"] == table
    assert len(page.select("button[value^=remove-]")) == 2  # two newcomer fields: either can go


def test_a_browser_without_the_tables_key_starts_no_game_at_it(app: FastAPI, client: TestClient, table: str, stranger):
    page = page_of(stranger, f"/?table={table}")
    assert "open the table's edit link" in text(page.select_one("form#new-game .form-error"))
    assert page.select("input[name=table_id], #roster-picks") == []
    assert text(page.select_one("section.intro h1")) == "New game"
    data = form_data(page_of(client, f"/?table={table}").select_one("form#new-game"))
    data |= {f"plays-{person_id(client, table, 'Ana')}": "1", "player-0": "Eve", "action": "start"}
    before = api_table(client, table)
    for browser, changes, expected in [
        (stranger, {}, "doesn't keep this table"),
        (client, {"csrf": "0" * 32}, "out of date or came from another site"),
    ]:
        response = browser.post("/games", data=data | changes, follow_redirects=False)
        assert response.status_code == 403, response.text
        page = html(response)
        assert expected in text(page.select_one("form#new-game .form-error"))
        assert page.select_one("#player-0")["value"] == "Eve"
    response = client.post("/games", data=data | {"table_id": "nosuchtable"}, follow_redirects=False)
    assert response.status_code == 422
    assert text(html(response).select_one("form#new-game .form-error")) == "There is no table with that id."
    assert api_table(client, table) == before


# --- rematch and the game pages of a game at a table -------------------------------------------------


def test_a_rematch_keeps_the_table_and_its_people(client: TestClient, table: str):
    game_id = game_id_of(start_at_table(client, table, ["Ana", "Ben"], ["Eve"], target="10"))
    play_to_the_end(client, game_id)
    rematch = page_of(client, f"/g/{game_id}/score").select_one("#banner form")
    response = submit(client, rematch)
    second = game_id_of(response)
    first, again = api_game(client, game_id), api_game(client, second)
    assert again["table_id"] == table
    assert [(p["name"], p["person_id"]) for p in again["players"]] == [
        (p["name"], p["person_id"]) for p in first["players"]
    ]
    assert again["rules"]["target"] == 10
    rows = page_of(client, f"/t/{table}").select("#games ul.game-list li a")
    assert [a["href"] for a in rows] == [f"/g/{second}/score", f"/g/{game_id}/score"]


def test_a_rematch_needs_only_the_games_key(client: TestClient, table: str, stranger: TestClient):
    """The game's keeper may not hold the table's key: a rematch with the same people needs none."""
    game_id = game_id_of(start_at_table(client, table, ["Ana", "Ben"], target="10"))
    play_to_the_end(client, game_id)
    assert (
        stranger.get(f"/g/{game_id}/edit/{client.cookies[f'bb_edit_{game_id}']}", follow_redirects=False).status_code
        == 303
    )
    assert f"bb_table_{table}" not in stranger.cookies
    response = submit(stranger, page_of(stranger, f"/g/{game_id}/score").select_one("#banner form"), **HTMX)
    assert response.status_code == 204
    second = response.headers["HX-Redirect"].removeprefix("/g/").removesuffix("/score")
    assert api_game(client, second)["table_id"] == table
    assert len(api_table(client, table)["people"]) == 4


def test_rematch_with_other_players_opens_the_start_page_with_the_games_people_and_rules(
    client: TestClient, table: str
):
    game_id = game_id_of(start_at_table(client, table, ["Ana", "Ben"], target="10"))
    play_to_the_end(client, game_id)
    start_at_table(client, table, ["Cy", "Dee"])  # another game started since: not the one followed
    link = page_of(client, f"/g/{game_id}/score").select_one("#banner .rematch-changes a")
    assert link["href"].endswith(f"/?table={table}&after={game_id}")
    page = page_of(client, f"/?table={table}&after={game_id}")
    assert ticked(page) == ["Ana", "Ben"]
    assert page.select_one("#target")["value"] == "10"
    # Ben goes home, Eve sits down: she joins the table
    data = form_data(page.select_one("form#new-game"))
    del data[f"plays-{person_id(client, table, 'Ben')}"]
    data |= {"player-0": "Eve", "action": "start"}
    again = game_id_of(client.post("/games", data=data, follow_redirects=False))
    game = api_game(client, again)
    assert ([p["name"] for p in game["players"]], game["rules"]["target"]) == (["Ana", "Eve"], 10)
    assert game["table_id"] == table
    # a game of another table, or none, is ignored: the last game's people, the game's own rules
    for after in ("nosuchgame", again[:-1] + "x"):
        page = page_of(client, f"/?table={table}&after={after}")
        assert ticked(page) == ["Ana", "Eve"]
        assert page.select_one("#target")["value"] == ""
    assert page_of(client, f"/g/{game_id}").select_one("#banner h2") is not None
    assert page_of(client, f"/g/{game_id}").select("#banner .rematch-changes") == []  # the keeper's only


def test_the_games_key_alone_starts_no_other_game_at_the_table(app: FastAPI, client: TestClient, table: str):
    """A rematch without the table's key: only its game's people, in their seats (app.tables.roster.RematchOf)."""
    game_id = game_id_of(start_at_table(client, table, ["Ana", "Ben"]))
    key = client.cookies[f"bb_edit_{game_id}"]
    games_before, before = count_games(app), api_table(client, table)
    with Session(app.state.engine) as session:
        games = Games(session, app.state.broker, app.state.settings, app.state.sealer, app.state.views)
        for names, credential in [
            (["Ana", "Eve"], Credential(key)),  # someone new: only the table's key adds people
            (["Ben", "Ana"], Credential(key)),  # other seats: not the same game again
            (["Ana", "Ben"], Credential("not the key")),
        ]:
            data = GameCreate(players=[PlayerCreate(name=n) for n in names], table_id=table)
            with pytest.raises((KeyWrong, KeyMissing)):
                games.create(data, rematch_of=RematchOf(game_id, credential))
    assert (count_games(app), api_table(client, table)) == (games_before, before)


def test_every_page_of_a_game_at_a_table_links_to_it(client: TestClient, table: str, stranger: TestClient):
    game_id = game_id_of(start_at_table(client, table, ["Ana", "Ben"]))
    for browser, path in [
        (client, f"/g/{game_id}/score"),
        (stranger, f"/g/{game_id}"),
        (stranger, f"/g/{game_id}?tv=1"),
    ]:
        page = page_of(browser, path)
        link = page.select_one("#table-link a")
        assert link is not None, path
        assert (link["href"], text(link)) == (f"/t/{table}", "Table: Millers"), path
        assert page_of(browser, path, **HTMX).select("#table-link") == [], path  # not in the live fragment


def test_the_view_pages_etag_follows_its_tables_name(client: TestClient, table: str, stranger: TestClient):
    game_id = game_id_of(start_at_table(client, table, ["Ana", "Ben"]))
    first = stranger.get(f"/g/{game_id}")
    etag = first.headers["ETag"]
    assert stranger.get(f"/g/{game_id}", headers={"If-None-Match": etag}).status_code == 304
    submit(client, keeper_form(client, table, ".rename-table form"), {"table_name": "Club"})
    response = stranger.get(f"/g/{game_id}", headers={"If-None-Match": etag})
    assert response.status_code == 200
    assert text(html(response).select_one("#table-link a")) == "Table: Club"


def tonight_line(browser: TestClient, path: str, **headers: str) -> tuple[str, str] | None:
    line = page_of(browser, path, **headers).select_one("#banner p.tonight")
    return None if line is None else (text(line), line.select_one("a")["href"])


def test_the_game_over_banner_says_who_leads_tonight_at_the_table(client: TestClient, table: str, stranger: TestClient):
    """Tonight's standings at the table in this game: the most wins (a tie shares the lead), with a link."""
    first = game_id_of(start_at_table(client, table, ["Ana", "Ben"], target="10"))
    assert tonight_line(client, f"/g/{first}/score") is None  # not over: no line (and no query for it)
    play_to_the_end(client, first)  # the first seat wins: Ana
    link = f"/t/{table}?period=tonight"
    for browser, path, headers in [
        (client, f"/g/{first}/score", {}),
        (stranger, f"/g/{first}", {}),
        (stranger, f"/g/{first}", HTMX),  # the live fragment too: the banner is in it
        (stranger, f"/g/{first}?tv=1", {}),
    ]:
        assert tonight_line(browser, path, **headers) == (
            "Tonight: Ana leads with 1 win. Tonight's standings",
            link,
        ), path
    second = game_id_of(start_at_table(client, table, ["Ben", "Cy"], target="10"))
    play_to_the_end(client, second)  # Ben: one win each (Ben in two games), so they share the lead
    assert tonight_line(client, f"/g/{second}/score") == (
        "Tonight: Ana and Ben share the lead with 1 win. Tonight's standings",
        link,
    )
    third = game_id_of(start_at_table(client, table, ["Ana", "Dee"], target="10"))
    play_to_the_end(client, third)
    assert tonight_line(stranger, f"/g/{third}") == ("Tonight: Ana leads with 2 wins. Tonight's standings", link)
    page = page_of(client, link)  # where the link goes: the same leader, first in tonight's standings
    assert text(page.select_one("#stats table[data-preset=dutch_blitz] tbody tr th")) == "Ana"


def test_a_game_of_its_own_is_as_before(client: TestClient, stranger: TestClient):
    data = {"player_count": "2", "player-0": "Ana", "player-1": "Ben", "target": "10", "action": "start"}
    game_id = game_id_of(client.post("/games", data=data, follow_redirects=False))
    play_to_the_end(client, game_id)
    for browser, path in [
        (client, f"/g/{game_id}/score"),
        (stranger, f"/g/{game_id}"),
        (stranger, f"/g/{game_id}?tv=1"),
    ]:
        assert page_of(browser, path).select("#table-link, .table-link") == [], path
        assert page_of(browser, path).select_one("#banner h2") is not None, path
        assert page_of(browser, path).select("#banner .tonight, #banner a[href^='/t/']") == [], path
    etag = stranger.get(f"/g/{game_id}").headers["ETag"]
    assert re.fullmatch(r'W/"\d+\.page\.en\.\w+\.[0-9a-f]{8}"', etag), etag  # as it always was: no table in it
    second = game_id_of(submit(client, page_of(client, f"/g/{game_id}/score").select_one("#banner form")))
    assert api_game(client, second)["table_id"] is None
    assert [p["person_id"] for p in api_game(client, second)["players"]] == [None, None]


# --- escaping --------------------------------------------------------------------------------------


def test_names_that_look_like_code_are_shown_as_text(client: TestClient, stranger: TestClient):
    table = make_table(client, SCRIPT_NAME, [SCRIPT_NAME, "{{7*7}}", "<b>bold</b>"])
    game_id = game_id_of(start_at_table(client, table, [SCRIPT_NAME, "<b>bold</b>"]))
    pages = {
        "table": page_of(client, f"/t/{table}"),
        "table, stranger": page_of(stranger, f"/t/{table}"),
        "start": page_of(client, "/"),
        "new game at the table": page_of(client, f"/?table={table}"),
        "game": page_of(client, f"/g/{game_id}"),
    }
    for name, page in pages.items():
        no_inline_script(page)
        assert page.select("b") == [], name
        assert "49" not in page.get_text(), name
    assert text(pages["table"].select_one("#table h1")) == SCRIPT_NAME
    assert texts(pages["table"].select("#roster .person-name")) == [SCRIPT_NAME, "{{7*7}}", "<b>bold</b>"]
    assert text(pages["table"].select_one("#games li a")) == f"{SCRIPT_NAME} and <b>bold</b>"
    assert text(pages["start"].select_one("#your-tables li a")) == SCRIPT_NAME
    assert text(pages["new game at the table"].select_one("section.intro h1")) == f"New game at {SCRIPT_NAME}"
    assert text(pages["game"].select_one("#table-link a")) == f"Table: {SCRIPT_NAME}"
