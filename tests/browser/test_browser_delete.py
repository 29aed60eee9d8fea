"""The scorekeeper deletes the game from the phone; a viewer's open page reloads and says it is gone."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Phones, Server, api_game

pytestmark = pytest.mark.browser


def test_deleting_the_game_after_confirming_ends_it_for_every_viewer(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    game.add_round([(10, 0), (5, 2)])
    viewer = phones.page()
    viewer.goto(game.view_path)
    expect(viewer.locator("#since")).to_have_value("2")
    keeper = phones.page()
    keeper.goto(game.edit_url)
    keeper.get_by_text("House rules and name").click()
    keeper.get_by_role("link", name="Delete this game…").click()
    dialog = keeper.get_by_role("alertdialog", name="Delete this game?")
    expect(dialog).to_be_visible()
    dialog.get_by_role("link", name="Cancel").click()  # changed their mind: nothing happens
    expect(keeper.get_by_role("button", name="Save round")).to_be_visible()
    keeper.get_by_text("House rules and name").click()
    keeper.get_by_role("link", name="Delete this game…").click()
    keeper.get_by_role("button", name="Delete the game").click()
    expect(keeper.get_by_role("heading", name="This game was deleted")).to_be_visible()
    expect(viewer.get_by_role("heading", name="This game was deleted")).to_be_visible()  # live: it reloaded
    expect(viewer.get_by_role("link", name="Start a new game")).to_be_visible()
