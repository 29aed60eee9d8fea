"""The start page's first minute on a phone: names typed with Enter ("next") only, or tapped field by field."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import OVERFLOWING, Phones, Server

pytestmark = pytest.mark.browser

KEEPER = re.compile(r"/g/([^/]+)/score(\?saved=\d+#game)?$")


def players_of(page: Page, server: Server) -> list[str]:
    """The names of the game the page is the scorekeeper's page of, as the API has them."""
    page.wait_for_url(KEEPER)
    match = KEEPER.search(page.url)
    assert match is not None
    game = httpx.get(f"{server.url}/api/v1/games/{match.group(1)}").json()
    return [p["name"] for p in game["players"]]


def test_names_typed_with_enter_only_make_the_game_as_typed(phones: Phones, server: Server):
    # "Ana ⏎ Ben ⏎ Cy ⏎" gave "Ana", an empty Player 2 and "BenCy": Enter was the form's first button.
    page = phones.page()
    page.goto("/")
    page.get_by_label("Player 1", exact=True).tap()
    for name in ("Ana", "Ben", "Cy"):
        page.keyboard.type(name)
        page.keyboard.press("Enter")
    expect(page.get_by_label("Player 4", exact=True)).to_be_focused()  # a name typed on the last: one more
    expect(page.get_by_label("Player 3", exact=True)).to_have_value("Cy")
    expect(page.locator("[data-player-count]")).to_have_text("(4 of 8)")
    page.keyboard.press("Enter")  # the new one left empty: on to Start
    start = page.get_by_role("button", name="Start game")
    expect(start).to_be_focused()
    expect(start).to_be_in_viewport()
    page.keyboard.press("Enter")
    assert players_of(page, server) == ["Ana", "Ben", "Cy"]  # the empty fourth is no player


def test_names_tapped_without_enter_make_the_game_as_typed(phones: Phones, server: Server):
    # An iPhone's keyboard has no Enter to rely on: tap each field, "+ Add player", then Start.
    page = phones.page()
    page.goto("/")
    for number, name in enumerate(["Ana", "Ben"], start=1):
        page.get_by_label(f"Player {number}", exact=True).tap()
        page.keyboard.type(name)
    page.get_by_role("button", name="+ Add player").tap()
    expect(page.get_by_label("Player 3", exact=True)).to_be_focused()
    page.keyboard.type("Cy")
    # The tap may have been the form's plain post (the scripts not yet run on a slow machine): the page it
    # drew runs its scripts before Enter, or Enter would be a plain post too.
    page.wait_for_load_state("domcontentloaded")
    # Enter on the last name now copies a row the server drew with its ✕: the copy's ✕ names its own row.
    page.keyboard.press("Enter")
    expect(page.get_by_label("Player 4", exact=True)).to_be_focused()
    expect(page.get_by_role("button", name="Remove player 4", exact=True)).to_have_count(1)
    expect(page.get_by_role("button", name="Remove player 3", exact=True)).to_have_count(1)
    page.get_by_role("button", name="Start game").tap()
    assert players_of(page, server) == ["Ana", "Ben", "Cy"]


def test_enter_keeps_what_was_typed_in_the_rest_of_the_form(phones: Phones, server: Server):
    # A fourth name typed with Enter gets its own starting score, and Enter in the game's name starts the
    # game: never "+ Add player" or ✕, the form's first buttons.
    page = phones.page()
    page.goto("/")
    page.get_by_text("Starting scores").tap()
    page.get_by_label("Player 1", exact=True).tap()
    for name in ("Ana", "Ben", "Cy"):
        page.keyboard.type(name)
        page.keyboard.press("Enter")
    page.keyboard.type("Dee")
    expect(page.get_by_label("Starting score — Dee", exact=True)).to_be_visible()
    page.get_by_label("Starting score — Dee", exact=True).fill("7")
    page.get_by_label("Game name").fill("Friday")
    page.get_by_label("Game name").press("Enter")
    assert players_of(page, server) == ["Ana", "Ben", "Cy", "Dee"]
    match = KEEPER.search(page.url)
    assert match is not None
    game = httpx.get(f"{server.url}/api/v1/games/{match.group(1)}").json()
    assert game["name"] == "Friday" and [p["starting_score"] for p in game["players"]] == [0, 0, 0, 7]


def test_enter_without_javascript_starts_the_game(phones: Phones, server: Server):
    # The form's first submit button is an unseen Start: Enter never adds, removes or re-posts.
    page = phones.page(java_script_enabled=False)
    page.goto("/")
    page.get_by_label("Player 1", exact=True).fill("Ana")
    page.get_by_label("Player 2", exact=True).fill("Ben")
    page.get_by_label("Player 2", exact=True).press("Enter")
    assert players_of(page, server) == ["Ana", "Ben"]


GAMES = ["Dutch Blitz", "Dutch Blitz to 100", "Nerts", "Ligretto", "Dutch (lowest score wins)", "31"]


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_six_games_are_in_sight_and_one_tap_picks_one(phones: Phones, server: Server, javascript: bool):
    page = phones.page(java_script_enabled=javascript)
    page.goto("/")
    picker = page.locator("fieldset.game-picker")
    radios = picker.get_by_role("radio")
    expect(radios).to_have_count(6)
    for name in GAMES:
        # Each in sight without opening anything, on the phone's width, with its line under it.
        choice = picker.get_by_role("radio", name=name, exact=True)
        expect(choice).to_be_visible()
        line = page.locator(f"#{choice.get_attribute('aria-describedby').split()[0]}")
        expect(line).to_be_visible()
        for box in (choice.bounding_box(), line.bounding_box()):
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        # One line, in English on a phone.
        assert line.evaluate("e => e.getBoundingClientRect().height < 1.5 * parseFloat(getComputedStyle(e).lineHeight)")
    assert page.evaluate(OVERFLOWING, 390) == []
    # The whole picker takes less than the phone's screen.
    box = picker.bounding_box()
    assert box is not None and box["height"] < 844
    # Tap a game: with JavaScript its rules come at once; without, "Show its rules" brings them.
    page.get_by_label("Player 1", exact=True).fill("Ana")
    picker.get_by_text("Dutch (lowest score wins)", exact=True).tap()
    if not javascript:
        page.get_by_role("button", name="Show its rules").tap()
    expect(page.locator("input[name=shown_preset]")).to_have_value("dutch")
    expect(picker.get_by_role("radio", name="Dutch (lowest score wins)", exact=True)).to_be_checked()
    expect(page.get_by_label("Player 1", exact=True)).to_have_value("Ana")


def test_a_name_typed_right_after_add_player_keeps_its_focus(phones: Phones, server: Server):
    # htmx focused the drawn row's [autofocus] only once its swap settled (20 ms later): a name typed and
    # Enter pressed in that time moved on to Player 4, and the settle took the focus back to Player 3. The
    # name and its Enter come here in the first task after the swap's, the soonest a typist could act.
    page = phones.page()
    page.goto("/")
    page.get_by_label("Player 1", exact=True).fill("Ana")
    page.get_by_label("Player 2", exact=True).fill("Ben")
    page.evaluate(
        """() => {
          document.body.addEventListener("htmx:afterSwap", () => setTimeout(() => {
            const field = document.getElementById("player-2");
            field.focus();
            field.value = "Cy";
            field.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true, cancelable: true}));
            document.documentElement.dataset.typed = "";
          }), {once: true});
          document.body.addEventListener("htmx:afterSettle", () => { document.documentElement.dataset.settled = ""; }, {once: true});
        }"""
    )
    page.get_by_role("button", name="+ Add player").tap()
    expect(page.locator("html[data-typed][data-settled]")).to_have_count(1)
    expect(page.get_by_label("Player 4", exact=True)).to_be_focused()
    expect(page.get_by_label("Player 3", exact=True)).to_have_value("Cy")
