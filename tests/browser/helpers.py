"""What the browser tests and scripts/screenshots.py share: the server process, Chromium, and the pages.

The server is the app as `scripts/run` serves it: its own uvicorn process on a migrated SQLite file,
so the event stream, htmx, the CSP and the cookies all work for real.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Locator, Page, Playwright, expect

from app.config import ROOT
from app.db import make_engine
from app.migrations import upgrade

CHROMIUM = os.environ.get("BLITZBOARD_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
STARTUP_SECONDS = 30

# The worked example of DESIGN.md: scores before the round, then the round (dutch, blitz) per player.
WORKED_NAMES = ["Ana", "Ben", "Cy", "Dee"]
WORKED_STARTS = [58, 70, 30, 20]
WORKED_ROUND = [(22, 0), (14, 3), (11, 5), (9, 7)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def migrate(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        upgrade(engine)
    finally:
        engine.dispose()


@dataclass
class Server:
    """A uvicorn process serving the app; stop() and start() again keep its port and database."""

    database_url: str
    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def start(self) -> None:
        env = os.environ | {
            "BLITZBOARD_DATABASE_URL": self.database_url,
            "BLITZBOARD_LOG_LEVEL": "warning",
            "BLITZBOARD_GAMES_PER_MINUTE": "10000",  # the tests create games faster than a table does
        }
        env.pop("DATABASE_URL", None)
        command = [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--no-access-log", "--timeout-graceful-shutdown", "3"]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.output()}")
            try:
                if httpx.get(self.url + "/", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not answer within {STARTUP_SECONDS} s:\n{self.output()}")
            time.sleep(0.1)  # polling until the server is up, not an assertion

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def start_server(directory: Path, database_url: str | None = None) -> Server:
    """A server on `database_url` (default: a new SQLite file in `directory`), migrated first."""
    database_url = database_url or f"sqlite:///{directory / 'blitzboard.db'}"
    migrate(database_url)
    server = Server(database_url, free_port(), directory / "server.log")
    server.start()
    return server


def launch_chromium(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


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
    page.locator("#round-entry button[type=submit]").click()
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
