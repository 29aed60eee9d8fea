"""The uvicorn options every server process runs with, and the connection guards uvicorn lacks.

`blitzboard serve` (app/cli.py), the test servers (tests/servers.py start `python -m app.cli serve`)
and the benchmarks' servers (bench/serve.py) all take their options from uvicorn_options(), so the
limits the tests check are the ones deployed.

uvicorn closes an idle keep-alive connection (timeout_keep_alive) but has no timeout for a request
head that arrives slowly or not at all: a client that connects and then sends nothing, or one byte a
second (slowloris), holds a socket and a descriptor for ever. The protocol classes here close such a
connection once its head is not complete within `header_timeout_seconds`, and close at once a
connection from a peer that already holds `max_connections_per_client`.

They also answer the server's own refusals the way the app answers (`Refusals`: the security headers,
the request id, the language, problem+json under /api, a page elsewhere, the access log's line) rather
than uvicorn's bare text: a head over `max_header_bytes` gets 431 (uvicorn bounds only a head still
incomplete, and httptools not even that), and a request past the connection cap 503 with Retry-After
(uvicorn's `limit_concurrency` check is taken over here, with the same cap).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.config import Settings
from app.http.errors import RETRY_AFTER_SECONDS
from app.http.headers import SecurityHeaders
from app.http.limits import capacity
from app.http.middleware import AccessLog, refuse, size_text
from app.http.requestid import RequestId
from app.http.streaming import ON_SHUTDOWN
from app.i18n import N_, Languages, _
from app.logs import logging_config

log = logging.getLogger("blitzboard.server")

# A head still incomplete this far past the limit is cut off at once, unparsed, with a bare 431 (there is
# no request yet to answer in its language): what one connection's head holds stays bounded. A head
# within it is read whole and refused by `Refusals` in full, however its bytes arrive. h11's own bound
# is set past it by one read (asyncio reads up to 256 KiB), so h11 never refuses a head with its 400 first.
HEAD_SLACK = 64 * 1024


@cache
def bare_answer(status_line: bytes) -> bytes:
    """An empty answer written straight to the socket (no request to answer yet), with the security headers."""
    message = {"type": "http.response.start", "status": 0, "headers": [(b"content-length", b"0")]}
    SecurityHeaders(None).add_to({"path": "/", "method": "GET"}, message)
    lines = [status_line] + [name + b": " + value for name, value in message["headers"]]
    return b"\r\n".join([*lines, b"Connection: close", b"", b""])


REQUEST_TIMEOUT = b"HTTP/1.1 408 Request Timeout"
HEAD_TOO_LARGE = b"HTTP/1.1 431 Request Header Fields Too Large"


def head_size(scope: Scope) -> int:
    """A request head's bytes as parsed: its request line, its header lines and the blank line after
    them (spaces around a header's value and a target in absolute form aside)."""
    query = scope["query_string"]
    target = len(scope["raw_path"]) + (len(query) + 1 if query else 0)
    line = len(scope["method"]) + 1 + target + len(" HTTP/1.1\r\n")
    return line + sum(len(name) + len(value) + 4 for name, value in scope["headers"]) + 2


class Refusals:
    """The server's own refusals, answered as the app answers (its outer middleware around `refuse`),
    built once per process on first use (the guard that holds them is pickled to each worker)."""

    def __init__(self, max_head_bytes: int, hsts_seconds: int, forwarded_allow_ips: str) -> None:
        self.max_head_bytes = max_head_bytes

        def wrapped(answer: ASGIApp) -> ASGIApp:
            app = SecurityHeaders(answer, hsts_seconds=hsts_seconds)
            app = RequestId(AccessLog(Languages(app)))
            # As uvicorn wraps the app (proxy_headers): the client's address and scheme through a trusted proxy.
            return ProxyHeadersMiddleware(app, trusted_hosts=forwarded_allow_ips)

        self.head_too_large = wrapped(self._head_too_large)
        self.over_capacity = wrapped(self._over_capacity)

    async def _head_too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        detail = _("The request's head (its first line and headers) is over {limit}.").format(
            limit=size_text(self.max_head_bytes)
        )
        await refuse(scope, send, 431, "head-too-large", N_("Request head too large"), detail)

    async def _over_capacity(self, scope: Scope, receive: Receive, send: Send) -> None:
        detail = _("The server has as many connections open as it can take. Try again in a few seconds.")
        headers = {"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"}
        await refuse(scope, send, 503, "over-capacity", N_("Service unavailable"), detail, headers=headers)


@dataclass
class ConnectionGuard:
    """Per-process connection bookkeeping shared by every connection of one server (pickled to each worker)."""

    header_timeout: float
    per_client: int  # 0: no cap
    exempt: TrustedProxies | None  # peers never capped (trusted proxies); None: every peer is exempt
    max_head_bytes: int = 0  # a request head over this many bytes is refused with 431 (0: no limit)
    hsts_seconds: int = 0
    forwarded_allow_ips: str = ""
    running: int = 0  # requests in the app now (the connection cap's count)
    _open: dict[str, int] = field(default_factory=dict)
    _refusals: Refusals | None = None

    @property
    def refusals(self) -> Refusals:
        if self._refusals is None:
            self._refusals = Refusals(self.max_head_bytes, self.hsts_seconds, self.forwarded_allow_ips)
        return self._refusals

    @property
    def cut_off_bytes(self) -> int:
        """An incomplete head past this many bytes is cut off unread (0: never)."""
        return self.max_head_bytes + HEAD_SLACK if self.max_head_bytes > 0 else 0

    def admit(self, peer: str) -> bool:
        if not self.counted(peer):
            return True
        held = self._open.get(peer, 0)
        if held >= self.per_client:
            return False
        self._open[peer] = held + 1
        return True

    def counted(self, peer: str) -> bool:
        return not (self.per_client <= 0 or self.exempt is None or peer in self.exempt)

    def leave(self, peer: str) -> None:
        held = self._open.get(peer, 0)
        if held <= 1:
            self._open.pop(peer, None)
        else:
            self._open[peer] = held - 1


class _GuardedConnection:
    """Mixed into uvicorn's HTTP protocol classes (they share transport, client, cycle and loop)."""

    transport: asyncio.Transport
    client: tuple[str, int] | None
    cycle: Any
    loop: asyncio.AbstractEventLoop

    app: ASGIApp
    limit_concurrency: int | None
    connections: set[Any]

    def __init__(self, *args: Any, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        self.guard = guard
        # uvicorn's own cap check would answer a bare text 503: _admitted checks the same cap instead.
        self.connection_cap = self.limit_concurrency
        self.limit_concurrency = None
        self.the_app = self.app
        self.app = self._admitted
        self._peer: str | None = None
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0
        self._cycle_seen: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # type: ignore[misc]
        peer = self.client[0] if self.client else None
        if peer is not None:
            if not self.guard.admit(peer):
                transport.abort()  # frees the descriptor now; the peer holds too many already
                return
            if self.guard.counted(peer):
                self._peer = peer
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        if self._peer is not None:
            self.guard.leave(self._peer)
            self._peer = None
        super().connection_lost(exc)  # type: ignore[misc]

    def shutdown(self) -> None:
        """uvicorn asks every connection to finish (the server is shutting down): an open event stream
        ends now, with its last chunk (app.http.streaming), rather than when the graceful timeout cancels it."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            end_stream = cycle.scope.get(ON_SHUTDOWN)
            if end_stream is not None:
                end_stream()
        super().shutdown()  # type: ignore[misc]

    async def _admitted(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The app for one request, or the server's refusal of it: a head over the limit (431), or the
        connection cap reached (503: as uvicorn's check, the connections open, or the requests in the app)."""
        guard = self.guard
        cap = self.connection_cap
        if scope["type"] == "http" and 0 < guard.max_head_bytes < head_size(scope):
            await guard.refusals.head_too_large(scope, receive, send)
        elif cap is not None and (len(self.connections) >= cap or guard.running >= cap):
            await guard.refusals.over_capacity(scope, receive, send)
        else:
            guard.running += 1
            try:
                await self.the_app(scope, receive, send)
            finally:
                guard.running -= 1

    def data_received(self, data: bytes) -> None:
        if self._head_timer is None and (self.cycle is None or self.cycle.response_complete):
            self._arm_head_timer()  # a new request begins on a kept-alive connection
        self._head_bytes += len(data)
        super().data_received(data)  # type: ignore[misc]
        if self.cycle is not None and self.cycle is not self._cycle_seen:
            self._cycle_seen = self.cycle  # a complete head made a new request: its deadline is met
            self._disarm_head_timer()
        elif (
            self._head_timer is not None
            and 0 < self.guard.cut_off_bytes < self._head_bytes
            and not self.transport.is_closing()
        ):
            # httptools has no limit of its own on a head's size.
            self._disarm_head_timer()
            self.transport.write(bare_answer(HEAD_TOO_LARGE))
            self.transport.close()

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_bytes = 0
        self._head_timer = self.loop.call_later(self.guard.header_timeout, self._head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        if self._head_bytes:
            self.transport.write(bare_answer(REQUEST_TIMEOUT))  # a half-sent head gets told why
        self.transport.close()


class GuardedH11Protocol(_GuardedConnection, H11Protocol):
    pass


try:  # httptools is optional; uvicorn's "auto" picks it when installed, and so do we
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:
    HttpToolsProtocol = None


if HttpToolsProtocol is not None:

    class GuardedHttpToolsProtocol(_GuardedConnection, HttpToolsProtocol):
        pass


def _protocol_class() -> type:
    return GuardedH11Protocol if HttpToolsProtocol is None else GuardedHttpToolsProtocol


class TrustedProxies:
    """The peers exempt from the per-client connection cap: addresses and networks ("10.0.0.0/8"),
    as uvicorn reads FORWARDED_ALLOW_IPS; anything else (a Unix socket's name) compared as text."""

    def __init__(self, entries: list[str]):
        self.networks = []
        self.names = set()
        for entry in entries:
            try:
                self.networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                self.names.add(entry)

    def __contains__(self, peer: object) -> bool:
        if peer in self.names:
            return True
        try:
            address = ipaddress.ip_address(str(peer))
        except ValueError:
            return False
        return any(address in network for network in self.networks)


def trusted_proxies(forwarded_allow_ips: str) -> TrustedProxies | None:
    """The peers exempt from the per-client connection cap; None when every address is trusted ("*")."""
    entries = [a.strip() for a in forwarded_allow_ips.split(",") if a.strip()]
    return None if "*" in entries else TrustedProxies(entries)


def uvicorn_options(settings: Settings, *, host: str, port: int, workers: int, open_files: int) -> dict[str, Any]:
    """Keyword arguments for uvicorn.run(app, ...): the same for `blitzboard serve`, tests and benchmarks."""
    connections, _ = capacity(settings, open_files)
    guard = ConnectionGuard(
        header_timeout=settings.header_timeout_seconds,
        per_client=settings.max_connections_per_client,
        exempt=trusted_proxies(settings.forwarded_allow_ips),
        max_head_bytes=settings.max_header_bytes,
        hsts_seconds=settings.hsts_seconds,
        forwarded_allow_ips=settings.forwarded_allow_ips,
    )
    return {
        "factory": True,
        "host": host,
        "port": port,
        "workers": workers,
        "access_log": False,  # app.http.middleware.AccessLog logs instead, with edit keys redacted
        "proxy_headers": True,
        "forwarded_allow_ips": settings.forwarded_allow_ips,
        "log_level": settings.log_level,
        "log_config": logging_config(settings.log_level, settings.log_format),
        "timeout_graceful_shutdown": 5,
        "timeout_keep_alive": settings.keep_alive_seconds,
        "limit_concurrency": connections,  # checked by _GuardedConnection, which answers the 503 itself
        "h11_max_incomplete_event_size": guard.cut_off_bytes + 256 * 1024,
        "http": partial(_protocol_class(), guard=guard),
    }
