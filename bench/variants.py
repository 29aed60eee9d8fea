"""Experiments: the real app with one change flipped, served beside the app in the same run, so a
suggestion is measured before anyone makes it, and once made, what it buys stays measured.

Each factory looks at the app it is given: when the app already has the change, the experiment is the
app *without* it; otherwise it is the app *with* it. `describe()` says which, for the benchmark's tables.

write_queue: on SQLite every write use case queues on one in-process lock, so writers wait on a lock
    that wakes the next one the moment it is free, instead of sleeping in SQLite's busy handler and
    polling for the database's write lock (what gives saves a long tail at 8 and 32 concurrent
    clients). The app does it with app.db.serial_writes (in app.db.write_transaction, every write's
    skeleton); the experiment wraps the game writer's write and Games.create in a lock when the app does not.
gc_tuning: Python's cyclic garbage collector tuned for a server: everything alive after start-up frozen
    out of collections (gc.freeze) and the youngest generation collected every 50,000 new container
    objects instead of every 700, so a request that builds tens of thousands of objects does not set off
    full collections over the whole heap while it runs. The app does it when Settings.tune_gc is on.

    .venv/bin/python bench/serve.py variants:write_queue --port 8002 --migrate
"""

from __future__ import annotations

import contextlib
import functools
import gc
import threading

from fastapi import FastAPI

from app import db
from app.config import Settings, get_settings
from app.games import usecases as games
from app.games import writes
from app.main import create_app


def app_queues_writes() -> bool:
    return hasattr(db, "serial_writes")


def app_tunes_gc() -> bool:
    return "tune_gc" in Settings.model_fields


def describe(name: str) -> str:
    if name == "write_queue":
        return (
            "without the app's in-process write queue" if app_queues_writes() else "writes queue on an in-process lock"
        )
    if name == "gc_tuning":
        return "GC left at Python's defaults" if app_tunes_gc() else "GC tuned (gc.freeze, threshold 50,000)"
    raise KeyError(name)


_write_lock = threading.Lock()


def _serialized(method):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with _write_lock:
            return method(*args, **kwargs)

    wrapper._bench_serialized = True  # type: ignore[attr-defined]
    return wrapper


def write_queue() -> FastAPI:
    if app_queues_writes():
        # The app's queue off: every writer goes straight to BEGIN IMMEDIATE and SQLite's busy handler.
        db.serial_writes = lambda session: contextlib.nullcontext()  # every write queues in app.db.write_transaction
    else:
        for owner, name in ((writes.GameWriter, "write"), (games.Games, "create")):
            method = getattr(owner, name)
            if not getattr(method, "_bench_serialized", False):
                setattr(owner, name, _serialized(method))
    return create_app()


def gc_tuning() -> FastAPI:
    if app_tunes_gc():
        return create_app(get_settings().model_copy(update={"tune_gc": False}))
    app = create_app()
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    return app
