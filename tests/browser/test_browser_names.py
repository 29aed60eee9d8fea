"""Names that can be told apart in round entry: on a 390×844 phone every player's name is shown whole
(wrapped, or on a line of its own above the counts), so "Alexander" and "Alexandra" never both read
"Alexa…" and a count cannot go into a row that only looks right. Checked in the compact Dutch Blitz
form, with the − + buttons, in a correction, and in the hand forms of Dutch and 31; and short names
still keep each player to one row, as before."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import ApiGame, Phones, Server, api_game

pytestmark = pytest.mark.browser

WIDTH = 390
# Equal in their first five letters, in two scripts: what a cut-off name column showed the same.
ALIKE = ["Alexander", "Alexandra", "Александр", "Александра"]
# 40 characters each (the longest name a game takes), the first two equal but for the last letter.
FORTY = [
    "Maximilian Alexander von Hohenzollern-Sa",
    "Maximilian Alexander von Hohenzollern-Si",
    "Александра Владимировна Константинова-Ли",
    "Jean-Baptiste Emmanuel de la Rochefoucau",
]
# 40 characters without a space (a long compound name): it has to wrap inside the word.
UNBROKEN = ["Wolfeschlegelsteinhausenbergerdorffsohne", "Wolfeschlegelsteinhausenbergerdorffsohnr", "Ana", "Ben"]
SHORT = ["Ana", "Ben", "Cy", "Dee"]
NAME_SETS = {"alike": ALIKE, "forty": FORTY, "unbroken": UNBROKEN}
LAYOUTS = ["compact", "steppers", "correction", "dutch", "thirty_one"]

# Each player's row in round entry: where its name is and whether any of it is hidden.
NAME_ROWS = """rows => rows.map(row => {
  const name = row.querySelector("bdi"), box = name.getBoundingClientRect();
  const text = document.createRange();
  text.selectNodeContents(name);
  const controls = [...row.querySelectorAll("input:not([type=hidden]), button, .choice, .muted")]
    .filter(el => el.getClientRects().length).map(el => el.getBoundingClientRect());
  return {
    text: name.textContent,
    scrollWidth: name.scrollWidth, clientWidth: name.clientWidth,
    textOverflow: getComputedStyle(name).textOverflow,
    left: box.left, right: box.right,
    // every line of the name's text inside the name's own box (nothing spills out or is clipped)
    linesOutside: [...text.getClientRects()].filter(r => r.left < box.left - 0.5 || r.right > box.right + 0.5).length,
    // the name under none of its row's fields or buttons
    covered: controls.filter(c => c.left < box.right && box.left < c.right && c.top < box.bottom && box.top < c.bottom).length,
    rowClipped: row.scrollWidth > row.clientWidth,
  };
})"""


def open_round_entry(phones: Phones, server: Server, names: list[str], layout: str) -> Page:
    """A 4-player game of the layout's kind, its round entry open on the scorekeeper's phone."""
    rules = {"dutch": {"preset": "dutch"}, "thirty_one": {"preset": "thirty_one", "lives": 1}}.get(layout)
    game = api_game(server, names, **({"rules": rules} if rules else {}))
    page = phones.page()
    page.goto(game.edit_url)
    if layout == "steppers":
        page.get_by_role("button", name="Count with − +").click()
        expect(page.get_by_role("button", name="Count with − +")).to_have_attribute("aria-pressed", "true")
    elif layout == "correction":
        game.add_round([(10, 0), (5, 2), (1, 1), (0, 4)])
        page.goto(f"/g/{game.id}/score?edit=1")
        expect(page.get_by_role("heading", name="Correct round 1")).to_be_visible()
    elif layout == "thirty_one":
        # The second player's lowest hand twice: out of the game, listed greyed in the form.
        for _ in range(2):
            play_hands(game, [20, 5, 25, 27])
        page.reload()
        expect(page.locator("#round-entry .player-entry.out")).to_have_count(1)
    expect(page.locator("#round-entry .player-entry")).to_have_count(4)
    return page


def play_hands(game: ApiGame, hands: list[int]) -> None:
    """A round of 31 through the API: each player still in and their hand, nobody knocked."""
    still_in = [p["id"] for p in game.read()["players"] if not p["out"]]
    scores = [
        {"player_id": pid, "hand": hand} for pid, hand in zip(game.player_ids, hands, strict=True) if pid in still_in
    ]
    response = httpx.post(
        f"{game.server.url}/api/v1/games/{game.id}/rounds",
        json={"scores": scores},
        headers={"Authorization": f"Bearer {game.body['edit_key']}"},
    )
    response.raise_for_status()


def name_rows(page: Page) -> list[dict[str, Any]]:
    return page.locator("#round-entry .player-entry").evaluate_all(NAME_ROWS)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("names", list(NAME_SETS), ids=list(NAME_SETS))
def test_every_name_is_seen_whole_in_round_entry(phones: Phones, server: Server, names: str, layout: str):
    page = open_round_entry(phones, server, NAME_SETS[names], layout)
    rows = name_rows(page)
    assert [row["text"] for row in rows] == NAME_SETS[names]
    for row in rows:
        assert row["clientWidth"] > 0, row  # a box of its own whose width says something
        assert row["scrollWidth"] <= row["clientWidth"], row
        assert row["textOverflow"] != "ellipsis", row
        assert row["linesOutside"] == 0, row
        assert row["covered"] == 0, row
        assert not row["rowClipped"], row
        assert row["left"] >= 0 and row["right"] <= WIDTH, row
    entry = page.locator("#round-entry").evaluate("e => ({scroll: e.scrollWidth, client: e.clientWidth})")
    assert entry["scroll"] <= entry["client"], entry
    if names != "unbroken":
        # A 40-letter word is wrapped in round entry, but the chart's legend below still runs it past
        # the screen's edge (not round entry's to fix); names with spaces fit the whole page.
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
        phones.screenshot(page, f"names-{names}-{layout}")


ONE_LINE_ROWS = """rows => rows.map(row => {
  const name = row.querySelector("legend").getBoundingClientRect();
  const field = row.querySelector("input.num").getBoundingClientRect();
  const style = getComputedStyle(row);
  const edges = ["paddingTop", "paddingBottom", "borderTopWidth", "borderBottomWidth"]
    .reduce((sum, side) => sum + parseFloat(style[side]), 0);
  return {
    name: row.querySelector("bdi").textContent,
    beside: name.top >= field.top - 0.5 && name.bottom <= field.bottom + 0.5,
    height: row.getBoundingClientRect().height, oneLine: field.height + edges,
  };
})"""


@pytest.mark.parametrize("layout", ["compact", "dutch", "thirty_one"])
def test_short_names_keep_a_row_per_player(phones: Phones, server: Server, layout: str):
    """Ana, Ben, Cy and Dee share their row with the counts: a row is as tall as its fields (plus its
    padding and border), measured on the page, so a bigger font moves both and the check still holds."""
    page = open_round_entry(phones, server, SHORT, layout)
    rows = page.locator("#round-entry fieldset.player-entry").evaluate_all(ONE_LINE_ROWS)
    assert len(rows) == (3 if layout == "thirty_one" else 4)
    for row in rows:
        assert row["beside"], row
        assert row["height"] <= row["oneLine"] + 0.5, row
    # Four rows and Save on the screen at once, as before.
    expect(page.locator("#round-entry button[type=submit]")).to_be_in_viewport()
    for field in page.locator("#round-entry input.num").all():
        expect(field).to_be_in_viewport()
