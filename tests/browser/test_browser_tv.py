"""The TV view, for a room: read from 4 m at 1280×800 (no text under 24 px, the screen used to its
bottom, no scrolling), and the chart's labels never overlapping each other, a line or a marker, on
the TV and on a phone."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import OVERFLOWING, Phones, Server, api_game

pytestmark = pytest.mark.browser

TV = {"viewport": {"width": 1280, "height": 800}, "is_mobile": False, "has_touch": False, "device_scale_factor": 1}
NAMES = ["Ana", "Ben", "Cy", "Dee"]

# Every element with text of its own, as drawn: its font size in CSS pixels (an SVG label's size
# times the drawing's scale), skipping what is hidden or visually hidden (a screen reader's text).
FONT_SIZES = """() => {
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1 || getComputedStyle(el).visibility === "hidden") continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) size *= el.getScreenCTM().a;
    out.push({ text: el.textContent.trim().slice(0, 30), size: Math.round(size * 10) / 10 });
  }
  return out;
}"""

# The chart's labels as boxes, and its lines and markers, all in the drawing's own units.
CHART_PARTS = """() => {
  const svg = document.querySelector("#chart svg.chart");
  const labels = Array.from(svg.querySelectorAll("text")).map(t => {
    const b = t.getBBox();
    return { text: t.textContent, x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height };
  });
  const lines = Array.from(svg.querySelectorAll("polyline")).map(
    l => Array.from(l.points).map(p => [p.x, p.y]));
  const markers = Array.from(svg.querySelectorAll("use.marker")).map(m => {
    const b = m.getBBox();
    return { x0: b.x + 1, y0: b.y + 1, x1: b.x + b.width - 1, y1: b.y + b.height - 1 };
  });
  return { labels, lines, markers };
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["x0"] < b["x1"] and b["x0"] < a["x1"] and a["y0"] < b["y1"] and b["y0"] < a["y1"]


def crosses(segment: tuple[list[float], list[float]], box: dict[str, float]) -> bool:
    (ax, ay), (bx, by) = segment
    steps = 200
    return any(
        box["x0"] < ax + (bx - ax) * i / steps < box["x1"] and box["y0"] < ay + (by - ay) * i / steps < box["y1"]
        for i in range(steps + 1)
    )


def chart_collisions(page: Page) -> list[str]:
    parts: dict[str, Any] = page.evaluate(CHART_PARTS)
    labels, found = parts["labels"], []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            if overlap(a, b):
                found.append(f"{a['text']!r} overlaps {b['text']!r}")
        for m in parts["markers"]:
            if overlap(a, m):
                found.append(f"{a['text']!r} overlaps a marker")
        for points in parts["lines"]:
            if any(crosses((p, q), a) for p, q in pairwise(points)):
                found.append(f"{a['text']!r} is crossed by a line")
    return found


def close_race(server: Server, players: int = 4) -> Any:
    """Lines that end right by the target, where its label used to be, and start on 0 by the axis."""
    game = api_game(server, [*NAMES, "Eve", "Finn", "Gus", "Hal"][:players])
    for counts in ([(30, 0)] + [(20, 1)] * (players - 1), [(30, 0)] + [(25, 3)] * (players - 1)):
        game.add_round(counts)
    game.add_round([(14, 0)] + [(23, 5)] * (players - 1))  # Ana 74, the others near her
    return game


def test_tv_text_is_at_least_24_px_and_the_screen_is_used(phones: Phones, server: Server):
    game = close_race(server)
    page = phones.page(**TV)
    page.goto(game.view_path + "?tv=1")
    expect(page.locator("#scoreboard li.standing")).to_have_count(4)
    sizes = page.evaluate(FONT_SIZES)
    assert len(sizes) > 20
    small = [s for s in sizes if s["size"] < 24]
    assert small == [], small
    # The whole screen: the content reaches the bottom fifth, and nothing needs scrolling.
    bottom = page.evaluate(
        "Math.max(...Array.from(document.querySelectorAll('#game > *')).map(e => e.getBoundingClientRect().bottom))"
    )
    assert bottom >= 0.8 * 800, bottom
    assert page.evaluate("document.documentElement.scrollHeight") <= 800
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


@pytest.mark.parametrize("where", ["phone", "tv"])
@pytest.mark.parametrize("players", [2, 4, 8])
def test_chart_labels_never_overlap(phones: Phones, server: Server, where: str, players: int):
    game = close_race(server, players)
    page = phones.page(**(TV if where == "tv" else {}))
    page.goto(game.view_path + ("?tv=1" if where == "tv" else ""))
    expect(page.locator("#chart svg.chart")).to_be_visible()
    assert chart_collisions(page) == []


def test_the_collision_check_sees_a_label_on_a_line(phones: Phones, server: Server):
    # The check itself can fail: move the target's label onto Ana's last point and it says so.
    game = close_race(server)
    page = phones.page()
    page.goto(game.view_path)
    page.evaluate(
        """() => {
      const svg = document.querySelector('#chart svg.chart');
      const last = svg.querySelector('polyline').points;
      const p = last[last.numberOfItems - 1];
      const label = svg.querySelector('.target-label');
      label.setAttribute('x', p.x); label.setAttribute('y', p.y); label.setAttribute('text-anchor', 'middle');
    }"""
    )
    assert any("target" in c for c in chart_collisions(page))


# --- game over, sized with the screen -------------------------------------------------------------------

HD = TV | {"viewport": {"width": 1920, "height": 1080}}
SCREENS = {"1280x800": TV, "1920x1080": HD}

# What must be seen at game over, each box as drawn (the page is not scrolled).
GAME_OVER_PARTS = """() => {
  const box = (el, what) => { const b = el.getBoundingClientRect();
    return { what, top: b.top, left: b.left, bottom: b.bottom, right: b.right }; };
  return [
    box(document.querySelector("#banner"), "banner"),
    ...Array.from(document.querySelectorAll("#scoreboard li.standing"), (el, i) => box(el, `player ${i + 1}`)),
    ...Array.from(document.querySelectorAll("#scoreboard li.standing .name, #scoreboard li.standing .total"),
                  (el) => box(el, el.textContent.trim())),
    box(document.querySelector("#chart svg.chart"), "chart"),
    ...Array.from(document.querySelectorAll("#chart .legend li"), (el) => box(el, `legend ${el.textContent.trim()}`)),
    box(document.querySelector(".rules-line"), "rules"),
  ];
}"""


# The page's regions as drawn, which must never lie over one another.
REGIONS = """() => Array.from(document.querySelectorAll(
    "#banner, #scoreboard .standings, #what-it-takes, .rules-line, #chart svg.chart, #chart .legend"), (el) => {
  const b = el.getBoundingClientRect();
  return { what: el.id || el.getAttribute("class"), x0: b.left, y0: b.top, x1: b.right, y1: b.bottom };
})"""


def overlapping_regions(page: Page) -> list[str]:
    regions = page.evaluate(REGIONS)
    return [f"{a['what']} over {b['what']}" for i, a in enumerate(regions) for b in regions[i + 1 :] if overlap(a, b)]


def finished(server: Server, players: int) -> Any:
    game = close_race(server, players)
    game.add_round([(30, 0)] + [(10, 6)] * (players - 1))  # Ana 104: over
    return game


def open_tv(phones: Phones, game: Any, screen: dict[str, Any], lang: str = "en") -> Page:
    context = phones.context(**screen)
    context.add_cookies([{"name": "blitzboard_lang", "value": lang, "url": game.server.url}])
    page = context.new_page()
    page.goto(game.view_path + "?tv=1")
    expect(page.locator("#scoreboard li.standing").first).to_be_visible()
    return page


# Every screen with 4, 6 and 8 players, and the longer words of Russian and German with 8 on the smaller.
GAME_OVER = [(screen, players, "en") for screen in SCREENS for players in (4, 6, 8)]
GAME_OVER += [("1280x800", 8, "ru"), ("1280x800", 8, "de")]


@pytest.mark.parametrize(("screen", "players", "lang"), GAME_OVER, ids=["-".join(map(str, c)) for c in GAME_OVER])
def test_game_over_fits_the_screen(phones: Phones, server: Server, screen: str, players: int, lang: str):
    size = SCREENS[screen]["viewport"]
    page = open_tv(phones, finished(server, players), SCREENS[screen], lang)
    expect(page.locator("#banner.banner-won")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("#scoreboard li.standing")).to_have_count(players)
    outside = [
        part["what"]
        for part in page.evaluate(GAME_OVER_PARTS)
        if part["top"] < 0
        or part["left"] < 0
        or part["bottom"] > size["height"] + 0.5
        or part["right"] > size["width"] + 0.5
    ]
    assert outside == [], f"below the fold or past the edge at {screen}: {outside}"
    assert page.evaluate("document.documentElement.scrollHeight") <= size["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    assert page.evaluate(OVERFLOWING, size["width"]) == []
    assert overlapping_regions(page) == []
    small = [s for s in page.evaluate(FONT_SIZES) if s["size"] < 24]
    assert small == [], small
    assert chart_collisions(page) == []


@pytest.mark.parametrize("players", [6, 8])
def test_a_crowded_race_scrolls_rather_than_overlaps(phones: Phones, server: Server, players: int):
    # Every player's "what it takes" is more than one screen holds: the page scrolls, nothing lies over
    # anything, and the chart keeps labels of 24 px.
    page = open_tv(phones, close_race(server, players), TV)
    expect(page.locator("#what-it-takes li")).to_have_count(players)
    assert overlapping_regions(page) == []
    small = [s for s in page.evaluate(FONT_SIZES) if s["size"] < 24]
    assert small == [], small


def test_names_and_chart_grow_with_the_screen(phones: Phones, server: Server):
    game = finished(server, 4)
    measure = """() => ({
      name: parseFloat(getComputedStyle(document.querySelector('#scoreboard .standing .name')).fontSize),
      total: parseFloat(getComputedStyle(document.querySelector('#scoreboard .standing .total')).fontSize),
      chart: document.querySelector('#chart svg.chart').getBoundingClientRect().height,
    })"""
    small, big = (open_tv(phones, game, SCREENS[s]).evaluate(measure) for s in ("1280x800", "1920x1080"))
    # 1080 is 1.35 times 800: what is read from the sofa grows with it (the chart takes the room the
    # rest leaves it, a little less in proportion).
    for what, ratio in (("name", 1.3), ("total", 1.3), ("chart", 1.2)):
        assert big[what] >= ratio * small[what], (what, small, big)
