"""The TV view, for a room: read from 4 m at 1280×800 (no text under 24 px, the screen used to its
bottom, no scrolling), and the chart's labels never overlapping each other, a line or a marker, on
the TV and on a phone."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import Phones, Server, api_game

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
