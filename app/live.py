"""Live updates: publish(game_id, version) after a commit, subscribe(game_id) on an event stream.

Only "game X is now at version N" travels; a listener that cares reads the state from the database.
So a listener that missed messages (a dropped connection, a slow client) needs only the latest
version to catch up, and each subscription keeps just that: no queue grows behind a slow reader.

One exception rides along: a round's start (the scorekeeper's "Start round") carries its "Blitz!"
moment (ms since 1970, server time), because every page must hear it at once, not after reading the
game again. A subscription keeps only the latest start too; the start is also stored on the game, so
a page that missed it sees the running round when it next reads the game.

In-process by default. With PostgreSQL (several server processes) see app.live_pg, which carries
the same message through LISTEN/NOTIFY and hands it to this broker in every process: the broker's
`relay` (set by app.live_pg's notifier) hears every publish, after the COMMIT it follows.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager


class Subscription:
    """What one open stream hears. Small on purpose (10,000 may be open in one process): a flag and, while
    its reader waits, one future; no asyncio.Event (its deque of waiters) nor a task."""

    __slots__ = ("_changed", "_draft_before", "_waiter", "closed", "draft", "start", "version")

    def __init__(self) -> None:
        self.version = 0
        self.start = 0  # the latest round start announced: its "Blitz!" in ms since 1970 (0: none yet)
        self.draft = 0  # the latest row sent from a player's phone (app.games.seats): ms since 1970 (0: none)
        self._draft_before = 0  # the one heard before it
        self.closed = False
        self._changed = False
        self._waiter: asyncio.Future[None] | None = None

    def _wake(self) -> None:
        self._changed = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def close(self) -> None:
        """Wake the reader for good (the server is shutting down, or the client left)."""
        self.closed = True
        self._wake()

    def _offer(self, version: int, start: int | None = None, draft: int | None = None) -> None:
        if version > self.version:
            self.version = version
            self._wake()
        if start and start != self.start:
            self.start = start
            self._wake()
        # Any other row than the last two heard wakes the reader, an older stamp too: another process's row
        # may be heard after a later one of this process (the reader reads the whole draft again anyway). The
        # last two: on PostgreSQL a process hears its own rows again (LISTEN), which are no news.
        if draft and draft not in (self.draft, self._draft_before):
            self._draft_before, self.draft = self.draft, draft
            self._wake()

    async def wait(self, timeout: float | None = None) -> int | None:
        """The newest version announced since the last call; None after `timeout` seconds or once closed."""
        if not self._changed:
            loop = asyncio.get_running_loop()
            waiter = self._waiter = loop.create_future()
            timer = None if timeout is None else loop.call_later(timeout, _time_up, waiter)
            try:
                await waiter
            finally:
                self._waiter = None
                if timer is not None:
                    timer.cancel()
        if self.closed or not self._changed:
            return None
        self._changed = False
        return self.version


def _time_up(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class Broker:
    def __init__(self) -> None:
        self._subscriptions: dict[str, set[Subscription]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        # Called on the server's loop with every publish (game, version, start, draft): the PostgreSQL
        # notifier (app.live_pg) passes it on to the other processes.
        self.relay: Callable[[str, int, int | None, int | None], None] | None = None
        self._last_draft = 0  # the last row's stamp this process announced (see _announce)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Attach to the server's event loop (at startup); publish() may then be called from any thread."""
        self._loop = loop

    def publish(self, game_id: str, version: int, start: int | None = None, draft: int | None = None) -> None:
        """`start`: a round start's "Blitz!" (ms since 1970), announced with this version; `draft`: a row sent
        from a player's phone (ms since 1970), which moves no version."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return  # no server loop (a script or a test without lifespan): nobody can be listening
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._announce(game_id, version, start, draft)
        else:
            loop.call_soon_threadsafe(self._announce, game_id, version, start, draft)

    def _announce(self, game_id: str, version: int, start: int | None, draft: int | None = None) -> None:
        if draft:  # two rows sent in the same millisecond are two stamps (on the loop: one thread)
            draft = self._last_draft = max(draft, self._last_draft + 1)
        self.deliver(game_id, version, start, draft)
        if self.relay is not None:
            self.relay(game_id, version, start, draft)

    def deliver(self, game_id: str, version: int, start: int | None = None, draft: int | None = None) -> None:
        for subscription in self._subscriptions.get(game_id, ()):
            subscription._offer(version, start, draft)

    @asynccontextmanager
    async def subscribe(self, game_id: str) -> AsyncIterator[Subscription]:
        subscription = Subscription()
        self._subscriptions.setdefault(game_id, set()).add(subscription)
        try:
            yield subscription
        finally:
            listeners = self._subscriptions.get(game_id)
            if listeners is not None:
                listeners.discard(subscription)
                if not listeners:
                    del self._subscriptions[game_id]

    def close_all(self) -> None:
        """End every open stream (the server is shutting down): each sends its last chunk and returns."""
        for listeners in list(self._subscriptions.values()):
            for subscription in list(listeners):
                subscription.close()

    def watched_games(self) -> list[str]:
        return list(self._subscriptions)

    def listener_count(self) -> int:
        return sum(len(s) for s in self._subscriptions.values())
