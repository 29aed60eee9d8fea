"""Security: hostile names, headers, edit keys (leaks, rotation, cookies), CSRF, rate limits, bad bodies.

The threat model is docs/security.md. Each refused request is checked to have changed nothing: the
game read back through the API is the game read before, and no game was added. HTML is parsed with
BeautifulSoup and judged by its elements and attributes, never by substrings of markup.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from http.cookies import Morsel, SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.http.assets import data_url
from app.http.headers import DOCS_CSP
from app.security import EMPTY_STYLE, content_security_policy
from tests.helpers import (
    API,
    EVIL,
    MAX_BODY,
    SMALL_ROUND,
    WORKED_EXAMPLE_PLAYERS,
    GameHandle,
    assert_problem,
    claim,
    count_games,
    csrf_of,
    game_url,
    html,
    limited_app,
    round_body,
    round_form,
    text_of,
)
from tests.servers import running_server

STRICT = "strict-origin-when-cross-origin"
COOKIE_DAYS = 180


# --- helpers -------------------------------------------------------------------------------------


def edit_cookies(response: httpx.Response) -> dict[str, Morsel]:
    """The bb_edit_<game> cookies a response sets, by name."""
    jar: SimpleCookie = SimpleCookie()
    for header in response.headers.get_list("set-cookie"):
        jar.load(header)
    return {name: morsel for name, morsel in jar.items() if name.startswith("bb_edit_")}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def rename_status(client: TestClient, game_id: str, key: str) -> int:
    """The status of a rename sent with `key`: 200 when the key works."""
    return client.patch(game_url(game_id), json={"name": "Renamed"}, headers=bearer(key)).status_code


def browser(app: FastAPI, **kwargs: Any) -> TestClient:
    """Another browser with a cookie jar of its own (no lifespan of its own: the app's stays bound)."""
    return TestClient(app, **kwargs)


def csp_directives(response: httpx.Response) -> dict[str, list[str]]:
    directives: dict[str, list[str]] = {}
    for part in response.headers["Content-Security-Policy"].split(";"):
        if part.strip():
            name, *values = part.split()
            directives[name.lower()] = values
    return directives


def _chunks(data: bytes, size: int = 4096) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


@pytest.fixture
def game(make_game) -> GameHandle:
    """The worked example's players with a far target and one round: every write to it is valid."""
    handle = make_game(rules={"target": 1000})
    assert handle.add_round(SMALL_ROUND).status_code == 201
    return handle


# --- inert HTML ------------------------------------------------------------------------------------

# The htmx attributes our templates use, and the only URLs they point at: our own game routes.
OUR_HX_ATTRIBUTES = {
    "hx-get",
    "hx-post",
    "hx-target",
    "hx-swap",
    "hx-disabled-elt",
    "hx-ext",
    "hx-trigger",
    "hx-include",
    "hx-sync",
}
OUR_SSE_URL = re.compile(r"/g/[A-Za-z0-9_-]+/events")
OUR_HX_URL = re.compile(
    r"/(games|g/[A-Za-z0-9_-]+(/(score|rounds(/\d+(/delete)?)?|rules|rematch|key|delete|start|changes/\d+/revert|players(/\d+)?))?"
    r"|tables|t/[A-Za-z0-9_-]+/(name|people(/\d+(/remove)?)?))"  # a table's forms
    r"(\?[a-z_]+=\d+)?"
)


def assert_inert(page: BeautifulSoup) -> None:
    """Nothing in the page runs script or fetches anything that a name could have brought in."""
    for script in page.select("script"):
        assert str(script.get("src", "")).startswith("/static/"), script
        assert not script.get_text(strip=True), script
    assert page.select("img, iframe, frame, object, embed, base, meta[http-equiv], template") == []
    for element in page.find_all(True):
        for attribute, value in element.attrs.items():
            assert not attribute.lower().startswith("on"), (element.name, attribute)
            if attribute.lower().startswith(("hx-", "data-hx-")):
                assert attribute in OUR_HX_ATTRIBUTES, (element.name, attribute)
                if attribute in ("hx-get", "hx-post"):
                    assert OUR_HX_URL.fullmatch(str(value)), (element.name, attribute, value)
            if attribute.lower().startswith(("sse-", "data-sse-")):  # the SSE extension: only our streams
                assert attribute == "sse-connect" and OUR_SSE_URL.fullmatch(str(value)), (element.name, attribute)
            if attribute in ("href", "action", "src", "formaction"):
                if element.name == "link" and element.get("rel") == ["icon"] and value == data_url("icon.svg"):
                    continue  # our own icon, in the page (base.html), never anything a name brought
                assert not str(value).strip().lower().startswith(("javascript:", "data:", "vbscript:")), value


def structure(page: BeautifulSoup) -> Counter[tuple[str, tuple[str, ...]]]:
    """Every element as (tag, attribute names): what a name would change if it were markup, not text."""
    return Counter((element.name, tuple(sorted(element.attrs))) for element in page.find_all(True))


# --- hostile names -------------------------------------------------------------------------------

# Shown as typed, as text (ids are pytest ids).
ACCEPTED_NAMES = {
    "script-tag": "<script>alert(1)</script>",
    "attribute-break-out": '"><img src=x onerror=alert(1)>',
    "quote-break-out": "' onmouseover='alert(1)",
    "htmx-element": '<a hx-get="/x" hx-trigger="load">x</a>',
    "htmx-attribute": 'hx-on:click="alert(1)"',
    "jinja-expression": "{{7*7}}",
    "jinja-statement": "{% print(1) %}",
    "jinja-raw-escape": "{% raw %}{%{% endraw %} print(1) %}",
    "js-template": "${7*7}",
    "csv-formula": '=HYPERLINK("http://evil")',
    "csv-dde": "+cmd|' /C calc'!A0",
    "csv-at": "@SUM(1+9)*cmd|' /C calc'!A0",
    "csv-minus": "-2+3+cmd|' /C calc'!A0",
}
# Refused with a message that says why (a fragment of it), as player names and as game names.
REFUSED_NAMES = {
    "rtl-override": ("\u202egnp.exe", "direction"),
    "10-kB": ("x" * 10_240, "characters"),
    "nul": ("a\x00b", "control"),
    "bell": ("Ana\x07", "control"),
    "ansi-escape": ("\x1b[31mred", "control"),
}
BENIGN_NAME = "Plain Jane"
MARKUP_CHARACTERS = set("<>&\"'")


@dataclass
class Scene:
    """A game whose name and first player are `name`, with one round, and every view of it."""

    game: GameHandle
    views: dict[str, httpx.Response]


def play_scene(client: TestClient, app: FastAPI, name: str) -> Scene:
    created = client.post(f"{API}/games", json={"name": name, "players": [{"name": name}, {"name": "Ben"}]})
    assert created.status_code == 201, created.text
    handle = GameHandle(client, created.json())
    assert handle.add_round([(3, 0), (1, 1)]).status_code == 201
    corrected = client.put(game_url(handle.id, "/rounds/1"), json=handle.scores([(3, 0), (1, 2)]), headers=handle.auth)
    assert corrected.status_code == 200, corrected.text  # the name in the correction log too
    phone = browser(app)
    claim(phone, handle.id, handle.key)
    csrf = csrf_of(phone, handle.id)
    empty_round = {"csrf": csrf} | {f"{kind}-{pid}": "" for pid in handle.player_ids for kind in ("dutch", "blitz")}
    views = {
        "view": client.get(f"/g/{handle.id}"),
        "view-fragment": client.get(f"/g/{handle.id}", headers={"HX-Request": "true"}),
        "tv": client.get(f"/g/{handle.id}?tv=1"),
        "keeper": phone.get(f"/g/{handle.id}/score"),
        "keeper-edit": phone.get(f"/g/{handle.id}/score?edit=1"),
        "keeper-delete": phone.get(f"/g/{handle.id}/score?delete=1"),
        "keeper-handover": phone.get(f"/g/{handle.id}/score?handover=1"),
        "keeper-round-error": phone.post(f"/g/{handle.id}/rounds", data=empty_round),
        "start": phone.get("/"),
    }
    expected = {view: 422 if view == "keeper-round-error" else 200 for view in views}
    assert {view: r.status_code for view, r in views.items()} == expected
    return Scene(handle, views)


@pytest.fixture
def control(client: TestClient, app: FastAPI) -> Scene:
    """The same game with a harmless name: the shape every hostile page must keep."""
    return play_scene(client, app, BENIGN_NAME)


@pytest.mark.parametrize("name", ACCEPTED_NAMES.values(), ids=ACCEPTED_NAMES.keys())
def test_hostile_names_are_shown_as_text_on_every_page(client: TestClient, app: FastAPI, control: Scene, name: str):
    assert len(name) <= 40
    scene = play_scene(client, app, name)
    for view, response in scene.views.items():
        page = html(response)
        assert_inert(page)
        assert structure(page) == structure(html(control.views[view])), view
        if MARKUP_CHARACTERS & set(name):
            assert name not in response.text, view  # only ever escaped
        # The name is there as text, and nothing evaluated it ({{7*7}} is never 49).
        page_text = page.get_text()
        control_text = html(control.views[view]).get_text()
        assert page_text.count(name) == control_text.count(BENIGN_NAME), view
        assert page_text.count("49") == control_text.count("49"), view

    for view in ("view", "view-fragment", "tv", "keeper", "keeper-edit", "keeper-handover"):
        page = html(scene.views[view])
        assert text_of(page.select_one("h1.game-title bdi")) == name, view
        assert name in [text_of(bdi) for bdi in page.select("#scoreboard bdi")], view
        # The chart: its legend and the SVG's own description.
        assert [text_of(bdi) for bdi in page.select("#chart .legend bdi")] == [name, "Ben"], view
        assert name in text_of(page.select_one("#chart svg desc")), view
    errors = html(scene.views["keeper-round-error"]).select(".field-error")
    assert any(name in text_of(error) for error in errors)
    assert [text_of(a) for a in html(scene.views["start"]).select("#your-games li a")] == [name]


@pytest.mark.parametrize("name", ACCEPTED_NAMES.values(), ids=ACCEPTED_NAMES.keys())
def test_hostile_names_in_the_api_csv_and_live_stream(client: TestClient, app: FastAPI, name: str):
    created = client.post(f"{API}/games", json={"name": name, "players": [{"name": name}, {"name": "Ben"}]})
    assert created.status_code == 201, created.text
    handle = GameHandle(client, created.json())
    assert handle.add_round([(3, 0), (1, 1)]).status_code == 201

    # JSON: exactly as typed (JSON is data; escaping for HTML is the page's job).
    read = client.get(game_url(handle.id))
    assert read.headers["content-type"].startswith("application/json")
    assert read.json()["name"] == name
    assert [p["name"] for p in read.json()["players"]] == [name, "Ben"]

    # CSV: a name that a spreadsheet would run as a formula starts with ' instead.
    export = client.get(f"{API}/games/{handle.id}/export.csv")
    assert export.status_code == 200
    assert export.headers["content-type"].startswith("text/csv")
    assert export.headers["content-disposition"].startswith("attachment")
    rows = list(csv.reader(io.StringIO(export.text.removeprefix("\ufeff"))))
    safe = "'" + name if name[0] in "=+-@" else name
    assert rows[0][1:5] == [f"{safe} dutch", f"{safe} blitz", f"{safe} points", f"{safe} total"]
    for row in rows:
        for cell in row:
            if not re.fullmatch(r"-?\d+", cell):
                assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell

    # The live stream carries versions only: never a name.
    with client.stream("GET", f"{API}/games/{handle.id}/events") as stream:
        assert stream.status_code == 200
        chunks = stream.iter_text()
        received = next(chunks)
        assert handle.add_round([(0, 2), (4, 0)]).status_code == 201
        received += next(chunks)
    assert [line for line in received.splitlines() if line] == [
        "event: version",
        "data: 2",
        "retry: 2000",
        "event: version",
        "data: 3",
    ]


@pytest.mark.parametrize(("name", "why"), REFUSED_NAMES.values(), ids=REFUSED_NAMES.keys())
def test_names_with_controls_or_too_long_are_refused_with_a_message(
    client: TestClient, app: FastAPI, game: GameHandle, name: str, why: str
):
    games_before = count_games(app)
    as_player = client.post(f"{API}/games", json={"players": [{"name": "Ana"}, {"name": name}]})
    errors = assert_problem(as_player, 422)["errors"]
    assert [e["field"] for e in errors] == ["players[1].name"]
    assert why in errors[0]["message"].lower()

    as_game = client.post(f"{API}/games", json={"name": name, "players": [{"name": "Ana"}, {"name": "Ben"}]})
    errors = assert_problem(as_game, 422)["errors"]
    assert [e["field"] for e in errors] == ["name"]
    assert why in errors[0]["message"].lower()
    assert count_games(app) == games_before

    before = game.get()
    renamed = client.patch(game_url(game.id), json={"name": name}, headers=game.auth)
    errors = assert_problem(renamed, 422)["errors"]
    assert [e["field"] for e in errors] == ["name"]
    assert why in errors[0]["message"].lower()
    assert game.get() == before

    # The start page's form says it beside the field, keeps what was typed, and stays inert.
    form = {"player_count": "2", "action": "start", "player-0": "Ana", "player-1": name}
    response = client.post("/games", data=form)
    assert response.status_code == 422
    page = html(response)
    assert_inert(page)
    assert why in text_of(page.select_one("#player-1-error")).lower()
    assert count_games(app) == games_before


# --- headers on every response -----------------------------------------------------------------------


def test_every_response_carries_the_security_headers(app: FastAPI, client: TestClient, game: GameHandle):
    phone = browser(app, follow_redirects=False)
    stranger = browser(app, follow_redirects=False)
    claimed = claim(phone, game.id, game.key)
    csrf = csrf_of(phone, game.id)
    big = json.dumps({"name": "x"}).encode() + b" " * MAX_BODY
    with client.stream("GET", f"{API}/games/{game.id}/events") as events:
        next(events.iter_bytes())  # the headers and the first event are in; then the stream closes
    guesser = TestClient(app, client=("203.0.113.7", 50000))  # its wrong keys must not throttle the others
    guesses = [guesser.patch(game_url(game.id), json={}, headers=bearer("x" * 32)) for _ in range(25)]
    # (name, response, status, sends no Referer: the answer carries an edit right, or answers a form post)
    cases: list[tuple[str, httpx.Response, int, bool]] = [
        ("start page", client.get("/"), 200, False),
        ("view page", client.get(f"/g/{game.id}"), 200, False),
        ("tv page", client.get(f"/g/{game.id}?tv=1"), 200, False),
        ("view fragment", client.get(f"/g/{game.id}", headers={"HX-Request": "true"}), 200, False),
        ("unknown game page", client.get("/g/NoSuchGame"), 404, False),
        ("unknown path", client.get("/no/such/page"), 404, False),
        ("new game form error", client.post("/games", data={"player_count": "2", "action": "start"}), 422, True),
        ("edit-link redirect", claimed, 303, True),
        ("wrong edit link", stranger.get(f"/g/{game.id}/edit/not-the-key"), 403, True),
        ("scorekeeper page", phone.get(f"/g/{game.id}/score"), 200, True),
        ("scorekeeper handover", phone.get(f"/g/{game.id}/score?handover=1"), 200, True),
        ("scorekeeper fragment", phone.get(f"/g/{game.id}/score", headers={"HX-Request": "true"}), 200, True),
        ("not the scorekeeper", stranger.get(f"/g/{game.id}/score"), 403, True),
        (
            "keeper post: round saved",
            phone.post(f"/g/{game.id}/rounds", data=round_form(game.player_ids, SMALL_ROUND, csrf)),
            303,
            True,
        ),
        (
            "keeper post: round saved (htmx)",
            phone.post(
                f"/g/{game.id}/rounds",
                data=round_form(game.player_ids, SMALL_ROUND, csrf),
                headers={"HX-Request": "true"},
            ),
            200,
            True,
        ),
        ("keeper post: mistake", phone.post(f"/g/{game.id}/rounds", data={"csrf": csrf}), 422, True),
        ("keeper post: deleted", phone.post(f"/g/{game.id}/rounds/1/delete", data={"csrf": csrf}), 303, True),
        (
            "keeper post: rules",
            phone.post(
                f"/g/{game.id}/rules",
                data={"csrf": csrf, "target": "900", "dutch_points": "1", "blitz_points": "-2", "game_name": ""},
            ),
            303,
            True,
        ),
        ("keeper post: forged", phone.post(f"/g/{game.id}/rules", data={"csrf": "forged"}), 403, True),
        (
            "new game started",
            client.post("/games", data={"player-0": "A", "player-1": "B"}, follow_redirects=False),
            303,
            True,
        ),
        ("api read", client.get(game_url(game.id)), 200, False),
        ("api create", client.post(f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS}), 201, False),
        ("api write", client.patch(game_url(game.id), json={"name": "N"}, headers=game.auth), 200, False),
        ("api 401", client.patch(game_url(game.id), json={"name": "N"}), 401, False),
        ("api 403", guesses[0], 403, False),
        ("api 404", client.get(game_url("NoSuchGame")), 404, False),
        ("api 429", guesses[-1], 429, False),
        ("api 405", client.delete(f"{API}/games"), 405, False),
        ("api 412", client.patch(game_url(game.id), json={}, headers=game.auth | {"If-Match": '"1"'}), 412, False),
        ("api 413", client.post(f"{API}/games", content=big, headers={"Content-Type": "application/json"}), 413, False),
        ("api 422", client.post(f"{API}/games", json={"players": []}), 422, False),
        ("csv export", client.get(f"{API}/games/{game.id}/export.csv"), 200, False),
        ("event stream", events, 200, False),
        ("event stream 404", client.get(f"{API}/games/NoSuchGame/events"), 404, False),
        ("openapi", client.get("/openapi.json"), 200, False),
        ("healthz", client.get("/healthz"), 200, False),
        ("readyz", client.get("/readyz"), 200, False),
        ("static css", client.get("/static/app.css"), 200, False),
        ("static js", client.get("/static/app.js"), 200, False),
        ("static htmx", client.get("/static/vendor/htmx-2.0.11.min.js"), 200, False),
        ("static icon", client.get("/static/icon.svg"), 200, False),
        ("static 404", client.get("/static/nope.js"), 404, False),
        ("docs look-alike", client.get("/docs/oauth2-redirect"), 404, False),  # no OAuth, no redirect page
        ("swagger ui", client.get("/docs"), 200, False),  # Swagger UI needs nothing more than the app's policy
        ("docs with slash", client.get("/docs/", follow_redirects=False), 307, False),
        ("redoc with slash", client.get("/redoc/", follow_redirects=False), 307, False),
        ("api docs look-alike", client.get(f"{API}/docs"), 404, False),
    ]
    problems = []
    for name, response, status, no_referrer in cases:
        got = {
            "status": response.status_code,
            "csp": response.headers.get("Content-Security-Policy"),
            "nosniff": response.headers.get("X-Content-Type-Options"),
            "referrer": response.headers.get("Referrer-Policy"),
        }
        want = {
            "status": status,
            "csp": content_security_policy(),
            "nosniff": "nosniff",
            "referrer": "no-referrer" if no_referrer else STRICT,
        }
        if got != want:
            problems.append((name, {k: got[k] for k in got if got[k] != want[k]}))
    assert problems == [], "\n".join(map(str, problems))

    policy = csp_directives(cases[0][1])
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"]
    for directive in ("script-src", "default-src"):
        assert policy[directive] == ["'self'"]
    assert not any("unsafe" in value for values in policy.values() for value in values)


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/redoc?x=1"])
def test_the_api_docs_run_only_this_sites_scripts_and_cannot_be_framed(client: TestClient, path: str):
    response = client.get(path)
    assert response.status_code == 200
    policy = csp_directives(response)
    assert response.headers["Content-Security-Policy"] == DOCS_CSP.get(path.split("?")[0], content_security_policy())
    for directive in ("script-src", "default-src", "connect-src"):
        assert policy[directive] == ["'self'"], directive  # no other host, no inline script, no eval
    for directive in ("frame-ancestors", "object-src", "base-uri"):
        assert policy[directive] == ["'none'"], directive
    assert not any("unsafe" in value for values in policy.values() for value in values)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Referrer-Policy"] == STRICT


def test_only_redocs_page_gets_more_than_the_apps_policy_and_only_what_it_needs(client: TestClient):
    """Empty <style> elements (styled-components fills them through the CSSOM) and a data: icon font;
    app/security.py says what breaks without each, tests/browser/test_browser_docs.py shows it works."""
    assert list(DOCS_CSP) == ["/redoc"]
    app_policy = csp_directives(client.get("/"))
    redoc = csp_directives(client.get("/redoc"))
    assert set(redoc) == set(app_policy)
    changed = {name: redoc[name] for name in redoc if redoc[name] != app_policy.get(name)}
    assert changed == {"style-src": ["'self'", EMPTY_STYLE], "font-src": ["'self'", "data:"]}
    empty = base64.b64encode(hashlib.sha256(b"").digest()).decode()
    assert f"'sha256-{empty}'" == EMPTY_STYLE  # the hash of an empty <style>, nothing else


# --- edit keys never leak ----------------------------------------------------------------------------

LINK_ATTRIBUTES = ("href", "src", "action", "hx-get", "hx-post", "formaction", "sse-connect")


def outgoing_urls(page: BeautifulSoup) -> list[str]:
    return [str(el[attr]) for attr in LINK_ATTRIBUTES for el in page.select(f"[{attr}]")]


def test_the_edit_key_appears_only_where_it_is_handed_over(app: FastAPI, client: TestClient):
    phone = browser(app)
    started = phone.post("/games", data={"player-0": "Ana", "player-1": "Ben"}, follow_redirects=False)
    assert started.status_code == 303
    game_id = started.headers["location"].split("/")[2]
    key = phone.cookies[f"bb_edit_{game_id}"]
    assert key not in started.headers["location"]
    player_ids = [p["id"] for p in client.get(game_url(game_id)).json()["players"]]
    saved = phone.post(
        f"/g/{game_id}/rounds",
        data=round_form(player_ids, [(5, 0), (2, 2)], csrf_of(phone, game_id)),
        follow_redirects=False,
    )
    assert saved.status_code == 303

    keeper_page = phone.get(f"/g/{game_id}/score")
    handover = phone.get(f"/g/{game_id}/score?handover=1")
    with client.stream("GET", f"{API}/games/{game_id}/events") as stream:
        first_event = next(stream.iter_text())
    public = {
        "view page": client.get(f"/g/{game_id}").text,
        "view fragment": client.get(f"/g/{game_id}", headers={"HX-Request": "true"}).text,
        "tv page": client.get(f"/g/{game_id}?tv=1").text,
        "api read": client.get(game_url(game_id)).text,
        "csv": client.get(f"{API}/games/{game_id}/export.csv").text,
        "live stream": first_event,
        "start page": phone.get("/").text,
        "scorekeeper page": keeper_page.text,
        "view link": html(keeper_page).select_one("#view-link")["value"],
    }
    assert {name: key in body for name, body in public.items()} == dict.fromkeys(public, False)
    assert urlsplit(public["view link"]).path == f"/g/{game_id}"

    # Handing over shows it on purpose, in a field, on a page that sends no Referer and is not cached.
    assert html(handover).select_one("#edit-link")["value"].endswith(f"/g/{game_id}/edit/{key}")
    for response in (keeper_page, handover):
        page = html(response)
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert response.headers["Cache-Control"] == "no-store"
        assert page.select_one('meta[name="referrer"]')["content"] == "no-referrer"
        urls = outgoing_urls(page)
        assert urls, "the page links somewhere"
        assert [url for url in urls if key in url] == []
        # Any Referer the browser still sent would name this page, whose URL has no key either.
        assert key not in str(response.url)


def expect(http: httpx.Client, method: str, url: str, status: int, **kwargs: Any) -> httpx.Response:
    response = http.request(method, url, **kwargs)
    assert response.status_code == status, (method, url, response.text)
    return response


@pytest.mark.server
def test_the_access_log_of_a_real_server_never_holds_an_edit_key(server_database_url: str, tmp_path: Path):
    wrong = "W" * 32
    with running_server(server_database_url, tmp_path / "server.log", env={"BLITZBOARD_LOG_LEVEL": "info"}) as server:
        with httpx.Client(base_url=server.url, timeout=10) as http:
            body = {"players": WORKED_EXAMPLE_PLAYERS, "rules": {"target": 1000}}
            created = expect(http, "POST", f"{API}/games", 201, json=body).json()
            game_id, key = created["id"], created["edit_key"]
            scores = round_body([p["id"] for p in created["players"]], SMALL_ROUND)
            auth = bearer(key)
            expect(http, "GET", f"/g/{game_id}/edit/{key}", 303)  # the browser keeps the cookie
            expect(http, "GET", f"/g/{game_id}/score", 200)
            expect(http, "GET", f"/g/{game_id}/edit/{wrong}", 403)
            expect(http, "POST", game_url(game_id, "/rounds"), 201, json=scores, headers=auth)
            expect(http, "PATCH", game_url(game_id), 200, json={"name": "Logged"}, headers=auth)
            expect(http, "PUT", game_url(game_id, "/rounds/1"), 200, json=scores, headers=auth)
            expect(http, "PATCH", game_url(game_id), 403, json={}, headers=bearer(wrong))
            new_key = expect(http, "POST", game_url(game_id, "/key"), 200, headers=auth).json()["edit_key"]
            expect(http, "GET", f"/g/{game_id}/edit/{new_key}", 303)
            expect(http, "DELETE", game_url(game_id, "/rounds/1"), 200, headers=bearer(new_key))
        server.stop()
        output = server.output()

    access = [line for line in output.splitlines() if "blitzboard.access" in line]
    assert any(f'"POST /api/v1/games/{game_id}/rounds" 201' in line for line in access), output
    assert any(f'"DELETE /api/v1/games/{game_id}/rounds/1" 200' in line for line in access), output
    assert sum(f'"GET /g/{game_id}/edit/[redacted]"' in line for line in access) == 3, output
    for secret in (key, new_key, wrong):
        assert secret not in output


# --- rotating the key ----------------------------------------------------------------------------


def old_key_writes(game: GameHandle) -> list[tuple[str, str, dict[str, Any] | None]]:
    return [
        ("PATCH", game_url(game.id), {"name": "Stolen"}),
        ("POST", game_url(game.id, "/rounds"), round_body(game.player_ids, SMALL_ROUND)),
        ("PUT", game_url(game.id, "/rounds/1"), round_body(game.player_ids, SMALL_ROUND)),
        ("DELETE", game_url(game.id, "/rounds/1"), None),
        ("POST", game_url(game.id, "/key"), None),
    ]


def test_rotating_the_key_through_the_api_stops_the_old_key_at_once(
    client: TestClient, app: FastAPI, game: GameHandle, keeper: TestClient
):
    old_csrf = csrf_of(keeper, game.id)
    rotated = client.post(game_url(game.id, "/key"), headers=game.auth)
    assert rotated.status_code == 200, rotated.text
    body = rotated.json()
    new_key = body["edit_key"]
    assert new_key != game.key and len(new_key) >= 32
    assert body["id"] == game.id and body["version"] == 3
    assert rotated.headers["etag"] == '"3"'
    assert urlsplit(body["urls"]["edit"]).path == f"/g/{game.id}/edit/{new_key}"
    assert urlsplit(body["urls"]["view"]).path == f"/g/{game.id}"
    after = game.get()
    assert {k: v for k, v in body.items() if k not in ("edit_key", "urls")} == after

    # The old key: 403 on every write, and nothing changes.
    for method, url, payload in old_key_writes(game):
        response = client.request(method, url, json=payload, headers=game.auth)
        assert_problem(response, 403)
    assert game.get() == after
    # The old edit link, and a browser whose cookie holds the old key.
    stranger = browser(app)
    old_link = stranger.get(f"/g/{game.id}/edit/{game.key}", follow_redirects=False)
    assert old_link.status_code == 403
    assert edit_cookies(old_link) == {}
    assert keeper.get(f"/g/{game.id}/score").status_code == 403
    for action, data in [
        (f"/g/{game.id}/rounds", round_form(game.player_ids, SMALL_ROUND, old_csrf)),
        (f"/g/{game.id}/rounds/1/delete", {"csrf": old_csrf}),
        (f"/g/{game.id}/key", {"csrf": old_csrf}),
    ]:
        refused = keeper.post(action, data=data, follow_redirects=False)
        assert refused.status_code == 403, action
        assert edit_cookies(refused) == {}
    assert game.get() == after
    # The new key works.
    assert rename_status(client, game.id, new_key) == 200


def test_a_retried_rotation_gets_the_same_new_key_and_only_with_the_old_key(client: TestClient, game: GameHandle):
    retry = {"Idempotency-Key": "rotate-once"}
    first = client.post(game_url(game.id, "/key"), headers=game.auth | retry)
    assert first.status_code == 200
    after = game.get()
    again = client.post(game_url(game.id, "/key"), headers=game.auth | retry)
    assert (again.status_code, again.json()) == (200, first.json())
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert game.get() == after  # no second rotation
    new_key = first.json()["edit_key"]

    # Another Idempotency-Key with the old key is a new request, made with a key that no longer works.
    assert_problem(client.post(game_url(game.id, "/key"), headers=game.auth | {"Idempotency-Key": "other"}), 403)
    # The same Idempotency-Key without the old key (a stranger who saw it) never gets the new key.
    for headers in ({}, bearer("x" * 32)):
        response = client.post(game_url(game.id, "/key"), headers=headers | retry)
        assert response.status_code in (401, 403, 422), response.text
        assert new_key not in response.text
    assert game.get() == after
    assert rename_status(client, game.id, new_key) == 200


def test_the_page_form_rotates_the_key_and_sets_the_new_cookie(
    client: TestClient, game: GameHandle, keeper: TestClient, keeper_of
):
    other_phone = keeper_of(game)
    response = keeper.post(f"/g/{game.id}/key", data={"csrf": csrf_of(keeper, game.id)}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/g/{game.id}/score?handover=1"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    cookie = edit_cookies(response)[f"bb_edit_{game.id}"]
    new_key = cookie.value
    assert new_key != game.key
    assert cookie["httponly"] and cookie["samesite"].lower() == "lax"
    # This browser keeps score with the new key; the other phone and the old API key are out.
    assert keeper.get(f"/g/{game.id}/score").status_code == 200
    assert html(keeper.get(f"/g/{game.id}/score?handover=1")).select_one("#edit-link")["value"].endswith(new_key)
    assert other_phone.get(f"/g/{game.id}/score").status_code == 403
    assert rename_status(client, game.id, game.key) == 403
    assert rename_status(client, game.id, new_key) == 200


# --- the edit cookie --------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_the_edit_cookie_is_httponly_lax_and_secure_over_https(app: FastAPI, scheme: str):
    phone = browser(app, base_url=f"{scheme}://testserver")
    answers = {}
    answers["new game"] = phone.post("/games", data={"player-0": "Ana", "player-1": "Ben"}, follow_redirects=False)
    game_id = answers["new game"].headers["location"].split("/")[2]
    key = phone.cookies[f"bb_edit_{game_id}"]
    answers["edit link"] = browser(app, base_url=f"{scheme}://testserver").get(
        f"/g/{game_id}/edit/{key}", follow_redirects=False
    )
    csrf = csrf_of(phone, game_id)
    answers["new key"] = phone.post(
        f"/g/{game_id}/key", data={"csrf": csrf}, headers={"Origin": f"{scheme}://testserver"}, follow_redirects=False
    )
    for name, response in answers.items():
        assert response.status_code == 303, name
        cookie = edit_cookies(response)[f"bb_edit_{game_id}"]
        assert cookie["httponly"] is True, name
        assert cookie["samesite"] == "lax", name
        assert cookie["path"] == "/", name
        assert cookie["max-age"] == str(COOKIE_DAYS * 86400), name
        assert bool(cookie["secure"]) is (scheme == "https"), name


# --- cross-site request forgery ---------------------------------------------------------------------

KEEPER_POSTS = ["rounds", "rounds/1", "rounds/1/delete", "rules", "rematch", "key"]


def keeper_post(game: GameHandle, route: str, csrf: str) -> tuple[str, dict[str, str]]:
    """A valid form post of each of the scorekeeper's forms, carrying `csrf`."""
    data = {
        "rounds": round_form(game.player_ids, SMALL_ROUND, csrf),
        "rounds/1": round_form(game.player_ids, [(6, 0), (2, 4), (1, 6), (0, 8)], csrf),
        "rules": {"csrf": csrf, "target": "10", "dutch_points": "1", "blitz_points": "-2", "game_name": "Forged"},
    }.get(route, {"csrf": csrf})
    return f"/g/{game.id}/{route}", data


@pytest.mark.parametrize("route", KEEPER_POSTS)
@pytest.mark.parametrize(
    "forgery",
    ["no-token", "empty-token", "wrong-token", "token-of-another-game", "evil-origin", "cross-site", "same-site"],
)
def test_a_forged_cross_site_form_post_is_refused_and_changes_nothing(
    app: FastAPI,
    client: TestClient,
    make_game,
    game: GameHandle,
    keeper: TestClient,
    keeper_of,
    route: str,
    forgery: str,
):
    # The attacker knows a token only for a game of their own.
    attacker_game = make_game()
    attacker = keeper_of(attacker_game)
    tokens = {
        "no-token": None,
        "empty-token": "",
        "wrong-token": "0" * 32,
        "token-of-another-game": csrf_of(attacker, attacker_game.id),
        # Even the right token (say a script on another site read it somehow) fails from another site.
        "evil-origin": csrf_of(keeper, game.id),
        "cross-site": csrf_of(keeper, game.id),
        "same-site": csrf_of(keeper, game.id),
    }
    headers = {
        "evil-origin": {"Origin": EVIL},
        "cross-site": {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
        "same-site": {"Origin": "https://sub.testserver", "Sec-Fetch-Site": "same-site"},
    }.get(forgery)
    action, data = keeper_post(game, route, tokens[forgery] or "")
    if tokens[forgery] is None:
        del data["csrf"]
    before, games_before = game.get(), count_games(app)
    cookies_before = dict(keeper.cookies)
    response = keeper.post(action, data=data, headers=headers, follow_redirects=False)
    assert response.status_code == 403
    assert text_of(html(response).select_one("h1")) == "Not allowed"
    assert edit_cookies(response) == {}
    assert game.get() == before
    assert count_games(app) == games_before
    assert dict(keeper.cookies) == cookies_before

    # The same post from the scorekeeper's own page goes through: the refusal was the forgery's.
    action, data = keeper_post(game, route, csrf_of(keeper, game.id))
    same_origin = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    accepted = keeper.post(action, data=data, headers=same_origin, follow_redirects=False)
    assert accepted.status_code == 303, accepted.text
    if route == "rematch":
        assert count_games(app) == games_before + 1
    else:
        assert game.get()["version"] == before["version"] + 1


# --- rate limits ------------------------------------------------------------------------------------


def test_creating_games_past_the_limit_is_429_with_retry_after(database_url: str):
    app = limited_app(database_url, games_per_minute=3)
    try:
        with TestClient(app) as client:
            body = {"players": [{"name": "Ana"}, {"name": "Ben"}]}
            assert [client.post(f"{API}/games", json=body).status_code for _ in range(3)] == [201, 201, 201]
            for _ in range(2):
                refused = client.post(f"{API}/games", json=body)
                problem = assert_problem(refused, 429)
                assert 1 <= int(refused.headers["Retry-After"]) <= 60
                assert refused.headers["Retry-After"] in problem["detail"]
                assert refused.headers["Content-Security-Policy"] == content_security_policy()
            assert count_games(app) == 3
            # Another address has a limit of its own.
            other = TestClient(app, client=("203.0.113.9", 50000))
            assert other.post(f"{API}/games", json=body).status_code == 201
    finally:
        app.state.engine.dispose()


def test_wrong_keys_past_the_limit_are_429_but_the_right_key_is_never_throttled(database_url: str):
    app = limited_app(database_url, wrong_keys_per_minute=3)
    try:
        with TestClient(app) as client:
            created = client.post(f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS, "rules": {"target": 5000}})
            mine = GameHandle(client, created.json())
            wrong = bearer("x" * 32)
            before = mine.get()
            statuses = [
                client.patch(game_url(mine.id), json={"name": "guess"}, headers=wrong).status_code for _ in range(3)
            ]
            assert statuses == [403, 403, 403]
            for _ in range(3):
                refused = client.post(game_url(mine.id, "/rounds"), json=mine.scores(SMALL_ROUND), headers=wrong)
                assert_problem(refused, 429)
                assert 1 <= int(refused.headers["Retry-After"]) <= 60
            assert mine.get() == before
            # The same address, holding the right key: every write goes through.
            for _ in range(5):
                assert mine.add_round(SMALL_ROUND).status_code == 201
            assert client.patch(game_url(mine.id), json={"name": "Mine"}, headers=mine.auth).status_code == 200
            assert client.post(game_url(mine.id, "/key"), headers=mine.auth).status_code == 200
            # Another address guessing is only told its key is wrong.
            other = TestClient(app, client=("203.0.113.9", 50000))
            assert_problem(other.patch(game_url(mine.id), json={"name": "x"}, headers=wrong), 403)
    finally:
        app.state.engine.dispose()


# The start page's and the rematch's limits, and wrong edit links alone: tests/http/test_page_limits.py.


def test_wrong_edit_links_and_stale_cookies_count_toward_the_limit_but_never_lock_out_the_keeper(
    database_url: str,
):
    app = limited_app(database_url, wrong_keys_per_minute=3)
    try:
        with TestClient(app, follow_redirects=False) as phone:
            created = phone.post(f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS, "rules": {"target": 5000}})
            game = GameHandle(phone, created.json())
            stale = browser(app, follow_redirects=False)  # kept score before the key was rotated
            claim(stale, game.id, game.key)
            stale_csrf = csrf_of(stale, game.id)
            rotated = phone.post(game_url(game.id, "/key"), headers=game.auth)
            key = rotated.json()["edit_key"]
            before = game.get()

            # One count per client address, whichever way the wrong key comes: link, API or cookie.
            guesses = [
                phone.get(f"/g/{game.id}/edit/guess-1"),
                phone.patch(game_url(game.id), json={"name": "guess"}, headers=bearer("x" * 32)),
                stale.post(f"/g/{game.id}/rounds/1/delete", data={"csrf": stale_csrf}),
                phone.get(f"/g/{game.id}/edit/guess-2"),
            ]
            assert [r.status_code for r in guesses] == [403, 403, 403, 429]
            assert 1 <= int(guesses[-1].headers["Retry-After"]) <= 60
            assert guesses[-1].headers["Referrer-Policy"] == "no-referrer"
            assert game.get() == before

            # The same address with the right key: the edit link, the page and its forms all work.
            claim(phone, game.id, key)
            assert phone.get(f"/g/{game.id}/score").status_code == 200
            saved = phone.post(
                f"/g/{game.id}/rounds", data=round_form(game.player_ids, SMALL_ROUND, csrf_of(phone, game.id))
            )
            assert saved.status_code == 303
            assert rename_status(phone, game.id, key) == 200
    finally:
        app.state.engine.dispose()


# --- bodies: over the limit, malformed, wrong types (what tests/api/test_api.py doesn't cover) --------------


@pytest.mark.parametrize("how", ["content-length", "chunked"])
@pytest.mark.parametrize("target", ["start-page-form", "keeper-round-form", "api-rotate-key"])
def test_bodies_over_the_limit_are_413_on_every_route_that_takes_one(
    app: FastAPI, game: GameHandle, keeper: TestClient, how: str, target: str
):
    csrf = csrf_of(keeper, game.id)
    url, content_type, data, headers = {
        "start-page-form": ("/games", "application/x-www-form-urlencoded", b"player-0=Ana&player-1=Ben&pad=", {}),
        "keeper-round-form": (
            f"/g/{game.id}/rounds",
            "application/x-www-form-urlencoded",
            f"csrf={csrf}&pad=".encode(),
            {},
        ),
        "api-rotate-key": (game_url(game.id, "/key"), "application/json", b"{}", game.auth),
    }[target]
    data = data + b"x" * (MAX_BODY + 1 - len(data))
    before, games_before = game.get(), count_games(app)
    content = data if how == "content-length" else _chunks(data)
    response = keeper.post(url, content=content, headers=headers | {"Content-Type": content_type})
    if url.startswith("/api/"):
        problem = assert_problem(response, 413)
        assert str(MAX_BODY) in problem["detail"]
    else:  # a browser's form post gets a page a person can read
        assert response.status_code == 413
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        page = BeautifulSoup(response.text, "html.parser")
        assert "at most 64 KiB" in page.get_text()
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert game.get() == before
    assert count_games(app) == games_before
    assert keeper.get(f"/g/{game.id}/score").status_code == 200  # the key was not rotated


UNREADABLE_BODIES = {
    "not-utf-8": ('{"name": "Zoë"}'.encode("latin-1"), "UTF-8"),
    "nested-too-deep": (b"[" * 30_000 + b"]" * 30_000, "nested"),
    "number-of-5000-digits": (b'{"name": ' + b"9" * 5000 + b"}", "JSON"),
    "text-plain": (b'{"name": "x"}', "dictionary"),
}


@pytest.mark.parametrize("target", ["create", "patch-game", "post-round", "put-round"])
@pytest.mark.parametrize("payload", UNREADABLE_BODIES, ids=UNREADABLE_BODIES.keys())
def test_bodies_the_json_parser_gives_up_on_are_422_problem_json(
    app: FastAPI, client: TestClient, game: GameHandle, target: str, payload: str
):
    data, message = UNREADABLE_BODIES[payload]
    method, url = {
        "create": ("POST", f"{API}/games"),
        "patch-game": ("PATCH", game_url(game.id)),
        "post-round": ("POST", game_url(game.id, "/rounds")),
        "put-round": ("PUT", game_url(game.id, "/rounds/1")),
    }[target]
    content_type = "text/plain" if payload == "text-plain" else "application/json"
    before, games_before = game.get(), count_games(app)
    response = client.request(method, url, content=data, headers=game.auth | {"Content-Type": content_type})
    errors = assert_problem(response, 422)["errors"]
    assert [e["field"] for e in errors] == ["body"]
    assert message.lower() in errors[0]["message"].lower()
    assert game.get() == before
    assert count_games(app) == games_before


# JSON true is no number (lax parsing read it as 1: schemathesis found blitz_points=true accepted), and
# neither is "5": every number in the API is a JSON integer.
NOT_INTEGERS = {"true": True, "false": False, "numeric-string": "5"}


@pytest.mark.parametrize("value", NOT_INTEGERS.values(), ids=NOT_INTEGERS.keys())
@pytest.mark.parametrize(
    ("target", "field"),
    [
        ("create", "players[1].starting_score"),
        ("create", "rules.target"),
        ("patch-game", "rules.dutch_points"),
        ("patch-game", "rules.blitz_points"),
        ("post-round", "scores[0].player_id"),
        ("post-round", "scores[1].dutch"),
        ("put-round", "scores[2].blitz"),
    ],
)
def test_booleans_and_strings_are_no_integers(
    app: FastAPI, client: TestClient, game: GameHandle, target: str, field: str, value: Any
):
    scores = round_body(game.player_ids, SMALL_ROUND)["scores"]
    method, url, body = {
        "create": ("POST", f"{API}/games", {"players": [{"name": "Ana"}, {"name": "Ben"}], "rules": {}}),
        "patch-game": ("PATCH", game_url(game.id), {"rules": {}}),
        "post-round": ("POST", game_url(game.id, "/rounds"), {"scores": scores}),
        "put-round": ("PUT", game_url(game.id, "/rounds/1"), {"scores": scores}),
    }[target]
    container, _, name = field.rpartition(".")
    holder: Any = body
    for part in re.findall(r"\w+|\[\d+\]", container):
        holder = holder[int(part[1:-1])] if part.startswith("[") else holder[part]
    holder[name] = value
    before, games_before = game.get(), count_games(app)
    response = client.request(method, url, json=body, headers=game.auth)
    errors = assert_problem(response, 422)["errors"]
    assert [e["field"] for e in errors] == [field]
    assert "integer" in errors[0]["message"]
    assert game.get() == before
    assert count_games(app) == games_before
