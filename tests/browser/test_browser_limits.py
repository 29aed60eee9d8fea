"""A view page whose event stream is refused (429 / 503: too many streams) still follows the game."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Route, expect

from tests.browser.helpers import TIMEOUT_MS, Phones, Server, api_game, scoreboard

pytestmark = pytest.mark.browser

# The page's clock is Playwright's (page.clock), moved on by the test: no waiting for the real 20 s.
POLL_MS = 20_000  # static/app.js asks for the scoreboard this often while the stream is refused
LONGEST_RETRY_MS = 64_000  # htmx's SSE extension tries a closed stream again after 0.5 s, 1 s, 2 s, … at most 64 s

# Resolves with the type of the next event of the page's stream (a refusal or an opening).
ARM_NEXT_STREAM_EVENT = """() => {
  window.__nextStreamEvent = new Promise((resolve) => {
    const done = (event) => {
      document.removeEventListener("htmx:sseOpen", done);
      document.removeEventListener("htmx:sseError", done);
      resolve(event.type);
    };
    document.addEventListener("htmx:sseOpen", done);
    document.addEventListener("htmx:sseError", done);
  });
}"""
# Waits for it (failing after TIMEOUT_MS of the page's clock, which runs with the real one between jumps).
NEXT_STREAM_EVENT = f"""() => Promise.race([window.__nextStreamEvent, new Promise((_, reject) => setTimeout(
  () => reject(new Error("no stream event within {TIMEOUT_MS} ms")), {TIMEOUT_MS}))])"""


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
    viewer.clock.install()  # its timers are Playwright's: they run with real time, and jump when told
    viewer.goto(game.view_path)
    notice = viewer.locator("#not-live")
    expect(notice).to_have_text("Not live right now: this page checks for new rounds every 20 seconds.")
    expect(notice).to_have_attribute("role", "status")

    game.add_round([(10, 0), (5, 2)])
    viewer.clock.fast_forward(POLL_MS)  # the next poll is due: it brings the round
    expect(scoreboard(viewer).locator(".total")).to_have_text(["10", "1"])

    # Streams are granted again: at its next try (moved up to now) the page goes back to live and drops
    # the notice. A try already on its way when the route went is refused still, and schedules the next.
    context.unroute("**/events")
    for _ in range(5):
        viewer.evaluate(ARM_NEXT_STREAM_EVENT)
        viewer.clock.fast_forward(LONGEST_RETRY_MS)
        if viewer.evaluate(NEXT_STREAM_EVENT) == "htmx:sseOpen":
            break
    expect(notice).to_have_count(0)
    game.add_round([(4, 3), (12, 0)])
    expect(scoreboard(viewer).locator(".total")).to_have_text(["13", "8"])
