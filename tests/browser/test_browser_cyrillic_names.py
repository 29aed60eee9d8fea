"""Round entry in Russian and German with everyday Russian names (8 to 10 letters: Александра,
Константин, Григорий, Станислав) on a 390 px phone: each name shown whole, never cut to "Григо…", in
the compact rows of Dutch Blitz, Nerts and Ligretto and with the − + buttons; and the "count with − +"
switch keeps its label on one line beside a long heading ("Раунд 2 (дополнительный)"), moving under
the heading when the two don't fit side by side. Nothing runs past the screen's edge.
(tests/browser/test_browser_names.py checks longer and alike names on the English page.)"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import OVERFLOWING, Phones, Server, api_game
from tests.browser.test_browser_names import NAME_ROWS

pytestmark = pytest.mark.browser

WIDTH = 390
PHONE_390 = {"viewport": {"width": WIDTH, "height": 844}}
BROWSER_LOCALES = {"ru": "ru-RU", "de": "de-DE"}
NAMES = ["Александра", "Константин", "Григорий", "Станислав"]

# The switch's label, each line of it, and the heading beside it.
SWITCH = """head => {
  const button = head.querySelector("[data-steppers]"), heading = head.querySelector("h2");
  const text = document.createRange();
  text.selectNodeContents(button);
  const tops = new Set([...text.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
  const box = button.getBoundingClientRect(), h2 = heading.getBoundingClientRect();
  return {
    label: button.textContent, heading: heading.textContent, lines: tops.size,
    buttonOverflows: button.scrollWidth > button.clientWidth + 1,
    headingOverflows: heading.scrollWidth > heading.clientWidth + 1,
    overlaps: box.left < h2.right && h2.left < box.right && box.top < h2.bottom && h2.top < box.bottom,
    right: Math.max(box.right, h2.right),
  };
}"""


def keeper_page(phones: Phones, server: Server, lang: str, preset: str, **game: Any) -> Page:
    rules = {"preset": preset, **game.pop("rules", {})}
    handle = api_game(server, NAMES, rules=rules, **game)
    page = phones.page(locale=BROWSER_LOCALES[lang], **PHONE_390)
    page.goto(handle.edit_url)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("#round-entry .player-entry")).to_have_count(4)
    return page


def assert_every_name_whole(page: Page) -> None:
    rows = page.locator("#round-entry .player-entry").evaluate_all(NAME_ROWS)
    assert [row["text"] for row in rows] == NAMES
    for row in rows:
        assert row["clientWidth"] > 0, row
        assert row["scrollWidth"] <= row["clientWidth"], row  # not cut
        assert row["textOverflow"] != "ellipsis", row
        assert row["linesOutside"] == 0 and row["covered"] == 0 and not row["rowClipped"], row
        assert row["left"] >= 0 and row["right"] <= WIDTH, row
    # A name of one word is never broken inside it: its text takes one line.
    lines = page.locator("#round-entry .player-entry legend bdi").evaluate_all(
        """names => names.map(name => {
          const text = document.createRange();
          text.selectNodeContents(name);
          return new Set([...text.getClientRects()].map(r => Math.round(r.top))).size;
        })"""
    )
    assert lines == [1] * len(NAMES), lines
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    assert page.evaluate(OVERFLOWING, WIDTH) == []


@pytest.mark.parametrize("lang", ["ru", "de"])
@pytest.mark.parametrize("preset", ["dutch_blitz", "nerts", "ligretto"])
def test_russian_names_are_whole_in_compact_round_entry(phones: Phones, server: Server, lang: str, preset: str):
    page = keeper_page(phones, server, lang, preset)
    assert_every_name_whole(page)
    phones.screenshot(page, f"cyrillic-names-{preset}-{lang}")


@pytest.mark.parametrize("lang", ["ru", "de"])
def test_russian_names_are_whole_with_the_steppers_and_the_switch_stays_one_line(
    phones: Phones, server: Server, lang: str
):
    # Two leaders tied at the target: the next round is a tie-break, the longest heading round entry has.
    page = keeper_page(phones, server, lang, "dutch_blitz", starts=[70, 70, 0, 0])
    handle_rows = page.locator("#round-entry .player-entry")
    for row, (dutch, blitz) in zip(handle_rows.all(), [(10, 0), (10, 0), (2, 5), (1, 6)], strict=True):
        row.locator("input.num").nth(0).fill(str(dutch))
        row.locator("input.num").nth(1).fill(str(blitz))
    page.locator("#round-entry button[type=submit]").click()
    expect(page.locator("#round-entry h2")).to_contain_text("2 (")  # "Раунд 2 (дополнительный)"
    head = page.locator("#round-entry .section-head")
    switch = head.evaluate(SWITCH)
    assert switch["lines"] == 1, switch
    assert not switch["buttonOverflows"] and not switch["headingOverflows"] and not switch["overlaps"], switch
    assert switch["right"] <= WIDTH, switch
    page.locator("[data-steppers]").click()
    expect(page.locator("[data-steppers]")).to_have_attribute("aria-pressed", "true")
    assert head.evaluate(SWITCH)["lines"] == 1
    assert_every_name_whole(page)
    # The round saved, in the history's columns (four a row at 390 px): every name whole there too.
    names = page.locator("#history li.round-card .who").evaluate_all(
        """names => names.map(name => {
          const text = document.createRange();
          text.selectNodeContents(name);
          return {text: name.textContent, cut: name.scrollWidth > name.clientWidth + 1,
            ellipsis: getComputedStyle(name).textOverflow === "ellipsis",
            lines: new Set([...text.getClientRects()].map(r => Math.round(r.top))).size};
        })"""
    )
    assert {n["text"] for n in names} == set(NAMES) and not any(
        n["cut"] or n["ellipsis"] or n["lines"] != 1 for n in names
    ), names
    phones.screenshot(page, f"cyrillic-names-steppers-tie-{lang}")
