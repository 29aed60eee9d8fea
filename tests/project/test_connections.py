"""A database connection that died is replaced without a 500, and other processes hear of a save
after its COMMIT: PostgreSQL's pool no longer pings a connection before each use, so a
GET that meets a dead one runs once more on a new one, and a write runs again (app.games.writes); the
NOTIFY that tells other processes of a save is sent after the COMMIT, outside the save's transaction."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy import exc as sa_exc

from app import live_pg
from app.games.usecases import Games
from app.live_pg import CHANNEL, PostgresNotifier, notice, parse_notice
from tests.helpers import API, SMALL_ROUND, assert_problem, on_postgres

postgres_only = pytest.mark.skipif(not on_postgres(), reason="needs PostgreSQL; runs in the PostgreSQL pass")


def dropped() -> sa_exc.DBAPIError:
    return sa_exc.DBAPIError("SELECT 1", {}, Exception("server closed the connection"), connection_invalidated=True)


def test_a_get_whose_connection_died_runs_once_more(client: TestClient, make_game, monkeypatch):
    game = make_game()
    real_get, calls = Games.get, []

    def flaky(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise dropped()
        return real_get(self, *args, **kwargs)

    monkeypatch.setattr(Games, "get", flaky)
    response = client.get(f"{API}/games/{game.id}")
    assert response.status_code == 200, response.text
    assert response.json()["id"] == game.id
    assert len(calls) == 2


def test_a_get_whose_connection_dies_twice_is_a_503(client: TestClient, make_game, monkeypatch):
    game = make_game()
    calls = []

    def dead(self, *args, **kwargs):
        calls.append(1)
        raise dropped()

    monkeypatch.setattr(Games, "get", dead)
    assert_problem(client.get(f"{API}/games/{game.id}"), 503)
    assert len(calls) == 2


def test_other_database_trouble_on_a_get_is_not_run_again(client: TestClient, make_game, monkeypatch):
    game = make_game()
    calls = []

    def locked(self, *args, **kwargs):
        calls.append(1)
        raise sa_exc.OperationalError("SELECT 1", {}, Exception("database is locked"))

    monkeypatch.setattr(Games, "get", locked)
    assert_problem(client.get(f"{API}/games/{game.id}"), 503)
    assert len(calls) == 1


def test_a_post_is_not_run_again_by_the_error_handler(client: TestClient, make_game, monkeypatch):
    """Writes have their own retry, which knows whether COMMIT was reached (app.games.writes)."""
    game = make_game()
    calls = []

    def dead(self, *args, **kwargs):
        calls.append(1)
        raise dropped()

    monkeypatch.setattr(Games, "add_round", dead)
    assert_problem(game.add_round(SMALL_ROUND), 503)
    assert len(calls) == 1


def test_a_notice_reads_back_as_sent():
    assert parse_notice(notice("abc", 7)) == ("abc", 7, None, None)
    assert parse_notice(notice("abc", 8, 1_700_000_000_000)) == ("abc", 8, 1_700_000_000_000, None)
    assert parse_notice(notice("abc", 8, None, 1_700_000_000_001)) == ("abc", 8, None, 1_700_000_000_001)
    assert parse_notice(notice("abc", 8, 5, 6)) == ("abc", 8, 5, 6)


def test_the_notifier_keeps_only_the_latest_version_of_a_game_waiting():
    notifier = PostgresNotifier("postgresql+psycopg://nowhere/none")
    notifier.send("a", 3, 111)
    notifier.send("a", 5)
    notifier.send("a", 4)  # older than what waits: dropped
    notifier.send("b", 1)
    notifier.send("b", 1, None, 222)  # a row sent (no version moved): kept beside the version
    notifier.send("b", 1, None, 200)  # an older row's: the newest stamp stays
    assert notifier._pending == {"a": (5, 111, None), "b": (1, None, 222)}


@postgres_only
def test_the_pool_does_not_ping_and_a_dead_connection_is_replaced(client: TestClient, app: FastAPI, make_game):
    engine = app.state.engine
    assert not engine.pool._pre_ping
    assert engine.pool._recycle > 0
    game = make_game(rules={"target": 1000})
    database = engine.url.database
    admin_url = engine.url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        # Every idle connection of the app's pool (not the listener's or the notifier's).
        killed = admin.execute(
            "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE datname = %s "
            "AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%%' AND query NOT LIKE '%%pg_notify%%'",
            (database,),
        ).fetchone()[0]
    assert killed >= 1
    assert client.get(f"{API}/games/{game.id}").status_code == 200
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(
            "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE datname = %s "
            "AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%%' AND query NOT LIKE '%%pg_notify%%'",
            (database,),
        )
    assert game.add_round(SMALL_ROUND).status_code == 201
    assert len(game.get()["rounds"]) == 1


@postgres_only
def test_a_save_notifies_after_its_commit_not_inside_it(client: TestClient, app: FastAPI, make_game):
    engine = app.state.engine
    game = make_game(rules={"target": 1000})
    statements: list[str] = []

    def note(_conn, _cursor, statement, *_args) -> None:
        statements.append(statement)

    listen_url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(listen_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        event.listen(engine, "before_cursor_execute", note)
        try:
            version = game.add_round(SMALL_ROUND).json()["version"]
        finally:
            event.remove(engine, "before_cursor_execute", note)
        assert statements and not any("pg_notify" in s for s in statements)
        heard = [parse_notice(n.payload) for n in listener.notifies(timeout=10, stop_after=1)]
    assert heard == [(game.id, version, None, None)]


@postgres_only
def test_the_notifier_sends_again_after_losing_its_connection(client: TestClient, app: FastAPI, make_game, monkeypatch):
    monkeypatch.setattr(live_pg, "RECONNECT_DELAY_S", 0)  # what is tested is that it sends again, not when
    engine = app.state.engine
    game = make_game(rules={"target": 1000})
    admin_url = engine.url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    listen_url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(listen_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        version = game.add_round(SMALL_ROUND).json()["version"]
        # Heard: the notifier has connected and sent, so its connection's last statement is the pg_notify.
        assert [parse_notice(n.payload) for n in listener.notifies(timeout=10, stop_after=1)] == [
            (game.id, version, None, None)
        ]
        with psycopg.connect(admin_url, autocommit=True) as admin:
            killed = admin.execute(
                "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE datname = %s "
                "AND query LIKE '%%pg_notify%%' AND pid <> pg_backend_pid()",
                (engine.url.database,),
            ).fetchone()[0]
        assert killed >= 1, "the notifier's connection was not found"
        version = game.add_round(SMALL_ROUND).json()["version"]
        heard = [parse_notice(n.payload) for n in listener.notifies(timeout=30, stop_after=1)]
    assert heard == [(game.id, version, None, None)]


@postgres_only
def test_a_connection_idle_long_enough_is_checked_before_use(client: TestClient, app: FastAPI, monkeypatch):
    """A table's write has no retry of its own: the pool checks a connection that sat idle, so a dead
    one is replaced before the write meets it (connections in steady use are not checked)."""
    from app import db as database

    monkeypatch.setattr(database, "IDLE_PING_S", 0)
    engine = app.state.engine
    assert client.post(f"{API}/tables", json={"name": "Before"}).status_code == 201
    admin_url = engine.url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        killed = admin.execute(
            "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE datname = %s "
            "AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%%' AND query NOT LIKE '%%pg_notify%%'",
            (engine.url.database,),
        ).fetchone()[0]
    assert killed >= 1
    assert client.post(f"{API}/tables", json={"name": "After"}).status_code == 201


def _notify_through(app: FastAPI, scenario) -> tuple[object, list]:
    """Run `scenario(notifier)` with a notifier of its own on the test's database, listening meanwhile:
    what it answered, and the notices heard (within a bound)."""
    url = app.state.engine.url
    listen_url = url.set(drivername="postgresql").render_as_string(hide_password=False)

    async def run() -> object:
        notifier = PostgresNotifier(url.render_as_string(hide_password=False))
        await notifier.start()
        try:
            return await scenario(notifier)
        finally:
            await notifier.stop()

    with psycopg.connect(listen_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        answered = asyncio.run(run())
        heard = [parse_notice(n.payload) for n in listener.notifies(timeout=10, stop_after=1)]
    return answered, heard


class HeldSend:
    """The notifier's first statement from now on is held on its way (a slow or hung network) until
    the test lets it `go`: `on_its_way` is set when it is held, `done` when a statement has gone."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.on_its_way, self.go, self.done = asyncio.Event(), asyncio.Event(), asyncio.Event()
        execute, held = psycopg.AsyncConnection.execute, [False]

        async def hold_the_first(conn, *args, **kwargs):
            if not held[0]:
                held[0] = True
                self.on_its_way.set()
                await self.go.wait()
            result = await execute(conn, *args, **kwargs)
            self.done.set()
            return result

        monkeypatch.setattr(psycopg.AsyncConnection, "execute", hold_the_first)


@postgres_only
def test_the_notifier_waits_at_shutdown_for_a_batch_on_its_way(client: TestClient, app: FastAPI, monkeypatch):
    held = HeldSend(monkeypatch)

    async def scenario(notifier: PostgresNotifier) -> int:
        notifier.send("g1", 7)
        async with asyncio.timeout(10):
            await held.on_its_way.wait()  # taken from the queue, on its way
        # It arrives only once stop() has begun (this runs when stop() first waits): shutting down
        # now must wait for it, not drop it.
        asyncio.get_running_loop().call_soon(held.go.set)
        await notifier.stop()
        return notifier.sent

    sent, heard = _notify_through(app, scenario)
    assert (sent, heard) == (1, [("g1", 7, None, None)])


@postgres_only
def test_a_send_that_hangs_is_given_up_and_sent_again_on_a_new_connection(
    client: TestClient, app: FastAPI, monkeypatch, caplog
):
    # The first send hangs for good; the time allowed is the real cost of this test, so it is short (a
    # send that runs out of it on a loaded machine is only given up and sent again).
    monkeypatch.setattr(live_pg, "SEND_TIMEOUT_S", 0.1)
    monkeypatch.setattr(live_pg, "RECONNECT_DELAY_S", 0)
    held = HeldSend(monkeypatch)  # never let go

    async def scenario(notifier: PostgresNotifier) -> int:
        notifier.send("g1", 7)
        async with asyncio.timeout(10):
            await held.done.wait()  # sent, on the new connection
        await notifier.stop()  # (what it counted is final once it stops)
        return notifier.sent

    sent, heard = _notify_through(app, scenario)
    assert (sent, heard) == (1, [("g1", 7, None, None)])
    assert held.on_its_way.is_set() and not held.go.is_set()
    assert any("lost the PostgreSQL notifier's connection" in r.getMessage() for r in caplog.records)
