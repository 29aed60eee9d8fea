"""Shared fixtures: an app on a fresh database built by the migrations, and games to play (tests/helpers.py
holds what test modules import)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import i18n
from app.config import Settings
from app.db import make_engine
from app.main import create_app
from app.migrations import upgrade
from tests.helpers import (
    PSEUDO,
    WORKED_EXAMPLE_PLAYERS,
    GameHandle,
    Marked,
    create_pg_database,
    drop_pg_database,
    on_postgres,
)
from tests.servers import migrated

TABLES = (
    "round_score",
    "round",
    "game_result",
    "player",
    "idempotency_record",
    "round_change",
    "game",
    "person",
    "card_table",
)


@pytest.fixture(scope="session")
def _pg_session_database() -> Iterator[str]:
    url = migrated(create_pg_database())
    yield url
    drop_pg_database(url)


@pytest.fixture
def database_url(tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A database for one test: a new SQLite file, or the run's PostgreSQL database emptied."""
    if not on_postgres():
        return f"sqlite:///{tmp_path / 'blitzboard.db'}"
    url = request.getfixturevalue("_pg_session_database")
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE")
    engine.dispose()
    return url


@pytest.fixture
def server_database_url(tmp_path: Path) -> Iterator[str]:
    """A migrated database of its own for a real server process (browser, concurrency, crash tests)."""
    if not on_postgres():
        yield migrated(f"sqlite:///{tmp_path / 'server.db'}")
        return
    url = migrated(create_pg_database())
    yield url
    drop_pg_database(url)


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(database_url=database_url, tune_gc=False, _env_file=None)


@pytest.fixture
def app(settings: Settings) -> Iterator[FastAPI]:
    app = create_app(settings)
    upgrade(app.state.engine)
    yield app
    app.state.engine.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as client:
        yield client


@pytest.fixture
def make_game(client: TestClient):
    def make(players: list[dict[str, Any]] | None = None, rules: dict[str, Any] | None = None, **extra):
        body: dict[str, Any] = {"players": players or WORKED_EXAMPLE_PLAYERS, **extra}
        if rules is not None:
            body["rules"] = rules
        response = client.post("/api/v1/games", json=body)
        assert response.status_code == 201, response.text
        return GameHandle(client, response.json())

    return make


@pytest.fixture
def pseudo() -> Iterator[str]:
    """The pseudo-language (tests/helpers.py Marked) for the test's requests: its code."""
    i18n.register(PSEUDO, Marked())
    yield PSEUDO
    i18n.unregister(PSEUDO)
