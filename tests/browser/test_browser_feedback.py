"""After a tap the scorekeeper sees what happened, on a phone: the confirmation with Undo in view after a
save, the first mistake focused and in view after a refused one, the winner's banner in view after the
winning round, the correction form focused after "Edit round N"."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import Phones, Server, api_game, blitz, dutch, fill_round, scoreboard

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy", "Dee"]


def scrolled_down(page: Page) -> None:
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")


def test_a_save_confirms_with_undo_and_shows_the_new_totals(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    page = phones.page()
    page.goto(game.edit_url)
    fill_round(page, NAMES, [(12, 0), (9, 4), (7, 6), (5, 8)])
    page.get_by_role("button", name="Save round").click()
    done = page.get_by_role("status").filter(has_text="Round 1 saved.")
    expect(done).to_be_in_viewport()  # pinned to the screen; nothing else moves (the form stays under the thumb)
    expect(scoreboard(page).locator(".total")).to_have_text(["12", "1", "−5", "−11"])
    done.get_by_role("button", name="Undo").click()
    expect(scoreboard(page).locator(".total")).to_have_text(["0", "0", "0", "0"])
    expect(page.locator("#history li[data-round]")).to_have_count(0)
    expect(page.get_by_role("status").filter(has_text="Round 1 undone.")).to_be_in_viewport()
    expect(dutch(page, "Ana")).to_have_value("12")  # its counts back in the form (tests/browser/test_browser_undo.py)


def test_a_refused_save_focuses_the_first_mistake_in_view(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    page = phones.page()
    page.goto(game.edit_url)
    fill_round(page, NAMES, [(12, 1), (9, 4), (7, 6), (5, 8)])  # nobody called Blitz
    page.get_by_role("button", name="Save round").click()
    message = page.locator("#round-error")
    expect(message).to_contain_text("Nobody called Blitz")
    expect(message).to_be_focused()
    expect(message).to_be_in_viewport()
    blitz(page, "Ana").fill("x")  # a field that can't be read: it is the one focused
    page.get_by_role("button", name="Save round").click()
    expect(blitz(page, "Ana")).to_be_focused()
    expect(blitz(page, "Ana")).to_be_in_viewport()
    expect(blitz(page, "Ana")).to_have_value("x")


def test_the_winning_round_brings_the_banner_into_view(phones: Phones, server: Server):
    game = api_game(server, NAMES, [70, 0, 0, 0])
    page = phones.page()
    page.goto(game.edit_url)
    fill_round(page, NAMES, [(12, 0), (9, 4), (7, 6), (5, 8)])
    scrolled_down(page)
    page.get_by_role("button", name="Save round").click()
    banner = page.locator("#banner")
    expect(banner).to_contain_text("Ana wins with 82!")
    expect(banner).to_be_in_viewport()
    expect(banner).to_have_attribute("role", "status")


def test_edit_round_focuses_the_correction(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    game.add_round([(12, 0), (9, 4), (7, 6), (5, 8)])
    page = phones.page()
    page.goto(game.edit_url)
    scrolled_down(page)
    page.get_by_role("link", name="Edit round 1").click()
    expect(page.get_by_role("heading", name="Correct round 1")).to_be_in_viewport()
    expect(dutch(page, "Ana")).to_be_focused()
    expect(dutch(page, "Ana")).to_have_value("12")


def test_without_javascript_a_save_lands_on_the_scores_with_the_confirmation(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    page = phones.page(java_script_enabled=False)
    page.goto(game.edit_url)
    fill_round(page, NAMES, [(12, 0), (9, 4), (7, 6), (5, 8)])
    page.get_by_role("button", name="Save round").click()
    page.wait_for_url(f"**/g/{game.id}/score?saved=1#game")
    expect(page.get_by_role("status").filter(has_text="Round 1 saved.")).to_be_visible()
    page.get_by_role("button", name="Undo").click()
    expect(scoreboard(page).locator(".total")).to_have_text(["0", "0", "0", "0"])


def test_enter_moves_to_the_next_field_and_only_the_last_one_saves(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    page = phones.page()
    page.goto(game.edit_url)
    dutch(page, "Ana").click()
    page.keyboard.type("4")  # could still become 40: the cursor stays
    expect(dutch(page, "Ana")).to_be_focused()
    page.keyboard.press("Enter")  # a half-filled round is not sent: the cursor moves on
    expect(blitz(page, "Ana")).to_be_focused()
    page.keyboard.type("0")  # a count that can't grow moves on by itself
    expect(dutch(page, "Ben")).to_be_focused()
    for keys in ("3", "1", "2", "1", "1"):
        page.keyboard.type(keys)
        page.keyboard.press("Enter")
    expect(blitz(page, "Dee")).to_be_focused()
    expect(page.locator("#history li[data-round]")).to_have_count(0)  # nothing saved so far
    page.keyboard.type("1")
    page.keyboard.press("Enter")  # the last field's Enter saves the round
    expect(page.get_by_role("status").filter(has_text="Round 1 saved.")).to_be_visible()
    expect(scoreboard(page).locator(".total")).to_have_text(["4", "1", "0", "−1"])
    assert page.locator("#round-entry input.num").last.get_attribute("enterkeyhint") == "done"
