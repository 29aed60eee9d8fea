"""More than one game, at the table: one whole game of each other game, played on a phone from the start page to its
winner, the way a scorekeeper does it: tap the game, maybe change one house rule,
type the names, start, then for each round tap the first field and type (a count that can't grow moves
on by itself; "\\n" is the keyboard's "next" where one could), tap who called or knocked, tap Save.

Every expected number is worked out by hand from docs/rules.md, "The other games" (never by the engine):
cards: points = centre × +1 + pile left × −2, highest total wins once one reaches the target; Dutch: a
caller with the lowest hand scores 0 and the rest their hands, a caller without it scores their hand
(penalty card) and the lowest scores 0, nobody called: every hand counts, lowest total wins once one
reaches 100 (a tie for it plays on); 31: the lowest hand loses a life, a sole-lowest knocker two, a 31
costs everyone else one; at 0 "on the county", below it out; the last player in wins.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.helpers import Phones, Server, api_game, blitz, dutch, scoreboard

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy"]
EIGHT = ["Ana", "Ben", "Cy", "Dee", "Eve", "Finn", "Gus", "Hal"]
Typed = str | Locator  # digits (maybe ending in "\n", the keyboard's "next"), or a button tapped instead


def start_game(page: Page, game: str, preset: str, names: list[str], rules: dict[str, str] | None = None) -> None:
    """On the start page: tap the game (all six are in sight), type the names, change house rules, start."""
    page.goto("/")
    choice = page.get_by_role("radio", name=game, exact=True)
    choice.tap()
    expect(page.locator("input[name=shown_preset]")).to_have_value(preset)  # htmx swapped in its form
    expect(choice).to_be_checked()
    for number, name in enumerate(names, start=1):
        if number > 2:
            page.get_by_role("button", name="+ Add player").tap()
        field = page.get_by_label(f"Player {number}", exact=True)
        expect(field).to_be_visible()
        field.fill(name)
    expect(page.get_by_role("radio", name=game, exact=True)).to_be_checked()  # still the game picked
    if rules:
        page.locator("summary", has_text="House rules").tap()
        for label, value in rules.items():
            page.get_by_label(label, exact=True).fill(value)
    page.get_by_role("button", name="Start game").tap()
    page.wait_for_url("**/g/*/score")
    expect(page.locator("#round-entry")).to_be_visible()


def enter_round(page: Page, number: int, fields: list[Locator], typed: list[Typed], caller: str | None = None) -> None:
    """Tap the first field and type each entry; after each one the cursor must be in the next field, and
    after the last on Save (no entry ends a round with the keyboard's Enter, which would save). Then tap
    the radio named `caller` (if any) and Save, and wait for the saved game."""
    save = page.locator("#round-entry button[type=submit]")
    expect(page.locator("#round-entry h2")).to_have_text(re.compile(rf"^Round {number}( \(tie-break\))?$"))
    fields[0].tap()
    for entry, following in zip(typed, [*fields[1:], save], strict=True):
        if isinstance(entry, str):
            for key in entry:
                page.keyboard.press("Enter" if key == "\n" else key)
        else:
            entry.tap()
        expect(following).to_be_focused()
    if caller:
        radio = page.get_by_role("radio", name=caller, exact=True)
        radio.tap()
        expect(radio).to_be_checked()
    save.tap()
    expect(page.locator(".round-count")).to_have_text(f"· after round {number}")


def cards_fields(page: Page, centre: str, pile: str, names: list[str]) -> list[Locator]:
    """Each player's two counts, in the order the cursor goes: centre, pile left, next player."""
    fields = []
    for name in names:
        fields += [
            page.get_by_label(f"{centre} — {name}", exact=True),
            page.get_by_label(f"{pile} — {name}", exact=True),
        ]
    return fields


def hand_fields(page: Page, label: str, names: list[str]) -> list[Locator]:
    return [page.get_by_label(f"{label} — {name}", exact=True) for name in names]


def expect_standings(page: Page, expected: list[str]) -> None:
    expect(scoreboard(page).locator(".name bdi")).to_have_text([e.rsplit(" ", 1)[0] for e in expected])
    expect(scoreboard(page).locator(".total")).to_have_text([e.rsplit(" ", 1)[1] for e in expected])


def no_sideways_scrolling(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def form_fits(page: Page) -> None:
    """Nothing scrolls sideways, every field and radio of the round is within the screen's width, and the
    Save button is in view before anything is typed."""
    no_sideways_scrolling(page)
    expect(page.locator("#round-entry button[type=submit]")).to_be_in_viewport()
    for field in page.locator("#round-entry input:not([type=hidden])").all():
        box = field.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, field.evaluate("e => e.outerHTML")


def api(phones: Phones, page: Page) -> dict[str, Any]:
    """The game as the API reads it, its id from the page's address."""
    found = re.search(r"/g/([^/?#]+)/score", page.url)
    assert found, page.url
    response = httpx.get(f"{phones.server.url}/api/v1/games/{found[1]}")
    response.raise_for_status()
    return response.json()


def ids(game: dict[str, Any]) -> dict[str, int]:
    return {p["name"]: p["id"] for p in game["players"]}


def expect_banner(page: Page, heading: str, final: list[str], chart: str = "Running totals") -> None:
    """The winner's banner and final standings, no round form any more, and the chart: a line per player,
    and a target line except in 31 (whose chart follows the lives)."""
    banner = page.locator("#banner")
    expect(banner.get_by_role("heading")).to_have_text(heading)
    expect(banner.locator(".final-totals li")).to_have_text(final)
    expect(page.locator("#round-entry")).to_have_count(0)
    expect(page.locator("#chart-title")).to_have_text(chart)
    expect(page.locator("#chart polyline")).to_have_count(len(final))
    expect(page.locator("#chart .target-line")).to_have_count(0 if chart == "Lives" else 1)
    banner.scroll_into_view_if_needed()
    no_sideways_scrolling(page)


# --- the card games --------------------------------------------------------------------------------------


def test_dutch_blitz_to_100_played_on_a_phone(phones: Phones):
    page = phones.page()
    start_game(page, "Dutch Blitz to 100", "dutch_blitz_100", NAMES)
    expect(page.locator("#scoreboard .rules-line")).to_have_text("To 100 · +1 per Dutch card · −2 per Blitz card")
    no_sideways_scrolling(page)
    fields = [f(page, name) for name in NAMES for f in (dutch, blitz)]
    out = {name: page.get_by_role("button", name=f"Blitz! — {name}") for name in NAMES}

    # Dutch 1–4 and Blitz 1 could still grow: "next" after them; everything else moves on by itself.
    enter_round(page, 1, fields, ["30", out["Ana"], "20", "3", "12", "6"])  # +30, +14, 0
    expect_standings(page, ["Ana 30", "Ben 14", "Cy 0"])
    enter_round(page, 2, fields, ["25", "2", "28", "0", "15", "2"])  # +21, +28, +11
    expect_standings(page, ["Ana 51", "Ben 42", "Cy 11"])
    enter_round(page, 3, fields, ["22", "0", "26", "1\n", "3\n", "7"])  # +22, +24, −11
    expect_standings(page, ["Ana 73", "Ben 66", "Cy 0"])
    expect(page.locator("#banner")).to_have_count(0)  # 73 is not yet 100
    enter_round(page, 4, fields, ["12", "5", "40", out["Ben"], "18", "0"])  # +2, +40, +18
    expect_banner(page, "🏆 Ben wins with 106!", ["Ben 106", "Ana 75", "Cy 18"])
    expect_standings(page, ["Ben 106", "Ana 75", "Cy 18"])
    expect(page.locator("#history li[data-round='3'] .points")).to_have_text(["+22", "+24", "−11"])

    game = api(phones, page)
    who = ids(game)
    assert (game["status"], game["winners"], game["rules"]["target"]) == ("finished", [who["Ben"]], 100)
    assert [[(s["dutch"], s["blitz"], s["points"]) for s in r["scores"]] for r in game["rounds"]] == [
        [(30, 0, 30), (20, 3, 14), (12, 6, 0)],
        [(25, 2, 21), (28, 0, 28), (15, 2, 11)],
        [(22, 0, 22), (26, 1, 24), (3, 7, -11)],
        [(12, 5, 2), (40, 0, 40), (18, 0, 18)],
    ]


def test_nerts_to_a_lower_target_played_on_a_phone(phones: Phones):
    page = phones.page()
    start_game(page, "Nerts", "nerts", NAMES, {"Target score": "50"})
    expect(page.locator("#scoreboard .rules-line")).to_have_text(
        "To 50 · +1 per centre card · −2 per card left in the pile"
    )
    no_sideways_scrolling(page)
    fields = cards_fields(page, "Centre cards", "Nerts pile left", NAMES)
    out = {name: page.get_by_role("button", name=f"Nerts! — {name}") for name in NAMES}

    # Centre up to 52 (1–5 could grow), pile up to 13 (so 1 could: 10–13).
    enter_round(page, 1, fields, ["18", out["Ana"], "14", "5", "9", "8"])  # +18, +4, −7
    expect_standings(page, ["Ana 18", "Ben 4", "Cy −7"])
    enter_round(page, 2, fields, ["6", "12", "22", out["Ben"], "16", "2"])  # −18, +22, +12
    expect_standings(page, ["Ben 26", "Cy 5", "Ana 0"])
    enter_round(page, 3, fields, ["35", "3", "12", "4", "45", out["Cy"]])  # +29, +4, +45
    expect_banner(page, "🏆 Cy wins with 50!", ["Cy 50", "Ben 30", "Ana 29"])
    expect_standings(page, ["Cy 50", "Ben 30", "Ana 29"])
    expect(page.locator("#history li[data-round='2'] .cards")).to_have_text(["6 / 12", "22 / 0", "16 / 2"])
    expect(page.locator("#history li[data-round='2'] .points")).to_have_text(["−18", "+22", "+12"])

    game = api(phones, page)
    assert (game["rules"]["preset"], game["rules"]["target"], game["rules"]["pile_size"]) == ("nerts", 50, 13)
    assert game["winners"] == [ids(game)["Cy"]]
    assert [[s["total"] for s in r["scores"]] for r in game["rounds"]] == [[18, 4, -7], [0, 26, 5], [29, 30, 50]]


def test_ligretto_with_a_stuck_round_played_on_a_phone(phones: Phones):
    page = phones.page()
    start_game(page, "Ligretto", "ligretto", NAMES)
    expect(page.locator("#scoreboard .rules-line")).to_have_text(
        "To 99 · +1 per centre card · −2 per card left in the pile · a round may end with nobody out"
    )
    no_sideways_scrolling(page)
    fields = cards_fields(page, "Centre cards", "Ligretto pile left", NAMES)
    out = {name: page.get_by_role("button", name=f"Ligretto! — {name}") for name in NAMES}

    enter_round(page, 1, fields, ["30", out["Ana"], "25", "2", "20", "3"])  # +30, +21, +14
    expect_standings(page, ["Ana 30", "Ben 21", "Cy 14"])
    enter_round(page, 2, fields, ["22", "2", "19", "1\n", "24", "3"])  # stuck, nobody out: +18, +17, +18
    expect(page.locator("#round-error, .field-error")).to_have_count(0)
    expect_standings(page, ["Ana 48", "Ben 38", "Cy 32"])
    enter_round(page, 3, fields, ["28", "4", "38", out["Ben"], "27", "5"])  # +20, +38, +17
    expect_standings(page, ["Ben 76", "Ana 68", "Cy 49"])
    enter_round(page, 4, fields, ["33", out["Ana"], "20", "3", "36", "2"])  # +33, +14, +32
    expect_banner(page, "🏆 Ana wins with 101!", ["Ana 101", "Ben 90", "Cy 81"])
    expect_standings(page, ["Ana 101", "Ben 90", "Cy 81"])

    game = api(phones, page)
    assert game["winners"] == [ids(game)["Ana"]]
    assert [s["blitz"] for s in game["rounds"][1]["scores"]] == [2, 1, 3]  # nobody went out
    assert [p["total"] for p in game["players"]] == [101, 90, 81]


# --- Dutch: the lowest total wins ------------------------------------------------------------------------


def test_dutch_with_a_penalty_and_a_tie_break_played_on_a_phone(phones: Phones):
    page = phones.page()
    start_game(page, "Dutch (lowest score wins)", "dutch", NAMES)
    rules_line = page.locator("#scoreboard .rules-line")
    expect(rules_line).to_have_text("Lowest total wins · the game ends when someone reaches 100")
    form_fits(page)
    fields = hand_fields(page, "Hand points", NAMES)
    nobody = page.get_by_role("radio", name="Nobody called (someone went out)")
    expect(nobody).to_be_checked()

    # A hand up to 250: 0, 26–99 and three digits can't grow; the others need "next".
    enter_round(page, 1, fields, ["3\n", "27", "40"], caller="Called Dutch — Ana")  # Ana lowest: 0, 27, 40
    expect_standings(page, ["Ana 0", "Ben 27", "Cy 40"])
    expect(nobody).to_be_checked()  # a fresh form: nobody called until someone did
    enter_round(page, 2, fields, ["5\n", "12\n", "30"], caller="Called Dutch — Ben")  # Ben not lowest: 0, 12, 30
    expect_standings(page, ["Ana 0", "Ben 39", "Cy 70"])
    penalty = page.locator("#history li[data-round='2'] .cards")
    expect(penalty).to_have_text(["hand 5", "hand 12 · called Dutch · takes a penalty card", "hand 30"])
    enter_round(page, 3, fields, ["39", "0", "35"])  # nobody called: 39, 0, 35; Cy past 100, Ana and Ben tied
    expect_standings(page, ["Ana 39", "Ben 39", "Cy 105"])
    expect(scoreboard(page).locator(".rank")).to_have_text(["1", "1", "3"])
    banner = page.locator("#banner")
    expect(banner.get_by_role("heading")).to_have_text("Tie for the lowest total: Ana and Ben have 39.")
    expect(banner).to_contain_text("Play a tie-break round")
    expect(page.get_by_role("heading", name="Round 4 (tie-break)")).to_be_visible()
    enter_round(page, 4, fields, ["9\n", "4\n", "26"], caller="Called Dutch — Ben")  # Ben lowest: 9, 0, 26
    expect_banner(page, "🏆 Ben wins with 39!", ["Ben 39", "Ana 48", "Cy 131"])
    expect_standings(page, ["Ben 39", "Ana 48", "Cy 131"])
    expect(rules_line).to_contain_text("Lowest total wins")

    game = api(phones, page)
    who = ids(game)
    assert (game["status"], game["winners"]) == ("finished", [who["Ben"]])
    assert [(r["caller"], r["penalty"]) for r in game["rounds"]] == [
        (who["Ana"], None),
        (who["Ben"], who["Ben"]),
        (None, None),
        (who["Ben"], None),
    ]
    assert [[(s["hand"], s["points"]) for s in r["scores"]] for r in game["rounds"]] == [
        [(3, 0), (27, 27), (40, 40)],
        [(5, 0), (12, 12), (30, 30)],
        [(39, 39), (0, 0), (35, 35)],
        [(9, 9), (4, 0), (26, 26)],
    ]


# --- 31: lives --------------------------------------------------------------------------------------------


def test_thirty_one_with_two_lives_played_on_a_phone(phones: Phones):
    page = phones.page()
    start_game(page, "31", "thirty_one", NAMES, {"Lives each player starts with": "2"})
    expect(page.locator("#scoreboard .rules-line")).to_have_text(
        "2 lives each · last player in wins · with the county (no lives left: one more chance)"
    )
    form_fits(page)
    hearts = scoreboard(page).locator(".hearts")
    expect(hearts).to_have_text(["♥♥", "♥♥", "♥♥"])
    expect(page.get_by_role("radio", name="Nobody knocked")).to_be_checked()

    # A hand up to 31: 0, 4–9 and two digits can't grow.
    fields = hand_fields(page, "Hand value", NAMES)
    enter_round(page, 1, fields, ["14", "22", "27"], caller="Knocked — Ana")  # Ana knocked, sole lowest: −2
    expect(scoreboard(page).locator(".name bdi")).to_have_text(["Ben", "Cy", "Ana"])
    expect(hearts).to_have_text(["♥♥", "♥♥", "♡♡"])
    expect(scoreboard(page).locator(".lives-left").nth(2)).to_contain_text("on the county")
    enter_round(page, 2, fields, ["25", "19", "31"])  # Cy's 31: Ana and Ben lose one; Ana out
    expect(scoreboard(page).locator(".name bdi")).to_have_text(["Cy", "Ben", "Ana"])
    expect(hearts).to_have_text(["♥♥", "♥♡", "♡♡"])
    expect(scoreboard(page).locator(".lives-left").nth(2)).to_contain_text("out in round 2")
    expect(page.locator("#scoreboard li.standing.out")).to_have_count(1)

    # Ana is listed, greyed, and not asked any more.
    greyed = page.locator("#round-entry .player-entry.out")
    expect(greyed).to_have_text(re.compile(r"^Ana\s+out of the game$"))
    assert float(greyed.evaluate("e => getComputedStyle(e).opacity")) < 1
    expect(page.get_by_label("Hand value — Ana", exact=True)).to_have_count(0)
    expect(page.get_by_role("radio", name="Knocked — Ana")).to_have_count(0)
    form_fits(page)
    fields = hand_fields(page, "Hand value", ["Ben", "Cy"])
    enter_round(page, 3, fields, ["12", "29"])  # Ben lowest: on the county
    expect(hearts).to_have_text(["♥♥", "♡♡", "♡♡"])
    expect(scoreboard(page).locator(".lives-left").nth(1)).to_contain_text("on the county")
    enter_round(page, 4, fields, ["20", "23"])  # Ben lowest again: out; Cy is the last in
    expect_banner(
        page, "🏆 Cy is the last player in and wins!", ["Cy ♥♥", "Ben out in round 4", "Ana out in round 2"], "Lives"
    )
    expect(scoreboard(page).locator(".name bdi")).to_have_text(["Cy", "Ben", "Ana"])
    expect(scoreboard(page).locator(".rank")).to_have_text(["1", "2", "3"])
    expect(scoreboard(page).locator(".lives-left").nth(1)).to_contain_text("out in round 4")
    expect(page.locator("#history li[data-round='1'] .cards").first).to_have_text("hand 14 · knocked")

    game = api(phones, page)
    who = ids(game)
    assert (game["status"], game["winners"], game["rules"]["lives"]) == ("finished", [who["Cy"]], 2)
    assert [(p["name"], p["lives"], p["out"]) for p in game["players"]] == [
        ("Ana", 0, True),
        ("Ben", 0, True),
        ("Cy", 2, False),
    ]
    assert [r["knocker"] for r in game["rounds"]] == [who["Ana"], None, None, None]
    assert [[(s["player_id"], s["hand"], s["lives_lost"]) for s in r["scores"]] for r in game["rounds"]] == [
        [(who["Ana"], 14, 2), (who["Ben"], 22, 0), (who["Cy"], 27, 0)],
        [(who["Ana"], 25, 1), (who["Ben"], 19, 1), (who["Cy"], 31, 0)],
        [(who["Ben"], 12, 1), (who["Cy"], 29, 0)],
        [(who["Ben"], 20, 1), (who["Cy"], 23, 0)],
    ]


# --- eight players: the hand forms still fit ----------------------------------------------------------


@pytest.mark.parametrize(("preset", "label"), [("dutch", "Hand points"), ("thirty_one", "Hand value")])
def test_eight_players_type_their_hands_and_see_each_field(phones: Phones, server: Server, preset: str, label: str):
    game = api_game(server, EIGHT, rules={"preset": preset})  # set up only: nothing is played through the API
    page = phones.page()
    page.goto(game.edit_url)
    form_fits(page)
    fields = hand_fields(page, label, EIGHT)
    fields[0].tap()
    hidden = []
    for field in fields[1:]:
        page.keyboard.type("27")  # two digits: on to the next hand by itself
        expect(field).to_be_focused()
        expect(page.locator("#round-entry button[type=submit]")).to_be_in_viewport()
        # What is at the centre of the field being typed in is the field itself, not the pinned Save.
        seen = field.evaluate(
            """el => { const b = el.getBoundingClientRect(), x = b.left + b.width / 2, y = b.top + b.height / 2;
                      return y > 0 && y < innerHeight && document.elementFromPoint(x, y) === el; }"""
        )
        if not seen:
            hidden.append(field.get_attribute("id"))
    no_sideways_scrolling(page)
    assert hidden == [], f"under the Save button when the cursor got there: {hidden}"


def test_thirty_one_with_the_30_and_a_half_rule_waits_after_a_30_for_its_half(phones: Phones, server: Server):
    """With `thirty_and_a_half` a typed 30 may still become 30½: the cursor stays for ",5" (a 25 moves on)."""
    game = api_game(server, NAMES, rules={"preset": "thirty_one", "thirty_and_a_half": True})
    page = phones.page()
    page.goto(game.edit_url)
    fields = hand_fields(page, "Hand value", NAMES)
    expect(fields[0]).to_have_attribute("inputmode", "decimal")
    fields[0].tap()
    page.keyboard.type("30")
    expect(fields[0]).to_be_focused()  # not on to Ben's yet
    page.keyboard.type(",5")
    page.keyboard.press("Enter")
    expect(fields[1]).to_be_focused()
    page.keyboard.type("30")
    page.keyboard.press("Enter")
    expect(fields[2]).to_be_focused()
    page.keyboard.type("25")  # two digits past 3: on by itself
    expect(page.locator("#round-entry button[type=submit]")).to_be_focused()
    page.locator("#round-entry button[type=submit]").tap()
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    expect(page.locator("#history li[data-round='1'] .cards")).to_have_text(["hand 30.5", "hand 30", "hand 25"])
    scores = httpx.get(f"{server.url}/api/v1/games/{game.id}").json()["rounds"][0]["scores"]
    assert [(s["hand"], s["lives_lost"]) for s in scores] == [(30.5, 0), (30, 0), (25, 1)]
