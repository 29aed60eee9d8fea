"""axe-core on the pages people use, in each language: no serious or critical violation on the start
page, the scorekeeper's page, the view page, the TV, a table's page and a player's own seat page, in English, Russian and German (and in English in the dark colours).

axe-core is vendored for these tests only (tests/browser/vendor/, pinned from the npm registry with its
version in the file name and its LICENSE beside it); the app never serves it. It is put into the page
by Playwright as an inline script, which the pages' CSP (script-src 'self') refuses: these contexts alone
are opened with `bypass_csp=True`. Every other browser test keeps the CSP and fails on a violation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import ApiGame, Phones, Server

pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1.min.js"
LANGUAGES = ["en", "ru", "de"]
PAGES = ["start", "keeper", "view", "tv", "table", "seat"]
TV = {"viewport": {"width": 1280, "height": 800}, "is_mobile": False, "has_touch": False, "device_scale_factor": 1}

# The violations that matter here, each with where (up to 3 elements) and why, in a line a failure shows.
SERIOUS = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} | ` + v.nodes.slice(0, 3).map(
      (n) => `${n.target.join(" ")} (${(n.failureSummary || "").replace(/\\s+/g, " ").slice(0, 160)})`).join("; "));
}"""


@pytest.fixture(scope="module")
def games(server: Server) -> dict[str, Any]:
    """A table with a finished game (the view page, the TV's game-over banner, the table's standings and
    awards) and a game in progress at it (the scorekeeper's round form)."""
    response = httpx.post(f"{server.url}/api/v1/tables", json={"name": "The Millers", "people": []})
    response.raise_for_status()
    table = response.json()
    at_table = {"table_id": table["id"]}
    auth = {"Authorization": f"Bearer {table['edit_key']}"}

    def game(names: list[str]) -> ApiGame:
        players = [{"name": n, "starting_score": 0} for n in names]
        response = httpx.post(f"{server.url}/api/v1/games", json={"players": players, **at_table}, headers=auth)
        response.raise_for_status()
        return ApiGame(server, response.json())

    finished = game(["Ana", "Ben", "Cy", "Dee"])
    for counts in (
        [(30, 0), (20, 1), (12, 4), (8, 6)],
        [(28, 0), (22, 2), (14, 3), (9, 5)],
        [(25, 0), (18, 2), (10, 5), (7, 7)],
    ):
        finished.add_round(counts)
    playing = game(["Ana", "Ben", "Cy"])
    playing.add_round([(12, 0), (9, 3), (5, 6)])
    # Ana's own phone (a seat of the game in progress): its key goes into the seat page's cookie.
    keeper = {"Authorization": f"Bearer {playing.body['edit_key']}"}
    link = httpx.get(f"{server.url}/api/v1/games/{playing.id}/seats", headers=keeper).json()["link_key"]
    seat = httpx.post(f"{server.url}/api/v1/games/{playing.id}/seats/{playing.player_ids[0]}", json={"link": link})
    seat.raise_for_status()
    return {"table": table, "finished": finished, "playing": playing, "seat_key": seat.json()["seat_key"]}


def open_page(phones: Phones, server: Server, games: dict[str, Any], which: str, lang: str) -> Page:
    context = phones.context(bypass_csp=True, **(TV if which == "tv" else {}))
    context.add_cookies([{"name": "blitzboard_lang", "value": lang, "url": server.url}])
    page = context.new_page()
    finished: ApiGame = games["finished"]
    if which == "keeper":
        page.goto(games["playing"].edit_url)  # the edit link: its key into this browser's cookie
        expect(page.locator("#round-entry")).to_be_visible()
    elif which == "seat":
        playing: ApiGame = games["playing"]
        context.add_cookies([{"name": f"bb_seat_{playing.id}", "value": games["seat_key"], "url": server.url}])
        page.goto(f"/g/{playing.id}/mine")
        expect(page.locator("#seat")).to_be_visible()
    else:
        page.goto(
            {
                "start": "/",
                "view": finished.view_path,
                "tv": finished.view_path + "?tv=1",
                "table": f"/t/{games['table']['id']}",
            }[which]
        )
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("main")).to_be_visible()
    return page


@pytest.mark.parametrize("which", PAGES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_axe_finds_no_serious_violation(phones: Phones, server: Server, games: dict[str, Any], which: str, lang: str):
    page = open_page(phones, server, games, which, lang)
    page.add_script_tag(path=AXE)
    assert page.evaluate("typeof axe.run") == "function"
    assert page.evaluate(SERIOUS) == []


@pytest.mark.parametrize("which", PAGES)
def test_axe_finds_no_serious_violation_in_the_dark(phones: Phones, server: Server, games: dict[str, Any], which: str):
    # The dark colours (prefers-color-scheme) have their own contrasts.
    page = open_page(phones, server, games, which, "en")
    page.emulate_media(color_scheme="dark")
    expect(page.locator("body")).to_have_css("background-color", "rgb(20, 19, 18)")  # --bg, dark
    page.add_script_tag(path=AXE)
    assert page.evaluate(SERIOUS) == []


def test_the_check_sees_a_serious_violation(phones: Phones, server: Server, games: dict[str, Any]):
    # The check can fail: a button with no name at all is a critical violation (button-name), and it says so.
    page = open_page(phones, server, games, "start", "en")
    page.evaluate("() => document.querySelector('main').append(document.createElement('button'))")
    page.add_script_tag(path=AXE)
    found = page.evaluate(SERIOUS)
    assert any("button-name" in line for line in found), found
