"""A player's name in the browser: a typo fixed on the scorekeeper's phone shows, live, on a second phone's view
page and in "Changes" with no score moved; a refused name stays as typed with why beside it; Revert puts the
old name back; and the same rename works as a plain form without JavaScript."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Phones, Server, api_game, scoreboard

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Bn", "Cy", "Dee"]


def test_a_typo_fixed_mid_game_shows_everywhere_and_is_reverted(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    game.add_round([(12, 0), (9, 4), (7, 6), (5, 8)])
    keeper = phones.page()
    keeper.goto(game.edit_url)
    viewer = phones.page()
    viewer.goto(game.view_path)
    expect(viewer.locator("#live[sse-connect] #game")).to_have_count(1)
    expect(scoreboard(viewer).locator(".name bdi")).to_have_text(["Ana", "Bn", "Cy", "Dee"])

    keeper.locator("#players summary").click()
    field = keeper.get_by_label("Player 2", exact=True)
    field.fill("cy")
    keeper.get_by_role("button", name="Rename Bn").click()
    error = keeper.locator("#players .field-error")
    expect(error).to_have_text("Another player is already called cy; give each player a different name.")
    expect(keeper.get_by_label("Player 2", exact=True)).to_have_value("cy")  # kept as typed
    expect(scoreboard(viewer).locator(".name bdi")).to_have_text(["Ana", "Bn", "Cy", "Dee"])  # nothing changed

    keeper.get_by_label("Player 2", exact=True).fill("Ben")
    keeper.get_by_role("button", name="Rename Bn").click()
    expect(keeper.locator("#changes li.change").first).to_contain_text("Player renamed at")
    expect(keeper.locator("#changes li.change").first).to_contain_text("“Bn” → “Ben”")
    expect(scoreboard(keeper).locator(".name bdi")).to_have_text(["Ana", "Ben", "Cy", "Dee"])
    # The other phone, without a reload: the new name, the same totals, and the line that says why.
    expect(scoreboard(viewer).locator(".name bdi")).to_have_text(["Ana", "Ben", "Cy", "Dee"])
    expect(scoreboard(viewer).locator(".total")).to_have_text(["12", "1", "−5", "−11"])
    expect(viewer.locator("#changes li.change").first).to_contain_text("“Bn” → “Ben”")

    keeper.locator("#changes li.change").first.get_by_role("button").click()
    expect(keeper.locator("#changes li.change").first).to_contain_text("Player renamed back at")
    expect(scoreboard(viewer).locator(".name bdi")).to_have_text(["Ana", "Bn", "Cy", "Dee"])
    assert [p["name"] for p in game.read()["players"]] == NAMES


def test_a_rename_works_as_a_plain_form_without_javascript(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    keeper = phones.page(java_script_enabled=False)
    keeper.goto(game.edit_url)
    keeper.locator("#players summary").click()
    keeper.get_by_label("Player 2", exact=True).fill("   ")
    keeper.get_by_role("button", name="Rename Bn").click()
    expect(keeper.locator("#players .field-error")).to_have_text("Enter a name.")
    keeper.get_by_label("Player 2", exact=True).fill("Ben")
    keeper.get_by_role("button", name="Rename Bn").click()
    expect(scoreboard(keeper).locator(".name bdi")).to_have_text(["Ana", "Ben", "Cy", "Dee"])
    assert [p["name"] for p in game.read()["players"]] == ["Ana", "Ben", "Cy", "Dee"]
