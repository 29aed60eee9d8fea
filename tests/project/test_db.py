"""The database: migrations that agree with the models, and SQLite set up for a server.

The migration tests run on whichever database the suite runs on; the SQLite set-up tests only on SQLite.

The write lock is the point of app.db: a write transaction takes SQLite's lock at BEGIN (BEGIN
IMMEDIATE), so concurrent writers queue on busy_timeout instead of failing with "database is
locked" when a deferred transaction tries to upgrade its read lock.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Column, Engine, Integer, MetaData, String, Table, inspect, text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, SQLModel, select

import app.db
from app.db import begin_write, make_engine
from app.migrations import alembic_config, at_head, current_revision, head_revision, upgrade
from app.models import CardTable, Game, Person, Player, Round

TABLES = {"game", "player", "round", "round_score", "idempotency_record", "card_table", "person", "game_result"}


def sqlite_path(url: str) -> str:
    return url.removeprefix("sqlite:///")


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """SQLite's own set-up is tested on a SQLite file in both passes (PostgreSQL locks the game's row)."""
    return f"sqlite:///{tmp_path / 'sqlite-setup.db'}"


@pytest.fixture
def sqlite_engine(sqlite_url: str) -> Iterator[Engine]:
    engine = make_engine(sqlite_url)
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    upgrade(engine)
    yield engine
    engine.dispose()


def schema_diff(engine: Engine, metadata: MetaData) -> list:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, metadata)
        if engine.dialect.name == "sqlite":
            diff = _inline_references(connection, diff)
        return diff


def _inline_references(connection, diff: list) -> list:
    """SQLite: a column added with ADD COLUMN ... REFERENCES (migration 0007: SQLite can't add a table
    constraint to an existing table) is reflected without its ON DELETE, so the comparison sees the
    foreign key removed and added back. Drop such a pair only when SQLite's own list of the table's
    foreign keys has exactly the model's ON DELETE."""
    kept = list(diff)
    for removed in [c for c in diff if isinstance(c, tuple) and c[0] == "remove_fk"]:
        fk = removed[1]
        columns = [c.name for c in fk.columns]
        added = next(
            (
                c
                for c in kept
                if isinstance(c, tuple)
                and c[0] == "add_fk"
                and c[1].table.name == fk.table.name
                and [x.name for x in c[1].columns] == columns
                and c[1].referred_table.name == fk.referred_table.name
            ),
            None,
        )
        if added is None or len(columns) != 1:
            continue
        rows = connection.exec_driver_sql(f"PRAGMA foreign_key_list({fk.table.name})").fetchall()
        on_delete = {row[3]: row[6] for row in rows}.get(columns[0])
        if on_delete == (added[1].ondelete or "NO ACTION").upper():
            kept.remove(removed)
            kept.remove(added)
    return kept


def downgrade(engine: Engine, revision: str) -> None:
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)


# --- migrations and models ---------------------------------------------------------------------------


def test_migrations_build_every_table_and_reach_head(engine: Engine):
    assert set(inspect(engine).get_table_names()) >= TABLES
    assert head_revision() is not None
    assert current_revision(engine) == head_revision()
    assert at_head(engine)


def test_migrated_schema_matches_the_models(engine: Engine):
    assert schema_diff(engine, SQLModel.metadata) == []


def test_the_schema_comparison_can_fail(engine: Engine):
    """The check above would notice a model the migrations forgot, or a column they got wrong."""
    extra_table = MetaData()
    for table in SQLModel.metadata.tables.values():
        table.to_metadata(extra_table)
    Table("jokers", extra_table, Column("id", Integer, primary_key=True))
    diff = schema_diff(engine, extra_table)
    assert any(change[0] == "add_table" and change[1].name == "jokers" for change in diff), diff

    extra_column = MetaData()
    for table in SQLModel.metadata.tables.values():
        copy = table.to_metadata(extra_column)
        if table.name == "player":
            copy.append_column(Column("colour", String(10), nullable=True))
    diff = schema_diff(engine, extra_column)
    assert any(change[0] == "add_column" and change[3].name == "colour" for change in diff), diff

    missing_table = MetaData()
    for table in SQLModel.metadata.tables.values():
        if table.name != "idempotency_record":
            table.to_metadata(missing_table)
    diff = schema_diff(engine, missing_table)
    assert any(change[0] == "remove_table" and change[1].name == "idempotency_record" for change in diff), diff


@pytest.fixture
def own_engine(server_database_url: str) -> Iterator[Engine]:
    """A migrated database nobody else uses (the downgrade drops every table)."""
    engine = make_engine(server_database_url)
    yield engine
    engine.dispose()


def test_downgrade_to_base_then_upgrade_again(own_engine: Engine):
    engine = own_engine
    downgrade(engine, "base")
    assert not TABLES & set(inspect(engine).get_table_names())
    assert current_revision(engine) is None

    upgrade(engine)
    assert at_head(engine)
    assert schema_diff(engine, SQLModel.metadata) == []
    # And the rebuilt database works.
    with Session(engine) as session:
        session.add(Game(id="g1", edit_key_hash="0" * 64))
        session.add(Player(game_id="g1", seat=0, name="Ana"))
        session.commit()
        assert session.exec(select(Player.name)).all() == ["Ana"]


def columns(engine: Engine, table: str) -> set[str]:
    return {column["name"] for column in inspect(engine).get_columns(table)}


def test_the_round_timer_migration_keeps_every_game_and_undoes_cleanly(own_engine: Engine):
    """0005 (the round timer) adds nullable columns: a game played before it reads as untimed, and a
    downgrade drops only those columns (never the games, players or rounds behind them)."""
    engine = own_engine
    upgrade(engine)
    downgrade(engine, "0004")  # a database as it was before the round timer
    assert "round_started_at" not in columns(engine, "game")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO game (id, name, version, edit_key_hash, target, dutch_points, blitz_points, tie_break,"
                " created_at, updated_at) VALUES ('old', 'Before', 2, :hash, 75, 1, -2, 'play_on', :now, :now)"
            ),
            {"hash": "0" * 64, "now": datetime(2026, 1, 1, tzinfo=UTC)},
        )
        connection.execute(text("INSERT INTO player (game_id, seat, name, starting_score) VALUES ('old', 0, 'Ana', 0)"))
        connection.execute(
            text("INSERT INTO round (game_id, created_at) VALUES ('old', :now)"),
            {"now": datetime(2026, 1, 1, tzinfo=UTC)},
        )

    upgrade(engine)
    assert at_head(engine)
    assert {"round_started_at"} <= columns(engine, "game")
    assert {"started_at", "duration_s"} <= columns(engine, "round")
    assert schema_diff(engine, SQLModel.metadata) == []
    with Session(engine) as session:
        game = session.get(Game, "old")
        assert game is not None and game.round_started_at is None and game.version == 2
        assert session.exec(select(Round.started_at, Round.duration_s)).all() == [(None, None)]
        game.round_started_at = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
        session.add(game)
        session.commit()

    downgrade(engine, "0004")
    assert "round_started_at" not in columns(engine, "game")
    assert not {"started_at", "duration_s"} & columns(engine, "round")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM player")).scalar() == 1
        assert connection.execute(text("SELECT count(*) FROM round")).scalar() == 1
        assert connection.execute(text("SELECT name FROM game")).scalar() == "Before"
    upgrade(engine)
    assert at_head(engine)


def test_the_game_kinds_migration_makes_every_old_game_dutch_blitz_and_undoes_cleanly(own_engine: Engine):
    """0006 (game kinds) adds the kind, preset and parameters with server defaults: a game stored
    before it is Dutch Blitz with the official rules, its rounds card counts as they were."""
    from app.games.views import load_view

    engine = own_engine
    upgrade(engine)
    downgrade(engine, "0005")
    assert "kind" not in columns(engine, "game") and "hand" not in columns(engine, "round_score")
    now = datetime(2026, 1, 1, tzinfo=UTC)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO game (id, name, version, edit_key_hash, target, dutch_points, blitz_points, tie_break,"
                " created_at, updated_at) VALUES ('old', 'Before', 2, :hash, 50, 1, -2, 'play_on', :now, :now)"
            ),
            {"hash": "0" * 64, "now": now},
        )
        for seat, name in enumerate(("Ana", "Ben")):
            connection.execute(
                text(
                    "INSERT INTO player (id, game_id, seat, name, starting_score) VALUES (:id, 'old', :seat, :name, 0)"
                ),
                {"id": seat + 1, "seat": seat, "name": name},
            )
        connection.execute(text("INSERT INTO round (id, game_id, created_at) VALUES (1, 'old', :now)"), {"now": now})
        connection.execute(
            text("INSERT INTO round_score (round_id, player_id, dutch, blitz) VALUES (1, 1, 30, 0), (1, 2, 12, 4)")
        )

    upgrade(engine)
    assert at_head(engine)
    assert schema_diff(engine, SQLModel.metadata) == []
    with Session(engine) as session:
        game = session.get(Game, "old")
        assert game is not None
        assert (game.kind, game.preset, game.pile_size, game.deck_size, game.must_go_out) == (
            "cards",
            "dutch_blitz",
            10,
            40,
            True,
        )
        assert (game.end_by, game.round_limit, game.lives, game.county) == ("target", 10, 3, True)
        view = load_view(session, game)
        assert view.public()["rules"] == {
            "kind": "cards",
            "preset": "dutch_blitz",
            "target": 50,
            "dutch_points": 1,
            "blitz_points": -2,
            "tie_break": "play_on",
            "pile_size": 10,
            "deck_size": 40,
            "must_go_out": True,
            "end": "target",
            "rounds": 10,
            "win": "highest_total",
        }
        assert view.state.totals == {1: 30, 2: 4}
        assert session.exec(text("SELECT hand, called FROM round_score ORDER BY player_id")).all() == [
            (None, False),
            (None, False),
        ]

    downgrade(engine, "0005")
    assert not {"kind", "preset", "lives", "county"} & columns(engine, "game")
    assert not {"hand", "called"} & columns(engine, "round_score")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM round_score")).scalar() == 2
        assert connection.execute(text("SELECT target FROM game")).scalar() == 50
    upgrade(engine)
    assert at_head(engine)


def test_the_game_kinds_migration_will_not_undo_over_a_game_of_another_kind(own_engine: Engine):
    """A database before 0006 knows only Dutch Blitz: downgrading would turn a game of 31 into one and
    lose its hands, so the downgrade refuses and changes nothing."""
    engine = own_engine
    upgrade(engine)
    with Session(engine) as session:
        session.add(Game(id="g31", edit_key_hash="0" * 64, kind="lives", preset="thirty_one"))
        session.commit()
    with pytest.raises(RuntimeError, match="not Dutch Blitz"):
        downgrade(engine, "0005")
    assert at_head(engine)
    assert {"kind", "lives"} <= columns(engine, "game")


def test_tables_come_and_go_without_touching_the_games(own_engine: Engine):
    """0007 (tables) adds the tables and two nullable references: a game stored before belongs to no
    table; going back to 0006 keeps every game, a game played at a table as a game of its own."""
    engine = own_engine
    downgrade(engine, "0006")
    assert "card_table" not in inspect(engine).get_table_names()
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO game (id, name, version, edit_key_hash, target, dutch_points, "
                "blitz_points, tie_break, created_at, updated_at) VALUES ('old', 'Before', 1, "
                "'" + "0" * 64 + "', 75, 1, -2, 'play_on', '2026-11-01 20:00:00+00:00', "
                "'2026-11-01 20:00:00+00:00')"
            )
        )
        connection.execute(text("INSERT INTO player (game_id, seat, name, starting_score) VALUES ('old', 0, 'Ana', 0)"))
    upgrade(engine)
    assert at_head(engine)
    assert schema_diff(engine, SQLModel.metadata) == []
    with Session(engine) as session:
        old = session.get(Game, "old")
        assert old is not None and old.table_id is None
        assert session.exec(select(Player.person_id).where(Player.game_id == "old")).all() == [None]
        table = CardTable(id="t1", name="Millers", edit_key_hash="0" * 64)
        session.add(table)
        session.flush()
        person = Person(table_id="t1", name="Ana", name_key="ana")
        session.add(person)
        session.flush()
        session.add(Game(id="new", edit_key_hash="0" * 64, table_id="t1"))
        session.flush()
        session.add(Player(game_id="new", seat=0, name="Ana", person_id=person.id))
        session.commit()
    downgrade(engine, "0006")
    with engine.connect() as connection:
        assert sorted(connection.execute(text("SELECT game_id, name FROM player")).all()) == [
            ("new", "Ana"),
            ("old", "Ana"),
        ]
    assert "table_id" not in columns(engine, "game") and "person_id" not in columns(engine, "player")
    upgrade(engine)
    assert at_head(engine)


def test_every_foreign_key_a_deletion_follows_is_indexed(engine: Engine):
    """Deleting a row makes the database look up the rows that refer to it (SQLite does it for every row
    deleted, to cascade or refuse): without an index whose first column is the reference, a scan of the
    referring table each time. round_score.player_id and game_result.player_id had none before 0008."""
    inspector = inspect(engine)
    unindexed = []
    for table in SQLModel.metadata.sorted_tables:
        leading = {tuple(index["column_names"][:1]) for index in inspector.get_indexes(table.name)}
        leading.add(tuple(inspector.get_pk_constraint(table.name)["constrained_columns"][:1]))
        leading |= {  # a unique constraint is an index too (PostgreSQL reports it as a constraint)
            tuple(unique["column_names"][:1]) for unique in inspector.get_unique_constraints(table.name)
        }
        for fk in table.foreign_keys:
            if (fk.parent.name,) not in leading:
                unindexed.append(f"{table.name}.{fk.parent.name}")
    assert unindexed == []


def _record(connection, scope: str, key: str, snapshot: bytes) -> None:
    connection.execute(
        text(
            "INSERT INTO idempotency_record (scope, key, request_mac, operation, status_code, version, snapshot,"
            " created_at) VALUES (:scope, :key, 'mac', 'create', 201, 1, :snapshot, :now)"
        ),
        {"scope": scope, "key": key, "snapshot": snapshot, "now": datetime(2026, 1, 1, tzinfo=UTC)},
    )


def test_the_deletion_indexes_migration_finds_each_replay_records_game_and_undoes_cleanly(own_engine: Engine):
    """0008 indexes the references a deletion follows and gives each replay record its game: a game's
    writes from their scope, its creation's and import's from their snapshots; a table's records, and one
    whose snapshot does not read, none. Going back to 0007 keeps every record."""
    from app.games.removal import remove_games

    def snapshot(**data: object) -> bytes:
        return zlib.compress(json.dumps(data).encode())

    engine = own_engine
    downgrade(engine, "0007")
    assert "game_id" not in columns(engine, "idempotency_record")
    with engine.begin() as connection:
        for game_id in ("old", "imported", "kept"):
            connection.execute(
                text(
                    "INSERT INTO game (id, name, version, edit_key_hash, target, dutch_points, blitz_points,"
                    " tie_break, created_at, updated_at) VALUES (:id, '', 2, :hash, 75, 1, -2, 'play_on', :now, :now)"
                ),
                {"id": game_id, "hash": "0" * 64, "now": datetime(2026, 1, 1, tzinfo=UTC)},
            )
        _record(connection, "old", "write", snapshot(id="old"))
        _record(connection, "new-game", "created", snapshot(id="old", name=""))
        _record(connection, "import-game", "imported", snapshot(id="imported"))
        _record(connection, "new-game", "created-kept", snapshot(id="kept"))
        _record(connection, "new-game", "unreadable", b"not a snapshot")
        _record(connection, "new-table", "table", snapshot(id="t1", name="Millers"))  # a table's answer
        _record(connection, "t:t1", "table-write", snapshot(id="t1"))

    upgrade(engine)
    assert at_head(engine)
    assert schema_diff(engine, SQLModel.metadata) == []
    indexes = {
        table: {tuple(i["column_names"]) for i in inspect(engine).get_indexes(table)}
        for table in ("round_score", "game_result", "idempotency_record")
    }
    assert ("player_id",) in indexes["round_score"] and ("player_id",) in indexes["game_result"]
    assert ("game_id",) in indexes["idempotency_record"]
    with engine.connect() as connection:
        found = dict(connection.execute(text("SELECT key, game_id FROM idempotency_record")).all())
    assert found == {
        "write": "old",
        "created": "old",
        "imported": "imported",
        "created-kept": "kept",
        "unreadable": None,
        "table": None,
        "table-write": None,
    }
    with Session(engine) as session:
        remove_games(session, ["old", "imported"])
        session.commit()
    with engine.connect() as connection:
        left = set(connection.execute(text("SELECT key FROM idempotency_record")).scalars())
    assert left == {"created-kept", "unreadable", "table", "table-write"}

    downgrade(engine, "0007")
    assert "game_id" not in columns(engine, "idempotency_record")
    assert ("player_id",) not in {tuple(i["column_names"]) for i in inspect(engine).get_indexes("round_score")}
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM idempotency_record")).scalar() == 4
    upgrade(engine)
    assert at_head(engine)


def test_upgrade_twice_is_harmless(engine: Engine):
    upgrade(engine)
    assert at_head(engine)


# --- SQLite set up for a server --------------------------------------------------------------------


def test_sqlite_pragmas(sqlite_engine: Engine):
    with sqlite_engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000


def test_every_pooled_connection_gets_the_pragmas(sqlite_engine: Engine):
    connections = [sqlite_engine.connect() for _ in range(3)]
    try:
        for connection in connections:
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000
    finally:
        for connection in connections:
            connection.close()


def test_foreign_keys_are_enforced(engine: Engine):
    with Session(engine) as session:
        session.add(Player(game_id="no-such-game", seat=0, name="Ghost"))
        with pytest.raises(IntegrityError):
            session.commit()


def test_deleting_a_game_deletes_its_players(engine: Engine):
    with Session(engine) as session:
        session.add(Game(id="g1", edit_key_hash="0" * 64))
        session.add(Player(game_id="g1", seat=0, name="Ana"))
        session.commit()
        session.connection().exec_driver_sql("DELETE FROM game WHERE id = 'g1'")
        session.commit()
        assert session.exec(select(Player)).all() == []


def _try_begin_immediate(path: str) -> str | None:
    """None when another connection could take the write lock right now, else SQLite's error."""
    probe = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
        return None
    except sqlite3.OperationalError as error:
        return str(error)
    finally:
        probe.close()


def test_begin_write_takes_the_write_lock_at_once(sqlite_engine: Engine, sqlite_url: str):
    path = sqlite_path(sqlite_url)
    assert _try_begin_immediate(path) is None
    with Session(sqlite_engine) as session:
        begin_write(session)
        # Nothing written yet, and the lock is already held: BEGIN IMMEDIATE, not a deferred BEGIN.
        assert "database is locked" in (_try_begin_immediate(path) or "")
        session.rollback()
    assert _try_begin_immediate(path) is None


def test_a_read_transaction_takes_no_write_lock(sqlite_engine: Engine, sqlite_url: str):
    """The probe above can tell the difference: an ordinary transaction that reads leaves writers free."""
    path = sqlite_path(sqlite_url)
    with Session(sqlite_engine) as session:
        session.exec(select(Game)).all()
        assert session.in_transaction()
        assert _try_begin_immediate(path) is None
        session.rollback()


def test_a_second_writer_waits_for_the_first(sqlite_engine: Engine):
    entered = threading.Event()
    outcome: dict[str, object] = {}

    def second_writer() -> None:
        with Session(sqlite_engine) as session:
            entered.set()
            try:
                begin_write(session)
                session.add(Game(id="second", edit_key_hash="2" * 64))
                session.commit()
                outcome["result"] = "committed"
            except Exception as error:  # reported to the main thread
                outcome["result"] = error

    with Session(sqlite_engine) as first:
        begin_write(first)
        worker = threading.Thread(target=second_writer, daemon=True)
        worker.start()
        assert entered.wait(10)
        worker.join(0.5)
        assert worker.is_alive(), f"the second writer did not wait: {outcome}"
        first.add(Game(id="first", edit_key_hash="1" * 64))
        first.commit()
    worker.join(30)
    assert not worker.is_alive()
    assert outcome["result"] == "committed"
    with Session(sqlite_engine) as session:
        assert sorted(session.exec(select(Game.id)).all()) == ["first", "second"]


def test_a_writer_gives_up_with_locked_only_after_the_busy_timeout(sqlite_url: str, monkeypatch):
    monkeypatch.setattr(app.db, "SQLITE_BUSY_TIMEOUT_MS", 200)
    engine = make_engine(sqlite_url)
    try:
        upgrade(engine)
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 200
        with Session(engine) as first, Session(engine) as second:
            begin_write(first)
            started = time.monotonic()
            # Released only by the timeout: the second writer fails, as SQLite says, with "locked"...
            with pytest.raises(OperationalError, match="database is locked"):
                begin_write(second)
            # ...and not before it had waited (a lower bound only: a slow machine can only wait longer).
            assert time.monotonic() - started >= 0.15
            second.rollback()
            first.rollback()
    finally:
        engine.dispose()


def test_loading_games_costs_three_queries_however_many_games_and_rounds(client, make_game, app):
    from sqlalchemy import event
    from sqlmodel import Session, select

    from app.games.views import load_view, load_views

    handles = [make_game() for _ in range(4)]
    for handle in handles[:3]:
        for _ in range(3):
            assert handle.add_round([(5, 0), (3, 2), (1, 4), (2, 1)]).status_code == 201
    engine = app.state.engine
    statements: list[str] = []

    def count(conn, cursor, statement, *args):
        statements.append(statement)

    with Session(engine) as session:
        games = list(session.exec(select(Game).where(Game.id.in_([h.id for h in handles]))))
        event.listen(engine, "before_cursor_execute", count)
        try:
            views = load_views(session, games)
        finally:
            event.remove(engine, "before_cursor_execute", count)
        assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 3
        # ...and each view is what loading that game alone gives.
        for game, view in zip(games, views, strict=True):
            alone = load_view(session, game)
            assert view.public() == alone.public()
            assert view.round_ids == alone.round_ids
        assert sorted(len(v.round_ids) for v in views) == [0, 3, 3, 3]


def test_a_database_at_0003_upgrades_and_its_games_still_read_and_log_their_changes(own_engine: Engine, tmp_path):
    """The correction log (0004) is a table of its own: games made before it keep working, with no changes."""
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app

    engine = own_engine
    downgrade(engine, "0003")
    assert "round_change" not in inspect(engine).get_table_names()
    # A game as the app before the log wrote it: the 0003 columns only, by hand.
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO game (id, name, version, edit_key_hash, target, dutch_points, blitz_points, tie_break,"
            " created_at, updated_at) VALUES ('old1', 'Before', 2, '"
            + "0" * 64
            + "', 75, 1, -2, 'play_on', '2026-11-01 20:00:00+00:00', '2026-11-01 20:05:00+00:00')"
        )
        for seat, name in enumerate(("Ana", "Ben")):
            connection.exec_driver_sql(
                f"INSERT INTO player (id, game_id, seat, name, starting_score) VALUES ({seat + 1}, 'old1', {seat},"
                f" '{name}', 0)"
            )
        connection.exec_driver_sql(
            "INSERT INTO round (id, game_id, created_at) VALUES (1, 'old1', '2026-11-01 20:05:00+00:00')"
        )
        connection.exec_driver_sql("INSERT INTO round_score (round_id, player_id, dutch, blitz) VALUES (1, 1, 5, 0)")
        connection.exec_driver_sql("INSERT INTO round_score (round_id, player_id, dutch, blitz) VALUES (1, 2, 3, 2)")

    upgrade(engine)
    assert at_head(engine)
    assert schema_diff(engine, SQLModel.metadata) == []
    app = create_app(Settings(database_url=str(engine.url.render_as_string(hide_password=False)), _env_file=None))
    try:
        with TestClient(app) as client:
            game = client.get("/api/v1/games/old1")
            assert game.status_code == 200, game.text
            body = game.json()
            assert body["name"] == "Before" and [p["total"] for p in body["players"]] == [5, -1]
            assert client.get("/api/v1/games/old1/changes").json() == []
    finally:
        app.state.engine.dispose()


def test_the_leavers_migration_adds_a_column_every_player_starts_without_and_undoes_cleanly(own_engine: Engine):
    """0009: `player.left_after_round_id`, NULL for the players there already (they all play); going back to
    0008 drops it and keeps every player."""
    engine = own_engine
    downgrade(engine, "0008")
    assert "left_after_round_id" not in columns(engine, "player")
    _an_old_game_of_two(engine)
    upgrade(engine)
    assert at_head(engine)
    assert schema_diff(engine, SQLModel.metadata) == []
    with engine.connect() as connection:
        assert connection.execute(text("SELECT left_after_round_id FROM player")).scalars().all() == [None, None]
        connection.execute(text("UPDATE player SET left_after_round_id = 0 WHERE name = 'Ben'"))
        connection.commit()
    downgrade(engine, "0008")
    assert "left_after_round_id" not in columns(engine, "player")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM player")).scalar() == 2
    upgrade(engine)
    assert at_head(engine)


def test_the_latecomers_migration_adds_a_column_every_player_starts_without_and_undoes_cleanly(own_engine: Engine):
    """0010: `player.joined_after_round_id`, NULL for the players there already (all from the start); going back
    to 0009 drops it and keeps every player."""
    engine = own_engine
    downgrade(engine, "0009")
    assert "joined_after_round_id" not in columns(engine, "player")
    _an_old_game_of_two(engine)
    upgrade(engine)
    assert at_head(engine)
    assert schema_diff(engine, SQLModel.metadata) == []
    with engine.connect() as connection:
        assert connection.execute(text("SELECT joined_after_round_id FROM player")).scalars().all() == [None, None]
        connection.execute(text("UPDATE player SET joined_after_round_id = 0 WHERE name = 'Ben'"))
        connection.commit()
    downgrade(engine, "0009")
    assert "joined_after_round_id" not in columns(engine, "player")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM player")).scalar() == 2
    upgrade(engine)
    assert at_head(engine)


def test_the_seats_migration_adds_two_tables_and_undoes_cleanly(own_engine: Engine):
    """0011: `seat` and `draft_row`, empty for the games there already; going back to 0010 drops both and keeps
    every game and player."""
    engine = own_engine
    downgrade(engine, "0010")
    assert "seat" not in inspect(engine).get_table_names()
    upgrade(engine)
    assert at_head(engine)
    assert {"seat", "draft_row"} <= set(inspect(engine).get_table_names())
    assert schema_diff(engine, SQLModel.metadata) == []
    downgrade(engine, "0010")
    assert not {"seat", "draft_row"} & set(inspect(engine).get_table_names())
    upgrade(engine)
    assert at_head(engine)


def test_the_seat_settings_migration_adds_columns_off_and_empty_and_undoes_cleanly(own_engine: Engine):
    """0012: `game.seats_save_round` and `game.seats_on_view` off, `round.piles` NULL for what is there
    already; going back to 0011 drops the three and keeps every game and round."""
    engine = own_engine
    downgrade(engine, "0011")
    assert "seats_on_view" not in columns(engine, "game")
    assert "piles" not in columns(engine, "round")
    _an_old_game_of_two(engine)
    with engine.begin() as connection:
        connection.execute(
            text("INSERT INTO round (game_id, created_at) VALUES ('old', :now)"),
            {"now": datetime(2026, 1, 1, tzinfo=UTC)},
        )
    upgrade(engine)
    assert at_head(engine)
    assert schema_diff(engine, SQLModel.metadata) == []
    with engine.connect() as connection:
        assert connection.execute(text("SELECT seats_save_round, seats_on_view FROM game")).one() == (False, False)
        assert connection.execute(text("SELECT piles FROM round")).scalars().all() == [None]
    downgrade(engine, "0011")
    assert "seats_save_round" not in columns(engine, "game")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM round")).scalar() == 1
    upgrade(engine)
    assert at_head(engine)


def test_the_half_hands_migration_adds_the_rule_off_and_whole_hands_and_undoes_cleanly(own_engine: Engine):
    """0013: `game.thirty_and_a_half` off, `round_score.half` and `draft_row.half` false for what is there
    already; going back to 0012 drops the three and keeps every game, round and hand (a 30½ as its 30)."""
    engine = own_engine
    downgrade(engine, "0012")
    assert "thirty_and_a_half" not in columns(engine, "game")
    assert "half" not in columns(engine, "round_score") | columns(engine, "draft_row")
    _an_old_game_of_two(engine)
    with engine.begin() as connection:
        connection.execute(
            text("INSERT INTO round (game_id, created_at) VALUES ('old', :now)"),
            {"now": datetime(2026, 1, 1, tzinfo=UTC)},
        )
        connection.execute(
            text(
                "INSERT INTO round_score (round_id, player_id, dutch, blitz, hand, called)"
                " SELECT round.id, player.id, 0, 0, 30, false FROM round, player"
            )
        )
    upgrade(engine)
    assert at_head(engine)
    assert schema_diff(engine, SQLModel.metadata) == []
    with engine.connect() as connection:
        assert connection.execute(text("SELECT thirty_and_a_half FROM game")).one() == (False,)
        assert connection.execute(text("SELECT hand, half FROM round_score")).all() == [(30, False), (30, False)]
        connection.execute(text("UPDATE round_score SET half = true WHERE player_id = (SELECT min(id) FROM player)"))
        connection.commit()
    downgrade(engine, "0012")
    assert "half" not in columns(engine, "round_score")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT hand FROM round_score")).scalars().all() == [30, 30]
    upgrade(engine)
    assert at_head(engine)


def test_the_win_rule_migration_decides_every_old_game_by_the_highest_total_and_undoes_cleanly(own_engine: Engine):
    """0014: `game.win_rule` is highest_total for every game there already (as they were decided); going back
    to 0013 drops it and keeps every game."""
    engine = own_engine
    downgrade(engine, "0013")
    assert "win_rule" not in columns(engine, "game")
    _an_old_game_of_two(engine)
    upgrade(engine)
    assert at_head(engine)
    assert schema_diff(engine, SQLModel.metadata) == []
    with engine.connect() as connection:
        assert connection.execute(text("SELECT win_rule FROM game")).one() == ("highest_total",)
        connection.execute(text("UPDATE game SET win_rule = 'first_to_target'"))
        connection.commit()
    downgrade(engine, "0013")
    assert "win_rule" not in columns(engine, "game")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT id FROM game")).scalars().all() == ["old"]
    upgrade(engine)
    assert at_head(engine)


def _an_old_game_of_two(engine: Engine) -> None:
    """A game of Ana and Ben, written as a release before the players' later columns wrote it."""
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO game (id, name, version, edit_key_hash, target, dutch_points, blitz_points,"
                " tie_break, created_at, updated_at) VALUES ('old', '', 1, :hash, 75, 1, -2, 'play_on', :now, :now)"
            ),
            {"hash": "0" * 64, "now": datetime(2026, 1, 1, tzinfo=UTC)},
        )
        for seat, name in enumerate(("Ana", "Ben")):
            connection.execute(
                text("INSERT INTO player (game_id, seat, name, starting_score) VALUES ('old', :seat, :name, 0)"),
                {"seat": seat, "name": name},
            )
