"""The correction log in the browser: a correction on the scorekeeper's phone appears, live, in the "Changes"
of a second phone's view page (in its local time), and one tap on "Revert" puts the totals back everywhere."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Phones, Server, api_game, blitz, scoreboard

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy", "Dee"]


def test_a_correction_is_logged_live_on_the_view_page_and_reverted_with_one_tap(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    game.add_round([(12, 0), (9, 4), (7, 6), (5, 8)])
    keeper = phones.page()
    keeper.goto(game.edit_url)
    viewer = phones.page()
    viewer.goto(game.view_path)
    expect(viewer.locator("#live[sse-connect] #game")).to_have_count(1)
    expect(viewer.locator("#changes")).to_have_count(0)  # nothing changed yet: no section
    expect(scoreboard(viewer).locator(".total")).to_have_text(["12", "1", "−5", "−11"])

    keeper.get_by_role("link", name="Edit round 1").click()
    expect(keeper.get_by_role("heading", name="Correct round 1")).to_be_visible()
    blitz(keeper, "Ben").fill("3")
    keeper.locator("#round-entry button[type=submit]").click()
    logged = keeper.locator("#changes li.change").first
    expect(logged).to_contain_text("Round 1 corrected at")
    expect(logged).to_contain_text("Ben, Blitz 4 → 3")

    # The other phone, without a reload: the new totals and the line that says why they moved.
    line = viewer.locator("#changes li.change").first
    expect(line).to_contain_text("Round 1 corrected at")
    expect(line).to_contain_text("Ben, Blitz 4 → 3")
    expect(scoreboard(viewer).locator(".total")).to_have_text(["12", "3", "−5", "−11"])
    expect(line.locator("time")).to_have_text(re.compile(r"^\d{1,2}:\d{2}( ?[AP]M)?$"))  # local, not "UTC"
    expect(viewer.locator("#changes button")).to_have_count(0)

    keeper.locator("#changes li.change").first.get_by_role(
        "button", name=re.compile(r"^Revert: Round 1 corrected")
    ).click()
    expect(keeper.locator("#changes li.change").first).to_contain_text("Round 1 reverted at")
    expect(scoreboard(keeper).locator(".total")).to_have_text(["12", "1", "−5", "−11"])
    expect(viewer.locator("#changes li.change").first).to_contain_text("Ben, Blitz 3 → 4")
    expect(scoreboard(viewer).locator(".total")).to_have_text(["12", "1", "−5", "−11"])
    assert [s["blitz"] for s in game.read()["rounds"][0]["scores"]] == [0, 4, 6, 8]
