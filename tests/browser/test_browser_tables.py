"""Tables, in a real browser on a 390 px phone: make a table on the start page, add
someone to it, start a game at it (two people ticked and a newcomer typed), play it to the end, take the
rematch, and find both games on the table's page; no page of it scrolls sideways."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import OVERFLOWING, Phones, fill_round, save_round

pytestmark = pytest.mark.browser

WIDTH = 390


def fits(page: Page, where: str) -> None:
    """Nothing spills past its box or the screen, and the page itself never scrolls sideways."""
    found = page.evaluate(OVERFLOWING, WIDTH)
    assert found == [], f"{where}: " + json.dumps(found, indent=1, ensure_ascii=False)
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH, where


def test_a_table_from_the_start_page_to_a_rematch(phones: Phones):
    page = phones.page(viewport={"width": WIDTH, "height": 844})
    page.goto("/")
    expect(page.get_by_role("heading", name="Your tables")).to_be_visible()
    page.locator("summary", has_text="New table").tap()
    page.get_by_label("Table name", exact=True).fill("The Millers of Upper Wensleydale")
    page.locator("#people").fill("Ana\nBen")
    page.get_by_role("button", name="Make the table").tap()
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    table_url = page.url
    expect(page.locator("#table h1")).to_have_text("The Millers of Upper Wensleydale")
    expect(page.locator("#roster .person-name")).to_have_text(["Ana", "Ben"])
    fits(page, "the table")

    # Someone joins before the first game (htmx swaps the table in place).
    page.get_by_label("Add a person", exact=True).fill("Dee")
    page.get_by_role("button", name="Add", exact=True).tap()
    expect(page.locator("#roster .person-name")).to_have_text(["Ana", "Ben", "Dee"])
    expect(page).to_have_url(table_url)
    page.get_by_text("Edit", exact=True).last.tap()  # Dee's edit box: rename, or remove (no games yet)
    expect(page.get_by_role("button", name="Remove from the table")).to_be_visible()
    fits(page, "the table, a person's edit box open")
    page.goto(table_url + "?share=1")
    expect(page.locator("#edit-link")).to_have_value(re.compile(r"/t/[A-Za-z0-9_-]+/edit/"))
    fits(page, "the table, sharing editing")
    phones.screenshot(page, "table-sharing")

    # A game at the table: Ana and Ben ticked, Cy new; a short game (to 10).
    page.get_by_role("link", name="New game at this table").tap()
    page.wait_for_url(re.compile(r"/\?table="))
    expect(page.get_by_role("heading", name="New game at The Millers of Upper Wensleydale")).to_be_visible()
    fits(page, "new game at the table")
    phones.screenshot(page, "table-new-game")
    page.get_by_role("checkbox", name="Ana").tap()
    page.get_by_role("checkbox", name="Ben").tap()
    page.get_by_label("New player 1", exact=True).fill("Cy")
    page.locator("summary", has_text="House rules").tap()
    page.get_by_label("Target score", exact=True).fill("10")
    page.get_by_role("button", name="Start game").tap()
    page.wait_for_url("**/g/*/score")
    first = page.url
    expect(page.locator("#table-link a")).to_have_text("Table: The Millers of Upper Wensleydale")
    expect(page.locator("#scoreboard li.standing .name bdi")).to_have_count(3)
    fits(page, "the game at the table")

    fill_round(page, ["Ana", "Ben", "Cy"], [(10, 0), (5, 2), (3, 4)])
    save_round(page, 1)
    banner = page.locator("#banner")
    expect(banner).to_contain_text("Ana wins")
    banner.get_by_role("button", name="Rematch").tap()
    page.wait_for_url(lambda url: url.endswith("/score") and url != first)
    second = page.url
    expect(page.locator(".round-count")).to_have_text("· no rounds yet")
    expect(page.locator("#table-link a")).to_have_text("Table: The Millers of Upper Wensleydale")

    # Both games on the table's page, newest first, each opening this phone's keeper page.
    page.locator("#table-link a").tap()
    page.wait_for_url(table_url)
    games = page.locator("#games ul.game-list li")
    expect(games).to_have_count(2)
    expect(games.locator("a")).to_have_text(["Ana, Ben and Cy", "Ana, Ben and Cy"])
    hrefs = [games.nth(i).locator("a").get_attribute("href") for i in range(2)]
    assert [page.url.split("/t/")[0] + href for href in hrefs] == [second, first]
    expect(games.locator(".game-status")).to_have_text(["playing", "finished"])
    expect(games.nth(1).locator(".winners")).to_have_text("won by Ana")
    expect(page.locator("#roster .person-name")).to_have_text(["Ana", "Ben", "Dee", "Cy"])
    expect(page.locator("#roster .person-games")).to_have_text(["2 games", "2 games", "0 games", "2 games"])
    fits(page, "the table with its games")
    phones.screenshot(page, "table")


def test_the_next_game_at_the_table_is_one_tap(phones: Phones):
    """A table night: "New game at this table" has the last game's people ticked, so Start is the one tap."""
    page = phones.page(viewport={"width": WIDTH, "height": 844})
    page.goto("/")
    page.locator("summary", has_text="New table").tap()
    page.get_by_label("Table name", exact=True).fill("Millers")
    page.locator("#people").fill("Ana\nBen\nCy\nDee")
    page.get_by_role("button", name="Make the table").tap()
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    table_url = page.url
    page.get_by_role("link", name="New game at this table").tap()
    page.wait_for_url(re.compile(r"/\?table="))
    expect(page.locator("#roster-picks input:checked")).to_have_count(0)  # a table's first game: nobody yet
    page.get_by_role("checkbox", name="Ben").tap()
    page.get_by_role("checkbox", name="Dee").tap()
    page.get_by_role("button", name="Start game").tap()
    page.wait_for_url("**/g/*/score")
    first = page.url

    page.goto(table_url)
    page.get_by_role("link", name="New game at this table").tap()
    page.wait_for_url(re.compile(r"/\?table="))
    expect(page.get_by_role("checkbox", name="Ben")).to_be_checked()
    expect(page.get_by_role("checkbox", name="Dee")).to_be_checked()
    expect(page.locator("#roster-picks input:checked")).to_have_count(2)
    fits(page, "the next game at the table")
    page.get_by_role("button", name="Start game").tap()
    page.wait_for_url(lambda url: url.endswith("/score") and url != first)
    expect(page.locator("#scoreboard li.standing .name bdi")).to_have_text(["Ben", "Dee"])
