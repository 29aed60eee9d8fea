"""'What it takes' at the table: under the standings, in the Scoreboard region, in view on the
scorekeeper's phone after a save, and live on a phone that watches."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Phones, Server, api_game, fill_round

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy", "Dee"]


def test_what_it_takes_follows_each_save_on_every_phone(phones: Phones, server: Server):
    game = api_game(server, NAMES, [50, 0, 0, 0])
    keeper = phones.page()
    keeper.goto(game.edit_url)
    viewer = phones.page()
    viewer.goto(game.view_path)
    for page in (keeper, viewer):
        lines = page.get_by_role("region", name="Scoreboard").get_by_role("list", name="What it takes")
        expect(lines.get_by_role("listitem")).to_have_text(["Ana wins next round with +25 or more"])

    fill_round(keeper, NAMES, [(12, 0), (9, 4), (7, 6), (5, 8)])
    keeper.get_by_role("button", name="Save round").click()
    expect(keeper.get_by_role("status").filter(has_text="Round 1 saved.")).to_be_visible()
    for page in (keeper, viewer):  # Ana 62: 13 to go; nobody else can reach 75 in one round
        line = page.get_by_role("list", name="What it takes").get_by_role("listitem")
        expect(line).to_have_text(["Ana wins next round with +13 or more"])
        expect(line).to_be_in_viewport()
    assert keeper.evaluate("window.scrollY") == 0

    game.add_round([(13, 0), (0, 2), (0, 2), (0, 2)])  # Ana reaches 75 exactly: she wins, nothing is left to take
    for page in (keeper, viewer):
        expect(page.locator("#banner")).to_contain_text("Ana wins with 75!")
        expect(page.get_by_role("list", name="What it takes")).to_have_count(0)
