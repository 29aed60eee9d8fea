"""PURE: the round timer's rules. When "Blitz!" happens after the scorekeeper taps "Start round", and
how long a round lasted when it is saved. No framework imports (like app.rules.scoring).

The start is stored on the game as the moment of "Blitz!" (`Game.round_started_at`: the tap plus the
countdown), so a page opened mid-round shows the same timer as every other page. The next saved round
takes it as its `started_at`, and its duration is the time from it to the save.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

COUNTDOWN_S = 3  # "3, 2, 1, Blitz!"
# The longest round we record: a start left running over dinner is not a round's length. A client may
# send up to this; a derived duration past it is recorded as unknown.
MAX_ROUND_SECONDS = 6 * 3600
# What the API accepts as a round's start: any moment in these years (and nothing a timezone
# conversion could overflow).
EARLIEST_YEAR, LATEST_YEAR = 2000, 2999


@dataclass(frozen=True, slots=True)
class RoundTime:
    """When a round started (its "Blitz!") and how long it lasted, each None when unknown."""

    started_at: datetime | None = None
    duration_s: int | None = None

    @property
    def duration_text(self) -> str:
        """ "1:35" (m:ss), "1:02:05" past an hour; "" when unknown."""
        return clock_text(self.duration_s) if self.duration_s is not None else ""


def clock_text(seconds: int) -> str:
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def blitz_moment(now: datetime) -> datetime:
    """When "Blitz!" happens for a start tapped at `now`."""
    return now + timedelta(seconds=COUNTDOWN_S)


def epoch_ms(moment: datetime) -> int:
    """Milliseconds since 1970 (what a browser's Date.now() counts), for the pages and the stream."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


def saved_round_time(
    pending: datetime | None, now: datetime, started_at: datetime | None = None, duration_s: int | None = None
) -> RoundTime:
    """A new round's time as it is saved at `now`: what the client sent wins; otherwise the game's
    pending start (`pending`) is its start and the time since then its duration. A save during the
    countdown (before "Blitz!"), or one past MAX_ROUND_SECONDS, has no derived duration."""
    started = started_at if started_at is not None else pending
    if duration_s is None and started is not None:
        elapsed = (now - started).total_seconds()
        if 0 <= elapsed <= MAX_ROUND_SECONDS:
            duration_s = int(elapsed)
    return RoundTime(started, duration_s)


def corrected_round_time(
    stored: RoundTime | None, started_at: datetime | None = None, duration_s: int | None = None
) -> RoundTime:
    """A corrected round keeps its time, except what the correction sends."""
    stored = stored or RoundTime()
    return RoundTime(
        started_at if started_at is not None else stored.started_at,
        duration_s if duration_s is not None else stored.duration_s,
    )
