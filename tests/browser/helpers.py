"""What the browser tests and scripts/screenshots.py share: the server process, Chromium, and the pages.

The phone and the Chromium options are in tests/browser/device.py (bench/ uses them too).

The server is tests/servers.Server: the app in its own uvicorn process on a migrated database.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Locator,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

from app.config import ROOT
from tests.browser.device import CHROMIUM, CHROMIUM_ARGS, PHONE
from tests.servers import Server, migrated

ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 10_000

# Runs in every page before its own scripts (injected by the browser, so the CSP does not apply to it).
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__blitzboardCspViolation(`${event.violatedDirective} blocked ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`);
});
"""

# The worked example of the rules (docs/rules.md, "A worked example"): scores before the round, then the round (dutch, blitz) per player.
WORKED_NAMES = ["Ana", "Ben", "Cy", "Dee"]
WORKED_STARTS = [58, 70, 30, 20]
WORKED_ROUND = [(22, 0), (14, 3), (11, 5), (9, 7)]


# Elements whose content is wider than their box and spills out (or is cut off) where it was not
# meant to scroll: a label too long for its button, a heading past the screen's edge. A player's
# name may be cut with an ellipsis on purpose; that is a name, not a translation. A box that scrolls
# sideways on purpose (a table's standings or head-to-head with many people) must fit the screen
# itself, and what is inside it is scrolled to, not cut off. `width` is the screen's as the test set
# it: a phone browser widens its layout to fit what spills out.
OVERFLOWING = """(width) => {
  const out = [];
  const scrolls = (node) => ["auto", "scroll"].includes(getComputedStyle(node).overflowX);
  const insideScroller = (node) => {
    for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) if (scrolls(up)) return true;
    return false;
  };
  for (const el of document.querySelectorAll("body *")) {
    if (el instanceof SVGElement || el.closest("script, style, template, .visually-hidden, input, textarea")) continue;
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden") continue;
    if (insideScroller(el)) continue;
    const box = el.getBoundingClientRect();
    if (box.width > 0 && (box.right > width + 1 || box.left < -1) && !el.closest(".visually-hidden")) {
      out.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 40)}" outside the screen`);
    }
    if (scrolls(el)) continue;
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 2) {  // a box of 1 px is visually hidden
      if (el.closest("bdi, .name, .who") && style.textOverflow === "ellipsis") continue;
      out.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 40)}" ${el.scrollWidth}>${el.clientWidth}`);
    }
  }
  return out;
}"""


def start_server(directory: Path, database_url: str | None = None, cwd: Path = ROOT) -> Server:
    """A server on `database_url` (default: a new SQLite file in `directory`), migrated first, run from
    `cwd` (a copy of the tree, for a new deployment)."""
    database_url = migrated(database_url or f"sqlite:///{directory / 'blitzboard.db'}")
    # The tests create games faster than a table does.
    env = {"BLITZBOARD_GAMES_PER_MINUTE": "10000"}
    return Server(database_url, directory / "server.log", env=env, cwd=cwd).start()


def launch_chromium(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


class SharedChromium:
    """One Playwright and one Chromium for a worker's browser tests, started when the first needs them
    and started again if Chromium went away (a crash)."""

    def __init__(self) -> None:
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    def playwright(self) -> Playwright:
        if self._playwright is None:
            self._playwright = sync_playwright().start()
        return self._playwright

    def browser(self) -> Browser:
        if self._browser is None or not self._browser.is_connected():
            self._browser = launch_chromium(self.playwright())
        return self._browser

    def stop(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


SHARED_CHROMIUM = SharedChromium()


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


# --- the API, for setting a game up quickly ------------------------------------------------------------


@dataclass
class ApiGame:
    server: Server
    body: dict[str, Any]

    @property
    def id(self) -> str:
        return self.body["id"]

    @property
    def edit_url(self) -> str:
        return self.body["urls"]["edit"]

    @property
    def view_path(self) -> str:
        return f"/g/{self.id}"

    @property
    def player_ids(self) -> list[int]:
        return [p["id"] for p in self.body["players"]]

    def add_round(self, counts: list[tuple[int, int]]) -> dict[str, Any]:
        scores = [
            {"player_id": pid, "dutch": dutch, "blitz": blitz}
            for pid, (dutch, blitz) in zip(self.player_ids, counts, strict=True)
        ]
        response = httpx.post(
            f"{self.server.url}/api/v1/games/{self.id}/rounds",
            json={"scores": scores},
            headers={"Authorization": f"Bearer {self.body['edit_key']}"},
        )
        response.raise_for_status()
        return response.json()

    def rotate_key(self) -> None:
        """A new edit key (as another scorekeeper's "Make a new edit link" would): the old one stops working."""
        response = httpx.post(
            f"{self.server.url}/api/v1/games/{self.id}/key",
            headers={"Authorization": f"Bearer {self.body['edit_key']}"},
        )
        response.raise_for_status()
        self.body = self.body | {"edit_key": response.json()["edit_key"], "urls": response.json()["urls"]}

    def read(self) -> dict[str, Any]:
        response = httpx.get(f"{self.server.url}/api/v1/games/{self.id}")
        response.raise_for_status()
        return response.json()


def api_game(server: Server, names: list[str], starts: list[int] | None = None, **extra: Any) -> ApiGame:
    starts = starts or [0] * len(names)
    players = [{"name": n, "starting_score": s} for n, s in zip(names, starts, strict=True)]
    response = httpx.post(f"{server.url}/api/v1/games", json={"players": players, **extra})
    response.raise_for_status()
    return ApiGame(server, response.json())


# --- the pages -------------------------------------------------------------------------------------------


def dutch(page: Page, name: str) -> Locator:
    return page.get_by_label(f"Dutch cards — {name}", exact=True)


def blitz(page: Page, name: str) -> Locator:
    return page.get_by_label(f"Blitz cards left — {name}", exact=True)


def points(page: Page, name: str) -> Locator:
    """The live points output in a player's part of the round form."""
    return page.locator("#round-entry fieldset.player-entry").filter(has=dutch(page, name)).locator("output")


def fill_round(page: Page, names: list[str], counts: list[tuple[int, int]]) -> None:
    for name, (d, b) in zip(names, counts, strict=True):
        dutch(page, name).fill(str(d))
        blitz(page, name).fill(str(b))


def save_round(page: Page, rounds_after: int) -> None:
    """Press "Save round" (or "Save correction") and wait until htmx has swapped in the saved game."""
    page.locator("#round-entry .actions button.primary[type=submit]").click()
    expect(page.locator(".round-count")).to_have_text(f"· after round {rounds_after}")


def scoreboard(page: Page) -> Locator:
    return page.locator("#scoreboard li.standing")


def create_game_on_start_page(page: Page, names: list[str], starts: list[int] | None = None) -> None:
    """Type the players on the start page (adding fields as needed), open the starting scores if
    given, and start the game; returns on the scorekeeper's page."""
    page.goto("/")
    for number, name in enumerate(names, start=1):
        field = page.get_by_label(f"Player {number}", exact=True)
        if number > 2:
            page.get_by_role("button", name="+ Add player").click()  # htmx swaps in the form with one more field
        expect(field).to_be_visible()
        field.fill(name)
    if starts:
        page.locator("summary", has_text="Starting scores").click()
        for index, start in enumerate(starts):
            # Labels name the players as typed when the form was last drawn; the ids are stable.
            page.locator(f"#start-{index}").fill(str(start))
    page.get_by_role("button", name="Start game").click()
    page.wait_for_url("**/g/*/score")
    expect(page.locator("#round-entry")).to_be_visible()


# The rounds a page keeps to send (static/rounds.js: IndexedDB "blitzboard", store "rounds"): their fields.
QUEUED = """() => new Promise((resolve, reject) => {
  const open = indexedDB.open("blitzboard", 1);
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const request = open.result.transaction("rounds").objectStore("rounds").getAll();
    request.onsuccess = () => resolve(request.result.map((r) => r.fields));
  };
})"""
