"""A read of a game shows one version of it: its row, players, rounds and scores as one commit left them.

A writer saves, corrects and deletes rounds through the use cases in a thread while the test reads the game
by every path that builds a view for readers: the API's GET, `Games.get` (the CSV export, the pages after
a post, the handover page), `cached_view` filling an empty page cache, and the start page's `existing` and
`load_views`. Each read is checked against what the writer's own outcome said that version holds: the same
rounds in the same order with the same cards (no round of another version, no all-zero phantom of a round
deleted between two statements) and the same totals. Bounded by counts: the reads stop after READS rounds
of the four paths, and the writer with them (or after MAX_WRITES). On PostgreSQL each read is one
REPEATABLE READ snapshot (app.games.views.read_snapshot); SQLite's read transaction already is one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlmodel import Session

from app.db import write_transaction
from app.games.usecases import Games
from app.games.viewcache import ViewCache, cached_view
from app.games.views import GameView, load_views, read_snapshot
from app.live import Broker
from app.schemas import GameCreate, PlayerCreate, RoundIn, ScoreIn
from app.sealing import Sealer
from app.security import Credential
from tests.helpers import on_postgres

READS = 60  # of each of the four paths
MAX_WRITES = 5_000

# (round id, ((player id, dutch, blitz), ...) by player) in the order played, and each player's total.
Rounds = tuple[tuple[int, tuple[tuple[int, int, int], ...]], ...]
Seen = tuple[Rounds, dict[int, int]]


def _seen(view: GameView) -> Seen:
    rounds = tuple(
        (round_id, tuple(sorted((s.player_id, s.dutch or 0, s.blitz or 0) for s in scores)))
        for round_id, scores in view.played()
    )
    return rounds, dict(view.state.totals)


def _by_number(seen: Seen) -> tuple[tuple[tuple[tuple[int, int, int], ...], ...], dict[int, int]]:
    """What the API's answer can be compared by: its rounds carry numbers, not ids."""
    rounds, totals = seen
    return tuple(scores for _, scores in rounds), totals


def _answered(body: dict[str, Any]) -> tuple[tuple[tuple[tuple[int, int, int], ...], ...], dict[int, int]]:
    rounds = tuple(tuple(sorted((s["player_id"], s["dutch"], s["blitz"]) for s in r["scores"])) for r in body["rounds"])
    return rounds, {p["id"]: p["total"] for p in body["players"]}


def _games(app: FastAPI, session: Session, views: ViewCache | None = None) -> Games:
    return Games(session, Broker(), app.state.settings, Sealer(os.urandom(32)), ViewCache() if views is None else views)


def _round(player_ids: list[int], step: int) -> RoundIn:
    # Small rounds (the first player calls Blitz with 0-9 Dutch cards), so four of them never end the game.
    counts = [(step % 10, 0), (step % 3, 1), (1, 2), (0, 3)]
    return RoundIn(
        scores=[ScoreIn(player_id=p, dutch=d, blitz=b) for p, (d, b) in zip(player_ids, counts, strict=True)]
    )


def test_every_read_shows_one_version_while_a_writer_changes_rounds(app: FastAPI, client: TestClient):
    with Session(app.state.engine, expire_on_commit=False) as session:
        made = _games(app, session).create(
            GameCreate(players=[PlayerCreate(name=n) for n in ("Ana", "Ben", "Cy", "Dee")])
        )
    game_id, key = made.game_id, Credential(made.edit_key)
    player_ids = [p.id for p in made.view.players]
    recorded: dict[int, Seen] = {made.version: _seen(made.view)}
    stop = threading.Event()
    failed: list[BaseException] = []

    def write() -> None:
        # Add up to four rounds, then correct and delete in turn: rounds go away mid-game as often as they come.
        try:
            with Session(app.state.engine, expire_on_commit=False) as session:
                games = _games(app, session)
                rounds = len(made.view.round_ids)
                for step in range(MAX_WRITES):
                    if stop.is_set():
                        return
                    if rounds < 4:
                        outcome = games.add_round(game_id, key, _round(player_ids, step))
                    elif step % 2:
                        outcome = games.replace_round(game_id, 1 + step % rounds, key, _round(player_ids, step + 1))
                    else:
                        outcome = games.delete_round(game_id, 1 + step % rounds, key)
                    rounds = len(outcome.view.round_ids)
                    recorded[outcome.version] = _seen(outcome.view)
        except BaseException as error:
            failed.append(error)

    reads: list[tuple[str, int, Seen | dict[str, Any]]] = []

    def by_api() -> None:
        answer = client.get(f"/api/v1/games/{game_id}")
        assert answer.status_code == 200
        assert answer.headers["ETag"] == f'"{answer.json()["version"]}"'
        reads.append(("api", answer.json()["version"], answer.json()))

    def by_get() -> None:
        with Session(app.state.engine, expire_on_commit=False) as session:
            view = _games(app, session).get(game_id)
            reads.append(("get", view.game.version, _seen(view)))

    def by_page_cache() -> None:
        cache = ViewCache()
        with Session(app.state.engine, expire_on_commit=False) as session:
            view = cached_view(_games(app, session, cache), game_id)
        kept = cache.get(game_id, view.game.version)
        assert kept is not None  # what the pages will serve under this version
        reads.append(("cache", kept.game.version, _seen(kept)))

    def by_start_page() -> None:
        with Session(app.state.engine, expire_on_commit=False) as session:
            games = _games(app, session)
            [view] = load_views(session, games.existing([game_id]))
            reads.append(("start page", view.game.version, _seen(view)))

    paths: list[Callable[[], None]] = [by_api, by_get, by_page_cache, by_start_page]
    writer = threading.Thread(target=write)
    writer.start()
    try:
        for _ in range(READS):
            for read in paths:
                read()
    finally:
        stop.set()
        writer.join()
    assert not failed, failed

    mixed = []
    for path, version, seen in reads:
        expected: Any = recorded[version]
        if isinstance(seen, dict):  # the API's answer
            seen, expected = _answered(seen), _by_number(expected)
        if seen != expected:
            mixed.append((path, version, seen, expected))
    versions = {version for _, version, _ in reads}
    assert len(versions) > 1, "the writer never ran during the reads"
    by_path = {path: sum(1 for m in mixed if m[0] == path) for path, _, _ in reads}
    assert mixed == [], f"{len(mixed)} of {len(reads)} reads mixed versions ({by_path}); the first: {mixed[0]}"


@pytest.mark.skipif(not on_postgres(), reason="SQLite's read transaction is one snapshot by itself")
def test_a_read_on_postgresql_is_one_read_only_snapshot_and_a_write_is_left_as_it_is(app: FastAPI):
    def transaction(session: Session) -> tuple[str, str]:
        isolation = session.exec(text("SHOW transaction_isolation")).one()[0]
        return isolation, session.exec(text("SHOW transaction_read_only")).one()[0]

    with Session(app.state.engine, expire_on_commit=False) as session:
        games = _games(app, session)
        assert games.key_hash("no-such-game") is None  # an earlier read of the request: READ COMMITTED
        assert transaction(session) == ("read committed", "off")
        assert games.row("no-such-game") is None
        assert transaction(session) == ("repeatable read", "on")
        read_snapshot(session)  # already in one: the same transaction goes on
        assert transaction(session) == ("repeatable read", "on")

        class Done:
            replayed = False

        def work() -> Done:
            read_snapshot(session)  # inside a write: its own transaction, which holds the game's lock
            assert transaction(session) == ("read committed", "off")
            return Done()

        write_transaction(session, work)
        assert not session.in_transaction()
