"""A tap that fails says so where it is seen, and leaves the page as it was: the app's own error answers
put their message into #request-error (HX-Retarget), anything else gets a plain message from app.js."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Route, expect

from tests.browser.helpers import Phones, Server, api_game, dutch, fill_round, save_round, scoreboard

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben"]


def test_the_apps_own_refusal_lands_in_the_error_slot_in_view_and_keeps_the_round(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    page = phones.page()
    # Not live (the stream is refused): a live keeper page would turn into the view page at once
    # (tests/browser/test_browser_handover.py); here the tap is what finds the key gone.
    page.route(f"**/g/{game.id}/events", lambda route: route.abort())
    page.goto(game.edit_url)
    game.rotate_key()  # the key in this phone's cookie stops working
    fill_round(page, NAMES, [(10, 0), (5, 2)])
    page.locator("#game").evaluate("game => { game.marker = 'not swapped' }")
    page.get_by_role("button", name="Save round").click()
    alert = page.locator("#request-error")
    expect(alert).to_have_text(re.compile(r"^This browser's edit key doesn't work any more"))
    expect(page.get_by_role("alert")).to_have_count(1)
    expect(alert).to_be_in_viewport()  # pinned to the screen, wherever the page is scrolled
    assert page.locator("#game").evaluate("game => game.marker") == "not swapped"
    expect(dutch(page, "Ana")).to_have_value("10")
    assert game.read()["rounds"] == []


@pytest.mark.parametrize("status", [502, 429, 422])
def test_an_error_page_from_something_in_between_never_replaces_the_game(phones: Phones, server: Server, status: int):
    game = api_game(server, NAMES)
    context = phones.context()
    page = context.new_page()
    page.goto(game.edit_url)
    fill_round(page, NAMES, [(10, 0), (5, 2)])

    def proxy_page(route: Route) -> None:  # a proxy's own page: no HX headers, no .problem in it
        route.fulfill(status=status, content_type="text/html", body="<html><body><h1>Proxy says no</h1></body></html>")

    context.route(f"**/g/{game.id}/rounds", proxy_page)
    page.get_by_role("button", name="Save round").click()
    expect(page.get_by_role("alert")).to_have_text(
        f"Something went wrong ({status}): nothing was saved. Reload the page and try again."
    )
    expect(page.locator("#game")).to_have_count(1)
    expect(page.get_by_text("Proxy says no")).to_have_count(0)
    page.get_by_role("alert").click()  # tapped away
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(dutch(page, "Ana")).to_have_value("10")

    # The next try starts with the message gone, and succeeds.
    context.unroute(f"**/g/{game.id}/rounds")
    save_round(page, 1)
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(scoreboard(page).locator(".total")).to_have_text(["10", "1"])


def test_a_viewer_that_is_up_to_date_is_not_redrawn_when_its_stream_connects(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    game.add_round([(10, 0), (5, 2)])
    viewer = phones.page()
    with viewer.expect_response(lambda r: "since=2" in r.url) as caught:
        viewer.goto(game.view_path)  # the stream's first message asks for the fragment with version 2
        viewer.locator("#game").evaluate("game => { game.marker = 'not swapped' }")
    assert caught.value.status == 204
    assert viewer.locator("#game").evaluate("game => game.marker") == "not swapped"
    game.add_round([(4, 3), (12, 0)])
    expect(viewer.locator("#game")).to_have_attribute("data-version", "3")
    assert viewer.locator("#game").evaluate("game => game.marker") is None  # a newer version: swapped
    expect(viewer.locator("#since")).to_have_value("3")


@pytest.mark.parametrize(
    "body",
    ["<h1>Slow down</h1>", '<div class="problem"><p>Slow down</p></div>'],  # a proxy's page; one like the app's own
    ids=["foreign", "problem"],
)
def test_a_viewers_failed_refresh_shows_nothing_replaces_nothing_and_is_retried(
    phones: Phones, server: Server, body: str
):
    game = api_game(server, NAMES)
    context = phones.context()
    viewer = context.new_page()
    viewer.goto(game.view_path)
    expect(viewer.locator("#since")).to_have_value("1")
    failures: list[str] = []

    def proxy_429_twice(route: Route) -> None:
        if route.request.headers.get("hx-request") == "true" and len(failures) < 2:
            failures.append(route.request.url)
            route.fulfill(status=429, content_type="text/html", body=body)
        else:
            route.continue_()

    context.route(re.compile(rf"/g/{game.id}\?since="), proxy_429_twice)
    game.add_round([(10, 0), (5, 2)])
    expect(viewer.locator("#game")).to_have_attribute("data-version", "2")  # retried until it worked
    assert len(failures) == 2
    expect(viewer.locator("#request-error")).to_be_empty()
    expect(viewer.get_by_text("Slow down")).to_have_count(0)
    expect(scoreboard(viewer).locator(".total")).to_have_text(["10", "1"])
