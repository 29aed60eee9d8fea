"""Unexpected errors and database trouble: a clean 500 / 503 with every security header, a request id
that ties the answer to one short log line, and an access log that says what was answered."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url

from app.config import Settings
from app.games.usecases import Games
from app.http.errors import RETRY_AFTER_SECONDS, is_database_trouble
from app.main import create_app
from app.migrations import upgrade
from app.security import content_security_policy
from tests.helpers import (
    API,
    SMALL_ROUND,
    WORKED_EXAMPLE_PLAYERS,
    GameHandle,
    assert_problem,
    html,
    on_postgres,
    text_of,
)


def assert_security_headers(response: httpx.Response) -> None:
    assert response.headers["Content-Security-Policy"] == content_security_policy()
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Referrer-Policy"] in ("strict-origin-when-cross-origin", "no-referrer")
    assert response.headers["Cross-Origin-Opener-Policy"] == "same-origin"


def locked() -> sa_exc.OperationalError:
    return sa_exc.OperationalError("SELECT game.id FROM game", {}, Exception("database is locked"))


def _raise(error: Exception):
    def fail(*_args, **_kwargs):
        raise error

    return fail


@pytest.fixture
def logs(client: TestClient, caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    # After the client's start-up: the lifespan sets the blitzboard loggers' level from Settings.
    caplog.set_level(logging.INFO, logger="blitzboard")
    return caplog


def error_records(caplog: pytest.LogCaptureFixture, level: int = logging.INFO) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "blitzboard.errors" and r.levelno >= level]


def access_records(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "blitzboard.access"]


# --- request ids ---------------------------------------------------------------------------------


def test_every_answer_has_a_request_id_which_the_access_log_names(client: TestClient, logs):
    first = client.get(f"{API}/games/nope")
    second = client.get("/")
    ids = [first.headers["X-Request-ID"], second.headers["X-Request-ID"]]
    assert all(ids) and ids[0] != ids[1]
    lines = access_records(logs)
    assert any(f'"GET {API}/games/nope" 404' in line and f"request_id={ids[0]}" in line for line in lines), lines
    assert any('"GET /" 200' in line and f"request_id={ids[1]}" in line for line in lines), lines


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("abc-123_XYZ.9", True),
        ("4bf92f3577b34da6a3ce929d0e0e4736", True),
        ("x" * 129, False),
        ("has space", False),
        ("<script>", False),
        ("", False),
    ],
)
def test_a_sane_incoming_request_id_is_kept_and_any_other_replaced(client: TestClient, sent: str, kept: bool):
    answered = client.get("/", headers={"X-Request-ID": sent}).headers["X-Request-ID"]
    if kept:
        assert answered == sent
    else:
        assert answered != sent and 1 <= len(answered) <= 128 and answered.isalnum()


# --- unexpected errors: 500 ----------------------------------------------------------------------


def test_an_unexpected_error_in_the_api_is_a_problem_json_500_with_every_header(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, logs
):
    monkeypatch.setattr(Games, "get", _raise(RuntimeError("kaboom\nsecond line of the message")))
    response = client.get(f"{API}/games/abc", headers={"X-Request-ID": "trace-500-api"})
    body = assert_problem(response, 500)
    assert_security_headers(response)
    assert response.headers["X-Request-ID"] == body["request_id"] == "trace-500-api"
    assert "trace-500-api" in body["detail"] and "kaboom" not in body["detail"]
    (record,) = error_records(logs)
    line = record.getMessage()
    assert "trace-500-api" in line and "RuntimeError: kaboom" in line and f"{API}/games/abc" in line
    assert "\n" not in line and "second line" not in line
    assert record.exc_info is None  # no traceback at the default level
    assert any(f'"GET {API}/games/abc" 500' in a and "request_id=trace-500-api" in a for a in access_records(logs))


def test_an_unexpected_error_on_a_page_is_the_error_page_with_every_header(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, logs
):
    monkeypatch.setattr(Games, "row", _raise(RuntimeError("kaboom")))  # every read of a game starts with its row
    response = client.get("/g/abc")
    assert response.status_code == 500
    assert_security_headers(response)
    page = html(response)
    request_id = response.headers["X-Request-ID"]
    assert request_id in text_of(page.select_one(".error-detail"))
    assert page.select_one("a[href='/']") is not None
    assert len(error_records(logs)) == 1
    assert any('"GET /g/abc" 500' in a for a in access_records(logs))


def test_the_traceback_is_logged_at_debug_only(client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog):
    caplog.set_level(logging.DEBUG, logger="blitzboard")
    monkeypatch.setattr(Games, "get", _raise(RuntimeError("kaboom")))
    assert client.get(f"{API}/games/abc").status_code == 500
    assert [r.exc_info is not None for r in error_records(caplog, logging.DEBUG)] == [False, True]
    assert len(error_records(caplog, logging.ERROR)) == 1


def test_an_unexpected_error_in_a_form_post_is_the_error_page(app: FastAPI, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(Games, "create", _raise(RuntimeError("kaboom")))
    with TestClient(app) as browser:
        response = browser.post("/games", data={"player-0": "Ana", "player-1": "Ben", "player_count": "2"})
        assert response.status_code == 500
        assert_security_headers(response)
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert response.headers["X-Request-ID"] in text_of(html(response).select_one(".error-detail"))
        # The slot reserved for the game is given back: nothing was made, nothing counts.
        assert app.state.limits.games.used("testclient") == 0


# --- database trouble: 503 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        locked(),
        sa_exc.OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly")),
        sa_exc.DBAPIError("SELECT 1", {}, Exception("connection reset"), connection_invalidated=True),
        sa_exc.TimeoutError("QueuePool limit of size 10 overflow 20 reached"),
        sa_exc.InterfaceError("SELECT 1", {}, Exception("connection already closed")),
    ],
    ids=["locked", "connection-lost", "invalidated", "pool-timeout", "interface"],
)
def test_database_trouble_in_the_api_is_a_503_with_retry_after(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, error: Exception, logs
):
    monkeypatch.setattr(Games, "get", _raise(error))
    response = client.get(f"{API}/games/abc")
    body = assert_problem(response, 503)
    assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert_security_headers(response)
    assert body["request_id"] == response.headers["X-Request-ID"]
    assert len(error_records(logs)) == 1
    assert any(f'"GET {API}/games/abc" 503' in a for a in access_records(logs))


def test_database_trouble_on_a_write_and_on_a_page_is_a_503(
    client: TestClient, make_game, monkeypatch: pytest.MonkeyPatch
):
    game = make_game()
    monkeypatch.setattr(Games, "add_round", _raise(locked()))
    response = game.add_round([(22, 0), (14, 3), (11, 5), (9, 7)])
    assert_problem(response, 503)
    assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
    monkeypatch.setattr(Games, "row", _raise(locked()))  # every read of a game starts with its row
    page = client.get(f"/g/{game.id}")
    assert page.status_code == 503 and page.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert_security_headers(page)
    assert text_of(html(page).select_one("h1")) == "Busy for a moment"


def test_other_errors_are_not_database_trouble():
    assert not is_database_trouble(RuntimeError("x"))
    assert not is_database_trouble(sa_exc.IntegrityError("INSERT", {}, Exception("unique")))
    wrapped = RuntimeError("while saving")
    wrapped.__cause__ = locked()
    assert is_database_trouble(wrapped)


@pytest.fixture
def impatient_app(database_url: str) -> Iterator[FastAPI]:
    app = create_app(Settings(database_url=database_url, sqlite_busy_timeout_ms=50, tune_gc=False, _env_file=None))
    upgrade(app.state.engine)
    yield app
    app.state.engine.dispose()


@pytest.mark.skipif(on_postgres(), reason="SQLite's file lock")
def test_a_write_lock_held_by_another_process_past_the_busy_timeout_is_a_503(impatient_app: FastAPI):
    with TestClient(impatient_app) as client:
        created = client.post(f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS, "rules": {"target": 1000}})
        game = GameHandle(client, created.json())
        other = sqlite3.connect(make_url(str(impatient_app.state.engine.url)).database, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
            refused = game.add_round(SMALL_ROUND)
            assert_problem(refused, 503)
            assert refused.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
            assert_security_headers(refused)
            assert client.get(f"{API}/games/{game.id}").json()["rounds"] == []  # readers never wait
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert game.add_round(SMALL_ROUND).status_code == 201


def test_the_openapi_document_declares_the_503(client: TestClient):
    paths = client.get("/openapi.json").json()["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            assert "503" in operation["responses"], (method, path)


def test_an_error_on_the_edit_link_never_logs_its_key(client: TestClient, make_game, logs, monkeypatch):
    game = make_game()
    monkeypatch.setattr(Games, "key_hash", _raise(locked()))
    response = client.get(f"/g/{game.id}/edit/{game.key}", follow_redirects=False)
    assert response.status_code == 503
    assert_security_headers(response)
    logged = [r.getMessage() for r in logs.records]
    assert any("/edit/[redacted]" in line for line in logged), logged
    assert not any(game.key in line for line in logged)
    assert game.key not in response.text


def test_a_503_on_a_page_tells_the_keeper_to_send_the_form_again(client: TestClient, logs, monkeypatch):
    monkeypatch.setattr(Games, "existing", _raise(locked()))
    page = client.get("/")
    assert page.status_code == 503
    assert "sending the same form again" in text_of(html(page).select_one("main, body"))
