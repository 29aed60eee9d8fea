"""Shared fixtures: an app on a fresh database built by the migrations, and helpers to play games."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.config import Settings
from app.db import make_engine
from app.main import create_app
from app.migrations import upgrade
from tests.servers import migrated

# The worked example of DESIGN.md: scores before the round, then the round itself.
WORKED_EXAMPLE_PLAYERS = [
    {"name": "Ana", "starting_score": 58},
    {"name": "Ben", "starting_score": 70},
    {"name": "Cy", "starting_score": 30},
    {"name": "Dee", "starting_score": 20},
]
WORKED_EXAMPLE_ROUND = [(22, 0), (14, 3), (11, 5), (9, 7)]  # (dutch, blitz) per player, in seat order


# The suite runs on SQLite by default, and on PostgreSQL when this is set (scripts/test does both).
# Each run makes databases of its own (blitzboard_test_<random>) and drops them at the end.
POSTGRES_URL = os.environ.get("BLITZBOARD_TEST_POSTGRES_URL", "")
TABLES = ("round_score", "round", "player", "idempotency_record", "game")


def on_postgres() -> bool:
    return bool(POSTGRES_URL)


def _pg_admin():
    import psycopg

    return psycopg.connect(POSTGRES_URL, autocommit=True)


def _create_pg_database() -> str:
    name = f"blitzboard_test_{secrets.token_hex(6)}"
    with _pg_admin() as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(urlsplit(POSTGRES_URL)._replace(path=f"/{name}"))


def _drop_pg_database(url: str) -> None:
    with _pg_admin() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{urlsplit(url).path.lstrip("/")}" WITH (FORCE)')


@pytest.fixture(scope="session")
def _pg_session_database() -> Iterator[str]:
    url = migrated(_create_pg_database())
    yield url
    _drop_pg_database(url)


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
    url = migrated(_create_pg_database())
    yield url
    _drop_pg_database(url)


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


class GameHandle:
    """A game created through the API, with its key, for tests that play it."""

    def __init__(self, client: TestClient, body: dict[str, Any]):
        self.client = client
        self.body = body
        self.id: str = body["id"]
        self.key: str = body["edit_key"]
        self.player_ids: list[int] = [p["id"] for p in body["players"]]

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def scores(self, counts: list[tuple[int, int]]) -> dict[str, Any]:
        return {
            "scores": [
                {"player_id": pid, "dutch": dutch, "blitz": blitz}
                for pid, (dutch, blitz) in zip(self.player_ids, counts, strict=True)
            ]
        }

    def add_round(self, counts: list[tuple[int, int]], **headers: str):
        return self.client.post(
            f"/api/v1/games/{self.id}/rounds", json=self.scores(counts), headers=self.auth | headers
        )

    def get(self) -> dict[str, Any]:
        response = self.client.get(f"/api/v1/games/{self.id}")
        assert response.status_code == 200, response.text
        return response.json()


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
