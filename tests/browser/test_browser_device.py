"""What the page asks of the phone itself: keep the screen awake, copy the link."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Phones, Server, api_game

pytestmark = pytest.mark.browser

# A stand-in for the Screen Wake Lock API that records each request (headless Chromium has no screen
# to keep awake). Init scripts run before the page's own and are not subject to its CSP.
FAKE_WAKE_LOCK = """
window.__wakeLocks = [];
Object.defineProperty(navigator, "wakeLock", {
  configurable: true,
  value: { request: (type) => { window.__wakeLocks.push(type); return Promise.resolve({ type, release() {} }); } },
});
"""


@pytest.mark.parametrize("page_kind", ["scorekeeper", "view"])
def test_an_open_game_asks_to_keep_the_screen_awake(phones: Phones, server: Server, page_kind: str):
    game = api_game(server, ["Ana", "Ben"])
    context = phones.context()
    context.add_init_script(FAKE_WAKE_LOCK)
    page = context.new_page()
    page.goto(game.edit_url if page_kind == "scorekeeper" else game.view_path)
    expect(page.locator("#game")).to_be_visible()
    page.wait_for_load_state("load")
    assert page.evaluate("window.__wakeLocks") == ["screen"]


def test_the_start_page_does_not_hold_the_screen(phones: Phones):
    context = phones.context()
    context.add_init_script(FAKE_WAKE_LOCK)
    page = context.new_page()
    page.goto("/")
    page.wait_for_load_state("load")
    assert page.evaluate("window.__wakeLocks") == []


def test_copy_puts_the_view_link_on_the_clipboard(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    context = phones.context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = context.new_page()
    page.goto(game.view_path)
    copy = page.locator("#share button[data-copy=view-link]")
    copy.click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == f"{server.url}/g/{game.id}"
    assert page.locator("#view-link").input_value() == f"{server.url}/g/{game.id}"
