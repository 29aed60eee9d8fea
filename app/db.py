"""Database engines and the one session dependency.

SQLite is set up for a server: WAL (readers never block the writer), foreign keys enforced, a
busy_timeout so a writer waits for the lock instead of failing, and writes in BEGIN IMMEDIATE
transactions. A deferred transaction that reads first and writes later cannot wait for the lock: it
fails at once with "database is locked" whatever busy_timeout says, because another writer may have
changed what it read. Taking the write lock at BEGIN makes writers queue up instead.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Annotated, Protocol, TypeVar
from weakref import WeakKeyDictionary

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import Engine, event, exc
from sqlmodel import Session, create_engine

log = logging.getLogger("blitzboard.db")

SQLITE_BUSY_TIMEOUT_MS = 10_000
# PostgreSQL: a pooled connection is replaced after POOL_RECYCLE_S (before a firewall, a proxy or the
# server's idle timeout drops it), and one is checked with a round trip before use only when it sat
# idle in the pool for IDLE_PING_S or more (a connection in steady use is not pinged: under load,
# none is). One that died anyway fails its first statement and the request runs once more (a game's
# write: app.games.writes; a GET or HEAD: app.http.errors); other writes answer 503 with Retry-After.
POOL_RECYCLE_S = 300
IDLE_PING_S = 10
# The execution option a write transaction sets on its connection before BEGIN (see begin_write).
WRITE_OPTION = "blitzboard_write"


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def make_engine(url: str, *, synchronous: str = "FULL", busy_timeout_ms: int | None = None) -> Engine:
    """An engine for url; on SQLite, `synchronous` (FULL or NORMAL) and `busy_timeout_ms` from Settings."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        # psycopg 3 is the driver we install; plain postgresql:// would ask SQLAlchemy for psycopg2.
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    if not is_sqlite(url):
        engine = create_engine(url, pool_recycle=POOL_RECYCLE_S, pool_size=10, max_overflow=20)
        _ping_when_idle(engine)
        return engine

    if busy_timeout_ms is None:
        busy_timeout_ms = SQLITE_BUSY_TIMEOUT_MS
    if synchronous not in ("FULL", "NORMAL"):
        raise ValueError(f"synchronous must be FULL or NORMAL, not {synchronous!r}")
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        pool_size=10,
        max_overflow=30,
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection, _record) -> None:
        # Let SQLAlchemy's "begin" event below issue BEGIN itself (pysqlite's own implicit BEGIN is
        # always deferred and comes too late).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        # FULL: a commit is on the disk before it is acknowledged, so an acknowledged round survives a
        # power cut. NORMAL (WAL) survives an app crash but may lose the last commits to a power cut.
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection) -> None:
        if connection.get_execution_options().get(WRITE_OPTION):
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            connection.exec_driver_sql("BEGIN")

    return engine


def _ping_when_idle(engine: Engine) -> None:
    """Check a pooled connection before use only when it sat idle for IDLE_PING_S (SQLAlchemy's
    "pessimistic" disconnect handling, limited to the connections likely to have died): a dead one
    raises DisconnectionError, and the pool replaces it and tries again."""

    @event.listens_for(engine, "checkin")
    def _note(_dbapi_connection, record) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _check(dbapi_connection, record, _proxy) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < IDLE_PING_S:
            return
        try:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            dbapi_connection.rollback()
        except Exception as error:
            raise exc.DisconnectionError() from error


def begin_write(session: Session) -> None:
    """Start the session's transaction as a write transaction (BEGIN IMMEDIATE on SQLite).

    On PostgreSQL the option is ignored and the use cases lock the game's row instead.
    """
    if session.in_transaction():
        # A read earlier in the same request (a page that loaded the game to parse its form): end
        # it, so the write gets a transaction of its own that holds the lock from its first statement.
        session.commit()
    session.connection(execution_options={WRITE_OPTION: True})


_write_locks: WeakKeyDictionary[Engine, threading.Lock] = WeakKeyDictionary()
_locks_guard = threading.Lock()


def serial_writes(session: Session) -> AbstractContextManager:
    """Hold around a whole write transaction: on SQLite, writers of this process queue here.

    SQLite lets one writer in at a time; the others wait in its busy handler, which sleeps and polls
    with growing naps instead of being woken when the lock frees, so under load an unlucky save can
    lose the race again and again (a long tail). An in-process lock wakes the next writer at once,
    in turn. BEGIN IMMEDIATE and busy_timeout still guard against other processes. On PostgreSQL
    the game's row lock already queues writers of one game, and other games' writers run in parallel.
    """
    engine = session.get_bind()
    if engine.dialect.name != "sqlite":
        return nullcontext()
    with _locks_guard:
        return _write_locks.setdefault(engine, threading.Lock())


class Written(Protocol):
    """What a write transaction's work answers: a replay (the first answer to an Idempotency-Key, again)
    wrote nothing, so its transaction rolls back."""

    @property
    def replayed(self) -> bool: ...


W = TypeVar("W", bound=Written)


def write_transaction(session: Session, work: Callable[[], W], *, again_when_taken: bool = False) -> W:
    """The one skeleton of every write (a game's changes, creation and deletion, a table's writes, the
    imports, prune's batches): queued behind this process's other writers (serial_writes), BEGIN as a
    write (begin_write), the work, then COMMIT, or ROLLBACK when the work raised or answered a replay.

    Run once more when the database connection was lost before COMMIT: nothing was committed then, so
    the work can't count anything twice (it must start afresh each time it runs). A connection lost
    during COMMIT may or may not have committed: that error goes up (a 503 with Retry-After), and the
    client's retry with its Idempotency-Key settles which it was. `again_when_taken`: a creation whose
    Idempotency-Key another request committed first (an IntegrityError on PostgreSQL, where nothing
    serialises two creations) runs once more, with its own retry, and finds that request's answer.
    """
    try:
        return _once_more_if_lost(session, work)
    except exc.IntegrityError:
        if not again_when_taken:
            raise
        return _once_more_if_lost(session, work)


def _once_more_if_lost(session: Session, work: Callable[[], W]) -> W:
    for attempt in (1, 2):
        committing = False
        try:
            with serial_writes(session):
                begin_write(session)
                try:
                    result = work()
                    if result.replayed:
                        session.rollback()
                    else:
                        committing = True
                        session.commit()
                    return result
                except BaseException:
                    session.rollback()
                    raise
        except exc.IntegrityError:
            raise
        except exc.DBAPIError as error:
            if attempt == 2 or not error.connection_invalidated or committing:
                raise
            log.warning(
                "database connection lost before COMMIT; running the write again (%s)", type(error.orig).__name__
            )
    raise AssertionError("unreachable")


async def get_session(request: Request) -> AsyncIterator[Session]:
    """The request's session. Async, so it costs no hop through the thread pool to make: a session
    takes its connection only at its first statement (in the route's thread). Closed on the loop when
    it holds no connection any more (a write's COMMIT gave it back), else in the thread pool, as giving
    a connection back ends its transaction (a ROLLBACK, I/O the loop must not wait on)."""
    session = Session(request.app.state.engine, expire_on_commit=False)
    try:
        yield session
    finally:
        if session.in_transaction():
            await run_in_threadpool(session.close)
        else:
            session.close()


SessionDep = Annotated[Session, Depends(get_session)]
