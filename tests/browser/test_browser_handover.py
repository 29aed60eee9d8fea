"""Handing over in real browsers: "Hand over" moves the edit rights and the old page turns into the view
page, saying why; "Share editing" keeps two keepers, who see each other's saves live without losing
what they are typing."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from app.games.handover import USED
from app.security import HANDED_OVER
from tests.browser.helpers import Phones, Server, api_game, dutch, fill_round, save_round, scoreboard

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben"]


def count_game_swaps(page: Page) -> None:
    """From now on, window.gameSwaps counts the swaps of #game (a save's answer, a live refresh)."""
    page.evaluate(
        """() => {
          window.gameSwaps = 0;
          document.body.addEventListener("htmx:afterSwap", (e) => { if (e.detail.target.id === "game") window.gameSwaps++; });
        }"""
    )


def test_hand_over_moves_the_rights_and_the_old_page_says_so(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    old = phones.page()
    old.goto(game.edit_url)
    csrf = old.locator("#round-entry input[name=csrf]").input_value()
    expect(old.locator("#live[sse-connect] #game")).to_have_count(1)  # the keeper's page is live too

    old.get_by_role("link", name="Hand over").click()
    link = old.get_by_label("Handover link", exact=True)
    expect(old.locator("#handover .qr svg")).to_be_visible()
    expect(old.locator("#handover")).to_contain_text("this one stops")
    handover_url = link.input_value()
    old.evaluate("window.stillTheSamePage = true")
    fill_round(old, NAMES, [(7, 0), (3, 1)])  # typing, not saved: the old page keeps score until the handover

    new = phones.page()
    new.goto(handover_url)
    expect(new.get_by_role("heading", name="Keep score of this game?")).to_be_visible()
    assert old.url.endswith("#handover")  # opening the link changed nothing yet
    new.get_by_role("button", name="Keep score on this phone").click()
    new.wait_for_url(f"**/g/{game.id}/score?taken=1")
    expect(new.locator("#done")).to_have_text("This phone keeps score now: it was handed over to you.")

    # The old page, open all along, turns into the view page and says why.
    old.wait_for_url(f"**/g/{game.id}?handed_over=1")
    expect(old.locator("#handed-over")).to_have_text(HANDED_OVER)
    expect(old.locator("body.viewer #live #game")).to_have_count(1)
    expect(old.locator("form:not(.lang-switch), #round-entry, #handover")).to_have_count(0)  # (but the language switch)

    # Its key is gone: a post with its cookie and its form's token is refused and changes nothing.
    refused = old.request.post(
        f"/g/{game.id}/rounds",
        form={"csrf": csrf, f"dutch-{game.player_ids[0]}": "7", f"blitz-{game.player_ids[0]}": "0"},
        max_redirects=0,
    )
    assert refused.status == 403
    assert game.read()["rounds"] == []

    # The new phone keeps score, and the old one, now watching, sees it live.
    fill_round(new, NAMES, [(10, 0), (5, 2)])
    save_round(new, 1)
    expect(scoreboard(old).locator(".total")).to_have_text(["10", "1"])

    # The link worked once: another phone that opens it is told so.
    third = phones.page()
    third.goto(handover_url)
    expect(third.locator(".error-detail")).to_have_text(USED)
    third.goto(f"/g/{game.id}/score")
    expect(third.get_by_role("heading", name="You can watch this game")).to_be_visible()


def test_share_editing_two_keepers_see_each_others_saves_and_keep_what_they_type(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    first = phones.page()
    first.goto(game.edit_url)
    first.get_by_role("link", name="Share editing").click()
    edit_url = first.get_by_label("Edit link", exact=True).input_value()
    assert edit_url == game.edit_url
    second = phones.page()
    second.goto(edit_url)
    second.wait_for_url(f"**/g/{game.id}/score")
    expect(second.locator("#live[sse-connect] #game")).to_have_count(1)

    # The second keeper is typing the next round when the first saves one.
    dutch(second, "Ana").fill("12")
    dutch(second, "Ben").click()
    second.keyboard.type("4")
    count_game_swaps(first)
    with first.expect_response(lambda r: "since=" in r.url) as own_event:
        fill_round(first, NAMES, [(10, 0), (5, 2)])
        save_round(first, 1)
    # The first keeper's own save is one swap: the refresh its own version event asks for finds nothing newer.
    assert own_event.value.status == 204
    assert first.evaluate("window.gameSwaps") == 1

    # The second page shows the round live, with what was typed (and the caret) where it was.
    expect(second.locator(".round-count")).to_have_text("· after round 1")
    expect(scoreboard(second).locator(".total")).to_have_text(["10", "1"])
    expect(second.locator("#history")).to_contain_text("10")
    expect(dutch(second, "Ana")).to_have_value("12")
    expect(dutch(second, "Ben")).to_have_value("4")
    expect(dutch(second, "Ben")).to_be_focused()
    second.keyboard.type("0")  # still typing into the same field
    expect(dutch(second, "Ben")).to_have_value("40")

    # Its save is refused once, with what was typed kept: the game changed while it was typed.
    dutch(second, "Ben").fill("4")
    second.get_by_label("Blitz cards left — Ana", exact=True).fill("0")
    second.get_by_label("Blitz cards left — Ben", exact=True).fill("3")
    second.get_by_role("button", name="Save round").click()
    expect(second.locator("#round-error")).to_contain_text("The game changed on another device while you typed")
    expect(dutch(second, "Ana")).to_have_value("12")
    assert len(game.read()["rounds"]) == 1
    save_round(second, 2)  # checked, and saved on purpose

    # The first page follows; its untouched form takes the new version, so its next save just works.
    expect(first.locator(".round-count")).to_have_text("· after round 2")
    fill_round(first, NAMES, [(2, 0), (1, 1)])
    save_round(first, 3)
    expect(first.locator("#round-error")).to_have_count(0)
    expect(second.locator(".round-count")).to_have_text("· after round 3")
    assert len(game.read()["rounds"]) == 3


def test_a_focused_form_with_nothing_typed_takes_what_another_keeper_saved(phones: Phones, server: Server):
    # A correction opened (its first field focused) but not typed in: another keeper corrects the same
    # round meanwhile. The page shows the new cards, not the stale ones, with the focus where it was,
    # and its save can't put the old cards back.
    game = api_game(server, NAMES)
    game.add_round([(10, 0), (5, 2)])
    page = phones.page()
    page.goto(game.edit_url)
    page.get_by_role("link", name="Edit round 1").click()
    expect(dutch(page, "Ana")).to_be_focused()
    expect(dutch(page, "Ana")).to_have_value("10")
    body = {
        "scores": [
            {"player_id": pid, "dutch": d, "blitz": b}
            for pid, (d, b) in zip(game.player_ids, [(12, 0), (5, 2)], strict=True)
        ]
    }
    answer = httpx.put(
        f"{server.url}/api/v1/games/{game.id}/rounds/1",
        json=body,
        headers={"Authorization": f"Bearer {game.body['edit_key']}"},
    )
    assert answer.status_code == 200, answer.text
    expect(dutch(page, "Ana")).to_have_value("12")
    expect(dutch(page, "Ana")).to_be_focused()
    page.get_by_role("button", name="Save correction").click()
    expect(page.get_by_role("status").filter(has_text="Round 1 corrected.")).to_be_visible()
    assert game.read()["rounds"][0]["scores"][0]["dutch"] == 12
