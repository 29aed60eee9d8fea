"""The scorekeeper's flows in a real browser: create a game, play, make and fix mistakes, correct, undo."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from app.security import HANDED_OVER
from tests.browser.helpers import (
    WORKED_NAMES,
    WORKED_STARTS,
    Phones,
    Server,
    api_game,
    blitz,
    create_game_on_start_page,
    dutch,
    fill_round,
    points,
    save_round,
    scoreboard,
)

pytestmark = pytest.mark.browser


def count_navigations(page: Page) -> list[str]:
    """Main-frame navigations from now on: a swap by htmx adds none, a reload one."""
    navigations: list[str] = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url) if frame == page.main_frame else None)
    return navigations


@pytest.mark.postgres
def test_create_and_play_the_worked_example_to_the_winners_banner(phones: Phones):
    page = phones.page()
    page.goto("/")
    expect(page.get_by_role("heading", name="New game")).to_be_visible()
    phones.screenshot(page, "start")

    create_game_on_start_page(page, WORKED_NAMES, WORKED_STARTS)
    expect(page.get_by_role("heading", name="Round 1")).to_be_visible()
    expect(scoreboard(page).locator(".name bdi")).to_have_text(["Ben", "Ana", "Cy", "Dee"])
    expect(scoreboard(page).locator(".total")).to_have_text(["70", "58", "30", "20"])
    navigations = count_navigations(page)

    # Ana: type the Dutch cards, a few Blitz cards by mistake, then one tap on "Blitz!".
    dutch(page, "Ana").fill("22")
    expect(points(page, "Ana")).to_have_text("")  # nothing to show until both counts are in
    blitz(page, "Ana").fill("4")
    expect(points(page, "Ana")).to_have_text("+14")
    page.get_by_role("button", name="Blitz! — Ana").tap()
    expect(blitz(page, "Ana")).to_have_value("0")
    expect(points(page, "Ana")).to_have_text("+22")

    # Ben: mostly the − + buttons (tapped, as on a phone), which are a choice the phone remembers.
    choice = page.get_by_role("button", name="Count with − +")
    expect(choice).to_have_attribute("aria-pressed", "false")
    expect(page.get_by_role("button", name="One Blitz card more — Ben")).to_be_hidden()
    choice.tap()
    expect(choice).to_have_attribute("aria-pressed", "true")
    more_blitz = page.get_by_role("button", name="One Blitz card more — Ben")
    for expected in ("1", "2", "3"):
        more_blitz.tap()
        expect(blitz(page, "Ben")).to_have_value(expected)
    expect(points(page, "Ben")).to_have_text("")  # no Dutch count yet
    dutch(page, "Ben").fill("15")
    expect(points(page, "Ben")).to_have_text("+9")
    page.get_by_role("button", name="One Dutch card fewer — Ben").tap()
    expect(dutch(page, "Ben")).to_have_value("14")
    expect(points(page, "Ben")).to_have_text("+8")
    page.get_by_role("button", name="One Blitz card fewer — Ben").click()
    page.get_by_role("button", name="One Blitz card more — Ben").click()
    expect(blitz(page, "Ben")).to_have_value("3")

    # Cy and Dee typed.
    fill_round(page, ["Cy", "Dee"], [(11, 5), (9, 7)])
    expect(points(page, "Cy")).to_have_text("+1")
    expect(points(page, "Dee")).to_have_text("−5")  # a real minus sign (U+2212), as the server writes it
    phones.screenshot(page, "scorekeeper")

    save_button = page.get_by_role("button", name="Save round")
    expect(save_button).to_have_count(1)
    save_button.click()
    banner = page.locator("#banner")
    expect(banner.get_by_role("heading")).to_have_text("🏆 Ana wins with 80!")
    expect(banner.locator(".final-totals li")).to_have_text(["Ana 80", "Ben 78", "Cy 31", "Dee 15"])
    expect(banner.get_by_role("button", name="Rematch")).to_be_visible()
    expect(scoreboard(page).locator(".name bdi")).to_have_text(["Ana", "Ben", "Cy", "Dee"])
    expect(scoreboard(page).locator(".rank")).to_have_text(["1", "2", "3", "4"])
    expect(page.locator("#scoreboard li.leader .name")).to_have_text(
        "Ana ★ last round: +22"
    )  # the last round beside the name, said in words
    expect(page.locator("#round-entry")).to_have_count(0)
    expect(page.locator("#history li[data-round] .points")).to_have_text(["+22", "+8", "+1", "−5"])
    expect(page.locator("#chart polyline")).to_have_count(4)
    assert navigations == []  # saved by htmx, no page load
    phones.screenshot(page, "game-over")

    game_path = re.sub(r"/score$", "", page.url.removeprefix(phones.server.url))
    viewer = phones.page()
    viewer.goto(game_path)
    expect(viewer.locator("#banner h2")).to_have_text("🏆 Ana wins with 80!")
    expect(viewer.locator("#share .qr svg")).to_be_visible()
    phones.screenshot(viewer, "view")
    tv = phones.page(viewport={"width": 1280, "height": 720}, is_mobile=False, has_touch=False)
    tv.goto(game_path + "?tv=1")
    expect(tv.locator("body.tv #scoreboard")).to_be_visible()
    phones.screenshot(tv, "tv")

    # Rematch: a new game, same players, from zero.
    banner.get_by_role("button", name="Rematch").click()
    page.wait_for_url(re.compile(r"/g/(?!" + re.escape(game_path.split("/")[-1]) + r")[^/]+/score$"))
    expect(scoreboard(page).locator(".name bdi")).to_have_text(WORKED_NAMES)
    expect(scoreboard(page).locator(".total")).to_have_text(["0", "0", "0", "0"])


def test_a_mistake_is_shown_beside_the_field_and_can_be_corrected(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    page = phones.page()
    page.goto(game.edit_url)
    page.wait_for_url(f"**/g/{game.id}/score")
    navigations = count_navigations(page)

    # Nobody called Blitz: a message for the whole round.
    fill_round(page, ["Ana", "Ben"], [(5, 2), (3, 1)])
    page.get_by_role("button", name="Save round").click()
    expect(page.locator("#round-error")).to_have_text(
        "Nobody called Blitz: at least one player must have 0 Blitz cards left."
    )
    for field, value in ((dutch(page, "Ana"), "5"), (blitz(page, "Ana"), "2"), (dutch(page, "Ben"), "3")):
        expect(field).to_have_value(value)
    expect(points(page, "Ana")).to_have_text("+1")

    # 41 Dutch cards: the message sits right under Ana's Dutch field and is its description.
    page.get_by_role("button", name="Blitz! — Ana").click()
    dutch(page, "Ana").fill("41")
    page.get_by_role("button", name="Save round").click()
    message = page.locator(".count", has=dutch(page, "Ana")).locator(".field-error")
    expect(message).to_have_text("Ana: Dutch cards must be between 0 and 40.")
    expect(dutch(page, "Ana")).to_have_attribute("aria-invalid", "true")
    expect(dutch(page, "Ana")).to_have_accessible_description("Ana: Dutch cards must be between 0 and 40.")
    expect(page.locator("#round-error")).to_have_count(0)
    expect(blitz(page, "Ana")).to_have_value("0")
    field_box, message_box = dutch(page, "Ana").bounding_box(), message.bounding_box()
    assert field_box and message_box
    assert 0 <= message_box["y"] - (field_box["y"] + field_box["height"]) < 40  # right below the field
    assert abs(message_box["x"] - field_box["x"]) < 120  # in the same column
    assert game.read()["rounds"] == []

    # Fixed: saved, and the messages are gone.
    page.get_by_role("button", name="Count with − +").click()
    page.get_by_role("button", name="One Dutch card fewer — Ana").click()
    expect(dutch(page, "Ana")).to_have_value("40")
    dutch(page, "Ana").fill("5")
    save_round(page, 1)
    expect(page.locator(".field-error, #round-error")).to_have_count(0)
    expect(scoreboard(page).locator(".total")).to_have_text(["5", "1"])
    expect(dutch(page, "Ana")).to_have_value("")  # a fresh form for round 2
    assert navigations == []
    assert len(game.read()["rounds"]) == 1


def test_correct_a_past_round_and_undo_the_last_one(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    game.add_round([(10, 0), (5, 2)])  # Ana +10, Ben +1
    game.add_round([(4, 3), (8, 0)])  # Ana -2, Ben +8
    page = phones.page()
    page.goto(game.edit_url)
    expect(scoreboard(page).locator(".total")).to_have_text(["9", "8"])
    navigations = count_navigations(page)

    page.get_by_role("link", name="Edit round 1").click()
    expect(page.get_by_role("heading", name="Correct round 1")).to_be_visible()
    expect(dutch(page, "Ana")).to_have_value("10")
    expect(blitz(page, "Ben")).to_have_value("2")
    expect(points(page, "Ana")).to_have_text("+10")
    dutch(page, "Ana").fill("20")
    expect(points(page, "Ana")).to_have_text("+20")
    page.get_by_role("button", name="Save correction").click()
    expect(scoreboard(page).locator(".name")).to_have_text(["Ana ★ last round: −2", "Ben last round: +8"])
    expect(scoreboard(page).locator(".total")).to_have_text(["18", "9"])
    expect(page.get_by_role("heading", name="Round 3")).to_be_visible()
    expect(page.locator("#history li[data-round='1'] .points")).to_have_text(["+20", "+1"])

    page.get_by_role("link", name="Undo last round").click()
    confirm = page.locator("#confirm-delete")
    expect(confirm.get_by_role("heading")).to_have_text("Delete round 2?")
    expect(page.locator("#history li[data-round]")).to_have_count(2)  # nothing deleted yet
    confirm.get_by_role("button", name="Delete round 2").click()
    expect(page.locator("#history li[data-round]")).to_have_count(1)
    expect(scoreboard(page).locator(".total")).to_have_text(["20", "1"])
    expect(page.get_by_role("heading", name="Round 2")).to_be_visible()

    # Cancel leaves everything as it was.
    page.get_by_role("link", name="Delete round 1").click()
    page.locator("#confirm-delete").get_by_role("link", name="Cancel").click()
    expect(page.locator("#confirm-delete")).to_have_count(0)
    expect(page.locator("#history li[data-round]")).to_have_count(1)
    assert navigations == []
    assert [p["total"] for p in game.read()["players"]] == [20, 1]


def test_the_start_page_lists_your_games_after_the_tab_was_closed(phones: Phones):
    context = phones.context()
    page = context.new_page()
    create_game_on_start_page(page, ["Mo", "Flo"])
    keeper_url = page.url
    page.close()
    page = context.new_page()
    page.goto("/")
    link = page.locator("#your-games").get_by_role("link", name="Mo and Flo")
    expect(link).to_be_visible()
    link.click()
    page.wait_for_url(keeper_url)
    expect(page.get_by_role("button", name="Save round")).to_be_visible()


def test_the_core_flow_works_without_javascript(phones: Phones):
    page = phones.page(java_script_enabled=False)
    page.goto("/")
    page.get_by_label("Player 1", exact=True).fill("Ana")
    page.get_by_label("Player 2", exact=True).fill("Ben")
    page.get_by_role("button", name="+ Add player").click()  # a plain form post that draws one more field
    page.get_by_label("Player 3", exact=True).fill("Cy")
    page.get_by_role("button", name="Start game").click()
    page.wait_for_url(re.compile(r"/g/[^/]+/score(\?saved=\d+#game)?$"))
    expect(page.locator("html.no-js")).to_have_count(1)
    expect(page.get_by_role("button", name="Blitz! — Ana")).to_be_hidden()  # needs JavaScript
    expect(page.get_by_role("button", name="One Dutch card more — Ana")).to_be_hidden()

    fill_round(page, ["Ana", "Ben", "Cy"], [(10, 0), (5, 2), (41, 1)])
    page.get_by_role("button", name="Save round").click()
    expect(page.locator(".count", has=dutch(page, "Cy")).locator(".field-error")).to_have_text(
        "Cy: Dutch cards must be between 0 and 40."
    )
    expect(dutch(page, "Ana")).to_have_value("10")
    dutch(page, "Cy").fill("4")
    page.get_by_role("button", name="Save round").click()
    page.wait_for_url(re.compile(r"/g/[^/]+/score(\?saved=\d+#game)?$"))
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    expect(scoreboard(page).locator(".total")).to_have_text(["10", "2", "1"])


def test_share_editing_and_make_a_new_edit_link(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    keeper = phones.page()
    keeper.goto(game.edit_url)
    expect(keeper.locator("#edit-link")).to_have_count(0)
    keeper.get_by_role("link", name="Share editing").click()
    edit_link = keeper.get_by_label("Edit link", exact=True)
    expect(edit_link).to_have_value(game.edit_url)
    expect(keeper.locator("#handover .qr svg")).to_be_visible()

    # The next scorekeeper opens the link on their phone; the key leaves the address bar at once.
    next_keeper = phones.page()
    next_keeper.goto(game.edit_url)
    next_keeper.wait_for_url(f"**/g/{game.id}/score")
    fill_round(next_keeper, ["Ana", "Ben"], [(10, 0), (5, 2)])
    save_round(next_keeper, 1)

    # The first phone makes a new edit link (a plain form post): the other phone's key stops working,
    # and its open page turns into the view page, saying why. First the other phone's round reaches this
    # page (its live refresh), or the swap can move the button from under the click.
    expect(keeper.locator(".round-count")).to_have_text("· after round 1")
    keeper.get_by_role("button", name="Make a new edit link").click()
    keeper.wait_for_url(f"**/g/{game.id}/score?handover=1")
    expect(edit_link).not_to_have_value(game.edit_url)
    expect(edit_link).to_have_value(re.compile(rf"/g/{game.id}/edit/"))
    next_keeper.wait_for_url(f"**/g/{game.id}?handed_over=1")
    expect(next_keeper.locator("#handed-over")).to_have_text(HANDED_OVER)
    expect(next_keeper.locator("#round-entry")).to_have_count(0)
    assert len(game.read()["rounds"]) == 1
    next_keeper.goto(f"{server.url}/g/{game.id}/score")
    expect(next_keeper.get_by_role("heading", name="You can watch this game")).to_be_visible()
    expect(next_keeper.locator("#handed-over")).to_have_text(HANDED_OVER)


def test_a_save_without_network_is_kept_on_the_phone_and_sent_when_back(phones: Phones, server: Server):
    # (installable and offline: tests/browser/test_browser_offline.py has the rest: closing the page, conflicts.)
    game = api_game(server, ["Ana", "Ben"])
    context = phones.context()
    page = context.new_page()
    page.goto(game.edit_url)
    fill_round(page, ["Ana", "Ben"], [(10, 0), (5, 2)])
    context.set_offline(True)
    page.get_by_role("button", name="Save round").click()
    expect(page.locator("#offline-queue .pending-rounds .round-line")).to_have_text(["Round 1: Ana +10 · Ben +1"])
    expect(dutch(page, "Ana")).to_have_value("")  # ready for the next round
    expect(page.get_by_role("alert")).to_have_count(0)
    assert game.read()["rounds"] == []
    context.set_offline(False)
    expect(page.locator("#offline-queue")).to_have_count(0)
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    expect(scoreboard(page).locator(".total")).to_have_text(["10", "1"])
    assert len(game.read()["rounds"]) == 1


def test_a_request_without_network_says_nothing_was_saved(phones: Phones, server: Server):
    context = phones.context()
    page = context.new_page()
    page.goto("/")
    context.set_offline(True)
    page.get_by_role("button", name="+ Add player").click()
    expect(page.get_by_role("alert")).to_have_text(
        "No connection: nothing was saved. Try again when you're back online."
    )
    context.set_offline(False)
    page.get_by_role("button", name="+ Add player").click()
    expect(page.get_by_label("Player 3", exact=True)).to_be_visible()
    expect(page.get_by_role("alert")).to_have_count(0)


def test_small_things_on_the_start_page_and_the_round_form(phones: Phones, server: Server):
    page = phones.page()
    page.goto("/")
    page.get_by_label("Player 1", exact=True).fill("Ana")
    page.get_by_label("Player 2", exact=True).fill("Ben")
    page.get_by_role("button", name="+ Add player").click()
    new_field = page.get_by_label("Player 3", exact=True)
    expect(new_field).to_be_focused()  # "+ Add player" puts the cursor in the new field
    page.keyboard.type("Cy")
    page.get_by_text("Starting scores").click()
    expect(page.get_by_label("Starting score — Cy", exact=True)).to_be_visible()  # follows the typed name
    new_field.fill("")
    expect(page.get_by_label("Starting score — Player 3", exact=True)).to_be_visible()

    game = api_game(server, ["Ana", "Ben"])
    keeper = phones.page()
    keeper.goto(game.edit_url)
    fill_round(keeper, ["Ana", "Ben"], [(41, 0), (5, 2)])
    expect(points(keeper, "Ana")).to_have_text("")  # 41 Dutch cards is a mistake, not +41
    expect(points(keeper, "Ben")).to_have_text("+1")
    dutch(keeper, "Ana").fill("40")
    expect(points(keeper, "Ana")).to_have_text("+40")
