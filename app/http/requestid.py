"""A request id for every request: correlates the access log line, an error's log line and its answer.

Taken from the client's (or the proxy's) `X-Request-ID` when it is a sane token, so one id follows a
request through the proxy's log and ours; otherwise made here. Always echoed as `X-Request-ID`.
"""

from __future__ import annotations

import re
import secrets

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.logs import current_request_id

REQUEST_ID_HEADER = "X-Request-ID"
SCOPE_KEY = "blitzboard.request_id"
# Short and plain: it goes into log lines and headers, so nothing that could break either.
_SANE = re.compile(r"[A-Za-z0-9._:@+=-]{1,128}")


def new_request_id() -> str:
    return secrets.token_hex(8)


def incoming_request_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            text = value.decode("latin-1").strip()
            return text if _SANE.fullmatch(text) else None
    return None


def request_id_of(scope: Scope) -> str:
    """The id RequestId gave this request ("-" outside it, e.g. in a unit test of one middleware)."""
    return scope.get(SCOPE_KEY, "-")


class RequestId:
    """Outermost middleware: give the request its id and echo it on the answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = incoming_request_id(scope) or new_request_id()
        scope[SCOPE_KEY] = request_id
        token = current_request_id.set(request_id)  # every log line of this request names it

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            current_request_id.reset(token)
