"""Pure ASGI middleware (streaming-safe, so event streams pass through untouched): the body limit and
deadline, the access log, compression. The security headers are app/http/headers.py, beside app/security.py."""

from __future__ import annotations

import asyncio
import html
import logging
import re
import time
from collections.abc import Callable, Mapping
from functools import partial

from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import HTMLResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n
from app.http.problems import problem
from app.http.requestid import request_id_of
from app.i18n import N_, _, fill, ngettext, number
from app.paths import KEEPER_PATH, SECRET_IN_PATH, TABLE_KEEPER_PAGE, is_api

access_log = logging.getLogger("blitzboard.access")

_TABLE_COOKIE = b"bb_table_"


def redact(path: str) -> str:
    return SECRET_IN_PATH.sub(r"\1[redacted]", path)


# C0 and C1 controls (CR, LF, ESC among them), DEL, Unicode's line and paragraph separators, and the
# characters that delimit or escape the log line itself: a path (%0a decodes to a newline) must not
# start a forged line of its own, or move the terminal's cursor.
_UNLOGGABLE = re.compile(r'[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"\\]')


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def loggable(text: str) -> str:
    """Text that stays on one log line and means what it says: controls and quotes escaped."""
    return _UNLOGGABLE.sub(_escape_char, text)


class BodyLimit:
    """413 for a request body over the limit, whether it declares its length or streams it; 408 for a
    body that has not all arrived `seconds` after the request's head (a slow sender holds a socket).

    `larger`: POST paths with a limit of their own (a backup to import is a whole table), matched
    exactly, so no other path, nor another method on these, is allowed more than `max_bytes`."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, seconds: float = 20, larger: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.seconds = seconds
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope["path"], self.max_bytes) if scope["method"] == "POST" else self.max_bytes
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > limit:
                    await self._too_large(scope, send, limit)
                    return
        # Read the (small) body up front so an over-long stream is refused before the app sees it.
        chunks: list[bytes] = []
        size = 0
        more = True
        deadline = asyncio.get_running_loop().time() + self.seconds
        while more:
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                await refuse(scope, send, 408, "body-timeout", N_("Body too slow"), self._too_slow_detail())
                return
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._too_large(scope, send, limit)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _too_slow_detail(self) -> str:
        # A count of seconds that may be a fraction ("0.5"): plural forms are chosen as for 2, which is
        # what a fraction takes in English, German and Russian.
        n = int(self.seconds) if float(self.seconds).is_integer() else 2
        return fill(
            ngettext(
                "The request body did not arrive within {seconds} second.",
                "The request body did not arrive within {seconds} seconds.",
                n,
            ),
            seconds=number(self.seconds),
        )

    async def _too_large(self, scope: Scope, send: Send, max_bytes: int) -> None:
        limit = size_text(max_bytes)
        page = plain_page(
            _("Too much · Blitzboard"),
            _("That was too much"),
            html.escape(
                _("A form can send at most {limit}. Go back and shorten what you typed.").format(limit=limit),
                quote=False,
            ),
        )
        detail = fill(
            ngettext("The request body is over {n} byte.", "The request body is over {n} bytes.", max_bytes),
            n=max_bytes,
        )
        await refuse(scope, send, 413, "body-too-large", N_("Body over the size limit"), detail, page)


def size_text(n_bytes: int) -> str:
    """A size limit in the reader's language: "16 KiB", or "1000 bytes"."""
    if n_bytes % 1024 == 0:
        return _("{n} KiB").format(n=n_bytes // 1024)
    return fill(ngettext("{n} byte", "{n} bytes", n_bytes), n=n_bytes)


async def refuse(
    scope: Scope,
    send: Send,
    status: int,
    slug: str,
    title: str,
    detail: str,
    page: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> None:
    """A request refused before any route saw it (the body limit here, the server's own refusals in
    app/http/server.py): problem+json under /api, else a page a person can read. The connection closes
    after it: what is left of the request is never read.

    `title`: English, marked with N_ (translated here and by problem()); `detail` already translated."""
    headers = {"Connection": "close", **(headers or {})}
    response: Response
    if is_api(scope["path"]):
        response = problem(status, detail, slug=slug, title=title, headers=headers)
    else:  # a browser's page or form post
        page = page or plain_page(
            _("{title} · Blitzboard").format(title=_(title)),
            _(title),
            html.escape(_("{problem} Go back and try again.").format(problem=detail), quote=False),
        )
        response = HTMLResponse(page, status_code=status, headers=headers)
    await response(scope, _nothing_to_read, send)


def plain_page(title: str, heading: str, paragraph: str) -> str:
    """A page said without the templates (an answer before any route, or when the templates failed),
    in the request's language: `paragraph` is markup, the rest text (escaped here)."""

    def text(value: str) -> str:
        return html.escape(value, quote=False)

    return (
        f'<!doctype html><html lang="{html.escape(i18n.current())}"><meta charset="utf-8"><title>{text(title)}</title>'
        f'<h1>{text(heading)}</h1><p class="problem">{paragraph}</p><p><a href="/">{text(_("Back to Blitzboard"))}'
        "</a></p></html>"
    )


async def _nothing_to_read() -> Message:
    return {"type": "http.disconnect"}


async def call_noting_status(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, note: Callable[[int, float], None]
) -> None:
    """Run the app, then note the status it answered and the seconds it took, however it ended: 0 when
    it sent nothing (the client left), 500 when it raised before answering (the server answers that)."""
    start = time.perf_counter()
    status = 0

    async def send_and_note(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        await send(message)

    try:
        await app(scope, receive, send_and_note)
    except Exception:
        status = status or 500
        raise
    finally:
        note(status, time.perf_counter() - start)


class AccessLog:
    """One line per request, with edit keys redacted from the path (uvicorn's own access log is off).

    The path is escaped (loggable), and the line ends with the request id (app.http.requestid).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        await call_noting_status(self.app, scope, receive, send, partial(log_access, scope))


def log_access(scope: Scope, status: int, seconds: float) -> None:
    """The access log's line for one request (app.stream_front writes the streams' lines with it too)."""
    client = scope.get("client") or ("-", 0)
    access_log.info(
        '%s "%s %s" %s %.1fms request_id=%s',
        client[0],
        scope["method"],
        loggable(redact(scope["path"])),
        status,
        seconds * 1000,
        request_id_of(scope),
    )


class CompressPublic:
    """gzip for answers that carry no secret (pages people watch, the game JSON, static files).

    Answers that can carry an edit right (the scorekeeper's pages, any form or API post, which may
    answer a new edit key) are sent uncompressed: compressing a secret next to text an attacker
    chooses leaks it through the compressed size (BREACH). Event streams are never compressed.
    """

    def __init__(self, app: ASGIApp, minimum_size: int = 600) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=minimum_size)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or KEEPER_PATH.search(scope["path"])
            or _table_keeper(scope)
        ):
            await self.app(scope, receive, send)
        else:
            await self.gzip(scope, receive, send)


def _table_keeper(scope: Scope) -> bool:
    """A table's page (or the start page) asked by a browser that holds a table's key: it may carry
    the table's CSRF token or edit link next to names others chose, so it is not compressed."""
    if not TABLE_KEEPER_PAGE.match(scope["path"]):
        return False
    return any(name == b"cookie" and _TABLE_COOKIE in value for name, value in scope["headers"])


# Marks the copy of a HEAD request that HeadAsGet runs as a GET (the request counter in app/http/metrics.py,
# inside it, counts the method the client sent).
HEAD_AS_GET = "blitzboard.head_as_get"


class HeadAsGet:
    """HEAD wherever GET is allowed: the request runs as a GET and only its status and headers are
    sent (Content-Length included, as RFC 9110 asks). An answer that would stream on (an event stream)
    ends after its headers: the app then reads a disconnect and stops."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        done = False

        async def headers_only(message: Message) -> None:
            nonlocal done
            if message["type"] == "http.response.start":
                await send(message)
            elif message["type"] == "http.response.body" and not done:
                done = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def receive_until_done() -> Message:
            return {"type": "http.disconnect"} if done else await receive()

        await self.app(dict(scope, method="GET", **{HEAD_AS_GET: True}), receive_until_done, headers_only)
