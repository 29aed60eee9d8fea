"""Writes wait their turn on the event loop, so that reads never starve.

Every write runs in a thread of the pool (FastAPI runs a sync route there), and inside it waits for
the database: this process's other writers (app.db.serial_writes), then SQLite's write lock, which
another process may hold for seconds (`blitzboard prune`, a backup, another server), or on PostgreSQL
the game's row lock. With enough saves waiting, every one of the pool's 40 threads waits too, and
/healthz, the API's reads and the pages, which need a thread as well, answer only when the lock frees.

So a write (app.paths.is_write) is let into the app only while fewer than `max_running_writes` of this
process's writes are in it; the others wait here, on the event loop, in their order of arrival, each a
coroutine and the body BodyLimit already read; and one more than `max_waiting_writes` waiting is
answered at once: 503 with Retry-After, nothing changed (problem+json under /api, the error page in the
request's language elsewhere, for htmx only its message). A client that leaves while it waits leaves the
queue. The bound is per process, on both databases: on PostgreSQL, writes of different games still run
side by side, up to `max_running_writes` at once.
"""

from __future__ import annotations

import asyncio
from collections import deque

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.errors import RETRY_AFTER_SECONDS, HtmlError, error_answer
from app.http.requestid import request_id_of
from app.i18n import N_, _
from app.paths import is_write

WRITES_WAITING = N_(
    "Too many changes are waiting for the database right now: nothing was changed. Try again in {seconds} s."
)


class WriteQueue:
    """This process's writes: how many are in the app, and who waits for a turn (one event loop)."""

    def __init__(self, running: int, waiting: int) -> None:
        self.limit = running
        self.depth = waiting
        self.running = 0
        self._queue: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def join(self) -> asyncio.Future[None] | None:
        """A turn: done at once when there is room, else when an earlier write leaves; None when the
        queue is full (refused)."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.running < self.limit and not self._queue:
            self.running += 1
            turn.set_result(None)
        elif len(self._queue) < self.depth:
            self._queue.append(turn)
        else:
            return None
        return turn

    def leave(self, turn: asyncio.Future[None]) -> None:
        """The write is done, or its client gave up waiting: a turn it held goes to the next in line."""
        if not turn.done():
            self._queue.remove(turn)
            turn.cancel()
            return
        while self._queue:
            following = self._queue.popleft()
            if not following.done():
                following.set_result(None)  # the place in the app passes on: `running` stays
                return
        self.running -= 1


class WriteGate:
    """The middleware: inside BodyLimit (the body is in: a slow sender waits there, not here) and
    ServerErrors (an error inside still gives the turn back, and is answered there)."""

    def __init__(self, app: ASGIApp, state: object, html_error: HtmlError) -> None:
        self.app = app
        self.state = state  # app.state: remember_afresh makes its `writes` anew
        self.html_error = html_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_write(scope["method"], scope["path"]):
            await self.app(scope, receive, send)
            return
        writes: WriteQueue = self.state.writes  # type: ignore[attr-defined]
        turn = writes.join()
        if turn is None:
            await self._busy(scope, receive, send)
            return
        try:
            if not turn.done():
                waited = await _wait_for(turn, receive)
                if waited is None:
                    return  # the client left: nothing to do, nobody to answer
                receive = waited
            await self.app(scope, receive, send)
        finally:
            writes.leave(turn)

    async def _busy(self, scope: Scope, receive: Receive, send: Send) -> None:
        detail = _(WRITES_WAITING).format(seconds=RETRY_AFTER_SECONDS)
        response = error_answer(scope, 503, detail, self.html_error, request_id_of(scope))
        await response(scope, receive, send)


async def _wait_for(turn: asyncio.Future[None], receive: Receive) -> Receive | None:
    """Wait for `turn` while listening for the client leaving; then a `receive` that hands the app what
    was read meanwhile (the body) first. None when the client left first."""
    read: list[Message] = []
    listening: asyncio.Future[Message] | None = None
    try:
        while not turn.done():
            if listening is None:
                listening = asyncio.ensure_future(receive())
            await asyncio.wait((turn, listening), return_when=asyncio.FIRST_COMPLETED)
            if listening.done():
                message = listening.result()
                if message["type"] == "http.disconnect":
                    return None
                read.append(message)
                listening = None
    finally:
        if listening is not None and not listening.done():
            listening.cancel()

    async def replay() -> Message:
        return read.pop(0) if read else await receive()

    return replay
