"""In-process rate limits: fixed one-minute windows per (what, client address).

Generous by default and set in Settings. Each server process counts on its own, so with N processes
a client gets up to N times the limit: enough to stop a runaway script or a key-guessing loop,
which is what these are for (an edit key has 192 random bits; guessing is hopeless anyway).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


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


def retry_after_header(seconds: float) -> dict[str, str]:
    return {"Retry-After": str(math.ceil(seconds))}


class Limits:
    """The app's limits (app.state.limits), from Settings."""

    def __init__(self, games_per_minute: int, wrong_keys_per_minute: int):
        self.games = RateLimiter(games_per_minute)
        self.wrong_keys = RateLimiter(wrong_keys_per_minute)


def client_address(request) -> str:
    # uvicorn has already replaced this with X-Forwarded-For when the proxy is trusted.
    return request.client.host if request.client else "unknown"


def wrong_key_wait(request) -> float | None:
    """Count a wrong edit key against the client; seconds to wait once past the limit, else None."""
    return request.app.state.limits.wrong_keys.hit(client_address(request))
