"""Comfort at the table: nothing jumps when a round saves, and text keeps WCAG AA contrast."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import Phones, Server, api_game, fill_round, save_round

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy"]


def top_of(page: Page, selector: str) -> float:
    """Where the element is on the page (not the viewport), in CSS pixels."""
    return page.locator(selector).first.evaluate("el => el.getBoundingClientRect().top + window.scrollY")


def test_nothing_jumps_when_a_round_saves(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    game.add_round([(10, 0), (5, 2), (3, 4)])  # the history table and chart already exist
    page = phones.page()
    page.goto(game.edit_url)
    page.evaluate("window.scrollTo(0, document.querySelector('#round-entry').offsetTop)")
    before = {
        "scroll": page.evaluate("window.scrollY"),
        "scoreboard": top_of(page, "#scoreboard"),
        "entry": top_of(page, "#round-entry"),
        "first_field": top_of(page, "#round-entry input.num"),
    }
    assert before["scroll"] > 0  # scrolled down to the form, as a scorekeeper is between rounds
    fill_round(page, NAMES, [(2, 0), (9, 1), (4, 3)])
    save_round(page, rounds_after=2)
    expect(page.locator("#round-entry h2")).to_have_text("Round 3")
    after = {
        "scroll": page.evaluate("window.scrollY"),
        "scoreboard": top_of(page, "#scoreboard"),
        "entry": top_of(page, "#round-entry"),
        "first_field": top_of(page, "#round-entry input.num"),
    }
    assert after == before


# Relative luminance and contrast ratio as WCAG 2 defines them, over the element's own colour and
# the first opaque background among it and its ancestors.
CONTRAST = """
(selector) => {
  const channel = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const results = [];
  for (const el of document.querySelectorAll(selector)) {
    if (!el.offsetParent && getComputedStyle(el).position !== "fixed") continue;  // not shown
    let bg = null;
    for (let node = el; node && !bg; node = node.parentElement) {
      const colour = rgb(getComputedStyle(node).backgroundColor);
      if (colour.length < 4 || colour[3] === 1) { if (colour.length < 4 || colour[3] > 0) bg = colour; }
    }
    bg = bg || [255, 255, 255];
    const fg = rgb(getComputedStyle(el).color);
    const [a, b] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
    results.push({ text: el.textContent.trim().slice(0, 30), ratio: (a + 0.05) / (b + 0.05) });
  }
  return results;
}
"""
TEXT = (
    "h1, h2, label, legend, .muted, .rank, .name bdi, .total, .to-target, .rules-line, .points, "
    ".round-card h3, .round-scores bdi, .round-scores span, .legend bdi, .field-error, .form-error, button, a, .banner h2, .banner li"
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_meets_wcag_aa_contrast(phones: Phones, server: Server, scheme: str):
    game = api_game(server, NAMES, [70, 0, 0])
    game.add_round([(6, 0), (5, 2), (3, 4)])  # Ana wins: the banner is on the page too
    page = phones.page(color_scheme=scheme)
    page.goto(game.edit_url)
    expect(page.locator("#banner")).to_be_visible()
    checked = page.evaluate(CONTRAST, TEXT)
    page.goto(game.view_path)
    checked += page.evaluate(CONTRAST, TEXT)
    page.goto("/")
    page.locator("#new-game button.primary[value=start]").click()  # mistakes: the error messages show
    expect(page.locator("#new-game .field-error").first).to_be_visible()
    checked += page.evaluate(CONTRAST, TEXT)
    assert len(checked) > 50
    low = [c for c in checked if c["ratio"] < 4.5]
    assert low == [], low
