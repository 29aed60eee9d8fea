"""A small cache of scored games, keyed by (game id, version): one per app (`app.state.views`).

A game page's GET reads the game's version first (one small query, which the live refresh's 204 and
the 304 need anyway); while that version is cached, the page renders from the cached `GameView` and
loads and scores nothing. A 1,000-round game then costs about what a 10-round one does
(docs/performance.md §4). Every change bumps the version, so an entry is never stale: a reader asks
for the version it just read, and an older entry is simply never asked for again (the LRU drops it).

What is cached must be safe to share between threads and requests: `put` stores a copy of the game
and its players detached from every session (a session's instance could be expired or refreshed by
its owner), or with `owned=True` the save's own objects, which no session knows and nothing changes
after; readers (and a save that starts from an entry, with its own copies of the round ids and
times) never change a cached view (the scored state is frozen dataclasses; the
pages only read). Derived data a page works out from the view (the chart, per size and language) is
kept on the shared view itself (`GameView.derived`) with `derived`, made once per entry.

Bounded twice: by the number of games and by their rounds together (a round of 8 players is about
1.2 KiB of scored objects, so the 20,000-round budget is some 25-40 MiB a process), least recently
used first out. A game longer than the whole budget is not kept. A newer version of a game is never
replaced by an older one that a slow reader puts late.

Versions only move forward while the server runs; restoring a database backup under running servers
would bring back version numbers they have cached with other rounds, and a save would start from
those: stop them for a restore (docs/operations.md, "Backups and pruning").

The cache is the app's, not the process's: the save path and the pages reach it through the request's
use cases (`Games.views`), so two apps in one process (the tests run many) share nothing.

`put(view, owned=True)` is what the save path calls after COMMIT (the game as the write left it), so
the first viewer after a save finds it warm, and so does the game's next save (app.games.writes takes the
game before its change from here when this version is kept, and loads no players, rounds or scores); the
pages call `put(view)` after a load that missed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from sqlmodel import SQLModel

from app.games.views import GameView, load_view

MAX_GAMES = 256
MAX_ROUNDS = 20_000  # all cached games' rounds together

T = TypeVar("T")


def _detached(row: SQLModel) -> Any:
    """A plain copy of a table row's fields: a new instance that no session knows."""
    return type(row)(**{name: getattr(row, name) for name in type(row).model_fields})


@dataclass(slots=True)
class _Entry:
    view: GameView
    rounds: int


class ViewCache:
    """An LRU of scored games by (game id, version), thread-safe."""

    def __init__(self, max_games: int = MAX_GAMES, max_rounds: int = MAX_ROUNDS) -> None:
        self.max_games = max_games
        self.max_rounds = max_rounds
        self._entries: OrderedDict[tuple[str, int], _Entry] = OrderedDict()
        self._rounds = 0
        self._lock = threading.Lock()

    def get(self, game_id: str, version: int) -> GameView | None:
        with self._lock:
            entry = self._entries.get((game_id, version))
            if entry is None:
                return None
            self._entries.move_to_end((game_id, version))
            return entry.view

    def put(self, view: GameView, *, owned: bool = False) -> GameView:
        """Keep a detached copy of `view` and answer it (the copy is what every reader shares).

        `owned`: the caller hands `view` over as it is (the save path, whose game and players are in
        no session and which changes them no more): kept without a copy."""
        key = (view.game.id, view.game.version)
        rounds = max(len(view.round_ids), 1)
        with self._lock:
            kept = self._entries.get(key)
            if kept is not None:
                self._entries.move_to_end(key)
                return kept.view
        if rounds > self.max_rounds:
            return view
        shared = (
            replace(view, derived={})
            if owned
            else replace(
                view,
                game=_detached(view.game),
                players=[_detached(p) for p in view.players],
                round_ids=list(view.round_ids),
                times=dict(view.times),
                piles=dict(view.piles),
                derived={},
            )
        )
        with self._lock:
            kept = self._entries.get(key)
            if kept is not None:  # another thread put it meanwhile: share that one
                return kept.view
            same_game = [k for k in self._entries if k[0] == key[0]]
            if any(k[1] > key[1] for k in same_game):
                return shared  # a newer version is kept already (a slow reader came late): not this one
            # An older version of the same game is never asked for again.
            for old in same_game:
                self._rounds -= self._entries.pop(old).rounds
            self._entries[key] = _Entry(shared, rounds)
            self._rounds += rounds
            while len(self._entries) > self.max_games or self._rounds > self.max_rounds:
                _, dropped = self._entries.popitem(last=False)
                self._rounds -= dropped.rounds
        return shared

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._rounds = 0

    def __len__(self) -> int:
        return len(self._entries)


def derived(view: GameView, what: Hashable, make: Callable[[], T]) -> T:
    """What a page works out from a view (`what` names it: the chart of a size, in a language): made
    once per cached view (a view the cache shares carries a dict for it), every time for any other."""
    kept = view.derived
    if kept is None:
        return make()
    if what in kept:
        return kept[what]
    return kept.setdefault(what, make())  # two threads may both make it: the first one made is kept


def cached_view(games: Any, game_id: str, version: int | None = None) -> GameView:
    """The game as a page shows it (`games`: the request's app.games.usecases.Games): from the cache when
    `version` (just read) or the game's row finds it there, else loaded once (404 or 410 when it is not
    there), scored and kept. Only the game's row is read on a hit; on a miss the load follows that row in
    the same snapshot (`games.row`), so what is kept under its version is that version."""
    cache: ViewCache = games.views
    if version is not None and (hit := cache.get(game_id, version)) is not None:
        return hit
    game = games.row(game_id)
    if game is None:
        raise games.missing(game_id)
    if game.version != version and (hit := cache.get(game_id, game.version)) is not None:
        return hit
    return cache.put(load_view(games.session, game))
