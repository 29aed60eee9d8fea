"""The uvicorn options every server process runs with, and the connection guards uvicorn lacks.

`blitzboard serve` (app/cli.py), the test servers (tests/servers.py start `python -m app.cli serve`)
and the benchmarks' servers (bench/serve.py) all take their options from uvicorn_options(), so the
limits the tests check are the ones deployed.

uvicorn closes an idle keep-alive connection (timeout_keep_alive) but has no timeout for a request
head that arrives slowly or not at all: a client that connects and then sends nothing, or one byte a
second (slowloris), holds a socket and a descriptor for ever. The protocol classes here close such a
connection once its head is not complete within `header_timeout_seconds`, and close at once a
connection from a peer that already holds `max_connections_per_client`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from app.config import Settings
from app.http.limits import capacity
from app.http.streaming import ON_SHUTDOWN
from app.logs import logging_config

log = logging.getLogger("blitzboard.server")

REQUEST_TIMEOUT = b"HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
HEAD_TOO_LARGE = b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


@dataclass
class ConnectionGuard:
    """Per-process connection bookkeeping shared by every connection of one server (pickled to each worker)."""

    header_timeout: float
    per_client: int  # 0: no cap
    exempt: TrustedProxies | None  # peers never capped (trusted proxies); None: every peer is exempt
    max_head_bytes: int = 0  # a request head still incomplete past this many bytes is refused (0: no limit)
    _open: dict[str, int] = field(default_factory=dict)

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

    def __init__(self, *args: Any, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard
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
            and 0 < self.guard.max_head_bytes < self._head_bytes
            and not self.transport.is_closing()
        ):
            # httptools has no limit of its own on a head's size (h11 refuses with a 400 first).
            self._disarm_head_timer()
            self.transport.write(HEAD_TOO_LARGE)
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
            self.transport.write(REQUEST_TIMEOUT)  # a half-sent head gets told why
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
        "limit_concurrency": connections,
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "http": partial(_protocol_class(), guard=guard),
    }
