"""Browser tests: a real uvicorn server in a subprocess, driven by Debian's Chromium through Playwright.

Every context is a phone (390×844, touch, mobile viewport). Any Content-Security-Policy violation in
any page a test opened (a console message, or a `securitypolicyviolation` event) fails that test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Playwright, expect, sync_playwright

from app.config import ROOT
from tests.browser.helpers import CHROMIUM, PHONE, Server, launch_chromium, start_server
from tests.conftest import _create_pg_database, _drop_pg_database, on_postgres

ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 10_000
expect.set_options(timeout=TIMEOUT_MS)

# Runs in every page before its own scripts (injected by the browser, so the CSP does not apply to it).
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__blitzboardCspViolation(`${event.violatedDirective} blocked ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`);
});
"""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Each file marks itself; this keeps `-m "not browser"` right even for a test that forgot to.
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # On the PostgreSQL pass the pages run on a PostgreSQL database of their own too.
    database_url = _create_pg_database() if on_postgres() else None
    server = start_server(tmp_path_factory.mktemp("server"), database_url)
    try:
        yield server
    finally:
        server.stop()
        if database_url:
            _drop_pg_database(database_url)


# Module scope, not session: Playwright's sync API keeps an asyncio loop running in the main thread while
# it is started, which would break later tests (outside this folder) that call asyncio.run().
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: install Debian's chromium (scripts/test does) or set BLITZBOARD_CHROMIUM"
        )
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = launch_chromium(playwright)
    yield browser
    browser.close()


class Phones:
    """Opens phone-sized browser contexts on a server, watches their consoles, saves screenshots."""

    def __init__(self, browser: Browser, server: Server):
        self.browser = browser
        self.server = server
        self.contexts: list[BrowserContext] = []
        self.csp_violations: list[str] = []
        self._quiet = False

    def context(self, server: Server | None = None, **options: Any) -> BrowserContext:
        context = self.browser.new_context(base_url=(server or self.server).url, **(PHONE | options))
        context.set_default_timeout(TIMEOUT_MS)
        context.expose_function("__blitzboardCspViolation", self._violation)
        context.add_init_script(REPORT_CSP_VIOLATIONS)
        context.on("console", self._console)
        self.contexts.append(context)
        return context

    def page(self, server: Server | None = None, **options: Any) -> Page:
        return self.context(server, **options).new_page()

    def _violation(self, message: str) -> None:
        if not self._quiet:
            self.csp_violations.append(message)

    def _console(self, message: ConsoleMessage) -> None:
        if not self._quiet and "Content Security Policy" in message.text:
            self.csp_violations.append(message.text)

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Playwright's own doings (a screenshot hiding the caret) may trip the CSP; those don't count."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def screenshot(self, page: Page, name: str) -> Path:
        """A full-page PNG in test-artifacts/; caret="initial" injects no style, so no CSP report."""
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        with self.quiet():
            page.screenshot(path=path, full_page=True, caret="initial")
        return path

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def phones(browser: Browser, server: Server) -> Iterator[Phones]:
    phones = Phones(browser, server)
    try:
        yield phones
    finally:
        phones.close()
    assert phones.csp_violations == [], "Content-Security-Policy violations"
