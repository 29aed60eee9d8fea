"""The start signal on every phone: the scorekeeper taps "Start round" and the countdown reaches a view
page and the TV view, each with a clock of its own (Playwright's fake clocks, set hours apart), which
all say "Blitz!" on the server's moment and then run the round's time; the next saved round has a
duration in the API. Nothing here measures or waits out wall-clock time: the pages' clocks are advanced
by the test, and what is checked is the schedule each page computed. The server's clock is real, so time
passes for it the one way a test can make it pass: the round's "Blitz!" is moved back in the game's row.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import Dialog, Page, expect
from sqlalchemy import update

from app.db import make_engine
from app.models import Game
from tests.browser.helpers import Phones, Server, api_game, fill_round

pytestmark = pytest.mark.browser

# Each page's record of what its countdown said, and of its vibrations (navigator.vibrate stubbed).
RECORD = """
window.__said = [];
window.__buzz = [];
window.__starts = 0;  // the event stream's "start" events heard (also on <html>, for expect())
document.addEventListener("sse:start", function () {
  window.__starts += 1;
  document.documentElement.dataset.starts = String(window.__starts);
});
Object.defineProperty(navigator, "vibrate", { value: function (p) { window.__buzz.push(p); return true; } });
new MutationObserver(function () {
  var c = document.getElementById("countdown");
  var text = c ? c.textContent : "";
  if (text && window.__said[window.__said.length - 1] !== text) window.__said.push(text);
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def open_with_clock(page: Page, path: str, skew: timedelta) -> None:
    """The page's clock runs `skew` away from the real one (a phone set wrong)."""
    page.clock.install(time=datetime.now(UTC) + skew)
    page.add_init_script(RECORD)
    page.goto(path)


def blitz_was(server: Server, game_id: str, seconds_ago: int, *, new_version: bool) -> datetime:
    """Make the game's running round one whose "Blitz!" was `seconds_ago` (whole seconds) in its row in the
    server's database, and give that moment. A save reads the row afresh under its lock (app.games.writes), so
    it takes the moved start; `new_version` makes it a change, so no view cached before is served again.
    """
    moment = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=seconds_ago)
    changes = {"round_started_at": moment} | ({"version": Game.version + 1} if new_version else {})
    engine = make_engine(server.database_url)
    try:
        with engine.begin() as connection:
            assert connection.execute(update(Game).where(Game.id == game_id).values(changes)).rowcount == 1
    finally:
        engine.dispose()
    return moment


def time_to_blitz(page: Page) -> float:
    """How long until this page says "Blitz!", by its own clock: the schedule it computed. Waits for it:
    the live refresh after "Start round" may swap the timer for a new one that app.js has yet to set."""
    # expect(), not wait_for_function: a string predicate that has to poll is run through eval, which
    # the page's Content-Security-Policy refuses (a flaky failure whenever the first check is early).
    expect(page.locator("#round-timer")).to_have_attribute("data-blitz-local", re.compile(r"^-?\d+(\.\d+)?$"))
    return page.evaluate("Number(document.getElementById('round-timer').dataset.blitzLocal) - Date.now()")


def test_the_countdown_reaches_every_page_on_the_servers_moment(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    keeper = phones.page()
    viewer = phones.page()
    tv = phones.page(viewport={"width": 1280, "height": 800}, is_mobile=False, has_touch=False)
    open_with_clock(keeper, game.edit_url, timedelta(minutes=30))
    open_with_clock(viewer, game.view_path, timedelta(hours=1))
    open_with_clock(tv, game.view_path + "?tv=1", -timedelta(minutes=7))
    for page in (viewer, tv):
        expect(page.locator("#live[sse-connect] #round-timer")).to_be_hidden()  # no round yet
    expect(viewer.locator("#round-timer form")).to_have_count(0)

    keeper.get_by_role("button", name="Start round").click()

    pages = {"keeper": keeper, "viewer": viewer, "tv": tv}
    for name, page in pages.items():
        timer = page.locator("#round-timer")
        expect(timer).to_be_visible()
        expect(timer).to_have_attribute("data-blitz-local", re.compile(r"^\d+$"))
        # Each page's "Blitz!" is the server's moment in its own clock: at most the 3 s countdown ahead,
        # although the pages' clocks are an hour apart (without the offset it would be ±minutes off).
        left = time_to_blitz(page)
        assert -60_000 < left <= 3_000, (name, left)
    expect(keeper.get_by_role("button", name="Restart round")).to_be_visible()

    for page in pages.values():
        page.clock.run_for(4_000)  # through "3, 2, 1, Blitz!" in the page's own clock
    for name, page in pages.items():
        expect(page.locator("#round-timer")).to_have_attribute("data-blitz-fired", re.compile(r"^\d+$"))
        said = page.evaluate("window.__said")
        assert said[-1] == "Blitz!" and said == ["3", "2", "1", "Blitz!"][-len(said) :], (name, said)
        assert 400 in page.evaluate("window.__buzz"), name  # the long buzz of "Blitz!"
        page.clock.run_for(62_000)
        expect(page.locator("#round-clock")).to_have_text(re.compile(r"^1:0[2-9]$"))
        expect(page.locator("#countdown")).to_have_text("")  # "Blitz!" is said once, not the seconds
    # The TV shows them large.
    assert float(tv.locator("#round-clock").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 64

    # The round is played for a minute, then saved: it takes the game's start and has a duration. (Saved
    # before the server's own "Blitz!", it would be the round before, typed late: tests/games/test_round_timer.py.)
    assert game.read()["round_started_at"] is not None
    blitz_at = blitz_was(server, game.id, 60, new_version=False)  # (the pages keep the schedule they have)
    fill_round(keeper, ["Ana", "Ben"], [(10, 0), (5, 2)])
    keeper.locator("#round-entry button[type=submit]").click()
    expect(keeper.locator(".round-count")).to_have_text("· after round 1")
    (saved,) = game.read()["rounds"]
    assert datetime.fromisoformat(saved["started_at"]) == blitz_at
    assert isinstance(saved["duration_s"], int) and saved["duration_s"] >= 60
    # The round is over on every page: the timer goes (the viewers hear of the save live).
    expect(viewer.locator("#round-timer")).to_be_hidden()
    expect(tv.locator("#round-timer")).to_be_hidden()
    expect(keeper.get_by_role("button", name="Start round")).to_be_visible()
    assert phones.csp_violations == []


def test_a_page_opened_mid_round_shows_the_running_time_without_a_countdown(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    blitz_was(server, game.id, 10, new_version=True)  # a round whose "Blitz!" was 10 s ago
    viewer = phones.page()
    open_with_clock(viewer, game.view_path, timedelta(minutes=20))  # a phone 20 minutes off
    expect(viewer.locator("#round-timer")).to_have_attribute("data-blitz-local", re.compile(r"^\d+$"))
    assert time_to_blitz(viewer) < -9_000  # already past, in its own clock too
    # The stream's "start" (sent on connect) heard before the clock jumps: heard after it, it would
    # measure the page's clock afresh, jump included (as it should), and show the real time instead.
    expect(viewer.locator("html")).to_have_attribute("data-starts", re.compile(r"^[1-9]"))
    viewer.clock.run_for(125_000)
    expect(viewer.locator("#round-clock")).to_have_text(re.compile(r"^2:\d\d$"))  # 10 s and the page's load, then 125 s
    # Nothing counted down, nothing buzzed: the round was already running.
    assert viewer.evaluate("window.__said") == [] and viewer.evaluate("window.__buzz") == []
    expect(viewer.locator("#round-timer")).not_to_have_attribute("data-blitz-fired", re.compile(".*"))


def test_a_restart_asks_first_and_a_no_keeps_the_round_running(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    keeper = phones.page()
    keeper.goto(game.edit_url)
    keeper.get_by_role("button", name="Start round").click()
    timer = keeper.locator("#round-timer")
    expect(timer).to_have_attribute("data-blitz-at", re.compile(r"^\d+$"))
    started = timer.get_attribute("data-blitz-at")
    asked: list[str] = []

    def say_no(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    keeper.once("dialog", say_no)
    keeper.get_by_role("button", name="Restart round").click()
    expect(keeper.get_by_role("button", name="Restart round")).to_be_enabled()
    assert asked == ["Restart the round? Its time starts again after a new countdown."]
    assert game.read()["round_started_at"] is not None and timer.get_attribute("data-blitz-at") == started
    keeper.once("dialog", lambda dialog: dialog.accept())
    keeper.get_by_role("button", name="Restart round").click()
    expect(timer).not_to_have_attribute("data-blitz-at", started)  # a new countdown
