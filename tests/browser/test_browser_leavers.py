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
