"""Server-Sent Events: "version" events for a game, so view pages update within a second of a save.

On connect the stream sends the game's current version at once, so a client that reconnects after
the network dropped catches up immediately; after that it sends each new version as it is published.
The browser's EventSource reconnects by itself (we ask for a 2 s retry).

A "start" event says the scorekeeper started a round: `{"blitz_at": ms, "server_now": ms}` (ms since
1970, server time), `server_now` read as the event is sent, so each page works out its clock's offset
from the server's on receipt and shows "Blitz!" at the same moment as every other (static/app.js).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import anyio
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from sse_starlette.sse import EventSourceResponse, ServerSentEvent
from starlette.types import Receive, Scope, Send

from app.answers import ProblemDetails
from app.i18n import N_, _, ngettext
from app.limits import StreamSlots
from app.problems import PROBLEM_JSON, problem
from app.ratelimit import client_address
from app.routes.deps import GameId, operation_id
from app.timing import epoch_ms
from app.views import current_version_and_start, current_versions, was_deleted

router = APIRouter(generate_unique_id_function=operation_id)

RETRY_MS = 2000
# A refused stream: when an API client may ask again. The view page polls meanwhile, and htmx's SSE
# extension asks again with its own growing delay (0.5 s doubling up to 64 s; EventSource can't read
# this header).
RETRY_LATER = {"Retry-After": "30"}


class _HoldingSlot(EventSourceResponse):
    """An event stream that gives its client's stream slot back when it ends, however it ends (the
    client left, the server shuts down, an error)."""

    def __init__(self, slots: StreamSlots, client: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slots = slots
        self._client = client

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._slots.release(self._client)


def start_event(blitz_at: int) -> ServerSentEvent:
    """A round's start, with the server's clock as it is sent (the listener's offset is measured from it)."""
    data = json.dumps({"blitz_at": blitz_at, "server_now": round(time.time() * 1000)}, separators=(",", ":"))
    return ServerSentEvent(data=data, event="start")


def _current_version(engine, game_id: str) -> int | None:
    return current_versions(engine, [game_id]).get(game_id)


def _current_state(engine, game_id: str) -> tuple[int, datetime | None] | None:
    """The version and the running round's start, in one read (None once the game is gone)."""
    return current_version_and_start(engine, game_id)


@router.get(
    "/api/v1/games/{game_id}/events",
    tags=["games"],
    summary="Follow a game live (Server-Sent Events)",
    description="A `version` event carrying the game's version now, then one for every change. Read the game "
    "again when the version is newer than the one you have. When the scorekeeper starts a round (and on "
    "connect while a round is running), a `start` event comes before the version: "
    '`{"blitz_at": <ms>, "server_now": <ms>}`, milliseconds since 1970 in the server\'s clock, `server_now` '
    'taken as the event was sent: your "Blitz!" is at `blitz_at - (server_now - your clock on receipt)` '
    "in your own clock.",
    response_class=Response,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "An event stream"},
        404: {"model": ProblemDetails, "content": {PROBLEM_JSON: {}}, "description": "Unknown game"},
        410: {"model": ProblemDetails, "content": {PROBLEM_JSON: {}}, "description": "The game was deleted"},
        422: {"model": ProblemDetails, "content": {PROBLEM_JSON: {}}, "description": "Invalid id"},
        429: {
            "model": ProblemDetails,
            "content": {PROBLEM_JSON: {}},
            "description": "Too many streams open from this address; see Retry-After",
        },
        503: {
            "model": ProblemDetails,
            "content": {PROBLEM_JSON: {}},
            "description": "Every stream slot is taken; see Retry-After",
        },
    },
)
@router.get("/g/{game_id}/events", name="game_events", include_in_schema=False)
async def game_events(request: Request, game_id: GameId) -> Response:
    engine = request.app.state.engine
    broker = request.app.state.broker
    slots: StreamSlots = request.app.state.streams
    client = client_address(request)
    refused = slots.acquire(client)
    if refused == 429:
        detail = ngettext(
            "This address already follows {count} live game; close it, or reload later.",
            "This address already follows {count} live games; close one, or reload later.",
            slots.per_client,
        ).format(count=slots.per_client)
        return problem(429, detail, slug="too-many-streams", title=N_("Too many live streams"), headers=RETRY_LATER)
    if refused is not None:
        detail = _("The server follows as many live games as it can; the page will update when you reload.")
        return problem(503, detail, slug="streams-full", title=N_("Live updates are full"), headers=RETRY_LATER)
    try:
        version = await run_in_threadpool(_current_version, engine, game_id)
    except BaseException:
        slots.release(client)
        raise
    if version is None:
        slots.release(client)
        if await run_in_threadpool(was_deleted, engine, game_id):
            return problem(410, _("This game was deleted by its scorekeeper."), slug="gone", title=N_("Gone"))
        detail = _("There is no game {game_id}.").format(game_id=repr(game_id))
        return problem(404, detail, slug="not-found", title=N_("Not found"))

    shutting_down = anyio.Event()  # sse-starlette sets it when the server begins to shut down

    async def stream() -> AsyncIterator[ServerSentEvent]:
        async with broker.subscribe(game_id) as subscription:

            async def close_on_shutdown() -> None:
                await shutting_down.wait()
                subscription.close()

            # A plain task rather than a task group: a generator must not yield inside a cancel
            # scope (a client that leaves early would make the scope exit out of order).
            watcher = asyncio.ensure_future(close_on_shutdown())
            try:
                # Read again after subscribing: a save between the first read and the subscription
                # is then either in this number or announced to the subscription; never lost.
                now = await run_in_threadpool(_current_state, engine, game_id)
                if now is None:  # deleted meanwhile: the client's next connect is told 410
                    return
                last, running = now
                # A round running as the stream opens (a page loaded or reconnected mid-round): its start
                # again, with the server's clock now, so the page measures its offset afresh.
                if running is not None:
                    yield start_event(epoch_ms(running))
                yield ServerSentEvent(data=str(last), event="version", retry=RETRY_MS)
                started = subscription.start  # a start before this stream opened is in the game it read
                while not subscription.closed:
                    newest = await subscription.wait()
                    if newest is not None and subscription.start != started:
                        started = subscription.start
                        yield start_event(started)
                    if newest is not None and newest > last:
                        last = newest
                        yield ServerSentEvent(data=str(last), event="version")
                # Shutting down: the stream ends properly; the browser reconnects to another process.
            finally:
                watcher.cancel()

    return _HoldingSlot(
        slots,
        client,
        stream(),
        ping=request.app.state.settings.sse_ping_seconds,
        shutdown_event=shutting_down,
        shutdown_grace_period=1.0,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
