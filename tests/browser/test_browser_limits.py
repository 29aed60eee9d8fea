"""A view page whose event stream is refused (429 / 503: too many streams) still follows the game."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Route, expect

from tests.browser.helpers import Phones, Server, api_game, scoreboard

pytestmark = pytest.mark.browser

# The page polls every 20 s; a generous wait for one poll on a busy machine (a wait, not a timing claim).
POLL_WAIT_MS = 60_000


def refuse(route: Route) -> None:
    body = {
        "type": "https://blitzboard.invalid/problems/too-many-streams",
        "title": "Too many live streams",
        "status": 429,
        "detail": "This address already follows 16 live games.",
    }
    route.fulfill(
        status=429, headers={"Retry-After": "30", "Content-Type": "application/problem+json"}, body=json.dumps(body)
    )


def test_a_refused_stream_falls_back_to_polling_and_says_so_until_a_stream_is_granted(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    context = phones.context()
    context.route("**/events", refuse)
    viewer = context.new_page()
    viewer.goto(game.view_path)
    notice = viewer.locator("#not-live")
    expect(notice).to_have_text("Not live right now: this page checks for new rounds every 20 seconds.")
    expect(notice).to_have_attribute("role", "status")

    game.add_round([(10, 0), (5, 2)])
    expect(scoreboard(viewer).locator(".total")).to_have_text(["10", "1"], timeout=POLL_WAIT_MS)

    # Streams are granted again: the page goes back to live and drops the notice.
    context.unroute("**/events")
    expect(notice).to_have_count(0, timeout=POLL_WAIT_MS)
    game.add_round([(4, 3), (12, 0)])
    expect(scoreboard(viewer).locator(".total")).to_have_text(["13", "8"])
