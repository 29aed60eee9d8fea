"""Input and edge hardening: text that can't be stored, duplicate JSON keys, 405's Allow, HSTS, log
lines a path can't forge, a cross-site start form, an atomic creation limit, SQLite's durability."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.config import Settings
from app.db import make_engine
from app.http.ratelimit import RateLimiter
from tests.helpers import (
    API,
    EVIL,
    WORKED_EXAMPLE_PLAYERS,
    assert_problem,
    count_games,
    html,
    limited_app,
    on_postgres,
    text_of,
)

JSON = {"Content-Type": "application/json"}
START_FORM = {"player_count": "2", "player-0": "Ana", "player-1": "Ben", "action": "start"}


def post_raw(client: TestClient, url: str, body: str):
    # A body as written: the \ud800 escapes and repeated keys stay exactly as a hostile client sends them.
    return client.post(url, content=body.encode(), headers=JSON)


def fields_of(problem: dict[str, Any]) -> list[str]:
    return [e["field"] for e in problem["errors"]]


# --- text that can't be stored (lone surrogates) -------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('{"players":[{"name":"\\ud800"},{"name":"B"}]}', "players[0].name"),
        ('{"players":[{"name":"A"},{"name":"B\\udfff"}]}', "players[1].name"),
        ('{"name":"x\\ud800y","players":[{"name":"A"},{"name":"B"}]}', "name"),
        ('{"players":[{"name":"A"},{"name":"B"}],"rules":{"tie_break":"\\ud800"}}', "rules.tie_break"),
        ('{"players":[{"name":"A","\\ud800":1},{"name":"B"}]}', "players[0]"),
        ('{"players":[{"name":"A"},{"name":"B"}],"\\udc00":"x"}', "body"),
    ],
)
def test_lone_surrogates_in_a_new_game_are_a_422_naming_the_field(
    app: FastAPI, client: TestClient, body: str, field: str
):
    response = post_raw(client, f"{API}/games", body)
    problem = assert_problem(response, 422)
    assert fields_of(problem) == [field]
    assert count_games(app) == 0


def test_lone_surrogates_in_a_rename_or_a_round_are_a_422(client: TestClient, make_game):
    game = make_game()
    before = game.get()
    renamed = client.request("PATCH", f"{API}/games/{game.id}", content=b'{"name":"\\ud800"}', headers=JSON | game.auth)
    assert fields_of(assert_problem(renamed, 422)) == ["name"]
    scores = ",".join(f'{{"player_id":{pid},"dutch":0,"blitz":0}}' for pid in game.player_ids)
    added = client.post(
        f"{API}/games/{game.id}/rounds",
        content=f'{{"scores":[{scores}],"note\\ud800":1}}'.encode(),
        headers=JSON | game.auth,
    )
    assert fields_of(assert_problem(added, 422)) == ["body"]
    assert game.get() == before


def test_an_escaped_surrogate_pair_is_one_character_and_welcome(client: TestClient):
    response = post_raw(client, f"{API}/games", '{"players":[{"name":"\\ud83c\\udccf Jo"},{"name":"B"}]}')
    assert response.status_code == 201, response.text
    assert response.json()["players"][0]["name"] == "🃏 Jo"


def test_headers_that_are_not_utf8_text_never_reach_a_500(client: TestClient, make_game):
    # Header values arrive as bytes read as Latin-1: they can't hold a surrogate, but they can hold
    # what a surrogate's UTF-8 bytes would be.
    body = {"players": [{"name": "A"}, {"name": "B"}]}
    created = client.post(f"{API}/games", json=body, headers={"Idempotency-Key": b"\xed\xa0\x80"})
    assert created.status_code == 201, created.text
    replay = client.post(f"{API}/games", json=body, headers={"Idempotency-Key": b"\xed\xa0\x80"})
    assert replay.status_code == 201 and replay.json()["id"] == created.json()["id"]
    game = make_game()
    stale = client.patch(
        f"{API}/games/{game.id}", json={"name": "x"}, headers=game.auth | {"If-Match": b"\xed\xa0\x80"}
    )
    assert stale.status_code == 412


@pytest.mark.parametrize("encoded", ["%ED%A0%80", "%ED%BF%BF", "%FF%FE", "%C0%80"])
def test_page_forms_with_bytes_that_are_no_utf8_never_reach_a_500(app: FastAPI, encoded: str):
    # A browser can't send a lone surrogate in a form (it has no UTF-8 form); the bytes a client could
    # send instead are read as U+FFFD, which is a visible character.
    with TestClient(app) as browser:
        form = f"player_count=2&player-0=Ana{encoded}&player-1=Ben&game_name=G{encoded}&action=start"
        created = browser.post(
            "/games",
            content=form.encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            follow_redirects=False,
        )
        assert created.status_code == 303, created.text


# --- duplicate JSON keys --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('{"players":[{"name":"A"},{"name":"B"}],"players":[{"name":"C"},{"name":"D"}]}', "players"),
        ('{"players":[{"name":"A","name":"Z"},{"name":"B"}]}', "players[0].name"),
        ('{"players":[{"name":"A"},{"name":"B"}],"rules":{"target":100,"target":5}}', "rules.target"),
    ],
)
def test_duplicate_keys_in_a_json_body_are_a_422_naming_the_key(
    app: FastAPI, client: TestClient, body: str, field: str
):
    problem = assert_problem(post_raw(client, f"{API}/games", body), 422)
    assert fields_of(problem) == [field]
    assert "more than once" in problem["errors"][0]["message"]
    assert count_games(app) == 0


def test_malformed_json_is_still_a_422_on_the_body(client: TestClient):
    problem = assert_problem(post_raw(client, f"{API}/games", '{"players": ['), 422)
    assert fields_of(problem) == ["body"]


# --- 405 lists every method of the path -----------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", f"{API}/games/abc/rounds/1", {"PUT", "DELETE"}),
        ("POST", f"{API}/games/abc/rounds/1", {"PUT", "DELETE"}),
        ("GET", f"{API}/games/abc/rounds", {"POST"}),
        ("PUT", f"{API}/games/abc", {"GET", "PATCH", "DELETE"}),
        ("PUT", "/g/abc", {"GET"}),
    ],
)
def test_a_405_lists_every_method_the_path_takes(client: TestClient, method: str, path: str, allowed: set[str]):
    response = client.request(method, path)
    assert response.status_code == 405
    listed = {m.strip() for m in response.headers["Allow"].split(",")}
    assert allowed <= listed <= allowed | {"HEAD"}
    if path.startswith(API):
        assert_problem(response, 405)


# --- HSTS -------------------------------------------------------------------------------------


def test_hsts_only_over_https(app: FastAPI):
    with TestClient(app, base_url="https://testserver") as secure:
        for path in ("/", f"{API}/games/nope", "/static/app.css"):
            assert secure.get(path).headers["Strict-Transport-Security"] == "max-age=31536000"
    with TestClient(app) as plain:
        assert "Strict-Transport-Security" not in plain.get("/").headers


def test_hsts_seconds_is_a_setting_and_zero_turns_it_off(database_url: str):
    for seconds, expected in ((600, "max-age=600"), (0, None)):
        app = limited_app(database_url, hsts_seconds=seconds)
        try:
            with TestClient(app, base_url="https://testserver") as secure:
                assert secure.get("/").headers.get("Strict-Transport-Security") == expected
        finally:
            app.state.engine.dispose()


# --- the access log can't be forged ----------------------------------------------------------------


def test_control_characters_in_a_path_are_escaped_in_the_access_log(client: TestClient, caplog):
    caplog.set_level(logging.INFO, logger="blitzboard")
    client.get("/g/abc%0aINFO%20blitzboard.access:%20forged%0d%1b[31m%C2%85%E2%80%A8%22")
    (line,) = [r.getMessage() for r in caplog.records if r.name == "blitzboard.access"]
    assert not any(ch in line for ch in "\n\r\x1b\x85\u2028")
    assert "/g/abc\\x0aINFO blitzboard.access: forged\\x0d\\x1b[31m\\x85\\u2028\\x22" in line


# --- a cross-site page can't start games ---------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site", "Origin": EVIL},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": EVIL},
    ],
)
def test_a_cross_site_start_form_is_refused_and_creates_nothing(app: FastAPI, headers: dict[str, str]):
    with TestClient(app) as browser:
        refused = browser.post("/games", data=START_FORM, headers=headers)
        assert refused.status_code == 403
        assert "another site" in text_of(html(refused).select_one(".error-detail"))
        assert not any(c.startswith("bb_edit_") for c in browser.cookies)
    assert count_games(app) == 0


@pytest.mark.parametrize(
    "headers",
    [
        {},  # an old browser, or a privacy extension that strips both
        {"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"},
        {"Origin": "http://testserver"},
        {"Origin": "null"},
    ],
)
def test_a_same_origin_or_plain_start_form_still_starts_a_game(app: FastAPI, headers: dict[str, str]):
    with TestClient(app) as browser:
        created = browser.post("/games", data=START_FORM, headers=headers, follow_redirects=False)
        assert created.status_code == 303
    assert count_games(app) == 1


# --- the creation limit under a burst ----------------------------------------------------------------


def test_a_burst_of_concurrent_creates_makes_at_most_the_limit(database_url: str):
    app = limited_app(database_url)  # the default: 60 a minute
    limit = Settings(_env_file=None).games_per_minute
    body = {"players": WORKED_EXAMPLE_PLAYERS}
    try:
        with TestClient(app) as client, ThreadPoolExecutor(max_workers=32) as pool:
            statuses = list(pool.map(lambda _: client.post(f"{API}/games", json=body).status_code, range(200)))
        assert statuses.count(201) == limit
        assert statuses.count(429) == 200 - limit
        assert count_games(app) == limit
    finally:
        app.state.engine.dispose()


def test_refused_creates_and_replays_give_their_slot_back(database_url: str):
    app = limited_app(database_url, games_per_minute=2)
    good = {"players": [{"name": "A"}, {"name": "B"}]}
    try:
        with TestClient(app) as client:
            assert client.post(f"{API}/games", json=good, headers={"Idempotency-Key": "k1"}).status_code == 201
            for _ in range(3):  # invalid, and replays of the first: none of them counts
                assert client.post(f"{API}/games", json={"players": [{"name": "A"}]}).status_code == 422
                assert client.post(f"{API}/games", json=good, headers={"Idempotency-Key": "k1"}).status_code == 201
                assert client.post("/games", data=START_FORM | {"player-1": "Ana"}).status_code == 422
            assert client.post(f"{API}/games", json=good).status_code == 201
            assert client.post(f"{API}/games", json=good).status_code == 429
            assert client.post("/games", data=START_FORM).status_code == 429
        assert count_games(app) == 2
    finally:
        app.state.engine.dispose()


def test_reserve_is_a_check_and_count_in_one_step():
    now = [0.0]
    limiter = RateLimiter(3, clock=lambda: now[0])
    assert [limiter.reserve("a") for _ in range(3)] == [None, None, None]
    assert limiter.reserve("a") == 60
    limiter.release("a")
    assert limiter.reserve("a") is None and limiter.reserve("a") is not None
    assert limiter.reserve("b") is None  # each address has its own
    now[0] = 61
    assert limiter.reserve("a") is None


# --- SQLite durability ------------------------------------------------------------------------------


@pytest.mark.skipif(on_postgres(), reason="a SQLite setting")
@pytest.mark.parametrize(("setting", "expected"), [(None, 2), ("FULL", 2), ("normal", 1)])
def test_sqlite_syncs_every_commit_unless_told_otherwise(database_url: str, setting: str | None, expected: int):
    settings = Settings(
        database_url=database_url, _env_file=None, **({"sqlite_synchronous": setting} if setting else {})
    )
    engine = make_engine(settings.database_url, synchronous=settings.sqlite_synchronous)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("PRAGMA synchronous")).scalar() == expected
    finally:
        engine.dispose()


@pytest.mark.skipif(on_postgres(), reason="a SQLite setting")
def test_the_app_engine_syncs_every_commit(app: FastAPI):
    with app.state.engine.connect() as connection:
        assert connection.execute(text("PRAGMA synchronous")).scalar() == 2
