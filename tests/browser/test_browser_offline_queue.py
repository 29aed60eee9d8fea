"""The scorekeeper's rounds waiting to be sent, in Chromium at phone size: what the page's numbers say
while they wait, "2 rounds sent", a waiting round edited or discarded, and the hand games' rounds
(Dutch, 31) kept offline and scored by the server once sent.

The rule (static/rounds.js, docs/usage.md): while rounds wait, every number on the page is the server's
(totals, "to go", bars, ranks, "after round N"); the waiting rounds are listed apart, counted in the
title ("not sent yet: 2") and the round form's number follows them.

No service worker here (the page is open already): the context's offline switch is the Wi-Fi dropping.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import QUEUED, ApiGame, Phones, api_game, fill_round, scoreboard
from tests.servers import Server

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben"]


def keeper(phones: Phones, game: ApiGame) -> Page:
    page = phones.page(service_workers="block")
    page.goto(game.edit_url)
    page.wait_for_url("**/score")
    expect(page.locator("#game")).to_have_attribute("data-version", str(game.read()["version"]))
    return page


def press_save(page: Page) -> None:
    page.locator("#round-entry button[type=submit]").click()


def waiting(page: Page):
    return page.locator("#offline-queue .pending-rounds li")


def card_rounds(game: ApiGame) -> list[list[tuple[int, int, int]]]:
    return [[(s["dutch"], s["blitz"], s["total"]) for s in r["scores"]] for r in game.read()["rounds"]]


def two_rounds_waiting(phones: Phones, server: Server) -> tuple[ApiGame, Page]:
    """A game after round 1 (Ana 10, Ben −1; to 75), with rounds 2 and 3 kept offline."""
    game = api_game(server, NAMES)
    game.add_round([(10, 0), (5, 3)])
    page = keeper(phones, game)
    page.context.set_offline(True)
    fill_round(page, NAMES, [(8, 0), (5, 2)])
    press_save(page)
    expect(waiting(page)).to_have_count(1)
    fill_round(page, NAMES, [(3, 4), (9, 0)])
    press_save(page)
    expect(waiting(page)).to_have_count(2)
    return game, page


def test_with_two_rounds_waiting_every_number_is_the_servers_and_says_so(phones: Phones, server: Server):
    _game, page = two_rounds_waiting(phones, server)
    # The standings are the game after round 1, every figure of them: totals, "to go", bars, ranks.
    standings = scoreboard(page)
    expect(standings.locator("[data-total]")).to_have_text(["10", "−1"])
    expect(standings.locator(".to-target")).to_have_text(["65 to go", "76 to go"])
    expect(standings.locator("progress").first).to_have_attribute("aria-label", "Ana: 10 of 75")
    assert [b.get_attribute("value") for b in standings.locator("progress").all()] == ["10", "0"]
    expect(standings.locator(".rank")).to_have_text(["1", "2"])
    expect(page.locator(".pending-mark")).to_have_count(0)
    # The title says whose numbers they are, and that two rounds wait; the form is the round after them.
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    expect(page.locator("#waiting-count")).to_have_text("· not sent yet: 2")
    expect(page.locator("#round-entry h2")).to_have_text("Round 4")
    expect(waiting(page).locator(".round-line")).to_have_text(["Round 2: Ana +8 · Ben +1", "Round 3: Ana −5 · Ben +9"])


def test_the_queue_says_how_many_rounds_were_sent_when_it_empties(phones: Phones, server: Server):
    game, page = two_rounds_waiting(phones, server)
    page.context.set_offline(False)
    expect(page.locator("#offline-sent")).to_have_text("2 rounds sent")
    expect(page.locator("#offline-queue")).to_have_count(0)
    expect(page.locator(".round-count")).to_have_text("· after round 3")
    expect(page.locator("#waiting-count")).to_have_count(0)
    expect(scoreboard(page).locator("[data-total]")).to_have_text(["13", "9"])
    expect(page.locator("#round-entry h2")).to_have_text("Round 4")
    assert card_rounds(game) == [[(10, 0, 10), (5, 3, -1)], [(8, 0, 18), (5, 2, 0)], [(3, 4, 13), (9, 0, 9)]]
    # The next round saved online says nothing more of the queue.
    fill_round(page, NAMES, [(1, 0), (1, 1)])
    press_save(page)
    expect(page.locator(".round-count")).to_have_text("· after round 4")
    expect(page.locator("#offline-sent")).to_have_count(0)


def test_a_waiting_round_can_be_edited_in_its_place_or_discarded(phones: Phones, server: Server):
    game, page = two_rounds_waiting(phones, server)
    fill_round(page, NAMES, [(6, 0), (2, 5)])
    press_save(page)
    expect(waiting(page)).to_have_count(3)

    # Round 2 back in the form, with what was typed; corrected, it keeps its place.
    waiting(page).nth(0).get_by_role("button", name="Edit it").click()
    expect(page.locator("#round-entry h2")).to_have_text("Round 2")
    expect(page.get_by_label("Dutch cards — Ana", exact=True)).to_have_value("8")
    expect(page.get_by_label("Blitz cards left — Ben", exact=True)).to_have_value("2")
    page.get_by_label("Dutch cards — Ana", exact=True).fill("9")
    press_save(page)
    expect(waiting(page).nth(0)).to_contain_text("Round 2: Ana +9 · Ben +1")
    expect(page.locator("#round-entry h2")).to_have_text("Round 5")

    # Editing can be given up: the round stays as it was, and the next round, half typed, comes back.
    page.get_by_label("Dutch cards — Ana", exact=True).fill("7")
    waiting(page).nth(1).get_by_role("button", name="Edit it").click()
    expect(page.get_by_label("Dutch cards — Ana", exact=True)).to_have_value("3")
    expect(page.locator("#round-entry h2")).to_have_text("Round 3")
    page.locator("#offline-queue").get_by_role("button", name="Cancel").click()
    expect(page.get_by_label("Dutch cards — Ana", exact=True)).to_have_value("7")
    expect(page.get_by_label("Dutch cards — Ben", exact=True)).to_have_value("")
    expect(waiting(page).nth(1)).to_contain_text("Round 3: Ana −5 · Ben +9")

    # Round 3 discarded: the one after it becomes round 3.
    waiting(page).nth(1).get_by_role("button", name="Discard it").click()
    expect(waiting(page)).to_have_count(2)
    expect(waiting(page).nth(1)).to_contain_text("Round 3: Ana +6 · Ben −8")
    expect(page.locator("#waiting-count")).to_have_text("· not sent yet: 2")
    assert page.evaluate(QUEUED) == [
        {"dutch-" + str(i): d for i, d in zip(game.player_ids, ["9", "5"], strict=True)}
        | {"blitz-" + str(i): b for i, b in zip(game.player_ids, ["0", "2"], strict=True)},
        {"dutch-" + str(i): d for i, d in zip(game.player_ids, ["6", "2"], strict=True)}
        | {"blitz-" + str(i): b for i, b in zip(game.player_ids, ["0", "5"], strict=True)},
    ]

    page.context.set_offline(False)
    expect(page.locator("#offline-sent")).to_have_text("2 rounds sent")
    assert card_rounds(game) == [[(10, 0, 10), (5, 3, -1)], [(9, 0, 19), (5, 2, 0)], [(6, 0, 25), (2, 5, -8)]]


HANDS: dict[str, dict[str, Any]] = {
    # Dutch: Ana called with the lowest hand: she scores 0, Ben his hand.
    "dutch": {"label": "Hand points", "caller": "Called Dutch — Ana", "hands": (3, 27), "bad": "300",
              "scored": lambda s: [(x["hand"], x["points"], x["total"]) for x in s], "want": [(3, 0, 0), (27, 27, 27)]},
    # 31: Ana knocked with the sole lowest hand: two lives lost.
    "thirty_one": {"label": "Hand value", "caller": "Knocked — Ana", "hands": (14, 22), "bad": "32",
                   "scored": lambda s: [(x["hand"], x["lives_lost"]) for x in s], "want": [(14, 2), (22, 0)]},
    # 31 with the 30½ rule: Ana's three of a kind typed "30,5" waits as typed; Ben's 22 is the lowest.
    "thirty_one_half": {"label": "Hand value", "caller": "Knocked — Ana", "hands": ("30,5", 22), "bad": "12,5",
                        "said": "whole number from 0 to 31, or 30½ for three of a kind",
                        "rules": {"preset": "thirty_one", "thirty_and_a_half": True},
                        "scored": lambda s: [(x["hand"], x["lives_lost"]) for x in s], "want": [(30.5, 0), (22, 1)]},
}  # fmt: skip


@pytest.mark.parametrize("preset", HANDS)
def test_a_hand_games_round_waits_offline_unscored_and_the_server_scores_it(
    phones: Phones, server: Server, preset: str
):
    case = HANDS[preset]
    game = api_game(server, NAMES, rules=case.get("rules", {"preset": preset}))
    page = keeper(phones, game)
    totals = scoreboard(page).locator("[data-total]").all_inner_texts()
    page.context.set_offline(True)
    ana, ben = (page.get_by_label(f"{case['label']} — {name}", exact=True) for name in NAMES)

    # A hand the rules don't allow: said beside it, what was typed kept, nothing kept to send.
    ana.fill(str(case["hands"][0]))
    ben.fill(case["bad"])
    page.get_by_role("radio", name=case["caller"]).check()
    press_save(page)
    expect(ben).to_have_attribute("aria-invalid", "true")
    expect(page.locator(f"#{ben.get_attribute('id')}-error")).to_contain_text(case.get("said", "whole number"))
    expect(ben).to_have_value(case["bad"])
    expect(ana).to_have_value(str(case["hands"][0]))
    assert page.evaluate(QUEUED) == []

    ben.fill(str(case["hands"][1]))
    press_save(page)
    expect(waiting(page)).to_have_count(1)
    expect(waiting(page).nth(0)).to_contain_text(f"Round 1: hands Ana {case['hands'][0]} · Ben {case['hands'][1]}")
    expect(ana).to_have_value("")
    # Nothing invented: the standings are the server's until it has scored the round.
    expect(scoreboard(page).locator("[data-total]")).to_have_text(totals)
    expect(page.locator(".round-count")).to_have_text("· no rounds yet")
    expect(page.locator("#waiting-count")).to_have_text("· not sent yet: 1")
    expect(page.locator("#round-entry h2")).to_have_text("Round 2")

    page.context.set_offline(False)
    expect(page.locator("#offline-sent")).to_have_text("1 round sent")
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    rounds = game.read()["rounds"]
    assert len(rounds) == 1
    assert case["scored"](rounds[0]["scores"]) == case["want"]
    assert rounds[0].get("caller", rounds[0].get("knocker")) == game.player_ids[0]
