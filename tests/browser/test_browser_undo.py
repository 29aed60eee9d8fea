"""Undo that keeps the work, on a phone: Undo of the round just saved puts its counts back in the form (one
wrong digit is that digit and Save again), with Redo; a correction's notice has an Undo that reverts it; a
Revert far down in "Changes" says what it did in the notice, in view and focused."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import Phones, Server, api_game, blitz, dutch, fill_round, save_round, scoreboard

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy", "Dee"]
FIRST = [(12, 0), (9, 4), (7, 6), (5, 8)]


def counts(page: Page) -> list[tuple[str, str]]:
    return [(dutch(page, name).input_value(), blitz(page, name).input_value()) for name in NAMES]


def cards(round_: dict) -> list[tuple[int, int]]:
    return [(s["dutch"], s["blitz"]) for s in round_["scores"]]


def test_undo_puts_the_rounds_counts_back_in_the_form_and_one_digit_fixes_it(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    game.add_round(FIRST)
    page = phones.page()
    page.goto(game.edit_url)
    typo = [(6, 0), (4, 2), (3, 3), (2, 5)]  # Ana had 16 Dutch cards, not 6
    fill_round(page, NAMES, typo)
    save_round(page, 2)
    page.get_by_role("status").filter(has_text="Round 2 saved.").get_by_role("button", name="Undo").click()
    undone = page.get_by_role("status").filter(has_text="Round 2 undone.")
    expect(undone).to_be_in_viewport()
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    expect(page.get_by_role("heading", name="Round 2", exact=True)).to_be_visible()
    assert counts(page) == [("6", "0"), ("4", "2"), ("3", "3"), ("2", "5")]
    expect(dutch(page, "Ana")).to_have_value("6")
    dutch(page, "Ana").fill("16")
    save_round(page, 2)
    rounds = game.read()["rounds"]
    assert [cards(r) for r in rounds] == [FIRST, [(16, 0), (4, 2), (3, 3), (2, 5)]]


def test_redo_puts_the_undone_round_back(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    page = phones.page()
    page.goto(game.edit_url)
    fill_round(page, NAMES, FIRST)
    save_round(page, 1)
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#done")).to_have_text("Round 1 undone. Redo")
    expect(scoreboard(page).locator(".total")).to_have_text(["0", "0", "0", "0"])
    page.get_by_role("status").get_by_role("button", name="Redo").click()
    expect(page.get_by_role("status").filter(has_text="Round 1 restored.")).to_be_in_viewport()
    expect(scoreboard(page).locator(".total")).to_have_text(["12", "1", "−5", "−11"])
    assert [cards(r) for r in game.read()["rounds"]] == [FIRST]
    assert counts(page) == [("", "")] * 4  # the round is back: the form is round 2's, empty


def correct_bens_blitz(page: Page, number: int, left: int) -> None:
    """Round `number` corrected on the keeper's page: Ben had `left` Blitz cards left."""
    page.get_by_role("link", name=f"Edit round {number}").click()
    expect(page.get_by_role("heading", name=f"Correct round {number}")).to_be_visible()
    blitz(page, "Ben").fill(str(left))
    page.get_by_role("button", name="Save correction").click()


def test_a_corrections_notice_has_an_undo_that_puts_the_old_counts_back(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    game.add_round(FIRST)
    page = phones.page()
    page.goto(game.edit_url)
    correct_bens_blitz(page, 1, 3)
    corrected = page.get_by_role("status").filter(has_text="Round 1 corrected.")
    expect(corrected).to_be_in_viewport()
    expect(scoreboard(page).locator(".total")).to_have_text(["12", "3", "−5", "−11"])
    corrected.get_by_role("button", name="Undo").click()
    expect(page.get_by_role("status").filter(has_text="Round 1 reverted.")).to_be_in_viewport()
    expect(scoreboard(page).locator(".total")).to_have_text(["12", "1", "−5", "−11"])
    assert [cards(r) for r in game.read()["rounds"]] == [FIRST]


def test_a_revert_from_changes_brings_what_it_did_into_view(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    for _ in range(6):  # enough rounds that "Changes" is far below the first screen
        game.add_round(FIRST)
    page = phones.page()
    page.goto(game.edit_url)
    correct_bens_blitz(page, 2, 3)
    expect(page.get_by_role("status").filter(has_text="Round 2 corrected.")).to_be_visible()
    revert = page.locator("#changes li.change").first.get_by_role("button", name="Revert: Round 2 corrected at")
    revert.scroll_into_view_if_needed()
    revert.click()
    done = page.get_by_role("status").filter(has_text="Round 2 reverted.")
    expect(done).to_be_in_viewport()
    expect(done).to_be_focused()
    assert cards(game.read()["rounds"][1]) == FIRST


def test_without_javascript_undo_puts_the_counts_back_in_the_form(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    page = phones.page(java_script_enabled=False)
    page.goto(game.edit_url)
    fill_round(page, NAMES, FIRST)
    page.get_by_role("button", name="Save round").click()
    page.wait_for_url(f"**/g/{game.id}/score?saved=1#game")
    page.get_by_role("button", name="Undo").click()
    page.wait_for_url(f"**/g/{game.id}/score?undone=1#game")
    expect(page.locator("#done[role=status]")).to_contain_text("Round 1 undone.")
    assert counts(page) == [(str(d), str(b)) for d, b in FIRST]
    blitz(page, "Ben").fill("3")
    page.get_by_role("button", name="Save round").click()
    page.wait_for_url(f"**/g/{game.id}/score?saved=1#game")
    assert [cards(r) for r in game.read()["rounds"]] == [[(12, 0), (9, 3), (7, 6), (5, 8)]]
