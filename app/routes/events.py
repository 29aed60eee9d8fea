"""Server-Sent Events: "version" events for a game, so view pages update within a second of a save.

On connect the stream sends the game's current version at once, so a client that reconnects after
the network dropped catches up immediately; after that it sends each new version as it is published.
The browser's EventSource reconnects by itself (we ask for a 2 s retry).

A "start" event says the scorekeeper started a round: `{"blitz_at": ms, "server_now": ms}` (ms since
1970, server time), `server_now` read as the event is sent, so each page works out its clock's offset
from the server's on receipt and shows "Blitz!" at the same moment as every other (static/app.js).
"""

from __future__ import annotations

from datetime import datetime
from functools import partial

from fastapi import APIRouter, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from app.answers import ProblemDetails
from app.games.views import current_version_and_start, current_versions, was_deleted
from app.http.limits import StreamSlots
from app.http.problems import PROBLEM_JSON, problem
from app.http.ratelimit import client_address
from app.http.streaming import EventStream
from app.i18n import N_, _, fill, ngettext
from app.paths import STREAM_PATHS
from app.routes.deps import GameId, operation_id

router = APIRouter(generate_unique_id_function=operation_id)

# A refused stream: when an API client may ask again. The view page polls meanwhile, and htmx's SSE
# extension asks again with its own growing delay (0.5 s doubling up to 64 s; EventSource can't read
# this header).
RETRY_LATER = {"Retry-After": "30"}


def _current_version(engine, game_id: str) -> int | None:
    return current_versions(engine, [game_id]).get(game_id)


def _current_state(engine, game_id: str) -> tuple[int, datetime | None] | None:
    """The version and the running round's start, in one read (None once the game is gone)."""
    return current_version_and_start(engine, game_id)


async def _read_state(engine, game_id: str) -> tuple[int, datetime | None] | None:
    return await run_in_threadpool(_current_state, engine, game_id)


async def open_stream(app: FastAPI, game_id: str, client: str) -> EventStream | int:
    """The stream of a game that exists, its client's slot taken; else what refuses it: 429 or 503 (no
    slot), 404 (no such game; 410 when it was deleted is told by the route, which reads why)."""
    slots: StreamSlots = app.state.streams
    refused = slots.acquire(client)
    if refused is not None:
        return refused
    engine = app.state.engine
    try:
        version = await run_in_threadpool(_current_version, engine, game_id)
    except BaseException:
        slots.release(client)
        raise
    if version is None:
        slots.release(client)
        return 404
    return EventStream(
        app.state.broker,
        game_id,
        partial(_read_state, engine, game_id),
        app.state.settings.sse_ping_seconds,
        partial(slots.release, client),
    )


@router.get(
    STREAM_PATHS[1],
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
@router.get(STREAM_PATHS[0], name="game_events", include_in_schema=False)
async def game_events(request: Request, game_id: GameId) -> Response:
    """Reached through the middleware only by a HEAD, an id the front refused to guess about, or a stream
    the front could not open (refused, unknown game): app.stream_front answers the open ones itself."""
    slots: StreamSlots = request.app.state.streams
    opened = await open_stream(request.app, game_id, client_address(request))
    if isinstance(opened, EventStream):
        return opened
    if opened == 429:
        detail = fill(
            ngettext(
                "This address already follows {count} live game; close it, or reload later.",
                "This address already follows {count} live games; close one, or reload later.",
                slots.per_client,
            ),
            count=slots.per_client,
        )
        return problem(429, detail, slug="too-many-streams", title=N_("Too many live streams"), headers=RETRY_LATER)
    if opened == 503:
        detail = _("The server follows as many live games as it can; the page will update when you reload.")
        return problem(503, detail, slug="streams-full", title=N_("Live updates are full"), headers=RETRY_LATER)
    if await run_in_threadpool(was_deleted, request.app.state.engine, game_id):
        return problem(410, _("This game was deleted by its scorekeeper."), slug="gone", title=N_("Gone"))
    detail = _("There is no game “{game_id}”.").format(game_id=game_id)
    return problem(404, detail, slug="not-found", title=N_("Not found"))
