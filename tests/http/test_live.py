"""Live updates: the in-process broker, event streams on a real server, two processes over PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import signal
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import psycopg
import pytest

from app.live import Broker
from app.live_pg import parse_notice
from tests.helpers import on_postgres
from tests.servers import Server, running_server

TWO_PLAYERS = {"players": [{"name": "Ana"}, {"name": "Ben"}], "rules": {"target": 10000}}
WAIT = 15  # seconds: a bound for each wait, not a measurement


class EventStream:
    """Reads a game's event stream over a plain socket in a thread; versions arrive on a queue.

    A socket (rather than an HTTP client) so that close() interrupts a blocked read at once, and so
    the test can see whether the server ended the chunked response properly ("0" chunk, then EOF).
    """

    def __init__(self, url: str):
        parts = urlsplit(url)
        self.versions: queue.Queue[int | str] = queue.Queue()
        self.starts: queue.Queue[tuple[dict[str, int], float]] = queue.Queue()  # (data, when it arrived)
        self.drafts: queue.Queue[int] = queue.Queue()  # a row sent from a player's phone: its stamp
        self.ended_cleanly = threading.Event()
        self._sock = socket.create_connection((parts.hostname, parts.port), timeout=WAIT)
        self._sock.settimeout(None)
        self._sock.sendall(
            f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buffer = b""
        event = None
        status_seen = False
        try:
            while chunk := self._sock.recv(65536):
                buffer += chunk
                *lines, buffer = buffer.split(b"\r\n")
                for raw in lines:
                    line = raw.decode(errors="replace")
                    if not status_seen and line.startswith("HTTP/1.1 "):
                        status_seen = True
                        self.versions.put(f"status {line.split()[1]}")
                    elif line.startswith("event:"):
                        event = line.split(":", 1)[1].strip()
                    elif line.startswith("data:") and event == "version":
                        self.versions.put(int(line.split(":", 1)[1]))
                    elif line.startswith("data:") and event == "draft":
                        self.drafts.put(int(line.split(":", 1)[1]))
                    elif line.startswith("data:") and event == "start":
                        self.starts.put((json.loads(line.split(":", 1)[1]), time.time() * 1000))
                    elif line == "0" and status_seen:
                        self.ended_cleanly.set()  # the last chunk of a complete chunked response
        except OSError:
            pass  # closed by the test

    def status(self) -> str:
        return str(self.versions.get(timeout=WAIT))

    def next_version(self) -> int:
        return int(self.versions.get(timeout=WAIT))

    def next_start(self) -> tuple[dict[str, int], float]:
        return self.starts.get(timeout=WAIT)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(WAIT)


def create_game(base: str) -> tuple[str, dict[str, str], list[int]]:
    body = httpx.post(f"{base}/api/v1/games", json=TWO_PLAYERS, timeout=WAIT).json()
    return body["id"], {"Authorization": f"Bearer {body['edit_key']}"}, [p["id"] for p in body["players"]]


def add_round(base: str, game_id: str, auth: dict[str, str], players: list[int], dutch: int = 5) -> int:
    scores = [{"player_id": players[0], "dutch": dutch, "blitz": 0}, {"player_id": players[1], "dutch": 1, "blitz": 4}]
    response = httpx.post(f"{base}/api/v1/games/{game_id}/rounds", json={"scores": scores}, headers=auth, timeout=WAIT)
    assert response.status_code == 201, response.text
    return response.json()["version"]


# --- the broker on its own --------------------------------------------------------------------


def test_broker_delivers_only_the_newest_version_to_subscribers_of_that_game():
    async def scenario():
        broker = Broker()
        broker.bind(asyncio.get_running_loop())
        async with broker.subscribe("a") as sub_a, broker.subscribe("b") as sub_b:
            broker.publish("a", 2)
            broker.publish("a", 4)
            broker.publish("a", 3)  # older than what was announced: ignored
            assert await sub_a.wait(1) == 4
            assert await sub_b.wait(0.05) is None
            assert broker.listener_count() == 2
        assert broker.listener_count() == 0
        assert broker.watched_games() == []

    asyncio.run(scenario())


def test_broker_publish_from_another_thread_wakes_the_loop():
    async def scenario():
        broker = Broker()
        broker.bind(asyncio.get_running_loop())
        async with broker.subscribe("g") as sub:
            threading.Thread(target=broker.publish, args=("g", 7)).start()
            assert await sub.wait(WAIT) == 7
            sub.close()
            assert await sub.wait(1) is None

    asyncio.run(scenario())


def test_publish_without_a_bound_loop_is_harmless():
    Broker().publish("nobody-listens", 1)


def test_broker_carries_a_row_sent_without_moving_the_version():
    async def scenario():
        broker = Broker()
        broker.bind(asyncio.get_running_loop())
        async with broker.subscribe("a") as sub:
            broker.publish("a", 2)
            assert await sub.wait(1) == 2
            broker.publish("a", 2, draft=1_700_000_005_000)  # a row from a player's phone
            assert await sub.wait(1) == 2 and sub.draft == 1_700_000_005_000
            # An older one, heard late from another process: a row the reader may not have read yet.
            broker.deliver("a", 2, None, 1_700_000_004_000)
            assert await sub.wait(1) == 2 and sub.draft == 1_700_000_004_000
            broker.deliver("a", 2, None, 1_700_000_004_000)  # the same one again: no wake-up
            assert await sub.wait(0.05) is None
            # Two rows in the same millisecond, the first read before the second came: both are heard.
            broker.publish("a", 2, draft=1_700_000_006_000)
            assert await sub.wait(1) == 2
            broker.publish("a", 2, draft=1_700_000_006_000)
            assert await sub.wait(1) == 2 and sub.draft == 1_700_000_006_001
            # On PostgreSQL both come back to this process (LISTEN), after both were heard: no news.
            broker.deliver("a", 2, None, 1_700_000_006_000)
            broker.deliver("a", 2, None, 1_700_000_006_001)
            assert await sub.wait(0.05) is None

    asyncio.run(scenario())


def test_broker_carries_a_rounds_start_beside_the_version():
    async def scenario():
        broker = Broker()
        broker.bind(asyncio.get_running_loop())
        async with broker.subscribe("a") as sub:
            broker.publish("a", 2, 1_700_000_003_000)
            assert await sub.wait(1) == 2 and sub.start == 1_700_000_003_000
            broker.publish("a", 2, 1_700_000_003_000)  # the same start again (a catch-up): no wake-up
            assert await sub.wait(0.05) is None
            broker.deliver("a", 2, 1_700_000_009_000)  # a restart, heard from another process
            assert await sub.wait(1) == 2 and sub.start == 1_700_000_009_000
            broker.publish("a", 3)  # a save: the start stays as it was
            assert await sub.wait(1) == 3 and sub.start == 1_700_000_009_000

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("payload", "parsed"),
    [
        ("abc:5", ("abc", 5, None, None)),  # a version notice, as before
        ("abc:6:1700000003000", ("abc", 6, 1_700_000_003_000, None)),  # a round's start
        ("abc:6::1700000004000", ("abc", 6, None, 1_700_000_004_000)),  # a row sent from a player's phone
        ("abc:6:1700000003000:1700000004000", ("abc", 6, 1_700_000_003_000, 1_700_000_004_000)),
        ("a_b-c:7", ("a_b-c", 7, None, None)),
        ("abc:5::later", None),
        ("abc:x", None),
        ("abc:5:soon", None),
        (":5", None),
        ("abc", None),
        ("", None),
    ],
)
def test_notices_from_postgresql_are_read_or_ignored(payload: str, parsed):
    assert parse_notice(payload) == parsed


# --- event streams on a real server -----------------------------------------------------------


@pytest.mark.server
def test_stream_sends_the_version_at_once_then_each_save(server_database_url: str, tmp_path: Path):
    with running_server(server_database_url, tmp_path / "server.log") as server:
        game_id, auth, players = create_game(server.url)
        stream = EventStream(f"{server.url}/g/{game_id}/events")
        try:
            assert stream.status() == "status 200"
            assert stream.next_version() == 1
            for expected in (2, 3):
                assert add_round(server.url, game_id, auth, players) == expected
                assert stream.next_version() == expected
        finally:
            stream.close()


def start_round(base: str, game_id: str, auth: dict[str, str]) -> dict:
    response = httpx.post(f"{base}/api/v1/games/{game_id}/start", headers=auth, timeout=WAIT)
    assert response.status_code == 200, response.text
    return response.json()


def ms(iso: str) -> int:
    return round(datetime.fromisoformat(iso).timestamp() * 1000)


@pytest.mark.server
def test_a_start_reaches_the_stream_with_the_servers_clock(server_database_url: str, tmp_path: Path):
    with running_server(server_database_url, tmp_path / "server.log") as server:
        game_id, auth, players = create_game(server.url)
        stream = EventStream(f"{server.url}/api/v1/games/{game_id}/events")
        try:
            assert stream.status() == "status 200"
            assert stream.next_version() == 1
            assert stream.starts.empty()  # no round running: no start on connect
            started = start_round(server.url, game_id, auth)
            data, _ = stream.next_start()
            assert set(data) == {"blitz_at", "server_now"}
            assert data["blitz_at"] == ms(started["blitz_at"])
            # Sent after the answer's clock was read, before "Blitz!" (3 s later): same clock, same machine.
            assert ms(started["server_now"]) - 1000 <= data["server_now"] <= data["blitz_at"]
            assert stream.next_version() == 2  # the start is a change too
            assert add_round(server.url, game_id, auth, players) == 3
            assert stream.next_version() == 3
            assert stream.starts.empty()  # a save is no start
        finally:
            stream.close()


def _send_row(base: str, game_id: str, auth: dict[str, str], player_id: int) -> None:
    row = {"round": 1, "dutch": 3, "blitz": 0}
    response = httpx.put(f"{base}/api/v1/games/{game_id}/draft/{player_id}", json=row, headers=auth, timeout=WAIT)
    assert response.status_code == 200, response.text


@pytest.mark.server
def test_a_row_sent_reaches_the_stream_as_a_draft_event(server_database_url: str, tmp_path: Path):
    with running_server(server_database_url, tmp_path / "server.log") as server:
        game_id, auth, players = create_game(server.url)
        stream = EventStream(f"{server.url}/g/{game_id}/events")
        try:
            assert stream.status() == "status 200"
            assert stream.next_version() == 1
            before = time.time() * 1000
            _send_row(server.url, game_id, auth, players[0])
            assert stream.drafts.get(timeout=WAIT) >= before - 1000
            assert stream.versions.empty()  # a draft moves no version
        finally:
            stream.close()


@pytest.mark.server
def test_a_stream_opened_mid_round_gets_the_start_at_once(server_database_url: str, tmp_path: Path):
    with running_server(server_database_url, tmp_path / "server.log") as server:
        game_id, auth, _ = create_game(server.url)
        started = start_round(server.url, game_id, auth)
        stream = EventStream(f"{server.url}/g/{game_id}/events")
        try:
            assert stream.status() == "status 200"
            data, _ = stream.next_start()
            assert data["blitz_at"] == ms(started["blitz_at"])
            assert stream.next_version() == 2
        finally:
            stream.close()


@pytest.mark.server
def test_stream_for_an_unknown_game_is_404(server_database_url: str, tmp_path: Path):
    with running_server(server_database_url, tmp_path / "server.log") as server:
        response = httpx.get(f"{server.url}/api/v1/games/nope/events", timeout=WAIT)
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/problem+json"


@pytest.mark.server
def test_a_client_that_was_away_catches_up_on_reconnect(server_database_url: str, tmp_path: Path):
    with running_server(server_database_url, tmp_path / "server.log") as server:
        game_id, auth, players = create_game(server.url)
        first = EventStream(f"{server.url}/api/v1/games/{game_id}/events")
        assert first.status() == "status 200"
        assert first.next_version() == 1
        first.close()  # the phone's network drops
        for _ in range(3):
            latest = add_round(server.url, game_id, auth, players)
        again = EventStream(f"{server.url}/api/v1/games/{game_id}/events")
        try:
            assert again.status() == "status 200"
            assert again.next_version() == latest == 4
        finally:
            again.close()


@pytest.mark.server
def test_shutdown_ends_open_streams_cleanly(server_database_url: str, tmp_path: Path):
    with running_server(server_database_url, tmp_path / "server.log") as server:
        game_id, _, _ = create_game(server.url)
        stream = EventStream(f"{server.url}/g/{game_id}/events")
        assert stream.status() == "status 200"
        assert stream.next_version() == 1
        # uvicorn shuts down gracefully, then re-raises the signal so the exit status reports it.
        assert server.stop(signal.SIGTERM) in (0, -signal.SIGTERM)
        assert stream.ended_cleanly.wait(WAIT), "the stream did not end with a complete response"
        stream.close()
        assert "ASGI callable returned without completing response" not in server.output()


# --- several processes over PostgreSQL -------------------------------------------------------------

postgres_only = pytest.mark.skipif(
    not on_postgres(), reason="live updates cross processes only on PostgreSQL (this is the SQLite pass)"
)


@dataclass
class TwoProcesses:
    one: Server  # the save goes through this one
    two: Server  # the view's stream is open on this one
    game_id: str
    auth: dict[str, str]
    players: list[int]
    stream: EventStream


@pytest.fixture
def two_processes(server_database_url: str, tmp_path: Path) -> Iterator[TwoProcesses]:
    """Two server processes over one PostgreSQL database, a game, and a stream on the second at version 1."""
    with (
        running_server(server_database_url, tmp_path / "one.log") as one,
        running_server(server_database_url, tmp_path / "two.log") as two,
    ):
        game_id, auth, players = create_game(one.url)
        stream = EventStream(f"{two.url}/g/{game_id}/events")
        try:
            assert stream.status() == "status 200"
            assert stream.next_version() == 1
            yield TwoProcesses(one, two, game_id, auth, players, stream)
        finally:
            stream.close()


@pytest.mark.server
@postgres_only
def test_a_save_on_one_process_reaches_a_stream_on_another(two_processes: TwoProcesses):
    t = two_processes
    assert add_round(t.one.url, t.game_id, t.auth, t.players) == 2
    assert t.stream.next_version() == 2
    # ...and the state the other process serves is the new one.
    game = httpx.get(f"{t.two.url}/api/v1/games/{t.game_id}", timeout=WAIT).json()
    assert game["version"] == 2 and len(game["rounds"]) == 1


@pytest.mark.server
@postgres_only
def test_a_start_on_one_process_reaches_a_stream_on_another(two_processes: TwoProcesses):
    t = two_processes
    started = start_round(t.one.url, t.game_id, t.auth)
    data, _ = t.stream.next_start()
    assert data["blitz_at"] == ms(started["blitz_at"])
    assert t.stream.next_version() == 2
    game = httpx.get(f"{t.two.url}/api/v1/games/{t.game_id}", timeout=WAIT).json()
    assert game["round_started_at"] == started["blitz_at"]


@pytest.mark.server
@postgres_only
def test_a_row_sent_on_one_process_reaches_a_stream_on_another(two_processes: TwoProcesses):
    t = two_processes
    _send_row(t.one.url, t.game_id, t.auth, t.players[1])
    assert t.stream.drafts.get(timeout=WAIT) > 0


@pytest.mark.server
@postgres_only
def test_listener_reconnects_and_catches_up_after_losing_its_connection(
    two_processes: TwoProcesses, server_database_url: str
):
    t = two_processes
    database = server_database_url.rsplit("/", 1)[1]
    admin_url = server_database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        killed = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s AND query LIKE 'LISTEN%%'",
            (database,),
        ).fetchone()[0]
    assert killed >= 1  # the listeners of both processes
    assert add_round(t.one.url, t.game_id, t.auth, t.players) == 2
    assert t.stream.next_version() == 2


def test_a_client_leaving_before_the_first_event_is_harmless(client, make_game):
    """A generator must not yield inside a cancel scope: leaving early used to raise on exit."""
    game = make_game()
    for _ in range(5):
        with client.stream("GET", f"/g/{game.id}/events") as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
    assert client.get(f"/api/v1/games/{game.id}").status_code == 200
