"""Every player enters their own row, in the browser at phone size: four players, each on their own phone (a
browser context of its own), open the seat link, tap their name and send their row; the rows fill in the
scorekeeper's form live, marked as theirs; the scorekeeper corrects one before saving and saves with one
tap; each phone moves on to the next round, and a row sent for the round saved meanwhile is refused."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import Phones, Server, api_game, blitz, dutch, save_round

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy", "Dee"]


def take_seat(phones: Phones, link: str, name: str) -> Page:
    phone = phones.page()
    phone.goto(link)
    phone.get_by_role("button", name=name, exact=True).click()
    expect(phone.locator("#seat h1")).to_contain_text(name)
    expect(phone.locator("#live[sse-connect] #seat")).to_have_count(1)
    return phone


class Hands:
    """A player's hands on their phone, counting what they do: each tap, and each count typed (a number,
    whatever its digits: the phone's number pad takes it in one go, as the keeper's form counts a count)."""

    def __init__(self, phone: Page):
        self.phone = phone
        self.interactions = 0

    def tap(self, target) -> None:
        target.tap()
        self.interactions += 1

    def type_count(self, count: int) -> None:
        self.phone.keyboard.type(str(count))
        self.interactions += 1


def send_row(phone: Page, dutch_cards: int, blitz_cards: int) -> int:
    """Type the Dutch count in the field that has the focus (else tap it first), tap the Blitz count, Send;
    the interactions it took."""
    hands = Hands(phone)
    field = phone.locator("#seat-dutch")
    if not field.evaluate("element => element === document.activeElement"):
        hands.tap(field)
    hands.type_count(dutch_cards)
    hands.tap(phone.locator(".seat-chips").get_by_text(str(blitz_cards), exact=True))
    hands.tap(phone.locator("form.seat-form button[type=submit]"))
    expect(phone.locator(".seat-sent")).to_be_visible()
    return hands.interactions


def test_four_phones_send_their_rows_and_the_keeper_saves_with_one_tap(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    keeper = phones.page()
    keeper.goto(game.edit_url)
    expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
    keeper.goto(keeper.url.split("#")[0].split("?")[0] + "?seats=1#seats")
    link = keeper.locator("#seat-link").input_value()
    expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
    seats = {name: take_seat(phones, link, name) for name in NAMES}
    rows = {"Ana": (12, 0), "Ben": (9, 4), "Cy": (7, 6), "Dee": (3, 8)}
    for name, (d, b) in rows.items():
        assert send_row(seats[name], d, b) <= 3  # interactions per player for a typical row
    # Live in the keeper's form, each row marked as the player's own.
    for name, (d, b) in rows.items():
        expect(dutch(keeper, name)).to_have_value(str(d))
        expect(blitz(keeper, name)).to_have_value(str(b))
    expect(keeper.locator("#round-entry fieldset.from-phone")).to_have_count(4)
    expect(seats["Ana"].locator(".seat-waiting")).to_have_count(0)  # everyone has sent (after Ana's refresh)
    # The keeper corrects Dee's Dutch count, then one tap saves the round.
    dutch(keeper, "Dee").fill("4")
    save_round(keeper, 1)
    read = game.read()
    assert [(s["dutch"], s["blitz"]) for s in read["rounds"][0]["scores"]] == [(12, 0), (9, 4), (7, 6), (4, 8)]
    # Every phone moves on to round 2, its row empty.
    for phone in seats.values():
        expect(phone.locator("#seat h2").first).to_have_text("Round 2")
        expect(phone.locator("#seat-dutch")).to_have_value("")
        expect(phone.locator("input[name=blitz]:checked")).to_have_count(0)
    # A row sent for round 1 after the save (a phone that missed it): 409, nothing written.
    late = httpx.put(
        f"{server.url}/api/v1/games/{game.id}/draft/{game.player_ids[0]}",
        json={"round": 1, "dutch": 1, "blitz": 0},
        headers={"Authorization": f"Bearer {game.body['edit_key']}"},
    )
    assert late.status_code == 409
    assert httpx.get(f"{server.url}/api/v1/games/{game.id}/draft").json()["rows"] == []


def test_the_piles_catch_a_miscount_before_the_round_is_saved(phones: Phones, server: Server):
    game = api_game(server, NAMES[:3])
    keeper = phones.page()
    keeper.goto(game.edit_url)
    expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
    for name, (d, b) in {"Ana": (12, 0), "Ben": (9, 4), "Cy": (7, 6)}.items():
        dutch(keeper, name).fill(str(d))
        blitz(keeper, name).fill(str(b))
    keeper.get_by_text("Check the piles").click()
    keeper.get_by_label("The top card of each centre pile, or their sum").fill("10 10 10")
    keeper.locator("#round-entry .actions button.primary[type=submit]").click()
    expect(keeper.locator("#piles-error")).to_contain_text("The piles hold 30 cards; the rows say 28")
    assert game.read()["rounds"] == []
    expect(dutch(keeper, "Ana")).to_have_value("12")  # what was typed stays
    dutch(keeper, "Ana").fill("14")  # the row that was miscounted
    save_round(keeper, 1)
    assert [s["dutch"] for s in game.read()["rounds"][0]["scores"]] == [14, 9, 7]


def test_a_count_the_keeper_set_with_a_step_stays_when_the_phone_sends_again(phones: Phones, server: Server):
    # A count filled from Ben's phone, then stepped up by the keeper with "+", is the keeper's: Ben's row sent
    # again fills only what the keeper left alone (his Blitz count), never the count the keeper set.
    game = api_game(server, NAMES[:3])
    keeper = phones.page()
    keeper.goto(game.edit_url)
    expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
    keeper.goto(keeper.url.split("#")[0].split("?")[0] + "?seats=1#seats")
    link = keeper.locator("#seat-link").input_value()
    expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
    ben = take_seat(phones, link, "Ben")
    send_row(ben, 9, 4)
    expect(dutch(keeper, "Ben")).to_have_value("9")
    keeper.locator("button[data-steppers]").click()
    ben_entry = keeper.locator("#round-entry fieldset.player-entry").filter(has=dutch(keeper, "Ben"))
    ben_entry.locator(".count.dutch button[data-step='1']").click()
    expect(dutch(keeper, "Ben")).to_have_value("10")
    ben.locator("#seat-dutch").fill("5")
    ben.locator(".seat-chips").get_by_text("2", exact=True).tap()
    ben.locator("form.seat-form button[type=submit]").tap()
    expect(blitz(keeper, "Ben")).to_have_value("2")  # the phone's new Blitz count came in
    expect(dutch(keeper, "Ben")).to_have_value("10")  # and the keeper's count stayed
