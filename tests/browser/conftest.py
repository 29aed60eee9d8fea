"""Browser tests: a real uvicorn server in a subprocess, driven by Debian's Chromium through Playwright.

Every context is a phone (390×844, touch, mobile viewport). Any Content-Security-Policy violation in
any page a test opened (a console message, or a `securitypolicyviolation` event) fails that test.

They run once, in the SQLite pass; those marked `postgres` (what depends on the database: a full game,
the live view across two server processes) run in the PostgreSQL pass too. Without Chromium they are
skipped with the reason, unless BLITZBOARD_REQUIRE_TOOLS=1 (CI), which fails them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, expect

from tests import databases
from tests.browser.helpers import CHROMIUM, SHARED_CHROMIUM, TIMEOUT_MS, Phones, Server, start_server
from tests.helpers import missing_tool

expect.set_options(timeout=TIMEOUT_MS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Each file marks itself; this keeps `-m "not browser"` right even for a test that forgot to.
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, database_template: str) -> Iterator[Server]:
    # On the PostgreSQL pass the pages run on a PostgreSQL database of their own too.
    directory = tmp_path_factory.mktemp("server")
    database_url = databases.copy_of(database_template, directory)
    server = start_server(directory, database_url)
    try:
        yield server
    finally:
        server.stop()
        databases.drop(database_url)


@pytest.fixture
def playwright() -> Playwright:
    """The worker's Playwright, started at its first browser test and kept for the next ones (starting
    it and Chromium again cost one to four seconds a test module); tests/conftest.py stops it before a
    test outside this folder, and sorts this folder's tests last so that is rare."""
    if not Path(CHROMIUM).exists():
        missing_tool(
            f"no Chromium at {CHROMIUM}: install Debian's chromium (scripts/test does) or set BLITZBOARD_CHROMIUM"
        )
    return SHARED_CHROMIUM.playwright()


@pytest.fixture
def browser(playwright: Playwright) -> Browser:
    return SHARED_CHROMIUM.browser()


@pytest.fixture
def own_server(tmp_path: Path, server_database_url: str) -> Iterator[Server]:
    """A server of the test's own, to stop and start again without disturbing the others."""
    server = start_server(tmp_path, server_database_url)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def phones(browser: Browser, server: Server) -> Iterator[Phones]:
    phones = Phones(browser, server)
    try:
        yield phones
    finally:
        phones.close()
    assert phones.csp_violations == [], "Content-Security-Policy violations"


@pytest.fixture(scope="session", autouse=True)
def _chromium_stops_at_the_end() -> Iterator[None]:
    yield
    SHARED_CHROMIUM.stop()
