"""What an open event stream holds and how it ends (app/http/streaming.py, app/stream_front.py).

The streams here are driven as plain ASGI calls on an event loop of the test's own: each call is one
task, standing in for the server's request task, so the tasks a stream adds can be counted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.http.streaming import ON_SHUTDOWN, PING, EventStream
from app.live import Broker

TASKS_PER_STREAM = 2  # the request's own task and the one that waits for the client to leave
WAIT = 15  # seconds: a bound for each wait, not a measurement


class Viewer:
    """One stream as an ASGI server would run it: its scope, what it sent, and a way to leave."""

    def __init__(self, path: str, client: str = "127.0.0.1") -> None:
        self.scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", b"test"), (b"accept", b"text/event-stream")],
            "client": (client, 50000),
            "server": ("test", 80),
        }
        self.sent: list[dict[str, Any]] = []
        self.left = asyncio.Event()
        self.arrived = asyncio.Event()
        self._requested = False
        self.task: asyncio.Task | None = None

    async def receive(self) -> dict[str, Any]:
        if not self._requested:
            self._requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.left.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        self.arrived.set()

    def start(self, app: Callable[..., Awaitable[None]]) -> Viewer:
        self.task = asyncio.ensure_future(app(self.scope, self.receive, self.send))
        return self

    async def until(self, found: Callable[[], bool]) -> None:
        async with asyncio.timeout(WAIT):
            while not found():
                self.arrived.clear()
                await self.arrived.wait()

    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.sent if m["type"] == "http.response.body")

    def ended(self) -> bool:
        return any(m["type"] == "http.response.body" and not m.get("more_body") for m in self.sent)


def test_an_open_stream_holds_two_tasks_and_gives_its_slot_back_when_the_client_leaves(
    app: FastAPI, client: TestClient, make_game
):
    games = [make_game() for _ in range(3)]
    streams = 30

    async def scenario() -> None:
        before = len(asyncio.all_tasks())
        # From 3 addresses: each may hold 16 streams (app.http.limits).
        viewers = [Viewer(f"/g/{games[n % 3].id}/events", f"127.0.0.{n % 3 + 1}").start(app) for n in range(streams)]
        for viewer in viewers:
            await viewer.until(lambda v=viewer: b"event: version" in v.body())
        assert app.state.streams.open == streams
        assert len(asyncio.all_tasks()) - before <= TASKS_PER_STREAM * streams
        for viewer in viewers:
            viewer.left.set()
        async with asyncio.timeout(WAIT):
            await asyncio.gather(*(v.task for v in viewers))
        assert all(v.ended() for v in viewers)
        assert app.state.streams.open == 0
        assert len(asyncio.all_tasks()) == before

    asyncio.run(scenario())


def test_a_stream_ends_cleanly_and_gives_its_slot_back_when_the_server_shuts_down(
    app: FastAPI, client: TestClient, make_game
):
    game = make_game()

    async def scenario() -> None:
        told, untold = (Viewer(f"/api/v1/games/{game.id}/events").start(app) for _ in range(2))
        for viewer in (told, untold):
            await viewer.until(lambda v=viewer: b"event: version" in v.body())
        assert app.state.streams.open == 2
        told.scope[ON_SHUTDOWN]()  # what app.http.server's protocol does as uvicorn begins to shut down
        await asyncio.wait_for(told.task, WAIT)
        assert told.ended() and app.state.streams.open == 1
        app.state.broker.close_all()  # what the lifespan does at its end, for any stream still open
        await asyncio.wait_for(untold.task, WAIT)
        assert untold.ended() and app.state.streams.open == 0

    asyncio.run(scenario())


def test_a_stream_answer_carries_its_headers_and_is_logged_when_it_ends(client: TestClient, make_game, caplog):
    game = make_game()
    caplog.set_level(logging.INFO, logger="blitzboard.access")
    with client.stream("GET", f"/g/{game.id}/events", headers={"X-Request-ID": "stream-1"}) as response:
        assert response.status_code == 200
        headers = response.headers
        assert headers["content-type"] == "text/event-stream; charset=utf-8"
        assert headers["cache-control"] == "no-store"
        assert headers["x-accel-buffering"] == "no"
        assert headers["x-request-id"] == "stream-1"
        assert "default-src" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "strict-origin-when-cross-origin"
        assert headers["cross-origin-opener-policy"] == "same-origin"
        assert headers["content-language"] == "en"
        assert headers["vary"] == "Accept-Language, Cookie"
        assert "content-length" not in headers and "content-encoding" not in headers
        assert next(response.iter_text()) == "event: version\r\ndata: 1\r\nretry: 2000\r\n\r\n"
    lines = [r.getMessage() for r in caplog.records if r.name == "blitzboard.access"]
    assert any(f'"GET /g/{game.id}/events" 200' in line and line.endswith("request_id=stream-1") for line in lines)


def test_a_quiet_stream_sends_pings_then_the_next_version():
    async def scenario() -> None:
        broker = Broker()
        broker.bind(asyncio.get_running_loop())
        released = []

        async def read_state():
            return 4, None

        stream = EventStream(broker, "g1", read_state, 0.01, lambda: released.append(True))
        viewer = Viewer("/g/g1/events").start(stream)
        await viewer.until(lambda: viewer.body().count(PING) >= 2)
        assert viewer.body().startswith(b"event: version\r\ndata: 4\r\nretry: 2000\r\n\r\n")
        broker.publish("g1", 5)
        await viewer.until(lambda: b"event: version\r\ndata: 5\r\n\r\n" in viewer.body())
        broker.publish("g1", 3)  # older than what was sent: nothing but pings follow
        viewer.left.set()
        await asyncio.wait_for(viewer.task, WAIT)
        assert b"data: 3" not in viewer.body() and viewer.ended() and released == [True]
        assert broker.listener_count() == 0

    asyncio.run(scenario())


def test_a_stream_whose_database_fails_after_it_began_ends_says_so_once_and_gives_its_slot_back(caplog):
    caplog.set_level(logging.WARNING, logger="blitzboard")

    async def scenario() -> None:
        broker = Broker()
        broker.bind(asyncio.get_running_loop())
        released = []

        async def read_state():
            raise ConnectionError("the database went away")

        stream = EventStream(broker, "g1", read_state, 0.01, lambda: released.append(True))
        viewer = Viewer("/g/g1/events").start(stream)
        await asyncio.wait_for(viewer.task, WAIT)  # it ends by itself: the client never left
        assert viewer.sent[0]["type"] == "http.response.start" and viewer.ended()
        assert released == [True] and broker.listener_count() == 0

    asyncio.run(scenario())
    said = [r.getMessage() for r in caplog.records if "event stream" in r.getMessage()]
    assert said == ["the event stream of game g1 ended on ConnectionError"]


def test_a_stream_that_fails_before_it_starts_gives_its_slot_back(
    app: FastAPI, client: TestClient, make_game, monkeypatch
):
    from app.stream_front import StreamFront

    game = make_game()

    def broken(*_args) -> None:
        raise RuntimeError("headers could not be added")

    monkeypatch.setattr(StreamFront, "_add_headers", broken)

    async def scenario() -> None:
        viewer = Viewer(f"/g/{game.id}/events").start(app)
        async with asyncio.timeout(WAIT):
            with pytest.raises(RuntimeError):
                await viewer.task
        assert app.state.streams.open == 0

    asyncio.run(scenario())
