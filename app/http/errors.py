"""The last line of defence: an unexpected error becomes a clean answer, not a bare text/plain 500.

Starlette's own ServerErrorMiddleware sits outside every middleware of ours, so what it answers has
no security headers, and the exception then goes on to the server, which logs a long traceback and
an access line with no status. This middleware sits inside SecurityHeaders and AccessLog instead:

- database trouble (a lost connection, SQLite's lock still held after the busy timeout, a full
  pool) is a 503 with Retry-After: trying again shortly is the right thing for the client to do;
- anything else is a 500;
- except that a GET or HEAD whose database connection turned out dead (PostgreSQL's pool no longer
  pings a connection before each use: app.db) runs once more, on a new connection, when nothing
  of its answer was sent yet;

as problem+json under /api and the HTML error page elsewhere, both naming the request id. Each is
logged once, as one short line with the request id; the traceback only at DEBUG.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable

from fastapi.responses import HTMLResponse
from sqlalchemy import exc as sa_exc
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.middleware import loggable, plain_page, redact
from app.http.problems import problem
from app.http.requestid import request_id_of
from app.i18n import N_, _
from app.paths import is_api

error_log = logging.getLogger("blitzboard.errors")
db_log = logging.getLogger("blitzboard.db")

RETRY_AFTER_SECONDS = 5

HtmlError = Callable[[Request, int, str], Response]

_DATABASE_TROUBLE = (
    sa_exc.OperationalError,  # connection lost or refused, "database is locked", server shutting down
    sa_exc.InterfaceError,  # the driver's connection is closed
    sa_exc.DisconnectionError,
    sa_exc.TimeoutError,  # the pool had no connection to give within its timeout
)


def is_database_trouble(error: BaseException) -> bool:
    """A failure of the database or the way to it (worth a retry), not of this request or our code."""
    seen = 0
    current: BaseException | None = error
    while current is not None and seen < 5:
        if isinstance(current, _DATABASE_TROUBLE):
            return True
        if isinstance(current, sa_exc.DBAPIError) and current.connection_invalidated:
            return True
        current = current.__cause__ or current.__context__
        seen += 1
    return False


def connection_dropped(error: BaseException) -> bool:
    """The database connection died under the request (the pool has dropped it and its peers)."""
    current: BaseException | None = error
    for _seen in range(5):
        if current is None:
            return False
        if isinstance(current, sa_exc.DBAPIError) and current.connection_invalidated:
            return True
        current = current.__cause__ or current.__context__
    return False


def _detail(status: int, request_id: str, api: bool = True) -> str:
    """What the answer says, in the request's language (the Languages middleware sits outside this one)."""
    if status == 503:
        # Not "nothing was changed": a connection lost during COMMIT leaves that unknown. The same
        # Idempotency-Key (the round form sends one of its own) makes the retry safe either way.
        if api:
            text = _(
                "The score keeper's database is busy or out of reach for a moment. Try again in a few seconds, "
                "with the same Idempotency-Key if you sent one: a change that did reach the database is then not "
                "made twice. (Request id {request_id}.)"
            )
        else:
            text = _(
                "The score keeper's database is busy or out of reach for a moment. Try again in a few seconds, "
                "by sending the same form again: a round that did reach the database is not saved twice. "
                "(Request id {request_id}.)"
            )
        return text.format(request_id=request_id)
    return _(
        "Something went wrong on our side and the request could not be finished. Try again; if it "
        "keeps happening, tell whoever runs this site the request id {request_id}."
    ).format(request_id=request_id)


def _short(error: BaseException) -> str:
    # The first line only: SQLAlchemy appends the statement and its parameters on the next lines.
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return loggable(f"{type(error).__name__}: {text[:200]}")


class ServerErrors:
    def __init__(self, app: ASGIApp, html_error: HtmlError) -> None:
        self.app = app
        self.html_error = html_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_and_note(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        if scope["method"] not in ("GET", "HEAD"):
            try:
                await self.app(scope, receive, send_and_note)
            except Exception as error:
                await self._failed(scope, receive, send, error, started)
            return
        received: list[Message] = []

        async def receive_and_keep() -> Message:
            message = await receive()
            received.append(message)
            return message

        async def receive_again() -> Message:
            # The second run reads what the first one read (a GET's empty body), then the rest.
            return received.pop(0) if received else await receive()

        try:
            await self.app(scope, receive_and_keep, send_and_note)
            return
        except Exception as error:
            if started or not connection_dropped(error):
                await self._failed(scope, receive, send, error, started)
                return
            db_log.info(  # not an error: it is answered as if nothing happened
                '"%s %s" lost its database connection; running it again',
                scope["method"],
                loggable(redact(scope["path"])),
            )
        try:
            await self.app(scope, receive_again, send_and_note)
        except Exception as error:
            await self._failed(scope, receive, send, error, started)

    async def _failed(self, scope: Scope, receive: Receive, send: Send, error: Exception, started: bool) -> None:
        status = 503 if is_database_trouble(error) else 500
        request_id = request_id_of(scope)
        error_log.error(
            '%s "%s %s" request_id=%s %s',
            status,
            scope["method"],
            loggable(redact(scope["path"])),
            request_id,
            _short(error),
        )
        error_log.debug("Traceback of request_id=%s", request_id, exc_info=error)
        if started:
            return  # half an answer is already out; the server closes the connection
        response = self._answer(scope, status, request_id)
        await response(scope, receive, send)

    def _answer(self, scope: Scope, status: int, request_id: str) -> Response:
        detail = _detail(status, request_id, api=is_api(scope["path"]))
        return error_answer(scope, status, detail, self.html_error, request_id)


def error_answer(scope: Scope, status: int, detail: str, html_error: HtmlError, request_id: str) -> Response:
    """A 500 or a 503 (with Retry-After) said the request's way: problem+json under /api/, else the error
    page (a plain one when even that can't be rendered), never stored. The last line's answers, and the
    write queue's when it is full (app.http.writequeue)."""
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if status == 503 else {}
    headers["Cache-Control"] = "no-store"
    if is_api(scope["path"]):
        slug, title = (
            ("unavailable", N_("Service unavailable")) if status == 503 else ("server-error", N_("Server error"))
        )
        return problem(status, detail, slug=slug, title=title, headers=headers, request_id=request_id)
    try:
        response = html_error(Request(scope), status, detail)
    except Exception:  # the page itself could not be rendered: a plain one still says what happened
        error_log.debug("The error page could not be rendered", exc_info=True)
        page = plain_page(_("Error · Blitzboard"), _("Something went wrong"), html.escape(detail, quote=False))
        response = HTMLResponse(page, status_code=status)
    response.headers.update(headers)
    return response
