"""Shared fixtures, paid for once: a database migrated once per run, one app per settings shared by the
tests (reset before each), games to play and the scorekeeper's browser (tests/helpers.py holds what
test modules import).

What runs where (docs/testing.md): every test runs in the SQLite pass; the PostgreSQL pass runs the tests
that touch a database (they use `database_url` or `server_database_url`, directly or through `app`,
`client`, ...) and the browser tests marked `postgres`. Tests that touch no database, the other browser
tests and the release checks would only repeat themselves there.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from pydantic import SecretStr

from app import i18n
from app.config import Settings
from app.main import create_app, remember_afresh
from tests import databases
from tests.helpers import PSEUDO, WORKED_EXAMPLE_PLAYERS, GameHandle, Marked, claim, csrf_of, on_postgres

# Hypothesis: no deadline (a slow example on a loaded machine is not a failure: the suite asserts no
# durations), and in CI the same examples every run (derandomized), so a red CI is reproducible.
hypothesis_settings.register_profile("dev", deadline=None)
hypothesis_settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") else "dev")

BROWSER_FOLDER = Path(__file__).parent / "browser"


def _in_browser_folder(item: pytest.Item) -> bool:
    return BROWSER_FOLDER in Path(item.path).parents


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before a test outside tests/browser/, the worker's Chromium and Playwright stop if they run:
    Playwright's sync API keeps an asyncio loop running in the main thread, which would break a test
    that calls asyncio.run()."""
    if not _in_browser_folder(item):
        shared = sys.modules.get("tests.browser.helpers")
        if shared is not None:
            shared.SHARED_CHROMIUM.stop()


# The fixtures that give a test a database: a test that uses one (itself or through another fixture)
# runs on both databases.
DATABASE_FIXTURES = frozenset({"database_url", "server_database_url"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.database)
    # The browser tests last (in their order): a worker then starts Chromium once for all of them
    # (tests/browser/conftest.py), not again after each test elsewhere that had to stop it.
    items.sort(key=_in_browser_folder)
    if not on_postgres():
        return
    kept, dropped = [], []
    for item in items:
        if item.get_closest_marker("browser"):
            wanted = item.get_closest_marker("postgres") is not None
        else:
            wanted = item.get_closest_marker("database") is not None or item.get_closest_marker("postgres") is not None
        (kept if wanted else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


# --- the databases -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def database_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database migrated once for the run (per xdist worker): copied, never used."""
    url = databases.make_template(tmp_path_factory.mktemp("template"))
    yield url
    databases.drop(url)


@pytest.fixture(scope="session")
def _shared_database(database_template: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = databases.copy_of(database_template, tmp_path_factory.mktemp("shared"))
    yield url
    databases.drop(url)


@pytest.fixture
def database_url(_shared_database: str, _apps: SharedApps) -> str:
    """The worker's database, emptied for this test (every row of every table; ids from 1 again). The
    shared apps' pooled connections are closed first, so nothing a test left open survives it."""
    _apps.close_connections()
    databases.empty(_shared_database)
    return _shared_database


@pytest.fixture
def server_database_url(database_template: str, tmp_path: Path) -> Iterator[str]:
    """A migrated database of its own (a copy of the template) for a real server process (browser,
    concurrency, crash tests) or a test that changes the schema (a downgrade)."""
    url = databases.copy_of(database_template, tmp_path, "server.db")
    yield url
    databases.drop(url)


# --- the apps ------------------------------------------------------------------------------------------


class SharedApps:
    """One app per distinct settings for the whole run (per worker): FastAPI works out each route's
    fields on an app's first requests (about half a second), which every test would otherwise pay.
    `for_test` makes the app's memory new (app.main.remember_afresh: broker, view cache, secret, rate
    limits, stream slots, metrics); the `database_url` fixture has emptied the database."""

    KEEP = 4  # apps kept at once; the least recently used one is closed (a module with settings of its own)

    def __init__(self) -> None:
        self._apps: OrderedDict[str, FastAPI] = OrderedDict()

    @staticmethod
    def _key(settings: Settings) -> str:
        return repr(
            sorted(
                (name, value.get_secret_value() if isinstance(value, SecretStr) else value)
                for name, value in vars(settings).items()
            )
        )

    def for_test(self, settings: Settings) -> FastAPI:
        key = self._key(settings)
        app = self._apps.get(key)
        if app is None:
            app = self._apps[key] = create_app(settings)
            while len(self._apps) > self.KEEP:
                _, old = self._apps.popitem(last=False)
                old.state.engine.dispose()
        else:
            self._apps.move_to_end(key)
            remember_afresh(app)
        return app

    def close_connections(self) -> None:
        for app in self._apps.values():
            app.state.engine.dispose()

    def close(self) -> None:
        self.close_connections()
        self._apps.clear()


@pytest.fixture(scope="session")
def _apps() -> Iterator[SharedApps]:
    apps = SharedApps()
    yield apps
    apps.close()


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(database_url=database_url, tune_gc=False, _env_file=None)


@pytest.fixture
def app(settings: Settings, _apps: SharedApps) -> FastAPI:
    """The app for these settings, shared with every test that has the same ones, reset for this one."""
    return _apps.for_test(settings)


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


# --- the scorekeeper's browser ----------------------------------------------------------------------------


@pytest.fixture
def keeper_of(app: FastAPI) -> Callable[[GameHandle], TestClient]:
    """`keeper_of(game)`: the scorekeeper's browser for that game, a TestClient with a cookie jar of its own
    (and no lifespan of its own, so the app's stays bound) that opened the game's edit link."""

    def phone_of(game: GameHandle) -> TestClient:
        phone = TestClient(app)
        claim(phone, game.id, game.key)
        return phone

    return phone_of


@pytest.fixture
def keeper(keeper_of: Callable[[GameHandle], TestClient], game: GameHandle) -> TestClient:
    """The scorekeeper's browser for the test module's own `game` fixture."""
    return keeper_of(game)


@pytest.fixture
def csrf(keeper: TestClient, game: GameHandle) -> str:
    """The CSRF token the keeper's page gives its forms (the page loaded once, as the phone shows it)."""
    return csrf_of(keeper, game.id)


@pytest.fixture
def pseudo() -> Iterator[str]:
    """The pseudo-language (tests/helpers.py Marked) for the test's requests: its code."""
    i18n.register(PSEUDO, Marked())
    yield PSEUDO
    i18n.unregister(PSEUDO)
