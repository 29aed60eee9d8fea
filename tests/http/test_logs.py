"""Log lines carry a UTC timestamp and the request they belong to; BLITZBOARD_LOG_FORMAT=json writes one
JSON object per line, uvicorn's own lines included."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from app.http.middleware import redact
from app.logs import JsonFormatter, TextFormatter, current_request_id
from tests.servers import migrated, running_server

TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


def record(message: str, name: str = "blitzboard.test") -> logging.LogRecord:
    return logging.LogRecord(name, logging.WARNING, __file__, 1, message, (), None)


def test_a_text_line_has_time_level_logger_and_the_current_request():
    assert re.fullmatch(rf"{TIMESTAMP} WARNING blitzboard.test: hello", TextFormatter().format(record("hello")))
    token = current_request_id.set("req-42")
    try:
        line = TextFormatter().format(record("inside a request"))
        already = TextFormatter().format(record("done request_id=req-42"))
    finally:
        current_request_id.reset(token)
    assert line.endswith("inside a request request_id=req-42")
    assert already.count("request_id=") == 1  # the access log names it itself


def test_a_json_line_is_one_object():
    token = current_request_id.set("req-7")
    try:
        entry = json.loads(JsonFormatter().format(record('say "hi"\nand more')))
    finally:
        current_request_id.reset(token)
    assert re.fullmatch(TIMESTAMP, entry.pop("time"))
    assert entry == {
        "level": "WARNING",
        "logger": "blitzboard.test",
        "message": 'say "hi"\nand more',
        "request_id": "req-7",
    }


@pytest.mark.server
def test_a_server_with_json_logs_writes_only_json_lines_naming_each_request(tmp_path: Path):
    database = migrated(f"sqlite:///{tmp_path / 'logs.db'}")
    env = {"BLITZBOARD_LOG_FORMAT": "json", "BLITZBOARD_LOG_LEVEL": "info"}
    with running_server(database, tmp_path / "server.log", env=env) as server:
        assert httpx.get(server.url + "/nothing-here", headers={"X-Request-ID": "trace-me-1"}).status_code == 404
    lines = [line for line in server.output().splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line, uvicorn's too, is JSON
    assert any(e["logger"].startswith("uvicorn") for e in entries)
    (access,) = [e for e in entries if e["logger"] == "blitzboard.access" and "/nothing-here" in e["message"]]
    assert access["request_id"] == "trace-me-1" and re.fullmatch(TIMESTAMP, access["time"])


@pytest.mark.server
def test_text_logs_have_timestamps_too(tmp_path: Path):
    database = migrated(f"sqlite:///{tmp_path / 'logs.db'}")
    with running_server(database, tmp_path / "server.log", env={"BLITZBOARD_LOG_LEVEL": "info"}) as server:
        httpx.get(server.url + "/healthz", headers={"X-Request-ID": "trace-me-2"})
    (line,) = [line for line in server.output().splitlines() if "GET /healthz" in line and "trace-me-2" in line]
    assert re.match(rf"{TIMESTAMP} INFO blitzboard.access: ", line)


# --- keys in paths ---------------------------------------------------------------------------------

KEY = "Kq9-Zx_" * 5  # an edit key's or a handover token's shape: URL-safe base64

# Every path shape that carries a key (a game's edit link, a handover link, a table's edit link), as a
# link mangled on its way may arrive: another case, doubled or trailing slashes, something after it.
# Starlette matches routes case-sensitively, so most of these are 404s: their path still holds the key.
KEY_PATHS = [
    f"/g/Xb3kP9/edit/{KEY}",
    f"/g/Xb3kP9/EDIT/{KEY}",
    f"/g/Xb3kP9/Edit/{KEY}",
    f"/G/Xb3kP9/eDiT/{KEY}",
    f"/g/Xb3kP9/take/{KEY}",
    f"/g/Xb3kP9/TAKE/{KEY}",
    f"/g/Xb3kP9/Take/{KEY}",
    f"/t/T4bLe7/edit/{KEY}",
    f"/t/T4bLe7/EDIT/{KEY}",
    f"/T/T4bLe7/eDit/{KEY}",
    f"/g/Xb3kP9/edit//{KEY}",
    f"/g/Xb3kP9//EDIT///{KEY}",
    f"/g/Xb3kP9/edit/{KEY}/",
    f"/g/Xb3kP9/edit/{KEY}/more",
    f"/g/Xb3kP9/edit/ {KEY}",
    f"/g/Xb3kP9/edit/?{KEY}",  # a %3F decoded into the path
    f"/g/Xb3kP9/edit/\n{KEY}",
]


@pytest.mark.parametrize("path", KEY_PATHS)
def test_a_key_in_a_path_is_redacted_whatever_its_case_or_shape(path: str):
    redacted = redact(path)
    assert KEY not in redacted and "[redacted]" in redacted, redacted
    assert path.startswith(redacted.split("[redacted]")[0]), redacted  # what comes before the key stays


@pytest.mark.parametrize("path", ["/g/Xb3kP9/score", "/g/Xb3kP9/key", "/t/T4bLe7/key", "/g/Xb3kP9/editor", "/g/edit"])
def test_a_path_without_a_key_is_logged_as_it_is(path: str):
    assert redact(path) == path


def test_the_access_log_holds_no_key_of_a_mixed_case_link(client: TestClient, make_game, caplog):
    game = make_game()
    table = client.post("/api/v1/tables", json={"name": "Logged"}).json()
    caplog.set_level(logging.INFO, logger="blitzboard")
    paths = [
        f"/g/{game.id}/EDIT/{game.key}",
        f"/g/{game.id}/Edit/{game.key}",
        f"/g/{game.id}/TAKE/{game.key}",
        f"/t/{table['id']}/EDIT/{table['edit_key']}",
        f"/g/{game.id}/edit//{game.key}",
    ]
    for path in paths:
        assert client.get(path, follow_redirects=False).status_code == 404, path
    logged = [r.getMessage() for r in caplog.records if r.name == "blitzboard.access" and '"GET ' in r.getMessage()]
    assert len(logged) == len(paths), logged
    for line in logged:
        assert game.key not in line and table["edit_key"] not in line, line
        assert "/[redacted]" in line, line
