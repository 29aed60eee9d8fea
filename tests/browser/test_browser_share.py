"""Share at the top: the game's header has a Share button on the scorekeeper's page and the view page
(never on the TV layout). Tapped on a phone, it opens the Share box where the reader is: the view link
with Copy, the QR code and the TV layout link, and "Share…" handing the view link (never the edit link)
to the phone's own share sheet where the browser has one. Without JavaScript it is a link to the box."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import ApiGame, Phones, Server, api_game

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy", "Dee"]
ROUNDS = [
    [(12, 0), (8, 3), (6, 5), (4, 7)],
    [(5, 4), (14, 0), (9, 2), (3, 8)],
    [(10, 1), (7, 3), (15, 0), (6, 5)],
]

# navigator.share as a phone's browser has it, recording what it was handed (Playwright injects this,
# so the page's CSP does not apply to it). `window.__shareAnswer` says how the share sheet ends.
SHARE_SHEET = """
window.__shared = [];
navigator.share = (data) => {
  window.__shared.push(data);
  const answer = window.__shareAnswer || "shared";
  return answer === "shared" ? Promise.resolve() : Promise.reject(new DOMException("share sheet", answer));
};
"""


def played(server: Server) -> ApiGame:
    game = api_game(server, NAMES)
    for counts in ROUNDS:
        game.add_round(counts)
    return game


def open_page(phones: Phones, game: ApiGame, who: str, share_sheet: bool) -> Page:
    """The scorekeeper's page (opened by the edit link) or the view page, on a phone whose browser has a
    share sheet or not; the clipboard allowed, as a user's tap on Copy allows it."""
    context = phones.context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=phones.server.url)
    if share_sheet:
        context.add_init_script(SHARE_SHEET)
    page = context.new_page()
    page.goto(game.edit_url if who == "keeper" else game.view_path)
    expect(page.locator("#scoreboard li.standing")).to_have_count(len(NAMES))
    return page


def view_url(game: ApiGame) -> str:
    return f"{game.server.url}/g/{game.id}"


def open_share(page: Page) -> None:
    button = page.get_by_role("link", name="Share", exact=True)
    expect(button).to_be_in_viewport(ratio=1)  # in the first screen, no scrolling
    assert page.evaluate("scrollY") == 0
    button.click()
    expect(page.locator("#share-sheet")).to_be_visible()


@pytest.mark.parametrize("who", ["keeper", "view"])
def test_share_at_the_top_opens_the_link_the_qr_and_the_tv_where_the_reader_is(
    phones: Phones, server: Server, who: str
):
    game = played(server)
    page = open_page(phones, game, who, share_sheet=True)
    open_share(page)
    sheet = page.locator("#share-sheet")
    for part in (
        sheet.get_by_label("View link", exact=True),
        sheet.locator(".qr svg").first,
        sheet.get_by_role("link", name="TV layout"),
        sheet.get_by_role("button", name="Share…"),
    ):
        expect(part).to_be_in_viewport(ratio=1)
    expect(sheet.get_by_label("View link", exact=True)).to_have_value(view_url(game))
    expect(sheet.get_by_role("link", name="TV layout")).to_have_attribute("href", f"/g/{game.id}?tv=1")
    assert page.evaluate("scrollY") == 0  # brought to the reader, not the reader to it
    phones.screenshot(page, f"share-sheet-{who}")

    sheet.get_by_role("button", name="Share…").click()
    page.wait_for_function("window.__shared.length === 1")
    shared: list[dict[str, Any]] = page.evaluate("window.__shared")
    assert shared == [{"title": "Live scores · Blitzboard", "url": view_url(game)}]
    assert game.body["edit_key"] not in str(shared) and "/edit/" not in shared[0]["url"]

    # Cancelled in the phone's share sheet: nothing said, nothing copied.
    page.evaluate("window.__shareAnswer = 'AbortError'")
    sheet.get_by_role("button", name="Share…").click()
    page.wait_for_function("window.__shared.length === 2")
    copy = sheet.locator("button[data-copy=view-link]")  # its name changes to "Copied"
    expect(copy).to_have_text("Copy")
    expect(page.locator("#request-error")).to_be_empty()
    # A share sheet that fails for another reason: the link is copied instead, and Copy says so.
    page.evaluate("window.__shareAnswer = 'NotAllowedError'")
    sheet.get_by_role("button", name="Share…").click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == view_url(game)

    # ✕ closes it, and the Share box is back in its place at the bottom of the page (one box).
    sheet.get_by_role("button", name="Close").click()
    expect(sheet).to_be_hidden()
    expect(page.locator("main > #share")).to_have_count(1)
    expect(page.locator("#share .qr svg").first).to_be_visible()
    # Opened again, Escape closes it the same way.
    page.get_by_role("link", name="Share", exact=True).click()
    expect(sheet.locator("#share")).to_have_count(1)
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    expect(page.locator("main > #share")).to_have_count(1)


@pytest.mark.parametrize("who", ["keeper", "view"])
def test_without_a_share_sheet_share_is_hidden_and_copy_copies_the_view_link(phones: Phones, server: Server, who: str):
    game = played(server)
    page = open_page(phones, game, who, share_sheet=False)
    assert page.evaluate("typeof navigator.share") == "undefined"
    open_share(page)
    sheet = page.locator("#share-sheet")
    expect(sheet.get_by_role("button", name="Share…")).to_be_hidden()
    copy = sheet.locator("button[data-copy=view-link]")  # its name changes to "Copied"
    expect(copy).to_be_in_viewport(ratio=1)
    copy.click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == view_url(game)
    # A tap on the page beside the sheet closes it.
    page.mouse.click(195, 838)
    expect(sheet).to_be_hidden()


def test_the_keepers_sheet_still_hands_over(phones: Phones, server: Server):
    game = played(server)
    page = open_page(phones, game, "keeper", share_sheet=False)
    open_share(page)
    page.locator("#share-sheet").get_by_role("link", name="Share editing").click()
    expect(page.get_by_label("Edit link", exact=True)).to_have_value(game.edit_url)
    expect(page.locator("#handover .qr svg")).to_be_in_viewport()


def test_the_tv_layout_has_no_share_button(phones: Phones, server: Server):
    game = played(server)
    page = phones.page()
    page.goto(game.view_path + "?tv=1")
    expect(page.locator("body.tv #scoreboard")).to_be_visible()
    expect(page.get_by_role("link", name="Share", exact=True)).to_have_count(0)
    expect(page.locator("#share-open, #share-sheet, #share")).to_have_count(0)


@pytest.mark.parametrize("who", ["keeper", "view"])
def test_without_javascript_share_at_the_top_jumps_to_the_share_box(phones: Phones, server: Server, who: str):
    game = played(server)
    page = phones.page(java_script_enabled=False)
    page.goto(game.edit_url if who == "keeper" else game.view_path)
    button = page.get_by_role("link", name="Share", exact=True)
    expect(button).to_be_in_viewport(ratio=1)
    expect(page.get_by_label("View link", exact=True)).not_to_be_in_viewport()
    button.click()
    path = f"/g/{game.id}/score" if who == "keeper" else game.view_path
    expect(page).to_have_url(f"{server.url}{path}#share")
    expect(page.get_by_label("View link", exact=True)).to_be_in_viewport(ratio=1)
    expect(page.locator("#share .qr svg").first).to_be_in_viewport()
    expect(page.locator("#share-sheet")).to_be_hidden()
