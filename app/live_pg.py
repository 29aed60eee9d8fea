"""Live updates across server processes with PostgreSQL LISTEN/NOTIFY.

A write sends NOTIFY inside its own transaction (PostgreSQL delivers it only if and when the
transaction commits, so no listener hears of a change that was rolled back). Every server process
LISTENs on one channel and hands each "game_id:version" to its in-process Broker, which wakes the
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
from sqlalchemy import text
from sqlmodel import Session

from app.live import Broker

CHANNEL = "blitzboard_games"
log = logging.getLogger("blitzboard.live")


def notify_in_transaction(session: Session, game_id: str, version: int, start: int | None = None) -> None:
    """Queue the change notice in the session's transaction (PostgreSQL only; a no-op elsewhere).
    `start`: a round start's "Blitz!" (ms since 1970), announced with this version."""
    if session.get_bind().dialect.name == "postgresql":
        payload = f"{game_id}:{version}" + (f":{start}" if start else "")
        session.exec(text("SELECT pg_notify(:channel, :payload)").bindparams(channel=CHANNEL, payload=payload))


def parse_notice(payload: str) -> tuple[str, int, int | None] | None:
    """(game id, version, round start or None) from a notice; None for one we can't read."""
    game_id, _, rest = payload.partition(":")
    version, _, start = rest.partition(":")
    if not game_id or not version.isdigit() or (start and not start.isdigit()):
        return None
    return game_id, int(version), int(start) if start else None


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
        delay = 0.5
        first = True
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.ready.set()
                    delay = 0.5
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
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10)

    async def _catch_up(self) -> None:
        games = self.broker.watched_games()
        if not games:
            return
        versions = await asyncio.to_thread(self.versions_of, games)
        for game_id, version in versions.items():
            self.broker.deliver(game_id, version)
