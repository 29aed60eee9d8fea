"""`blitzboard backup` and `blitzboard prune`: the work behind the operator's commands (app/cli.py parses).

Backup, on SQLite: SQLite's online backup API (`sqlite3.Connection.backup`) copies the live database
in one read transaction, so the copy is one consistent moment of it, WAL included, while the server
goes on writing (readers never block the writer in WAL mode). A file copy would miss what is still
in the WAL, or catch a half-written checkpoint. The copy is checked (`quick_check`, the migration it
is at, its games counted), switched to a plain rollback journal so it is one self-contained file,
written under a temporary name in the target's directory, synced, and only then given its name:
there is never a half-written backup under PATH. An existing PATH is replaced only with `--force`.

On PostgreSQL it does not dump anything itself: `pg_dump` is the tool, and the command prints the
line to run for the configured database, without its password.

The server secret (app/sealing.py) is not in the database, and a restored database needs it for the
replays of requests in flight: the command says where it is, and `--with-secret` copies the secret
file beside the backup as PATH.secret (mode 0600), the name the restored database's default secret
file has when the backup is put back under its own name. The file copied is the one the server uses
(BLITZBOARD_SECRET_FILE when set). Kept together, the two can forge handover links, so the command
only copies it when asked (docs/security.md, "The server secret").

Prune: a game nobody has changed for DAYS days goes, with its players, rounds, round scores and
replay records. "Changed" is `game.updated_at`, which every write bumps (app/games/writes.py) and
creation sets: a finished game and an abandoned one both simply stop changing, so there is no
separate "finished" test (a finished game can still be corrected, and that counts as a change).
It runs beside a live server: the games are deleted PRUNE_BATCH (20) at a time, each batch one short write
transaction whose every statement finds its rows by index (app.games.removal), and on SQLite the write
lock stays free for a moment between batches, so the server's saves wait for one batch at most.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import func, inspect
from sqlalchemy.engine import URL, make_url
from sqlmodel import Session, select

from app.config import Settings
from app.db import make_engine, write_transaction
from app.games.removal import remove_games
from app.migrations import head_revision
from app.models import Game, utcnow
from app.sealing import default_secret_file

MAX_DAYS = 36_500
# Games per write transaction. A batch holds SQLite's write lock (on PostgreSQL, its games' rows) while it
# deletes, and every save waiting meanwhile waits for all of it: 20 games of 5-30 rounds of 4-8 players
# (some 2,000 round scores) take about as long as a save or two under load, some tens of milliseconds
# (bench/prune.py: a batch of 50 took 68 ms, one of 10, 21 ms, on a busy 2-core machine; one of 500, most
# of a second). Smaller batches buy little more: each costs some 10 ms of its own.
PRUNE_BATCH = 20
# On SQLite, the pause after a batch: a save that waited for the lock sleeps in SQLite's busy handler in
# naps of up to 100 ms, and wakes to find the lock free only if the next batch has not taken it yet.
PRUNE_PAUSE_S = 0.1


class MaintenanceError(Exception):
    """A maintenance command that can't do what it was asked; the message is the one line to show."""


# --- backup -------------------------------------------------------------------------------------


def backup(
    settings: Settings,
    path: Path,
    *,
    force: bool = False,
    with_secret: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> str:
    """Back up the configured database to `path` (SQLite), or say how (PostgreSQL); the line to print."""
    url = make_url(settings.database_url)
    on_sqlite = url.get_backend_name() == "sqlite"
    secret_target = Path(f"{path}.secret")
    secret_source, secret_note = _secret(settings, secret_target if with_secret else None)
    # On PostgreSQL PATH is pg_dump's to write; only PATH.secret is ours.
    for target in [*([path] if on_sqlite else []), *([secret_target] if with_secret else [])]:
        if target.is_dir():
            raise MaintenanceError(f"{target} is a directory")
        if not target.parent.is_dir():
            raise MaintenanceError(f"there is no directory {target.parent}")
        if target.exists() and not force:
            raise MaintenanceError(f"{target} exists: pass --force to replace it")

    if on_sqlite:
        line = _backup_sqlite(_sqlite_file(url), path, settings.sqlite_busy_timeout_ms, force=force)
    else:
        line = pg_dump_line(url, path, environ)
    if secret_source is not None:
        _write_atomically(secret_target, secret_source.read_bytes(), force=force)
    # One line either way; on PostgreSQL the note is a shell comment, so the line can be pasted as it is.
    return f"{line}; {secret_note}" if on_sqlite else f"{line}  # {secret_note}"


def _secret(settings: Settings, copy_to: Path | None) -> tuple[Path | None, str]:
    """The secret file to copy (None: nothing to copy) and what to say about the server secret."""
    if settings.secret_key.get_secret_value():
        if copy_to is not None:
            raise MaintenanceError(
                "the server secret is BLITZBOARD_SECRET_KEY, not a file: nothing for --with-secret to copy "
                "(keep that setting with the backup)"
            )
        return None, "the server secret is BLITZBOARD_SECRET_KEY: keep it with the backup"
    where = Path(settings.secret_file) if settings.secret_file else default_secret_file(settings.database_url)
    if where is None:
        raise MaintenanceError("an in-memory database has nothing to back up")
    where = where.absolute()
    if not where.is_file():
        if copy_to is not None:
            raise MaintenanceError(f"there is no server secret file at {where} to copy")
        return None, f"no server secret file at {where} yet (the server makes it when it first starts)"
    if copy_to is None:
        # Apart: a copy of the database and its secret together can forge handover links (docs/security.md).
        return None, f"server secret not copied: keep {where} apart from the backup (or pass --with-secret)"
    return where, f"server secret copied to {copy_to} (mode 0600)"


def _sqlite_file(url: URL) -> Path:
    database = url.database or ""
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        raise MaintenanceError("an in-memory database has nothing to back up")
    source = Path(database)
    if not source.is_file():  # sqlite3.connect would make an empty one
        raise MaintenanceError(f"there is no database at {source.absolute()}")
    return source


def _backup_sqlite(source: Path, target: Path, busy_timeout_ms: int, *, force: bool) -> str:
    if target.exists() and target.resolve() == source.resolve():
        raise MaintenanceError(f"{target} is the live database itself")
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")  # 0600
    os.close(fd)
    temporary = Path(name)
    try:
        live = sqlite3.connect(source, timeout=busy_timeout_ms / 1000, isolation_level=None)
        copy = sqlite3.connect(temporary, isolation_level=None)
        try:
            try:
                live.backup(copy)  # all pages in one step: one read transaction, one moment of the database
            except sqlite3.Error as error:
                raise MaintenanceError(f"can't read {source} ({error})") from None
            try:
                checked = copy.execute("PRAGMA quick_check").fetchone()[0]
                revision = copy.execute("SELECT version_num FROM alembic_version").fetchone()
                games = copy.execute("SELECT count(*) FROM game").fetchone()[0]
            except sqlite3.DatabaseError as error:
                raise MaintenanceError(f"{source} is not a Blitzboard database ({error})") from None
            if checked != "ok":
                raise MaintenanceError(f"{source} fails SQLite's quick_check ({checked}): no backup written")
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
        finally:
            copy.close()
            live.close()
        with temporary.open("rb+") as file:
            os.fsync(file.fileno())
        size = temporary.stat().st_size
        _place(temporary, target, force=force)
    finally:
        temporary.unlink(missing_ok=True)
    at = revision[0] if revision else "no migration"
    return f"wrote {target}: {games} game{'' if games == 1 else 's'}, {size} bytes (SQLite, migration {at})"


def _write_atomically(target: Path, data: bytes, *, force: bool) -> None:
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")  # 0600
    temporary = Path(name)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        _place(temporary, target, force=force)
    finally:
        temporary.unlink(missing_ok=True)


def _place(temporary: Path, target: Path, *, force: bool) -> None:
    """Give a finished, synced temporary file its name. Without `force` a hard link, which fails when
    the name exists (also one that appeared since the check), instead of a rename that replaces it."""
    if force:
        os.replace(temporary, target)
    else:
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise MaintenanceError(f"{target} exists: pass --force to replace it") from None
        except OSError:  # a file system without hard links
            if target.exists():
                raise MaintenanceError(f"{target} exists: pass --force to replace it") from None
            os.replace(temporary, target)
    directory = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(directory)  # the new name itself survives a power cut
    finally:
        os.close(directory)


def pg_dump_line(url: URL, path: Path, environ: Mapping[str, str]) -> str:
    """The pg_dump command for a PostgreSQL URL, never with its password: a placeholder in PGPASSWORD,
    or nothing when PGPASSWORD already holds it (pg_dump reads it from there)."""
    query = {name: value for name, value in url.query.items() if name != "password"}  # libpq reads one there too
    password = url.password or url.query.get("password")
    # libpq's own URI: no SQLAlchemy driver name (postgresql+psycopg), no password.
    # (Built anew: URL.set(password=None) would keep the password, None meaning "unchanged" there.)
    bare = URL.create(
        "postgresql", username=url.username, host=url.host, port=url.port, database=url.database, query=query
    )
    uri = bare.render_as_string(hide_password=False)
    prefix = ""
    if password and environ.get("PGPASSWORD") != str(password):
        prefix = "PGPASSWORD='<password>' "
    return f"{prefix}pg_dump --format=custom --file={shlex.quote(str(path))} {shlex.quote(uri)}"


# --- prune --------------------------------------------------------------------------------------


def prune(settings: Settings, days: int, *, dry_run: bool = False, batch_size: int = PRUNE_BATCH) -> str:
    """Delete the games nobody has changed for `days` days (or count them), `batch_size` games a
    transaction; the line to print."""
    if not 1 <= days <= MAX_DAYS:
        raise MaintenanceError(f"--older-than takes 1 to {MAX_DAYS} days, not {days}")
    cutoff = utcnow() - timedelta(days=days)
    engine = make_engine(
        settings.database_url,
        synchronous=settings.sqlite_synchronous,
        busy_timeout_ms=settings.sqlite_busy_timeout_ms,
    )
    try:
        with Session(engine) as session:
            _check_migrated(session)
            if dry_run:
                count = session.exec(select(func.count()).select_from(Game).where(Game.updated_at < cutoff)).one()
            else:
                count = _delete_games_before(session, cutoff, batch_size)
    finally:
        engine.dispose()
    games = f"{count} game{'' if count == 1 else 's'}"
    since = f"not changed for {days} day{'' if days == 1 else 's'} (since {cutoff:%Y-%m-%d %H:%M} UTC)"
    if dry_run:
        return f"would delete {games} {since} (dry run: nothing deleted)"
    return f"deleted {games} {since}, with their players, rounds and replay records"


def _check_migrated(session: Session) -> None:
    head = head_revision()
    connection = session.connection()
    current = None
    if inspect(connection).has_table("alembic_version"):
        current = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    session.rollback()
    if current != head:
        raise MaintenanceError(
            f"the database is at migration {current or '(none)'}, not {head}: run `blitzboard migrate` first"
        )


@dataclass(frozen=True, slots=True)
class _Batch:
    deleted: int
    replayed: bool = False  # a batch is never a replay: app.db.write_transaction commits it


def _aged(session: Session, cutoff: datetime, after: str, size: int) -> list[str]:
    """The next `size` games (by id, past `after`) not changed since `cutoff`: read outside the write lock
    (a SQLite reader never waits for a writer), so a batch's lock is held for its own games alone, however
    large the table. Ids only ever move forward, so the whole prune reads the table once."""
    ids = list(
        session.exec(select(Game.id).where(Game.updated_at < cutoff, Game.id > after).order_by(Game.id).limit(size))
    )
    session.rollback()
    return ids


def _delete_games_before(session: Session, cutoff: datetime, batch_size: int = PRUNE_BATCH) -> int:
    """Delete old games in batches, each one write transaction on the skeleton every write shares
    (app.db.write_transaction: BEGIN IMMEDIATE on SQLite; on PostgreSQL the games' rows locked), with every
    row they own (app.games.removal). Each batch looks again at its games under the lock: one a save
    changed since they were read is kept. Between batches the write lock is free, and on SQLite it stays
    free for PRUNE_PAUSE_S so the server's waiting saves get in."""
    pause = PRUNE_PAUSE_S if session.get_bind().dialect.name == "sqlite" else 0.0

    def batch(ids: list[str]) -> _Batch:
        still = list(session.exec(select(Game.id).where(Game.id.in_(ids), Game.updated_at < cutoff).with_for_update()))
        if still:
            remove_games(session, still)
        return _Batch(len(still))

    deleted, after = 0, ""
    while ids := _aged(session, cutoff, after, batch_size):
        if after and pause:
            time.sleep(pause)  # between two batches, the write lock free
        deleted += write_transaction(session, lambda ids=ids: batch(ids)).deleted
        after = ids[-1]
    return deleted
