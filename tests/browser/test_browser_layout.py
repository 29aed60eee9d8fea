"""Phone layout: no sideways scroll at 360 px with 8 players, 44 px tap targets, dark mode."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import ApiGame, Phones, Server, api_game

pytestmark = pytest.mark.browser

EIGHT = ["Alexandrina", "Bartholomew", "Cassiopeia", "Demetrius", "Evangeline", "Fitzgerald", "Guinevere", "Hieronymus"]
NARROW = {"viewport": {"width": 360, "height": 740}}
MIN_TAP = 44


def eight_player_game(server: Server) -> ApiGame:
    # Long names, wide numbers and a high target: the widest tables and scoreboard a real game makes.
    game = api_game(
        server,
        EIGHT,
        [-9999, 9000, 0, 0, 0, 0, 0, 0],
        name="Family reunion at the lake house",
        rules={"target": 10000},
    )
    for _ in range(3):
        game.add_round([(40, 0), (0, 10), (13, 7), (12, 8), (10, 9), (1, 10), (2, 10), (3, 10)])
    return game


def page_width(page: Page) -> dict[str, float]:
    return page.evaluate(
        "({scroll: document.documentElement.scrollWidth, inner: window.innerWidth, body: document.body.scrollWidth})"
    )


def assert_no_sideways_scroll(page: Page) -> None:
    width = page_width(page)
    assert width["scroll"] <= width["inner"], width
    assert width["body"] <= width["inner"], width


@pytest.mark.parametrize("which", ["keeper", "keeper-correcting", "view", "tv"])
def test_no_sideways_scroll_at_360_px_with_eight_players(phones: Phones, server: Server, which: str):
    game = eight_player_game(server)
    page = phones.page(**NARROW)
    page.goto(game.edit_url)
    expect(page.locator("#round-entry fieldset.player-entry")).to_have_count(8)
    path = {
        "keeper": f"/g/{game.id}/score?handover=1",
        "keeper-correcting": f"/g/{game.id}/score?edit=2",
        "view": game.view_path,
        "tv": game.view_path + "?tv=1",
    }[which]
    page.goto(path)
    expect(page.locator("#scoreboard li.standing")).to_have_count(8)
    assert page.evaluate("window.innerWidth") == 360
    assert_no_sideways_scroll(page)
    if which != "tv":
        # The history has a card per round: its eight players wrap inside the card, nothing scrolls
        # sideways, not even inside a box of its own, and each round's Edit and Delete are on screen.
        cards = page.locator("#history li.round-card[data-round]")
        expect(cards).to_have_count(3)
        overflowing = page.locator("#history *").evaluate_all(
            "els => els.filter(el => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'hidden')"
            ".map(el => el.className)"
        )
        assert overflowing == []
        for box in cards.locator(".round-scores li").evaluate_all(
            "els => els.map(el => el.getBoundingClientRect()).map(r => [r.left, r.right])"
        ):
            assert box[0] >= 0 and box[1] <= 360, box
        if which.startswith("keeper"):
            for action in ("Edit round 2", "Delete round 2", "Edit round 1"):
                link = page.get_by_role("link", name=action)
                link.scroll_into_view_if_needed()
                box = link.bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, (action, box)
    expect(page.locator("#chart svg.chart")).to_be_visible()
    chart = page.locator("#chart svg.chart").bounding_box()
    assert chart is not None and chart["x"] >= 0 and chart["x"] + chart["width"] <= 360
    phones.screenshot(page, f"eight-players-360px-{which}")


def test_the_start_page_fits_at_360_px_with_eight_players(phones: Phones):
    page = phones.page(**NARROW)
    page.goto("/")
    for number in range(3, 9):
        page.get_by_role("button", name="+ Add player").click()
        expect(page.get_by_label(f"Player {number}", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="+ Add player")).to_have_count(0)
    page.locator("summary", has_text="Starting scores").click()
    page.locator("summary", has_text="House rules").click()
    assert_no_sideways_scroll(page)


def test_round_form_controls_are_at_least_44_px(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben", "Cy"])
    game.add_round([(10, 0), (5, 2), (1, 1)])
    page = phones.page(**NARROW)
    page.goto(game.edit_url)
    page.goto(f"/g/{game.id}/score?edit=1")  # correcting: the Cancel link is there too
    controls = page.locator(
        "#round-entry input:not([type=hidden]), #round-entry button, #round-entry a, "
        "#history a, #share button, #share a, summary"
    )
    expect(controls.first).to_be_visible()
    sizes = controls.evaluate_all(
        "els => els.filter(el => el.getClientRects().length).map(el => ({"
        " tag: el.tagName.toLowerCase(),"
        " name: el.getAttribute('aria-label') || el.textContent.trim() || el.id,"
        " height: el.getBoundingClientRect().height, width: el.getBoundingClientRect().width}))"
    )
    assert len(sizes) > 3 * 7  # per player: 2 fields, 4 steppers, Blitz!
    assert [s for s in sizes if s["height"] < MIN_TAP - 0.5] == []
    assert [s for s in sizes if s["tag"] == "button" and s["width"] < MIN_TAP - 0.5] == []


def background(page: Page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def luminance(rgb: str) -> float:
    red, green, blue = (int(part) for part in rgb.removeprefix("rgb(").removesuffix(")").split(",")[:3])
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


@pytest.mark.parametrize("path", ["/", "view"])
def test_dark_mode_follows_the_system_setting(phones: Phones, server: Server, path: str):
    if path == "view":
        path = api_game(server, ["Ana", "Ben"]).view_path
    light = phones.page(color_scheme="light")
    light.goto(path)
    dark = phones.page(color_scheme="dark")
    dark.goto(path)
    assert background(light) != background(dark)
    assert luminance(background(light)) > 0.8
    assert luminance(background(dark)) < 0.2
    text_colour = dark.evaluate("getComputedStyle(document.body).color")
    assert luminance(text_colour) > 0.8
    phones.screenshot(dark, "dark-" + ("start" if path == "/" else "view"))
