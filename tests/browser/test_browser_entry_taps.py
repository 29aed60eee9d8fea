"""Round entry without Enter (an iPhone's number pad has none), counted on a 390×844 phone: a realistic
round of Dutch Blitz (two-digit counts, a Blitz count of 1, a Dutch count of 3) in the first tap, its ten
digits and Save; Dutch hands that never need Enter; Backspace in an empty field goes back."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.helpers import Phones, Server, api_game, blitz, dutch, scoreboard
from tests.browser.test_browser_entry import Hands

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy", "Dee"]


def value_button(page: Page, name: str, value: int) -> Locator:
    """A one-tap value in the row under the player being entered."""
    row = page.locator("#round-entry fieldset.player-entry").filter(has=page.locator("legend", has_text=name))
    return row.locator(".quick").get_by_role("button", name=str(value), exact=True)


def test_a_realistic_round_is_its_first_tap_its_ten_digits_and_save(phones: Phones, server: Server):
    # Ana 12/0, Ben 9/4, Cy 14/1, Dee 3/8: Cy's Blitz 1 (it could be 10) and Dee's Dutch 3 (it could be 30)
    # are the counts typing alone can't end; a tap in the row of Blitz counts ends both.
    game = api_game(server, NAMES)
    game.add_round([(10, 0), (6, 3), (5, 4), (4, 5)])
    page = phones.page()
    page.goto(game.edit_url)
    expect(page.get_by_role("heading", name="Round 2")).to_be_visible()
    hands = Hands(page)

    hands.tap(dutch(page, "Ana"))
    hands.keys("12")  # cannot grow: on to Ana's Blitz count
    hands.keys("0")  # on to Ben
    hands.keys("94")  # one digit each, neither can grow
    hands.keys("14")  # on to Cy's Blitz count
    expect(blitz(page, "Cy")).to_be_focused()
    hands.tap(value_button(page, "Cy", 1))  # a 1 that could have been 10: one tap, on to Dee
    expect(blitz(page, "Cy")).to_have_value("1")
    expect(dutch(page, "Dee")).to_be_focused()
    hands.keys("3")  # could be 30: stays
    expect(dutch(page, "Dee")).to_be_focused()
    hands.tap(value_button(page, "Dee", 8))  # Dee's Blitz count, which ends her Dutch count too
    expect(dutch(page, "Dee")).to_have_value("3")
    expect(blitz(page, "Dee")).to_have_value("8")
    save = page.get_by_role("button", name="Save round")
    expect(save).to_be_focused()
    hands.tap(save)

    expect(page.get_by_role("status").filter(has_text="Round 2 saved.")).to_be_visible()
    assert hands.count == 12, hands.count  # the first tap, the ten digits, Save: nothing else, no Enter
    saved = [(s["dutch"], s["blitz"]) for s in game.read()["rounds"][1]["scores"]]
    assert saved == [(12, 0), (9, 4), (14, 1), (3, 8)]
    # Ana 10+12, Cy −3+14−2, Ben 0+9−8, Dee −6+3−16
    expect(scoreboard(page).locator(".total")).to_have_text(["22", "9", "1", "−19"])
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_row_of_blitz_counts_goes_with_the_player_and_keeps_the_tab_order(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    page = phones.page()
    page.goto(game.edit_url)
    expect(page.locator(".quick")).to_have_count(0)  # nothing until a count is being entered
    dutch(page, "Ben").click()
    expect(page.locator(".quick")).to_have_count(1)
    expect(value_button(page, "Ben", 10)).to_be_visible()  # 0 to the pile's 10
    expect(page.locator(".quick button")).to_have_count(11)
    page.keyboard.press("Tab")  # Tab goes to the field, not into the row
    expect(blitz(page, "Ben")).to_be_focused()
    dutch(page, "Ana").click()
    expect(page.locator(".quick")).to_have_count(1)
    expect(value_button(page, "Ana", 0)).to_be_visible()
    value_button(page, "Ana", 0).tap()  # Ana went out: Blitz 0, on to Ben
    expect(blitz(page, "Ana")).to_have_value("0")
    expect(dutch(page, "Ben")).to_be_focused()


def test_backspace_in_an_empty_field_goes_back_with_the_digits_kept(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    page = phones.page()
    page.goto(game.edit_url)
    dutch(page, "Ana").click()
    page.keyboard.type("3")
    page.keyboard.press("Enter")  # 3 Dutch cards, on to the Blitz count
    expect(blitz(page, "Ana")).to_be_focused()
    page.keyboard.press("Backspace")  # empty: back to the Dutch count, "3" kept, the cursor after it
    expect(dutch(page, "Ana")).to_be_focused()
    expect(dutch(page, "Ana")).to_have_value("3")
    page.keyboard.type("5")  # 35: cannot grow, on again
    expect(dutch(page, "Ana")).to_have_value("35")
    expect(blitz(page, "Ana")).to_be_focused()


def test_dutch_hands_need_no_enter(phones: Phones, server: Server):
    # Ana 7, Ben 12 (a hand under 26 could still grow: one tap in the row), Cy 0 (called), Dee 31 and
    # then a round with a hand of 120 typed: every hand typed moves on by itself once it can't grow.
    game = api_game(server, NAMES, rules={"preset": "dutch"})
    page = phones.page()
    page.goto(game.edit_url)
    hands = Hands(page)
    field = {name: page.get_by_label(f"Hand points — {name}", exact=True) for name in NAMES}

    hands.tap(field["Ana"])
    expect(page.locator(".quick button")).to_have_count(26)  # 0–25: the hands typing can't end
    hands.tap(value_button(page, "Ana", 7))
    expect(field["Ben"]).to_be_focused()
    hands.tap(value_button(page, "Ben", 12))
    expect(field["Cy"]).to_be_focused()
    hands.keys("0")  # a typed 0 can't grow
    expect(field["Dee"]).to_be_focused()
    hands.keys("31")  # 310 is past 250: on to Save
    save = page.get_by_role("button", name="Save round")
    expect(save).to_be_focused()
    hands.tap(page.get_by_role("radio", name="Called Dutch — Cy"))
    hands.tap(save)
    expect(page.get_by_role("status").filter(has_text="Round 1 saved.")).to_be_visible()
    assert hands.count == 8, hands.count  # no Enter, no tap to move on

    field["Ana"].click()
    page.keyboard.type("120")  # three digits: 12 waits for the 0, then on
    expect(field["Ana"]).to_have_value("120")
    expect(field["Ben"]).to_be_focused()
    page.keyboard.type("26")
    expect(field["Cy"]).to_be_focused()
    value_button(page, "Cy", 9).tap()  # 9 could still be 90
    expect(field["Dee"]).to_be_focused()
    value_button(page, "Dee", 25).tap()
    page.get_by_role("button", name="Save round").tap()
    expect(page.get_by_role("status").filter(has_text="Round 2 saved.")).to_be_visible()
    rounds = game.read()["rounds"]
    assert [[s["hand"] for s in r["scores"]] for r in rounds] == [[7, 12, 0, 31], [120, 26, 9, 25]]
