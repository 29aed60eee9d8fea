"""One open event stream as a small raw-ASGI loop: what it costs is most of what 10,000 viewers cost.

sse-starlette's EventSourceResponse ran four tasks in an anyio task group per stream (the generator,
the pings, a disconnect listener, a shutdown watcher) and our route a fifth; here one coroutine does
the sending (a ping is the subscription's wait timing out, not a task), and one small task waits for
the client to leave (`http.disconnect`: uvicorn sends to a closed connection without a word, so
reading is the only way to know). A server shutting down closes the subscription through the hook the
stream leaves in its scope (`ON_SHUTDOWN`, called by app.http.server's protocol classes when uvicorn asks
each connection to finish), and `Broker.close_all` at the lifespan's end closes what is left; either way
the stream ends with its last chunk and the browser reconnects (to another process, or to this one
once it is back). docs/performance.md ("10,000 viewers in one process") measures it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import datetime

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.live import Broker, Subscription
from app.rules.timing import epoch_ms

# The stream leaves the function that ends it under this key of its ASGI scope (app.http.server calls it).
log = logging.getLogger("blitzboard.live")
ON_SHUTDOWN = "blitzboard.on_shutdown"
RETRY_MS = 2000
HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"connection", b"keep-alive"),
    (b"x-accel-buffering", b"no"),
]
PING = b": ping\r\n\r\n"

# The game's version and the running round's start, read after subscribing (None: the game is gone).
ReadState = Callable[[], Awaitable[tuple[int, datetime | None] | None]]


def version_event(version: int, retry: int | None = None) -> bytes:
    tail = f"retry: {retry}\r\n" if retry is not None else ""
    return f"event: version\r\ndata: {version}\r\n{tail}\r\n".encode()


def draft_event(sent_at: int) -> bytes:
    """A row sent from a player's phone (app.games.seats): the scorekeeper's page fetches the draft."""
    return f"event: draft\r\ndata: {sent_at}\r\n\r\n".encode()


def start_event(blitz_at: int) -> bytes:
    """A round's start, with the server's clock as it is sent (the listener's offset is measured from it)."""
    data = json.dumps({"blitz_at": blitz_at, "server_now": round(time.time() * 1000)}, separators=(",", ":"))
    return f"event: start\r\ndata: {data}\r\n\r\n".encode()


async def _until_disconnect(receive: Receive, subscription: Subscription) -> None:
    try:
        while (await receive())["type"] != "http.disconnect":
            pass
    except Exception:  # the server could not read from the client: it is gone all the same
        pass
    subscription.close()


class EventStream(Response):
    """The answer of an open stream (a Response, so the route can return it): `release` is called once
    it ends, however it ends (the client left, the server shuts down, an error)."""

    def __init__(
        self,
        broker: Broker,
        game_id: str,
        read_state: ReadState,
        ping_seconds: float,
        release: Callable[[], None],
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        self.status_code = 200
        self.background = None
        self.raw_headers = [*HEADERS, *(headers or [])]
        self.broker = broker
        self.game_id = game_id
        self.read_state = read_state
        self.ping_seconds = ping_seconds or None
        self.release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with self.broker.subscribe(self.game_id) as subscription:
                scope[ON_SHUTDOWN] = subscription.close
                leaving = asyncio.ensure_future(_until_disconnect(receive, subscription))
                try:
                    await self._run(subscription, send)
                except Exception as error:  # the database failed after the answer began: end it, said once
                    log.warning("the event stream of game %s ended on %s", self.game_id, type(error).__name__)
                    with contextlib.suppress(Exception):
                        await send({"type": "http.response.body", "body": b"", "more_body": False})
                finally:
                    leaving.cancel()
                    scope.pop(ON_SHUTDOWN, None)
        finally:
            self.release()

    async def _run(self, subscription: Subscription, send: Send) -> None:
        headers, self.raw_headers = self.raw_headers, []  # not kept for the stream's hours
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        del headers
        # Read again after subscribing: a save between the first read (before this answer) and the
        # subscription is then either in this number or announced to the subscription; never lost.
        now = await self.read_state()
        if now is not None:  # else deleted meanwhile: the client's next connect is told 410
            last, running = now
            # A round running as the stream opens (a page loaded or reconnected mid-round): its start
            # again, with the server's clock now, so the page measures its offset afresh.
            first = start_event(epoch_ms(running)) if running is not None else b""
            await send({"type": "http.response.body", "body": first + version_event(last, RETRY_MS), "more_body": True})
            started = subscription.start  # a start before this stream opened is in the game it read
            drafted = subscription.draft  # likewise a row sent before: the page read the draft with the game
            while not subscription.closed:
                newest = await subscription.wait(self.ping_seconds)
                if subscription.closed:
                    break
                if newest is None:
                    body = PING
                else:
                    body = b""
                    if subscription.start != started:
                        started = subscription.start
                        body += start_event(started)
                    if subscription.draft != drafted:
                        drafted = subscription.draft
                        body += draft_event(drafted)
                    if newest > last:
                        last = newest
                        body += version_event(last)
                if body:
                    await send({"type": "http.response.body", "body": body, "more_body": True})
        # The stream ends properly (shutting down, the client gone): the browser reconnects.
        await send({"type": "http.response.body", "body": b"", "more_body": False})
