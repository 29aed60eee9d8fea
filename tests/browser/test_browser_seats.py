"""Every player enters their own row, in the browser at phone size: four players, each on their own phone (a
browser context of its own), open the seat link, tap their name and send their row; the rows fill in the
scorekeeper's form live, marked as theirs; the scorekeeper corrects one before saving and saves with one
tap; each phone moves on to the next round, a row sent for the round saved meanwhile is refused, and the
piles catch a miscount."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import ApiGame, Phones, Server, api_game, blitz, dutch

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy", "Dee"]


def keeper_with_seat_link(phones: Phones, game: ApiGame) -> tuple[Page, str]:
    """The scorekeeper's page, live, with "Players enter their own" open; and the seat link it shows."""
    keeper = phones.page()
    keeper.goto(game.edit_url)
    expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
    keeper.goto(keeper.url.split("#")[0].split("?")[0] + "?seats=1#seats")
    expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
    return keeper, keeper.locator("#seat-link").input_value()


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


def send_rows(seats: dict[str, Page], keeper: Page, rows: dict[str, tuple[int, int]]) -> None:
    """Each phone sends its row (in at most 3 interactions, the figure docs/performance.md gives), and the
    rows arrive live in the keeper's form, each marked as the player's own."""
    for name, (d, b) in rows.items():
        assert send_row(seats[name], d, b) <= 3  # interactions per player for a typical row
    for name, (d, b) in rows.items():
        expect(dutch(keeper, name)).to_have_value(str(d))
        expect(blitz(keeper, name)).to_have_value(str(b))
    expect(keeper.locator("#round-entry fieldset.from-phone")).to_have_count(len(rows))


def keeper_saves(hands: Hands, rounds_after: int) -> None:
    hands.tap(hands.phone.locator("#round-entry .actions button.primary[type=submit]"))
    expect(hands.phone.locator(".round-count")).to_have_text(f"· after round {rounds_after}")


def retype(hands: Hands, field, count: int) -> None:
    """The keeper taps a count that came from a phone and types theirs over it."""
    hands.tap(field)
    field.fill(str(count))
    hands.interactions += 1


def test_four_phones_play_a_game_and_the_keeper_saves_each_round_with_one_tap(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    keeper, link = keeper_with_seat_link(phones, game)
    seats = {name: take_seat(phones, link, name) for name in NAMES}

    # Round 1: the keeper corrects Dee's Dutch count before saving (2 interactions), then saves (1).
    send_rows(seats, keeper, {"Ana": (12, 0), "Ben": (9, 4), "Cy": (7, 6), "Dee": (3, 8)})
    expect(seats["Ana"].locator(".seat-waiting")).to_have_count(0)  # everyone has sent (after Ana's refresh)
    # Ana's phone as it stood for round 1, to send it again after the save (a phone that missed it).
    ana_form = seats["Ana"].locator("form.seat-form")
    late_to = server.url + ana_form.get_attribute("action")
    late_form = ana_form.evaluate(
        "form => Object.fromEntries([...form.querySelectorAll('input[type=hidden]')].map(i => [i.name, i.value]))"
    )
    hands = Hands(keeper)
    retype(hands, dutch(keeper, "Dee"), 4)
    keeper_saves(hands, 1)
    assert hands.interactions == 3
    read = game.read()
    assert [(s["dutch"], s["blitz"]) for s in read["rounds"][0]["scores"]] == [(12, 0), (9, 4), (7, 6), (4, 8)]
    # Every phone moves on to round 2, its row empty.
    for phone in seats.values():
        expect(phone.locator("#seat h2").first).to_have_text("Round 2")
        expect(phone.locator("#seat-dutch")).to_have_value("")
        expect(phone.locator("input[name=blitz]:checked")).to_have_count(0)
    # Round 1's row sent late, from Ana's own phone with its seat cookie: 409, nothing written.
    late = seats["Ana"].request.post(late_to, form={**late_form, "dutch": "1", "blitz": "0"})
    assert late.status == 409
    assert "Round 1 was saved already" in late.text()
    assert httpx.get(f"{server.url}/api/v1/games/{game.id}/draft").json()["rows"] == []

    # Round 2: the piles catch Ben's miscount (the tops add up to 30, the rows to 28) before anything is saved.
    send_rows(seats, keeper, {"Ana": (12, 0), "Ben": (7, 4), "Cy": (6, 6), "Dee": (3, 8)})
    hands = Hands(keeper)
    hands.tap(keeper.locator("#round-entry .pile-check summary"))  # which puts the cursor in its field
    expect(keeper.get_by_label("The top card of each centre pile, or their sum")).to_be_focused()
    keeper.keyboard.type("10 10 10")
    hands.interactions += 1
    hands.tap(keeper.locator("#round-entry .actions button.primary[type=submit]"))
    expect(keeper.locator("#piles-error")).to_contain_text("The piles hold 30 cards; the rows say 28")
    assert len(game.read()["rounds"]) == 1
    expect(dutch(keeper, "Ben")).to_have_value("7")  # what was typed stays
    retype(hands, dutch(keeper, "Ben"), 9)
    keeper_saves(hands, 2)
    assert hands.interactions == 6
    assert [s["dutch"] for s in game.read()["rounds"][1]["scores"]] == [12, 9, 6, 3]

    # Round 3: nothing to correct. The keeper's part of a round four phones filled is one tap.
    send_rows(seats, keeper, {"Ana": (20, 0), "Ben": (12, 2), "Cy": (9, 4), "Dee": (8, 6)})
    hands = Hands(keeper)
    keeper_saves(hands, 3)
    assert hands.interactions == 1
    for phone in seats.values():
        expect(phone.locator("#seat h2").first).to_have_text("Round 4")


def test_a_count_the_keeper_set_with_a_step_stays_when_the_phone_sends_again(phones: Phones, server: Server):
    # A count filled from Ben's phone, then stepped up by the keeper with "+", is the keeper's: Ben's row sent
    # again fills only what the keeper left alone (his Blitz count), never the count the keeper set.
    game = api_game(server, NAMES[:3])
    keeper, link = keeper_with_seat_link(phones, game)
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


def test_a_30_and_a_half_from_a_phone_fills_a_german_keepers_field_as_german_writes_it(phones: Phones, server: Server):
    # 31 with three of a kind at 30½: Ana sends 30,5 from her phone; the German scorekeeper's field shows
    # "30,5" (as the page writes numbers and its own picker fills it), not "30.5".
    game = api_game(server, NAMES[:3], rules={"preset": "thirty_one", "thirty_and_a_half": True})
    keeper = phones.page(locale="de-DE")
    keeper.goto(game.edit_url)
    expect(keeper.locator("html")).to_have_attribute("lang", "de")
    expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
    keeper.goto(keeper.url.split("#")[0].split("?")[0] + "?seats=1#seats")
    expect(keeper.locator("#live[sse-connect] #game")).to_have_count(1)
    ana = take_seat(phones, keeper.locator("#seat-link").input_value(), "Ana")
    ana.locator("#seat-hand").fill("30,5")
    ana.locator("form.seat-form button[type=submit]").tap()
    expect(ana.locator(".seat-sent")).to_be_visible()
    expect(keeper.get_by_label("Handwert — Ana", exact=True)).to_have_value("30,5")
