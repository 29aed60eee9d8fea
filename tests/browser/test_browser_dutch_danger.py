"""Dutch on a phone (390×844): the lowest total wins, so a bar is danger, how close the limit is (grey,
amber from half of it, red from 80 %), not the player's bright colour; "what it takes" names the limit."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Phones, Server, api_game, scoreboard

pytestmark = pytest.mark.browser


def test_the_player_about_to_lose_has_the_red_bar(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben", "Cy"], rules={"preset": "dutch"})
    for hands in ((15, 10, 50), (40, 0, 45)):  # nobody called: every hand counts; Ana 55, Ben 10, Cy 95
        response = httpx.post(
            f"{server.url}/api/v1/games/{game.id}/rounds",
            json={"scores": [{"player_id": p, "hand": h} for p, h in zip(game.player_ids, hands, strict=True)]},
            headers={"Authorization": f"Bearer {game.body['edit_key']}"},
        )
        response.raise_for_status()
    page = phones.page()
    page.goto(game.view_path)
    expect(scoreboard(page).locator(".name bdi")).to_have_text(["Ben", "Ana", "Cy"])
    colours = page.evaluate(
        """() => [...document.querySelectorAll('#scoreboard li.standing .bar')].map(
             (bar) => getComputedStyle(bar).getPropertyValue('--bar-colour').trim())"""
    )
    root = page.evaluate(
        """() => { const s = getComputedStyle(document.documentElement);
             return [s.getPropertyValue('--muted').trim(), s.getPropertyValue('--error').trim()]; }"""
    )
    assert colours == [root[0], "#d08a00", root[1]]  # Ben safe (grey), Ana past half (amber), Cy red
    expect(page.locator("#what-it-takes li")).to_have_text(["Cy is out at 100: 5 to go", "Ana is out at 100: 45 to go"])
    expect(page.locator("#what-it-takes")).to_be_in_viewport()
