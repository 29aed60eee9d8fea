"""Live updates across server processes with PostgreSQL LISTEN/NOTIFY.

A write's notice is sent after its COMMIT, never inside its transaction: PostgreSQL serialises the
commits of transactions that notify (one global lock), so a NOTIFY in every save would make the
saves of different games commit one at a time. Each process has a `PostgresNotifier`, the broker's
relay: every publish (made after a COMMIT) is queued, the latest version per game kept, and sent in
one statement on a connection of its own, off the request's path. A crash between the COMMIT and the
notice loses only a live update in the other processes, and a viewer's next (re)connect reads the
version. A notice that could not be sent (the connection dropped) is sent again once the notifier
has reconnected. Every server process LISTENs on one channel and hands each "game_id:version" to its in-process Broker, which wakes the
event streams of that game; they then read the state from the database. A round's start travels as
"game_id:version:blitz_ms" (its "Blitz!" in ms since 1970), so every process's streams send it at once. When the listening
connection drops, the listener reconnects and re-reads the version of every game that has open
streams, so nobody misses an update made while it was away.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import psycopg

from app.live import Broker

CHANNEL = "blitzboard_games"
SEND_TIMEOUT_S = 5  # a notice not sent by then: the connection is dropped and made again
# After losing its connection, the listener or the notifier waits this long before it connects again,
# twice as long after each failure in a row, up to RECONNECT_MAX_S. Read at each wait (tests set 0).
RECONNECT_DELAY_S = 0.5
RECONNECT_MAX_S = 10
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3}
log = logging.getLogger("blitzboard.live")


def notice(game_id: str, version: int, start: int | None = None, draft: int | None = None) -> str:
    """A notice's payload; `start`: a round start's "Blitz!" (ms since 1970), announced with this version;
    `draft`: a row sent from a player's phone (ms since 1970): "game:version", "game:version:start",
    "game:version::draft" or "game:version:start:draft"."""
    return f"{game_id}:{version}" + (f":{start or ''}:{draft}" if draft else (f":{start}" if start else ""))


def parse_notice(payload: str) -> tuple[str, int, int | None, int | None] | None:
    """(game id, version, round start or None, draft or None) from a notice; None for one we can't read."""
    game_id, _, rest = payload.partition(":")
    version, _, rest = rest.partition(":")
    start, _, draft = rest.partition(":")
    if not game_id or not version.isdigit() or not all(not part or part.isdigit() for part in (start, draft)):
        return None
    return game_id, int(version), int(start) if start else None, int(draft) if draft else None


def reconnect_delay(failures: int) -> float:
    """How long to wait before connecting again after `failures` failures in a row (the first is 0)."""
    return min(RECONNECT_DELAY_S * 2 ** min(failures, 16), RECONNECT_MAX_S)  # (a float can't hold 2**1100)


def libpq_url(sqlalchemy_url: str) -> str:
    """postgresql+psycopg://... -> postgresql://... (what psycopg itself accepts)."""
    return "postgresql://" + sqlalchemy_url.split("://", 1)[1]


class PostgresListener:
    def __init__(self, url: str, broker: Broker, versions_of) -> None:
        self.url = libpq_url(url)
        self.broker = broker
        self.versions_of = versions_of  # (game ids) -> {game id: version}, run in a thread
        self._task: asyncio.Task | None = None
        self.ready = asyncio.Event()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="blitzboard-pg-listener")
        # Wait (briefly) for LISTEN to be in place so the first saves are heard.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.ready.wait(), 5)

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _run(self) -> None:
        failures = 0
        first = True
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.url, autocommit=True, **KEEPALIVES) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.ready.set()
                    failures = 0
                    if not first:
                        await self._catch_up()
                    first = False
                    async for notice in conn.notifies():
                        if parsed := parse_notice(notice.payload):
                            self.broker.deliver(*parsed)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarted, the network dropped...
                log.warning("live updates: lost the PostgreSQL listener (%s); reconnecting", error)
                await asyncio.sleep(reconnect_delay(failures))
                failures += 1

    async def _catch_up(self) -> None:
        games = self.broker.watched_games()
        if not games:
            return
        versions = await asyncio.to_thread(self.versions_of, games)
        for game_id, version in versions.items():
            self.broker.deliver(game_id, version)


class PostgresNotifier:
    """Sends the notices of this process's saves, after their COMMIT, on a connection of its own.

    `send` is the broker's relay (called on the server's loop): it keeps the latest version per game
    (with the latest round start), and the task sends what is waiting in one statement. A batch that
    fails goes back to wait for the next connection, unless newer versions came meanwhile.
    """

    def __init__(self, url: str) -> None:
        self.url = libpq_url(url)
        self._pending: dict[str, tuple[int, int | None, int | None]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._sending = False  # a batch is on its way (stop() waits for it)
        self.sent = 0  # notices sent (tests read it)

    def send(self, game_id: str, version: int, start: int | None = None, draft: int | None = None) -> None:
        waiting = self._pending.get(game_id)
        if waiting is not None:
            if waiting[0] > version:
                return
            start = start or waiting[1]
            draft = max(draft or 0, waiting[2] or 0) or None
        self._pending[game_id] = (version, start, draft)
        self._wake.set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="blitzboard-pg-notifier")

    async def stop(self) -> None:
        if self._task:
            if self._pending or self._sending:  # what the last saves published: a moment to send it
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._drained(), 1)
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _drained(self) -> None:
        while self._pending or self._sending:
            await asyncio.sleep(0.01)

    async def _run(self) -> None:
        failures = 0
        while True:
            try:
                # TCP keepalives: a connection that went half-open is noticed in about a minute.
                async with await psycopg.AsyncConnection.connect(self.url, autocommit=True, **KEEPALIVES) as conn:
                    failures = 0
                    while True:
                        await self._wake.wait()
                        self._wake.clear()
                        batch, self._pending = self._pending, {}
                        self._sending = True
                        try:
                            await asyncio.wait_for(
                                conn.execute(
                                    "SELECT pg_notify(%s, p) FROM unnest(%s::text[]) AS p",
                                    (CHANNEL, [notice(g, v, s, d) for g, (v, s, d) in batch.items()]),
                                ),
                                SEND_TIMEOUT_S,
                            )
                        except BaseException:
                            for game_id, (version, start, draft) in batch.items():
                                self.send(game_id, version, start, draft)  # back in line (newer ones win)
                            raise
                        finally:
                            self._sending = False
                        self.sent += len(batch)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarted, the network dropped...
                log.warning("live updates: lost the PostgreSQL notifier's connection (%s); reconnecting", error)
                await asyncio.sleep(reconnect_delay(failures))
                failures += 1
