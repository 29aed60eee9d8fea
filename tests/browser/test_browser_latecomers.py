"""A latecomer in the browser at phone size: the Players card's "A latecomer" form (last place's total filled
in) adds them, the next round's form asks for their counts, a round saved from it has their row, and a
second phone sees them in the standings; without JavaScript the same form works as a plain post."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Phones, Server, api_game, dutch, fill_round, save_round, scoreboard

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("js", [True, False], ids=["htmx", "no-javascript"])
def test_a_latecomer_added_on_the_players_card_plays_the_next_round(phones: Phones, server: Server, js: bool):
    game = api_game(server, ["Ana", "Ben", "Cy"])
    game.add_round([(12, 0), (9, 4), (7, 6)])  # Cy last: 7 − 12 = −5
    keeper = phones.page(java_script_enabled=js)
    keeper.goto(game.edit_url)
    if js:
        expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
        viewer = phones.page()
        viewer.goto(game.view_path)
        expect(viewer.locator("#live[sse-connect] #game")).to_have_count(1)
    keeper.locator("#players summary").click()
    start = keeper.locator("#new-player-start")
    expect(start).to_have_value("-5")
    keeper.locator("#new-player-name").fill("Dee")
    keeper.get_by_role("button", name="Add player").click()
    expect(dutch(keeper, "Dee")).to_have_count(1)
    expect(keeper.locator("#changes li.change").first).to_contain_text("Player joined after round 1")
    fill_round(keeper, ["Ana", "Ben", "Cy", "Dee"], [(3, 5), (10, 0), (4, 6), (8, 1)])
    save_round(keeper, 2)
    rounds = game.read()["rounds"]
    assert [len(r["scores"]) for r in rounds] == [3, 4]
    dee = game.read()["players"][3]
    assert (dee["starting_score"], dee["total"], dee["joined_after_round"]) == (-5, 1, 1)
    if js:
        expect(scoreboard(viewer).filter(has_text="Dee")).to_have_count(1)
