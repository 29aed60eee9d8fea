"""The tests' databases, paid for once: a template migrated once per run (per xdist worker), the worker's
shared database that in-process tests use (emptied before each test), and copies of the template for
tests that need a database of their own (a real server, a downgrade).

SQLite: the template is a migrated file, a copy is a copied file. PostgreSQL: the template is a migrated
database, a copy is `CREATE DATABASE … TEMPLATE` (PostgreSQL copies it file by file, no migration).
Emptying deletes every row of every table the migrations made (read from the database, so a table added
later is emptied too) and starts the ids again from 1, as in a new database.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy import make_url

from tests.helpers import create_pg_database, drop_pg_database, on_postgres, pg_connect
from tests.servers import migrated

KEPT = "alembic_version"  # the migrations' own record: an emptied database is still at the newest one


def make_template(directory: Path) -> str:
    """A migrated database nobody connects to again, except to copy it."""
    if on_postgres():
        return migrated(create_pg_database())
    return migrated(f"sqlite:///{directory / 'template.db'}")


def copy_of(template: str, directory: Path, name: str = "blitzboard.db") -> str:
    """A new database with the template's schema (and nothing else): `directory / name` on SQLite."""
    if on_postgres():
        return create_pg_database(template=_name(template))
    target = directory / name
    shutil.copyfile(make_url(template).database or "", target)
    return f"sqlite:///{target}"


def drop(url: str) -> None:
    if on_postgres():
        drop_pg_database(url)


def empty(url: str) -> None:
    """Every row of every table gone and the ids counting from 1 again; the schema stays (and on SQLite
    the server secret beside the file goes, as a new database has none)."""
    if on_postgres():
        with pg_connect(_name(url)) as connection:
            connection.execute("SET lock_timeout = '20s'")  # a connection a test left in a transaction: fail, not hang
            tables = [
                row[0]
                for row in connection.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> %s", (KEPT,)
                )
            ]
            sequences = [
                row[0]
                for row in connection.execute("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'")
            ]
            # DELETE, not TRUNCATE: a test's few rows go in about a tenth of the time (TRUNCATE makes each
            # table's files anew: 70-190 ms a test against 15-30). Foreign keys aren't checked meanwhile
            # (the replica role, which the tests' superuser may take), so the order doesn't matter.
            connection.execute("SET session_replication_role = replica")
            for table in tables:
                connection.execute(f'DELETE FROM "{table}"')
            for sequence in sequences:
                connection.execute(f'ALTER SEQUENCE "{sequence}" RESTART')
        return
    path = make_url(url).database or ""
    # The server secret made beside the database (app.sealing) goes too: the next app makes a new one.
    Path(f"{path}.secret").unlink(missing_ok=True)
    # Its own connection, outside the app's pool: foreign keys off (SQLite's default for a connection),
    # so the order of the deletes doesn't matter.
    connection = sqlite3.connect(path, timeout=20)
    try:
        connection.execute("PRAGMA synchronous = OFF")  # a test's database: no need to wait for the disk
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> ?",
                (KEPT,),
            )
        ]
        with connection:
            for table in tables:
                connection.execute(f'DELETE FROM "{table}"')
            if connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone():
                connection.execute("DELETE FROM sqlite_sequence")
    finally:
        connection.close()


def _name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")
