"""In-process rate limits: fixed one-minute windows per (what, client address); the games an address
may import a minute (`GameBudget`); and how many imports run at once (`ImportSlots`).

Generous by default and set in Settings. Each server process counts on its own, so with N processes
a client gets up to N times the limit: enough to stop a runaway script or a key-guessing loop,
which is what these are for (an edit key has 192 random bits; guessing is hopeless anyway).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

import anyio


class RateLimiter:
    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        self.per_minute = per_minute
        self.clock = clock
        self._windows: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def hit(self, client: str) -> float | None:
        """Count one event for `client`; None while within the limit, else seconds until it may retry."""
        now = self.clock()
        with self._lock:
            start, count = self._windows.get(client, (now, 0))
            if now - start >= 60:
                start, count = now, 0
            count += 1
            self._windows[client] = (start, count)
            if len(self._windows) > 10_000:
                self._forget_old(now)
            if count > self.per_minute:
                return max(1.0, 60 - (now - start))
            return None

    def reserve(self, client: str) -> float | None:
        """Take one slot for an event about to happen: None if taken, else seconds until one frees.

        Check and count are one step under the lock, so concurrent requests can't all pass a check
        before any of them is counted. A refused reservation takes nothing. Give the slot back with
        release() when the event turns out not to count.
        """
        now = self.clock()
        with self._lock:
            start, count = self._windows.get(client, (now, 0))
            if now - start >= 60:
                start, count = now, 0
            if count >= self.per_minute:
                return max(1.0, 60 - (now - start))
            self._windows[client] = (start, count + 1)
            if len(self._windows) > 10_000:
                self._forget_old(now)
            return None

    def release(self, client: str) -> None:
        """Give back a slot reserve() took (the event did not happen, or changed nothing)."""
        with self._lock:
            if client in self._windows:
                start, count = self._windows[client]
                # A slot taken in an older window has already been forgotten with it.
                if self.clock() - start < 60 and count > 0:
                    self._windows[client] = (start, count - 1)

    def used(self, client: str) -> int:
        """How many events `client` has counted in its current window (without counting one)."""
        now = self.clock()
        with self._lock:
            start, count = self._windows.get(client, (now, 0))
            return count if now - start < 60 else 0

    def _forget_old(self, now: float) -> None:
        for client in [c for c, (start, _) in self._windows.items() if now - start >= 60]:
            del self._windows[client]


class GameBudget:
    """Games one address may import a minute, as a budget that refills continuously at that pace.

    An import takes one unit per game it would make; it is refused (with the seconds until it fits)
    when the address has already taken more than a minute's worth minus its games. A backup of more
    games than a minute's worth is taken only from a full budget, whole, and leaves the address owing
    the rest: its next import waits until that is paid at the same pace. So a table of any size can be
    restored, and an address imports at most `per_minute` games a minute over any longer stretch.
    """

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        self.per_minute = per_minute
        self.clock = clock
        self._paid_until: dict[str, float] = {}  # when the games each address took are paid for
        self._lock = threading.Lock()

    def take(self, client: str, games: int) -> float | None:
        """Take `games` for `client`: None if taken, else the seconds until they would be."""
        now = self.clock()
        cost = games * 60 / self.per_minute
        with self._lock:
            paid_until = max(self._paid_until.get(client, now), now)
            owed = paid_until - now
            if owed > 0 and owed + cost > 60:
                return max(1.0, owed + cost - 60 if cost <= 60 else owed)
            self._paid_until[client] = paid_until + cost
            if len(self._paid_until) > 10_000:
                for other in [c for c, until in self._paid_until.items() if until <= now]:
                    del self._paid_until[other]
            return None

    def give_back(self, client: str, games: int) -> None:
        """Give back what take() took (the import failed, or was a replay that made nothing)."""
        with self._lock:
            if client in self._paid_until:
                self._paid_until[client] -= games * 60 / self.per_minute


class ImportSlots:
    """How many imports run at once in this process: each holds a whole document parsed in memory and
    keeps a core busy for seconds, so more at once would only share the CPU and add up the memory.

    One that finds every slot taken waits up to `wait_seconds` on the event loop (not a thread the
    other requests need), looking again every POLL_SECONDS; then it is refused. Not first come, first
    served: a wait is short, and whoever looks first after a slot frees takes it.
    """

    POLL_SECONDS = 0.05

    def __init__(self, size: int, wait_seconds: float = 0):
        self.size = size
        self.wait_seconds = wait_seconds
        self.running = 0
        self.waiting = 0
        self._lock = threading.Lock()

    def take_now(self) -> bool:
        with self._lock:
            if self.running >= self.size:
                return False
            self.running += 1
            return True

    async def take(self, wait_seconds: float | None = None) -> bool:
        """A slot, waiting for one at most `wait_seconds` (the instance's by default): True if taken."""
        if self.take_now():
            return True
        deadline = time.monotonic() + (self.wait_seconds if wait_seconds is None else wait_seconds)
        self.waiting += 1
        try:
            while time.monotonic() < deadline:
                await anyio.sleep(self.POLL_SECONDS)
                if self.take_now():
                    return True
            return False
        finally:
            self.waiting -= 1

    def release(self) -> None:
        with self._lock:
            self.running = max(0, self.running - 1)


def retry_after_header(seconds: float) -> dict[str, str]:
    return {"Retry-After": str(math.ceil(seconds))}


class Limits:
    """The app's limits (app.state.limits), from Settings."""

    def __init__(
        self,
        games_per_minute: int,
        wrong_keys_per_minute: int,
        imported_games_per_minute: int,
        imports: ImportSlots,
    ):
        self.games = RateLimiter(games_per_minute)
        self.wrong_keys = RateLimiter(wrong_keys_per_minute)
        self.imported_games = GameBudget(imported_games_per_minute)
        self.imports = imports


def client_address(request) -> str:
    # uvicorn has already replaced this with X-Forwarded-For when the proxy is trusted.
    return request.client.host if request.client else "unknown"


def wrong_key_wait(request) -> float | None:
    """Count a wrong edit key against the client; seconds to wait once past the limit, else None."""
    return request.app.state.limits.wrong_keys.hit(client_address(request))
