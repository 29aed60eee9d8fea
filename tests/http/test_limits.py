"""Bounds on what one client can hold (hardening issue "One client can stall the server").

Event streams per client and in total, the request head / body / keep-alive deadlines, connections per
peer and in total, the open-file limit raised at start-up, and repeated error lines logged at a bounded
rate. The socket-level limits are tested on a real server (`blitzboard serve`, tests/servers.py) with
the limits set low through the environment; the tests wait with generous timeouts and assert what
happened (closed, refused), never how fast.
"""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.http.limits import RepeatFilter, StreamSlots, capacity
from tests.helpers import on_postgres
from tests.servers import ROOT, Server, running_server

# The socket-level limits (deadlines, connection caps, the head's size) are uvicorn's and app.http.server's:
# the database plays no part, so they run in the SQLite pass only (docs/testing.md, "What runs where").
SOCKETS_ONLY = pytest.mark.skipif(on_postgres(), reason="socket-level: the database plays no part (SQLite pass)")

# Long enough that a loaded 2-core machine still sees the server act; the limits below are 1 s.
PATIENCE = 30
LOW_LIMITS = {
    "BLITZBOARD_MAX_STREAMS_PER_CLIENT": "2",
    "BLITZBOARD_MAX_STREAMS": "3",
    "BLITZBOARD_HEADER_TIMEOUT_SECONDS": "1",
    "BLITZBOARD_BODY_TIMEOUT_SECONDS": "1",
    "BLITZBOARD_KEEP_ALIVE_SECONDS": "1",
    "BLITZBOARD_MAX_HEADER_BYTES": "4096",
    "BLITZBOARD_MAX_CONNECTIONS_PER_CLIENT": "8",
    # 127.0.0.1 is trusted as a proxy by default, and proxies are exempt from the connection cap.
    "BLITZBOARD_FORWARDED_ALLOW_IPS": "192.0.2.1",
    "BLITZBOARD_GAMES_PER_MINUTE": "10000",
}


# --- pure parts ----------------------------------------------------------------------------------------


def test_stream_slots_refuse_per_client_then_in_total_and_come_back_when_released():
    slots = StreamSlots(per_client=2, total=3)
    assert [slots.acquire("a"), slots.acquire("a"), slots.acquire("a")] == [None, None, 429]
    assert slots.acquire("b") is None
    assert slots.acquire("c") == 503
    slots.release("a")
    assert slots.acquire("c") is None
    assert slots.open == 3 and slots.held_by("a") == 1
    slots.release("nobody")  # releasing what was never held changes nothing
    assert slots.open == 3


@pytest.mark.parametrize(
    ("open_files", "connections", "streams"),
    [(1_000_000, 4000, 2000), (1100, 972, 844), (200, 72, 1)],
)
def test_connections_and_streams_stay_under_the_open_file_limit(open_files: int, connections: int, streams: int):
    settings = Settings(_env_file=None)  # defaults: 4000 connections, 2000 streams, a reserve of 128
    assert capacity(settings, open_files) == (connections, streams)


def test_an_identical_line_passes_once_per_window_then_says_how_many_were_held_back():
    now = [0.0]
    repeat = RepeatFilter(10, clock=lambda: now[0])

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, message, None, None)

    assert repeat.filter(record("socket.accept() out of system resource\nsocket: fd=7"))
    assert not any(repeat.filter(record("socket.accept() out of system resource\nsocket: fd=7")) for _ in range(500))
    assert repeat.filter(record("another error"))  # a different line is not held back
    now[0] = 11.0
    passed = record("socket.accept() out of system resource\nsocket: fd=7")
    assert repeat.filter(passed)
    assert "500 identical lines suppressed" in passed.getMessage()


def test_the_log_filter_and_the_stream_cap_are_installed_at_start_up_not_at_import(settings: Settings):
    from fastapi.testclient import TestClient

    from app.main import create_app

    def filters() -> list[logging.Filter]:
        return [f for f in logging.getLogger("asyncio").filters if isinstance(f, RepeatFilter)]

    app = create_app(settings)
    assert filters() == []
    with TestClient(app):
        assert len(filters()) == 1
        assert logging.getLogger("uvicorn.error").filters == filters()
        assert app.state.streams.total <= settings.max_streams
    assert filters() == []


@pytest.mark.server
def test_start_up_raises_the_soft_open_file_limit_to_the_hard_one(tmp_path: Path):
    script = """
import resource
from fastapi.testclient import TestClient
from app.config import Settings
from app.main import create_app
resource.setrlimit(resource.RLIMIT_NOFILE, (300, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
app = create_app(Settings(database_url="sqlite:///%s", tune_gc=False, _env_file=None))
before = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
with TestClient(app):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    print(before, soft, hard, app.state.streams.total)
""" % (tmp_path / "x.db")
    output = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    before, soft, hard, streams = map(int, output.stdout.split())
    assert before == 300  # nothing happened at import or in create_app
    assert soft == hard
    assert streams == capacity(Settings(_env_file=None), hard)[1]


# --- a real server with low limits ---------------------------------------------------------------------


@pytest.fixture
def limited(server_database_url: str, tmp_path: Path) -> Iterator[Server]:
    with running_server(server_database_url, tmp_path / "server.log", env=LOW_LIMITS) as server:
        yield server


def new_game(server: Server) -> str:
    body = {"name": "Limits", "players": [{"name": "Ana"}, {"name": "Ben"}]}
    answer = httpx.post(server.url + "/api/v1/games", json=body, timeout=PATIENCE)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def connect(server: Server, source: str = "127.0.0.1") -> socket.socket:
    """A raw connection; `source` another loopback address to be another client (127.0.0.0/8 is all local)."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=PATIENCE, source_address=(source, 0))
    return sock


def open_stream(server: Server, game_id: str, source: str = "127.0.0.1") -> tuple[socket.socket, bytes]:
    """Ask for the game's event stream; the connection and the answer's head (status line and headers)."""
    sock = connect(server, source)
    sock.sendall(f"GET /api/v1/games/{game_id}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return sock, head


def closed_by_server(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (fails if it stays open for PATIENCE s)."""
    received = b""
    sock.settimeout(PATIENCE)
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        pytest.fail(f"the server kept the connection open for {PATIENCE} s; received {received[:200]!r}")
    finally:
        sock.close()
    return received


@pytest.mark.server
def test_event_streams_are_capped_per_client_and_in_total_and_released_when_they_end(limited: Server):
    game_id = new_game(limited)
    first, head = open_stream(limited, game_id)
    assert head.startswith(b"HTTP/1.1 200")
    second, _ = open_stream(limited, game_id)
    third, head = open_stream(limited, game_id)
    status, _, rest = head.partition(b"\r\n")
    assert status.startswith(b"HTTP/1.1 429")
    assert b"retry-after: 30" in rest.lower() and b"application/problem+json" in rest
    third.close()

    other, head = open_stream(limited, game_id, source="127.0.0.2")
    assert head.startswith(b"HTTP/1.1 200")  # another client still gets one: 3 open in all
    full, head = open_stream(limited, game_id, source="127.0.0.3")
    assert head.startswith(b"HTTP/1.1 503") and b"retry-after" in head.lower()
    full.close()
    # Pages and the health check still answer with every stream slot taken.
    assert httpx.get(limited.url + "/healthz", timeout=PATIENCE).status_code == 200
    assert httpx.get(f"{limited.url}/g/{game_id}", timeout=PATIENCE).status_code == 200

    # A client that leaves gives its slot back once the server has seen it go (its stream hears the
    # disconnect on the server's loop, a moment after the close): ask again until it is granted, each
    # refusal a round trip (no pause), for at most PATIENCE seconds.
    first.close()
    deadline = time.monotonic() + PATIENCE
    while True:
        again, head = open_stream(limited, game_id)
        if head.startswith(b"HTTP/1.1 200"):
            break
        again.close()
        assert time.monotonic() < deadline, "the slot of a stream whose client left was never given back"
    for sock in (second, other, again):
        sock.close()


@pytest.mark.server
def test_a_refused_stream_is_problem_json_on_the_api(limited: Server):
    game_id = new_game(limited)
    held = [open_stream(limited, game_id)[0] for _ in range(2)]
    answer = httpx.get(f"{limited.url}/api/v1/games/{game_id}/events", timeout=PATIENCE)
    assert answer.status_code == 429
    assert answer.headers["content-type"] == "application/problem+json"
    problem = json.loads(answer.text)
    assert problem["status"] == 429 and problem["type"].endswith("/too-many-streams")
    assert int(answer.headers["retry-after"]) > 0
    for sock in held:
        sock.close()


@pytest.mark.server
@SOCKETS_ONLY
def test_a_connection_that_sends_nothing_is_closed(limited: Server):
    assert closed_by_server(connect(limited)) == b""


@pytest.mark.server
@SOCKETS_ONLY
def test_a_request_head_sent_too_slowly_is_closed_with_408(limited: Server):
    sock = connect(limited)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # and never the rest (slowloris)
    assert closed_by_server(sock).startswith(b"HTTP/1.1 408")


@pytest.mark.server
@SOCKETS_ONLY
def test_a_slow_head_on_a_kept_alive_connection_is_closed_too(limited: Server):
    sock = connect(limited)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    rest = closed_by_server(sock)  # perhaps the first answer's body, then the 408
    assert b"HTTP/1.1 408" in rest and rest.count(b"HTTP/1.1") == 1


@pytest.mark.server
@SOCKETS_ONLY
def test_an_idle_keep_alive_connection_is_closed(limited: Server):
    sock = connect(limited)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = closed_by_server(sock)  # the answer, then the close after the keep-alive timeout
    assert answer.startswith(b"HTTP/1.1 200")


@pytest.mark.server
@SOCKETS_ONLY
def test_a_body_sent_too_slowly_gets_408(limited: Server):
    sock = connect(limited)
    head = "POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    sock.sendall(head.encode() + b'{"name": ')  # 9 of the 100 bytes promised
    answer = closed_by_server(sock)
    assert answer.startswith(b"HTTP/1.1 408")
    assert b"application/problem+json" in answer and b"body-timeout" in answer


@pytest.mark.server
@SOCKETS_ONLY
def test_an_over_long_request_head_is_refused(limited: Server):
    sock = connect(limited)
    # Still incomplete 64 KiB past the limit (4 KiB): cut off without waiting for the rest (a head
    # within that is read whole and refused with the app's answer: tests/http/test_refusals.py).
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * (72 * 1024))
    answer = closed_by_server(sock)
    assert answer.startswith(b"HTTP/1.1 431"), answer[:100]
    assert b"nosniff" in answer


@pytest.mark.server
@SOCKETS_ONLY
def test_one_peer_cannot_hold_more_connections_than_its_share(limited: Server):
    held = [connect(limited, "127.0.0.4") for _ in range(8)]
    refused = connect(limited, "127.0.0.4")
    assert closed_by_server(refused) == b""  # closed at once, before any request
    # Another client is served meanwhile.
    sock = connect(limited, "127.0.0.5")
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert closed_by_server(sock).startswith(b"HTTP/1.1 200")
    for each in held:
        each.close()


@pytest.mark.server
@SOCKETS_ONLY
def test_connections_over_the_total_get_503(server_database_url: str, tmp_path: Path):
    env = LOW_LIMITS | {"BLITZBOARD_MAX_CONNECTIONS": "4", "BLITZBOARD_HEADER_TIMEOUT_SECONDS": "60"}
    with running_server(server_database_url, tmp_path / "server.log", env=env) as server:
        held = [connect(server, f"127.0.1.{n}") for n in range(1, 5)]
        sock = connect(server, "127.0.1.9")
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert closed_by_server(sock).startswith(b"HTTP/1.1 503")
        for each in held:
            each.close()


def test_a_trusted_proxy_network_is_exempt_from_the_per_peer_cap():
    from app.http.server import ConnectionGuard, trusted_proxies

    guard = ConnectionGuard(header_timeout=10, per_client=2, exempt=trusted_proxies("127.0.0.1, 10.0.0.0/8, fd00::/8"))
    assert all(guard.admit("10.1.2.3") for _ in range(5))  # inside the proxies' network: never capped
    assert all(guard.admit("fd00::7") for _ in range(5))
    assert [guard.admit("192.0.2.9") for _ in range(3)] == [True, True, False]
    assert not guard.counted("10.200.0.1") and guard.counted("192.0.2.9")
    assert trusted_proxies("*") is None
