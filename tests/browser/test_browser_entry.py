"""Round entry at the table, counted: the example round (Ana 12/0, Ben 9/4, Cy 7/6, Dee 5/8) in at
most 11 taps and key presses on a 390×844 phone with no scrolling; a count that cannot grow moves on by
itself; eight players still fit with Save in reach; a wrong Blitz count fixed in three taps."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.helpers import Phones, Server, api_game, blitz, dutch, fill_round, scoreboard

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy", "Dee"]
EIGHT = ["Ana", "Ben", "Cy", "Dee", "Eve", "Finn", "Gus", "Hal"]


class Hands:
    """Every tap and key press goes through here and is counted; a tap on something off screen fails
    (Playwright would scroll to it; a person would have had to)."""

    def __init__(self, page: Page):
        self.page = page
        self.count = 0

    def tap(self, target: Locator) -> None:
        expect(target).to_be_in_viewport()
        target.tap()
        self.count += 1

    def keys(self, text: str) -> None:
        for key in text:
            self.page.keyboard.press(key)
            self.count += 1
            self.focused_field_is_seen()

    def focused_field_is_seen(self) -> None:
        """The field the cursor moved to is on screen and not under the pinned Save button or the
        confirmation: what is at its centre is the field itself."""
        seen = self.page.evaluate(
            """() => {
          const el = document.activeElement, box = el.getBoundingClientRect();
          const x = box.left + box.width / 2, y = box.top + box.height / 2;
          return y > 0 && y < window.innerHeight && document.elementFromPoint(x, y) === el;
        }"""
        )
        assert seen, self.page.evaluate("document.activeElement.outerHTML")


def scroll_y(page: Page) -> float:
    return page.evaluate("window.scrollY")


@pytest.mark.parametrize("before", ["opened", "saved here"])
def test_a_round_of_four_in_eleven_interactions_without_scrolling(phones: Phones, server: Server, before: str):
    game = api_game(server, NAMES)
    page = phones.page()
    if before == "opened":  # the page as it opens after the previous round
        game.add_round([(10, 0), (6, 3), (5, 4), (4, 5)])
        page.goto(game.edit_url)
    else:  # the previous round saved on this page: its confirmation is at the bottom of the screen
        page.goto(game.edit_url)
        fill_round(page, NAMES, [(10, 0), (6, 3), (5, 4), (4, 5)])
        page.get_by_role("button", name="Save round").click()
        expect(page.get_by_role("status").filter(has_text="Round 1 saved.")).to_be_visible()
    expect(page.get_by_role("heading", name="Round 2")).to_be_visible()
    assert scroll_y(page) == 0
    hands = Hands(page)

    hands.tap(dutch(page, "Ana"))
    hands.keys("12")  # two digits: on to Ana's Blitz count
    expect(blitz(page, "Ana")).to_be_focused()
    hands.tap(page.get_by_role("button", name="Blitz! — Ana"))  # her Blitz count becomes 0, on to Ben
    expect(blitz(page, "Ana")).to_have_value("0")
    expect(dutch(page, "Ben")).to_be_focused()
    hands.keys("947658")  # each count is complete at one digit
    expect(page.get_by_role("button", name="Save round")).to_be_focused()
    save = page.get_by_role("button", name="Save round")
    hands.tap(save)

    expect(page.get_by_role("status").filter(has_text="Round 2 saved.")).to_be_in_viewport()
    expect(page.get_by_role("status").filter(has_text="Round 1 saved.")).to_have_count(0)
    expect(scoreboard(page).locator(".total")).to_have_text(["22", "1", "−8", "−17"])
    assert hands.count <= 11, hands.count
    assert scroll_y(page) == 0  # nothing needed scrolling, and the save scrolled nothing
    for total in scoreboard(page).locator(".total").all():
        expect(total).to_be_in_viewport()
    expect(page.get_by_role("button", name="Save round")).to_be_in_viewport()  # ready for round 3
    saved = [(s["dutch"], s["blitz"]) for s in game.read()["rounds"][1]["scores"]]
    assert saved == [(12, 0), (9, 4), (7, 6), (5, 8)]


@pytest.mark.parametrize(
    ("field", "typed", "moves_on"),
    [("dutch", v, True) for v in ("0", "5", "6", "7", "8", "9", "12", "40")]
    + [("dutch", v, False) for v in ("1", "2", "3", "4")]
    + [("blitz", v, True) for v in ("0", "2", "5", "9", "10")]
    + [("blitz", "1", False)],
)
def test_a_count_that_cannot_grow_moves_on(phones: Phones, server: Server, field: str, typed: str, moves_on: bool):
    game = api_game(server, ["Ana", "Ben"])
    page = phones.page()
    page.goto(game.edit_url)
    first = (dutch if field == "dutch" else blitz)(page, "Ana")
    first.click()
    page.keyboard.type(typed)
    expect(first).to_have_value(typed)
    if moves_on:
        expect(first).not_to_be_focused()
        following = blitz(page, "Ana") if field == "dutch" else dutch(page, "Ben")
        expect(following).to_be_focused()
    else:
        expect(first).to_be_focused()


def test_deleting_or_the_steppers_never_move_on(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    page = phones.page()
    page.goto(game.edit_url)
    dutch(page, "Ana").click()
    page.keyboard.type("1")
    page.keyboard.press("Backspace")
    expect(dutch(page, "Ana")).to_be_focused()
    page.get_by_role("button", name="Count with − +").click()
    page.get_by_role("button", name="One Dutch card more — Ana").click()
    expect(dutch(page, "Ana")).to_have_value("1")
    expect(page.get_by_role("button", name="One Dutch card more — Ana")).to_be_focused()
    page.reload()  # the choice is remembered on this phone
    expect(page.get_by_role("button", name="Count with − +")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("button", name="One Dutch card more — Ana")).to_be_visible()


def test_eight_players_fit_and_save_stays_in_reach(phones: Phones, server: Server):
    game = api_game(server, EIGHT)
    game.add_round([(10, 0)] + [(5, 2)] * 7)
    page = phones.page()
    page.goto(game.edit_url)
    save = page.get_by_role("button", name="Save round")
    expect(save).to_be_in_viewport()  # pinned to the bottom of the screen while the form is below
    for name in EIGHT:
        dutch(page, name).fill("5")
        blitz(page, name).fill("0" if name == "Ana" else "1")
        expect(save).to_be_in_viewport()  # wherever the form is scrolled
        box = blitz(page, name).bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save.tap()
    expect(page.get_by_role("status").filter(has_text="Round 2 saved.")).to_be_visible()


def test_ben_s_blitz_count_fixed_in_three_taps_without_scrolling_sideways(phones: Phones, server: Server):
    game = api_game(server, EIGHT)
    game.add_round([(12, 0), (9, 4)] + [(5, 2)] * 6)
    page = phones.page()
    page.goto(game.edit_url)
    hands = Hands(page)
    edit = page.get_by_role("link", name="Edit round 1")
    edit.scroll_into_view_if_needed()  # the history is below the form: scrolling down is not a tap
    hands.tap(edit)
    expect(page.get_by_role("heading", name="Correct round 1")).to_be_in_viewport()
    hands.tap(page.get_by_role("button", name="One Blitz card fewer — Ben"))
    expect(blitz(page, "Ben")).to_have_value("3")
    hands.tap(page.get_by_role("button", name="Save correction"))
    expect(page.get_by_role("status").filter(has_text="Round 1 corrected.")).to_be_visible()
    assert hands.count <= 3
    assert page.evaluate("window.scrollX") == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    ben = page.locator("#history li[data-round='1'] li.score").nth(1)
    expect(ben.locator(".who")).to_have_text("Ben")
    expect(ben.locator(".cards")).to_have_text("9 / 3")
    expect(ben.locator(".points")).to_have_text("+3")
    assert game.read()["rounds"][0]["scores"][1]["blitz"] == 3


def test_a_round_saved_from_the_keyboard_leaves_the_cursor_in_the_next_round(phones: Phones, server: Server):
    # Keyboard only: Enter saves, and the next round's first field has the cursor (it took 16 Tabs back).
    game = api_game(server, NAMES)
    page = phones.page()
    page.goto(game.edit_url)
    dutch(page, "Ana").focus()
    page.keyboard.type("12")  # complete: on to Ana's Blitz count, and so on as typed
    page.keyboard.type("0947658")
    expect(page.get_by_role("button", name="Save round")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("status").filter(has_text="Round 1 saved.")).to_be_visible()
    expect(page.get_by_role("heading", name="Round 2")).to_be_visible()
    expect(dutch(page, "Ana")).to_be_focused()
    page.keyboard.type("5")
    expect(dutch(page, "Ana")).to_have_value("5")
    # A tap on Save leaves the focus alone: no phone keyboard pops up over the scores (nor does the field
    # that had the focus when a refresh came and brought nothing newer).
    fill_round(page, NAMES, [(10, 0), (6, 3), (5, 4), (4, 5)])
    page.get_by_role("button", name="Save round").tap()
    expect(page.get_by_role("status").filter(has_text="Round 2 saved.")).to_be_visible()
    expect(page.get_by_role("heading", name="Round 3")).to_be_visible()
    expect(dutch(page, "Ana")).not_to_be_focused()
