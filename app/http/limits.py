"""Bounds on what one client, and all clients together, can hold: event streams, open files, log volume.

One client must not be able to stall the server (hardening issue, "One client can stall the server"):
every open event stream holds a socket and a task for as long as the client likes, so their number is
capped per client address and in total; the process raises its open-file limit at start-up and keeps
a reserve of descriptors under it for health checks, pages and the database; and an error that repeats
(asyncio's `accept() out of system resource` once wrote 7.6 MB/s of log) is logged at a bounded rate.

Connection-level guards (slow request heads, connections per peer) live in app.http.server; the body
deadline in app.http.middleware.BodyLimit.
"""

from __future__ import annotations

import logging
import resource
import time
from collections.abc import Callable

from app.config import Settings

log = logging.getLogger("blitzboard.limits")

# Loggers that repeat one line per failed accept() or per broken connection under a flood.
NOISY_LOGGERS = ("asyncio", "uvicorn.error")


class StreamSlots:
    """Counts the open event streams per client address and in total (one process, one event loop)."""

    def __init__(self, per_client: int, total: int) -> None:
        self.per_client = per_client
        self.total = total
        self._by_client: dict[str, int] = {}
        self._open = 0

    def acquire(self, client: str) -> int | None:
        """Take a slot for `client`: None when granted, else the HTTP status that refuses it (429 or 503)."""
        if self._by_client.get(client, 0) >= self.per_client:
            return 429
        if self._open >= self.total:
            return 503
        self._by_client[client] = self._by_client.get(client, 0) + 1
        self._open += 1
        return None

    def release(self, client: str) -> None:
        held = self._by_client.get(client, 0)
        if held <= 0:
            return
        if held == 1:
            del self._by_client[client]
        else:
            self._by_client[client] = held - 1
        self._open -= 1

    @property
    def open(self) -> int:
        return self._open

    def held_by(self, client: str) -> int:
        return self._by_client.get(client, 0)


def raise_open_file_limit() -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit (at start-up, never at import); the new soft limit.

    Many systems start services with a soft limit of 1,024 under a far higher hard one; every open
    connection is a descriptor, so the soft limit is what decides when accept() starts failing.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError) as error:  # a container may forbid it; keep what we have
            log.warning("could not raise the open-file limit from %s to %s: %s", soft, hard, error)
    elif soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    return soft


def within_files(wanted: int, open_files: int, reserve: int) -> int:
    """`wanted`, lowered so that it leaves `reserve` descriptors under the open-file limit (at least 1)."""
    return max(1, min(wanted, open_files - reserve))


def capacity(settings: Settings, open_files: int) -> tuple[int, int]:
    """(connections, event streams) this process accepts, given its open-file limit.

    Connections stay `open_files_reserve` under the descriptor limit (the database, log files and
    accept() itself need some), and streams stay another reserve under the connections, so pages and
    /healthz still answer when every stream slot is taken.
    """
    connections = within_files(settings.max_connections, open_files, settings.open_files_reserve)
    return connections, within_files(settings.max_streams, connections, settings.open_files_reserve)


class RepeatFilter(logging.Filter):
    """Lets an identical log line through at most once per `seconds`, then says how many were held back.

    Lines count as identical when logger, level and first line of the message match (asyncio adds the
    socket and traceback below the first line).
    """

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.seconds = seconds
        self.clock = clock
        self._seen: dict[tuple[str, int, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if self.seconds <= 0:
            return True
        try:
            first_line = record.getMessage().split("\n", 1)[0]
        except Exception:  # a malformed record: let logging report it as it would
            return True
        key = (record.name, record.levelno, first_line)
        now = self.clock()
        last, suppressed = self._seen.get(key, (None, 0))
        if last is not None and now - last < self.seconds:
            self._seen[key] = (last, suppressed + 1)
            return False
        if len(self._seen) > 1000:
            self._seen = {k: v for k, v in self._seen.items() if now - v[0] < self.seconds}
        self._seen[key] = (now, 0)
        if suppressed:
            record.msg = f"{record.msg} [{suppressed} identical lines suppressed in the last {now - last:.0f} s]"
        return True


def install_repeat_filter(seconds: float) -> Callable[[], None]:
    """Put one RepeatFilter on the noisy loggers (at start-up); the function that takes it off again."""
    repeat = RepeatFilter(seconds)
    loggers = [logging.getLogger(name) for name in NOISY_LOGGERS]
    for logger in loggers:
        logger.addFilter(repeat)

    def remove() -> None:
        for logger in loggers:
            logger.removeFilter(repeat)

    return remove
