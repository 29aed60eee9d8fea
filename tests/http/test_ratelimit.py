"""The rate limiter on its own (the 429 answers are tested through the API and the pages)."""

from __future__ import annotations

import pytest

from app.http.ratelimit import RateLimiter, retry_after_header


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("limit", [1, 3, 60])
def test_allows_the_limit_then_refuses_until_the_window_ends(limit: int):
    clock = FakeClock()
    limiter = RateLimiter(limit, clock)
    assert all(limiter.hit("1.2.3.4") is None for _ in range(limit))
    assert limiter.used("1.2.3.4") == limit
    clock.now += 15
    assert limiter.hit("1.2.3.4") == 45
    assert limiter.hit("5.6.7.8") is None  # another client is not affected
    clock.now += 45
    assert limiter.used("1.2.3.4") == 0  # a new window
    assert limiter.hit("1.2.3.4") is None


def test_old_windows_are_forgotten_when_many_clients_pass():
    clock = FakeClock()
    limiter = RateLimiter(5, clock)
    for i in range(10_001):
        limiter.hit(f"client-{i}")
    clock.now += 61
    limiter.hit("newcomer")
    assert len(limiter._windows) == 1


def test_retry_after_is_whole_seconds_rounded_up():
    assert retry_after_header(44.2) == {"Retry-After": "45"}
