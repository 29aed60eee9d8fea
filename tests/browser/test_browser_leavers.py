"""A player who left, in the browser at phone size: the scorekeeper's round form asks only the players still
in, a round saved from it (htmx) has no row for the leaver, and a second phone sees them listed last with
"left the game"."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Phones, Server, api_game, dutch, fill_round, save_round, scoreboard

pytestmark = pytest.mark.browser


def test_a_round_after_a_leave_asks_only_the_players_still_in(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben", "Cy", "Dee"])
    game.add_round([(12, 0), (9, 4), (7, 6), (5, 8)])
    response = httpx.patch(
        f"{server.url}/api/v1/games/{game.id}/players/{game.player_ids[1]}",
        json={"left": True},
        headers={"Authorization": f"Bearer {game.body['edit_key']}"},
    )
    response.raise_for_status()
    keeper = phones.page()
    keeper.goto(game.edit_url)
    viewer = phones.page()
    viewer.goto(game.view_path)
    expect(viewer.locator("#live[sse-connect] #game")).to_have_count(1)
    expect(dutch(keeper, "Ben")).to_have_count(0)
    fill_round(keeper, ["Ana", "Cy", "Dee"], [(3, 5), (10, 0), (4, 6)])
    save_round(keeper, 2)
    expect(scoreboard(viewer).locator(".name bdi")).to_have_text(["Ana", "Cy", "Dee", "Ben"])
    expect(scoreboard(viewer).last).to_contain_text("left the game")
    rounds = game.read()["rounds"]
    assert [len(r["scores"]) for r in rounds] == [4, 3]


@pytest.mark.parametrize("js", [True, False], ids=["htmx", "no-javascript"])
def test_the_players_card_marks_a_player_as_gone_and_back(phones: Phones, server: Server, js: bool):
    game = api_game(server, ["Ana", "Ben", "Cy"])
    game.add_round([(12, 0), (9, 4), (7, 6)])
    keeper = phones.page(java_script_enabled=js)
    keeper.goto(game.edit_url)
    if js:
        expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
    keeper.locator("#players summary").click()
    keeper.get_by_role("button", name="Cy has left the game").click()
    expect(scoreboard(keeper).last).to_contain_text("left the game")
    expect(dutch(keeper, "Cy")).to_have_count(0)
    expect(keeper.locator("#changes li.change").first).to_contain_text("Player left after round 1")
    if not keeper.locator("#players[open]").count():
        keeper.locator("#players summary").click()
    keeper.get_by_role("button", name="Cy is back in the game").click()
    expect(dutch(keeper, "Cy")).to_have_count(1)
    assert not any(p["left"] for p in game.read()["players"])
