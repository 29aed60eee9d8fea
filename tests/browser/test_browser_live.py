"""The view link in a second browser: saves appear without a reload, and it catches up after a drop."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.helpers import Phones, Server, api_game, fill_round, save_round, scoreboard, start_server
from tests.helpers import on_postgres

pytestmark = pytest.mark.browser


def watch(page: Page, path: str) -> list[str]:
    """Open the view page and count main-frame navigations from then on (a reload would add one)."""
    navigations: list[str] = []
    page.goto(path)
    expect(page.locator("#live[sse-connect] #game")).to_have_count(1)
    page.on("framenavigated", lambda frame: navigations.append(frame.url) if frame == page.main_frame else None)
    page.evaluate("window.blitzboardTestMarker = 'still the same document'")
    return navigations


def same_document(page: Page) -> bool:
    return page.evaluate("window.blitzboardTestMarker") == "still the same document"


@pytest.mark.postgres
def test_the_view_link_shows_each_save_without_reloading(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    keeper = phones.page()
    keeper.goto(game.edit_url)
    viewer = phones.page()
    navigations = watch(viewer, game.view_path)
    expect(scoreboard(viewer).locator(".total")).to_have_text(["0", "0"])
    expect(viewer.locator("#history")).to_contain_text("No rounds yet.")

    fill_round(keeper, ["Ana", "Ben"], [(10, 0), (5, 2)])
    save_round(keeper, 1)
    expect(scoreboard(viewer).locator(".total")).to_have_text(["10", "1"])
    expect(viewer.locator("#history li[data-round]")).to_have_count(1)
    expect(viewer.locator(".round-count")).to_have_text("· after round 1")

    fill_round(keeper, ["Ana", "Ben"], [(4, 3), (12, 0)])
    save_round(keeper, 2)
    expect(scoreboard(viewer).locator(".name bdi")).to_have_text(["Ben", "Ana"])
    expect(scoreboard(viewer).locator(".total")).to_have_text(["13", "8"])

    # A correction and an undo reach the viewer too.
    keeper.get_by_role("link", name="Edit round 1").click()
    expect(keeper.get_by_role("heading", name="Correct round 1")).to_be_visible()
    keeper.get_by_label("Dutch cards — Ana", exact=True).fill("30")
    keeper.get_by_role("button", name="Save correction").click()
    expect(scoreboard(viewer).locator(".total")).to_have_text(["28", "13"])
    keeper.get_by_role("link", name="Undo last round").click()
    keeper.get_by_role("button", name="Delete round 2").click()
    expect(scoreboard(viewer).locator(".total")).to_have_text(["30", "1"])
    expect(viewer.locator("#history li[data-round]")).to_have_count(1)

    # The viewer never got a form, and never reloaded.
    expect(viewer.locator("form:not(.lang-switch)")).to_have_count(0)  # (but the language switch)
    assert navigations == []
    assert same_document(viewer)


def test_the_tv_layout_follows_live_too(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"], [70, 0])
    tv = phones.page(viewport={"width": 1280, "height": 720}, is_mobile=False, has_touch=False)
    navigations = watch(tv, game.view_path + "?tv=1")
    game.add_round([(6, 0), (1, 1)])
    expect(tv.locator("body.tv #banner h2")).to_contain_text("Ana wins with 76!")
    expect(tv.locator("#share")).to_have_count(0)  # still the TV layout after the swap
    assert navigations == []
    assert same_document(tv)


def test_the_view_catches_up_after_going_offline(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    context = phones.context()
    viewer = context.new_page()
    navigations = watch(viewer, game.view_path)
    game.add_round([(10, 0), (5, 2)])
    expect(viewer.locator("#game")).to_have_attribute("data-version", "2")

    context.set_offline(True)
    game.add_round([(4, 3), (12, 0)])  # announced, but the page can't fetch it while offline
    game.add_round([(1, 0), (2, 2)])
    game.add_round([(3, 0), (0, 1)])  # three rounds saved while this phone was away
    context.set_offline(False)
    expect(viewer.locator("#game")).to_have_attribute("data-version", "5")
    expect(scoreboard(viewer).locator(".total")).to_have_text(["12", "9"])
    assert navigations == []
    assert same_document(viewer)


@pytest.mark.postgres
@pytest.mark.skipif(
    not on_postgres(), reason="live updates cross processes only on PostgreSQL (this is the SQLite pass)"
)
def test_the_keepers_saves_on_one_server_process_reach_a_viewer_on_another(
    phones: Phones, server_database_url: str, tmp_path: Path
):
    """Several server processes on one PostgreSQL database (compose's workers): the scorekeeper's page on
    one, the view page on the other, which hears of each save through PostgreSQL's notifications."""
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one = start_server(tmp_path / "one", server_database_url)
    try:
        two = start_server(tmp_path / "two", server_database_url)
    except BaseException:
        one.stop()
        raise
    try:
        game = api_game(one, ["Ana", "Ben"])
        keeper = phones.page(one)
        keeper.goto(game.edit_url)
        viewer = phones.page(two)
        navigations = watch(viewer, game.view_path)
        expect(scoreboard(viewer).locator(".total")).to_have_text(["0", "0"])

        fill_round(keeper, ["Ana", "Ben"], [(10, 0), (5, 2)])
        save_round(keeper, 1)
        expect(scoreboard(viewer).locator(".total")).to_have_text(["10", "1"])
        fill_round(keeper, ["Ana", "Ben"], [(4, 3), (12, 0)])
        save_round(keeper, 2)
        expect(scoreboard(viewer).locator(".total")).to_have_text(["13", "8"])
        expect(viewer.locator("#history li[data-round]")).to_have_count(2)
        assert navigations == []
        assert same_document(viewer)
    finally:
        one.stop()
        two.stop()


def test_the_view_reconnects_after_the_server_went_away_and_catches_up(phones: Phones, own_server: Server):
    game = api_game(own_server, ["Ana", "Ben"])
    context = phones.context(own_server)
    viewer = context.new_page()
    navigations = watch(viewer, game.view_path)
    game.add_round([(10, 0), (5, 2)])
    expect(viewer.locator("#game")).to_have_attribute("data-version", "2")

    # The stream ends with the server; while it is back but unreachable for this page, two saves happen
    # that no live message can carry to it.
    context.route("**/events", lambda route: route.abort())
    own_server.stop()
    own_server.start()
    game.add_round([(4, 3), (12, 0)])
    game.add_round([(1, 0), (2, 2)])
    expect(viewer.locator("#game")).to_have_attribute("data-version", "2")
    assert httpx.get(f"{own_server.url}/api/v1/games/{game.id}").json()["version"] == 4

    # Reachable again: the browser reconnects by itself and the first message brings it up to date.
    context.unroute("**/events")
    expect(viewer.locator("#game")).to_have_attribute("data-version", "4", timeout=20_000)
    expect(scoreboard(viewer).locator(".total")).to_have_text(["11", "9"])
    expect(viewer.locator("#history li[data-round]")).to_have_count(3)
    assert navigations == []
    assert same_document(viewer)

    # And it is live again afterwards.
    game.add_round([(5, 0), (0, 5)])
    expect(scoreboard(viewer).locator(".total")).to_have_text(["14", "1"])


def test_a_failed_refresh_is_retried_without_waiting_for_the_next_save(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    context = phones.context()
    viewer = context.new_page()
    navigations = watch(viewer, game.view_path)

    # The stream stays up, but fetching the new state fails once (a blink of the network).
    def fail_htmx_fetches(route: Route) -> None:
        if route.request.headers.get("hx-request") == "true":
            route.abort()
        else:
            route.continue_()

    fragment = re.compile(rf"/g/{game.id}\?since=1$")  # the refresh says which version it shows
    context.route(fragment, fail_htmx_fetches)
    with viewer.expect_event("requestfailed", lambda request: bool(fragment.search(request.url))):
        game.add_round([(10, 0), (5, 2)])
    context.unroute(fragment)
    expect(viewer.locator("#game")).to_have_attribute("data-version", "2")
    expect(scoreboard(viewer).locator(".total")).to_have_text(["10", "1"])
    assert navigations == []
    assert same_document(viewer)
