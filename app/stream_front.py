"""The front of the app for its two event-stream paths: an open stream skips the middleware stack.

Every middleware a request passes stays on the stack (its frame, its send wrapper, Starlette's and
FastAPI's own layers) for as long as the answer runs, which for a stream is hours: about 15 KiB of
each open stream went there (docs/performance.md, "10,000 viewers in one process"). So a GET of
`/g/{id}/events` or `/api/v1/games/{id}/events` whose stream opens is answered here, in front of it all,
doing for it what the middleware does for such an answer: its request id (app.http.requestid), the
security headers (app.http.headers), the language headers (app.i18n), the access-log line when it ends
(app.http.middleware), and the request counter when metrics are on (app.http.metrics). The stream slot is
taken and given back by `open_stream` and the stream itself, as on the route.

Anything else goes to the app as before, and so does every stream this front does not open: no slot
(429 / 503), an unknown or deleted game (404 / 410), an id that isn't one (422), a database that fails
(503), a HEAD. The route answers those with the same problem answers and headers as ever.
"""

from __future__ import annotations

from functools import partial

from fastapi import FastAPI
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Receive, Scope, Send

from app.http.headers import SecurityHeaders
from app.http.middleware import call_noting_status, log_access
from app.http.requestid import REQUEST_ID_HEADER, SCOPE_KEY, incoming_request_id, new_request_id
from app.http.streaming import EventStream
from app.i18n import language_of, with_language
from app.logs import current_request_id
from app.paths import STREAM, STREAM_PATHS
from app.routes.events import open_stream


class Blitzboard(FastAPI):
    """FastAPI with StreamFront in front of its whole middleware stack (Starlette's own included)."""

    def build_middleware_stack(self) -> ASGIApp:
        return StreamFront(super().build_middleware_stack(), self)


class StreamFront:
    def __init__(self, app: ASGIApp, fastapi: FastAPI) -> None:
        self.app = app
        self.fastapi = fastapi
        self.security = SecurityHeaders(None, hsts_seconds=fastapi.state.settings.hsts_seconds)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or not scope["path"].endswith("/events"):
            await self.app(scope, receive, send)
            return
        path, root = scope["path"], scope.get("root_path", "")
        match = STREAM.fullmatch(path[len(root) :] if root and path.startswith(root) else path)
        if match is None:
            await self.app(scope, receive, send)
            return
        client = scope["client"][0] if scope.get("client") else "unknown"  # as app.http.ratelimit.client_address
        try:
            opened = await open_stream(self.fastapi, match.group(2), client)
        except Exception:
            opened = None  # the route answers it (a failing database is a 503 there), and logs why
        if not isinstance(opened, EventStream):
            await self.app(scope, receive, send)
            return
        template = STREAM_PATHS[0] if match.group(1) == "g" else STREAM_PATHS[1]
        del match  # what this frame holds, it holds for the stream's hours
        try:
            request_id = incoming_request_id(scope) or new_request_id()
            token = current_request_id.set(request_id)
            self._add_headers(scope, opened, request_id)
        except BaseException:
            opened.release()  # the stream never ran: its slot goes back now
            raise
        try:
            await call_noting_status(opened, scope, receive, send, partial(self._ended, scope, template))
        finally:
            current_request_id.reset(token)

    def _add_headers(self, scope: Scope, stream: EventStream, request_id: str) -> None:
        """What RequestId, SecurityHeaders and Languages would add to the stream's answer."""
        scope[SCOPE_KEY] = request_id
        start = {"type": "http.response.start", "status": 200, "headers": stream.raw_headers}
        self.security.add_to(scope, start)
        MutableHeaders(scope=start)[REQUEST_ID_HEADER] = request_id
        stream.raw_headers = with_language(scope, language_of(scope), start["headers"])

    def _ended(self, scope: Scope, template: str, status: int, seconds: float) -> None:
        log_access(scope, status, seconds)
        metrics = getattr(self.fastapi.state, "metrics", None)
        if metrics is not None:
            metrics.observe(template, "GET", status, seconds)
