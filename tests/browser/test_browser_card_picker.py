"""Count a hand: on the Dutch and 31 round entry, "Count cards" beside a player's hand opens a picker
(static/entry.js) where the cards are tapped, shown as chips a tap removes, added up by the game's values;
"Use N" fills the hand field and the round is saved with it. The values are worked out by hand from the
rules (docs/rules.md; the sources in the issue): Dutch, every card held: a red king 0, a black king 13, a
queen 12, a jack 11, others their face value, an ace 1. 31, three cards, the best suit's sum: an ace 11,
a face card 10, others their face value; with the house rule `thirty_and_a_half` three of a rank are 30½."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import OVERFLOWING, Phones, Server, api_game
from tests.browser.test_browser_axe import AXE, SERIOUS

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy"]

# (kind, cards, house rule 30½, value): a card is its rank, then its suit (Dutch needs one only for a king).
VALUES = [
    ("lowest", ["K♥", "K♠", "Q", "7"], False, 32),
    ("lowest", ["K♦"], False, 0),
    ("lowest", ["K♣"], False, 13),
    ("lowest", ["A", "2", "10", "J"], False, 24),
    ("lowest", ["Q", "Q", "J", "K♠", "9"], False, 57),  # a penalty card: five cards
    ("lowest", [], False, 0),
    ("lives", ["A♥", "K♥", "9♥"], False, 30),
    ("lives", ["A♥", "K♠", "9♣"], False, 11),
    ("lives", ["A♠", "K♠", "Q♠"], False, 31),
    ("lives", ["10♥", "J♥", "3♣"], False, 20),
    ("lives", ["9♦", "8♦", "K♣"], False, 17),
    ("lives", ["2♥", "3♣", "4♠"], False, 4),
    ("lives", ["7♥", "7♠", "7♣"], False, 7),
    ("lives", ["7♥", "7♠", "7♣"], True, 30.5),
    ("lives", ["A♥", "A♠", "A♦"], False, 11),
    ("lives", ["A♥", "A♠", "A♦"], True, 30.5),
    ("lives", ["A♥", "K♥", "9♥"], True, 30),  # the rule changes only three of a kind
    ("lives", ["7♥", "7♠"], True, 7),  # two of a kind are just their best suit
]


def test_the_values_of_a_hand_by_the_games_rules(phones: Phones, server: Server):
    game = api_game(server, NAMES, rules={"preset": "dutch"})
    page = phones.page()
    page.goto(game.edit_url)
    got = page.evaluate(
        "cases => cases.map(([kind, cards, half]) => window.blitzboard.cards.value(kind, cards, half))",
        [[kind, cards, half] for kind, cards, half, _ in VALUES],
    )
    wrong = [(case, value) for case, value in zip(VALUES, got, strict=True) if value != case[3]]
    assert wrong == []


def picker_fits(page: Page) -> None:
    """At 390 px: nothing scrolls sideways, no label spills out of its button, every button is 44 px high."""
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(OVERFLOWING, 390) == []
    for button in page.locator(".card-picker button").all():
        box = button.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert box["height"] >= 36, button.inner_text()


def test_a_dutch_hand_counted_from_its_cards_is_saved(phones: Phones, server: Server):
    game = api_game(server, NAMES, rules={"preset": "dutch"})
    page = phones.page()
    page.goto(game.edit_url)
    ana, ben = page.get_by_label("Hand points — Ana", exact=True), page.get_by_label("Hand points — Ben", exact=True)

    # Cancel (and Escape) close it and change nothing; the focus goes back to the field.
    page.get_by_role("button", name="Count cards — Ana").tap()
    picker = page.get_by_role("group", name="Count the hand: Ana")
    expect(picker).to_be_visible()
    expect(picker.get_by_role("button", name="Ace")).to_be_focused()
    picker.get_by_role("button", name="5", exact=True).tap()
    page.keyboard.press("Escape")
    expect(picker).to_have_count(0)
    expect(ana).to_be_focused()
    expect(ana).to_have_value("")
    page.get_by_role("button", name="Count cards — Ana").tap()
    picker.get_by_role("button", name="9", exact=True).tap()
    picker.get_by_role("button", name="Cancel").tap()
    expect(picker).to_have_count(0)
    expect(ana).to_have_value("")
    # Its button, pressed again while it is open, closes it (aria-expanded says which it will do).
    page.get_by_role("button", name="Count cards — Ana").tap()
    expect(page.get_by_role("button", name="Count cards — Ana")).to_have_attribute("aria-expanded", "true")
    page.get_by_role("button", name="Count cards — Ana").tap()
    expect(picker).to_have_count(0)
    expect(page.get_by_role("button", name="Count cards — Ana")).to_have_attribute("aria-expanded", "false")
    expect(ana).to_be_focused()

    opener = page.get_by_role("button", name="Count cards — Ben")
    opener.tap()
    picker = page.get_by_role("group", name="Count the hand: Ben")
    expect(opener).to_have_attribute("aria-expanded", "true")
    for card in ["Red king", "Black king", "Queen", "2", "7"]:
        picker.get_by_role("button", name=card, exact=True).tap()
    chips = picker.get_by_role("group", name="Cards in the hand").get_by_role("button")
    expect(chips).to_have_text(["K♥♦ ×", "K♣♠ ×", "Q ×", "2 ×", "7 ×"])
    expect(picker.locator(".picker-total")).to_have_text("Total: 34")
    picker.get_by_role("button", name="Remove 2").tap()  # a card tapped by mistake
    expect(chips).to_have_text(["K♥♦ ×", "K♣♠ ×", "Q ×", "7 ×"])
    expect(picker.locator(".picker-total")).to_have_text("Total: 32")
    picker_fits(page)
    picker.get_by_role("button", name="Use 32").tap()
    expect(picker).to_have_count(0)
    expect(ben).to_have_value("32")
    expect(ben).to_be_focused()
    expect(opener).to_have_attribute("aria-expanded", "false")

    ana.tap()
    page.keyboard.type("40")
    page.get_by_label("Hand points — Cy", exact=True).fill("27")
    page.get_by_role("radio", name="Called Dutch — Cy").tap()
    page.locator("#round-entry button[type=submit]").tap()
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    expect(page.locator("#history li[data-round='1'] .cards")).to_have_text(
        ["hand 40", "hand 32", "hand 27 · called Dutch"]
    )
    assert [s["hand"] for s in game.read()["rounds"][0]["scores"]] == [40, 32, 27]


def test_a_31_three_of_a_kind_counts_30_and_a_half_on_a_german_page(phones: Phones, server: Server):
    game = api_game(server, NAMES, rules={"preset": "thirty_one", "thirty_and_a_half": True})
    page = phones.page(locale="de-DE")
    page.goto(game.edit_url)
    expect(page.locator("html")).to_have_attribute("lang", "de")

    page.get_by_role("button", name="Karten zählen — Ana").tap()
    picker = page.get_by_role("group", name="Hand zählen: Ana")
    expect(picker.get_by_role("button", name="Herz")).to_be_focused()
    expect(picker.get_by_role("button", name="Herz")).to_have_attribute("aria-pressed", "true")
    for suit in ["Herz", "Pik", "Kreuz"]:
        picker.get_by_role("button", name=suit).tap()
        picker.get_by_role("button", name="7", exact=True).tap()
        # The deck has one 7 of that suit: it can't be tapped twice (another suit's can).
        expect(picker.get_by_role("button", name="7", exact=True)).to_be_disabled()
    expect(picker.locator(".picker-chips button")).to_have_text(["7♥ ×", "7♠ ×", "7♣ ×"])
    expect(picker.get_by_role("button", name="Ass")).to_be_disabled()  # three cards: a 31 hand is full
    expect(picker.get_by_role("button", name="30,5 eintragen")).to_be_focused()  # not lost with the 7 tapped
    expect(picker.locator(".picker-total")).to_have_text("Summe: 30,5")
    picker_fits(page)
    picker.get_by_role("button", name="30,5 eintragen").tap()
    expect(page.get_by_label("Handwert — Ana", exact=True)).to_have_value("30,5")

    page.get_by_role("button", name="Karten zählen — Ben").tap()
    picker = page.get_by_role("group", name="Hand zählen: Ben")
    expect(picker.locator(".picker-ranks button")).to_have_text(
        ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "B", "D", "K"]
    )
    for suit, card in [("Herz", "Ass"), ("Pik", "König"), ("Kreuz", "9")]:
        picker.get_by_role("button", name=suit).tap()
        picker.get_by_role("button", name=card, exact=True).tap()
    expect(picker.locator(".picker-chips button")).to_have_text(["A♥ ×", "K♠ ×", "9♣ ×"])
    picker.get_by_role("button", name="11 eintragen").tap()
    expect(page.get_by_label("Handwert — Ben", exact=True)).to_have_value("11")

    page.get_by_label("Handwert — Cy", exact=True).fill("25")
    page.locator("#round-entry button[type=submit]").tap()
    expect(page.locator("#history li[data-round='1']")).to_have_count(1)
    scores = game.read()["rounds"][0]["scores"]
    assert [(s["hand"], s["lives_lost"]) for s in scores] == [(30.5, 0), (11, 1), (25, 0)]


@pytest.mark.parametrize(("lang", "scheme"), [("en", "light"), ("ru", "dark")])
def test_axe_finds_no_serious_violation_with_the_picker_open(phones: Phones, server: Server, lang: str, scheme: str):
    game = api_game(server, NAMES, rules={"preset": "thirty_one"})
    context = phones.context(bypass_csp=True, color_scheme=scheme)  # axe is injected as a script of its own
    context.add_cookies([{"name": "blitzboard_lang", "value": lang, "url": server.url}])
    page = context.new_page()
    page.goto(game.edit_url)
    page.locator("[data-count-cards]").first.tap()
    picker = page.locator(".card-picker")
    for suit in range(2):  # a red card and a black one among the chips
        picker.locator(".picker-suits button").nth(suit * 2).tap()
        picker.locator(".picker-ranks button").first.tap()
    expect(picker.locator(".picker-chips button")).to_have_count(2)
    picker_fits(page)
    page.add_script_tag(path=AXE)
    assert page.evaluate(SERIOUS) == []


def test_without_javascript_there_is_no_picker_and_the_form_saves(phones: Phones, server: Server):
    """The button is sent `hidden` (only entry.js shows it): no stylesheet rule may bring it back."""
    game = api_game(server, NAMES, rules={"preset": "dutch"})
    page = phones.page(java_script_enabled=False)
    page.goto(game.edit_url)
    expect(page.locator("[data-count-cards]")).to_have_count(3)
    for button in page.locator("[data-count-cards]").all():
        expect(button).to_be_hidden()
    for name, hand in zip(NAMES, ["3", "27", "40"], strict=True):
        page.get_by_label(f"Hand points — {name}", exact=True).fill(hand)
    page.locator("#round-entry button[type=submit]").click()
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    assert [s["hand"] for s in game.read()["rounds"][0]["scores"]] == [3, 27, 40]
