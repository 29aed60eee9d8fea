"""The server's own refusals answer like the app: a request head over `MAX_HEADER_BYTES` gets 431, and a
request over the connection cap 503, each with the security headers, in problem+json on the API and a
page elsewhere (app/http/server.py). Checked on real servers, under both HTTP parsers uvicorn may run:
httptools (what `blitzboard serve` picks when it is installed) and h11.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.http.server import GuardedH11Protocol, _protocol_class
from tests.http.test_limits import LOW_LIMITS, SOCKETS_ONLY, closed_by_server, connect
from tests.servers import Server, running_server

# Refused by the server before the app: the database plays no part (SQLite pass only).
pytestmark = [pytest.mark.server, SOCKETS_ONLY]

# A server process under h11 whatever is installed: `blitzboard serve`'s own options with h11's protocol class.
H11_SERVER = """
import sys
from functools import partial
import uvicorn
from app.config import get_settings
from app.http.limits import raise_open_file_limit
from app.http.server import GuardedH11Protocol, uvicorn_options
options = uvicorn_options(get_settings(), host="127.0.0.1", port=int(sys.argv[1]), workers=1,
                          open_files=raise_open_file_limit())
options["http"] = partial(GuardedH11Protocol, guard=options["http"].keywords["guard"])
uvicorn.run("app.main:create_app", **options)
"""

PARSERS = ["h11"] if _protocol_class() is GuardedH11Protocol else ["httptools", "h11"]


def serve(database_url: str, log: Path, parser: str, env: dict[str, str]):
    command = None if parser == "httptools" else (lambda port: [sys.executable, "-c", H11_SERVER, str(port)])
    return running_server(database_url, log, env=env, command=command)


@pytest.fixture(params=PARSERS)
def default_server(request: pytest.FixtureRequest, server_database_url: str, tmp_path: Path) -> Iterator[Server]:
    """A server with the default head limit (16 KiB)."""
    with serve(server_database_url, tmp_path / "server.log", request.param, {}) as server:
        yield server


def answer_to(server: Server, head: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send one request head (with `Connection: close`) and read the whole answer."""
    return parsed(send_head(connect(server), head))


def send_head(sock: socket.socket, head: bytes) -> bytes:
    # Refused before the rest was read, the answer is waiting all the same.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        sock.sendall(head)
    return closed_by_server(sock)


def parsed(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head_part, _, body = raw.partition(b"\r\n\r\n")
    status_line, *lines = head_part.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def padded_head(path: str, size: int) -> bytes:
    """A GET whose head (request line, headers, blank line) is exactly `size` bytes."""
    start = f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAccept-Language: en\r\nX-Pad: ".encode()
    return start + b"a" * (size - len(start) - 4) + b"\r\n\r\n"


def assert_ours(headers: dict[str, str]) -> None:
    assert "default-src" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["connection"] == "close"


def test_a_head_over_the_limit_gets_431_and_one_within_it_is_served(default_server: Server):
    status, _, _ = answer_to(default_server, padded_head("/api/v1/presets", 15 * 1024))
    assert status == 200
    for size in (20 * 1024, 60 * 1024):
        status, headers, body = answer_to(default_server, padded_head("/api/v1/presets", size))
        assert status == 431, size
        assert_ours(headers)
        assert headers["content-type"] == "application/problem+json"
        problem = json.loads(body)
        assert problem["status"] == 431 and problem["type"].endswith("/head-too-large")
    status, headers, body = answer_to(default_server, padded_head("/", 20 * 1024))
    assert status == 431 and headers["content-type"].startswith("text/html")
    assert_ours(headers)
    assert b"16 KiB" in body
    # The server still serves after refusing.
    assert answer_to(default_server, padded_head("/healthz", 200))[0] == 200


@pytest.mark.parametrize("parser", PARSERS)
def test_a_request_over_the_connection_cap_gets_our_503(parser: str, server_database_url: str, tmp_path: Path):
    env = LOW_LIMITS | {"BLITZBOARD_MAX_CONNECTIONS": "4", "BLITZBOARD_HEADER_TIMEOUT_SECONDS": "60"}
    with serve(server_database_url, tmp_path / "server.log", parser, env) as server:
        held = [connect(server, f"127.0.1.{n}") for n in range(1, 5)]
        try:
            for path, kind in (("/api/v1/presets", "application/problem+json"), ("/", "text/html")):
                raw = send_head(connect(server, "127.0.1.9"), padded_head(path, 200))
                status, headers, body = parsed(raw)
                assert status == 503, raw[:200]
                assert_ours(headers)
                assert headers["content-type"].startswith(kind)
                assert int(headers["retry-after"]) > 0
                if kind == "application/problem+json":
                    assert json.loads(body)["type"].endswith("/over-capacity")
        finally:
            for each in held:
                each.close()
