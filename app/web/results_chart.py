"""A person's results over time (their page at a table): coordinates for an inline SVG that the
server renders (templates/_results_chart.html), as app.web.chart does for a game's running totals. No
JavaScript, so it shows the same under the CSP and without scripts.

One chart per game (preset), since points mean different things in different games: their finished
games in the order they finished, oldest on the left, each at their final total; in 31, whose total is
the lives left (0 for everyone but the winner), at their place instead, first at the top. A won game's
marker is a star and any other a circle, so a win reads without colour. The caller passes at most
MAX_GAMES games (the newest), so the page's weight does not grow with the table's history.

Pure geometry: the numbers as plain digits (it measures them to lay out the axis).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.web.chart import CHAR, MARKER, PHONE, Size, nice_step

MAX_GAMES = 50
# A five-pointed star around (0, 0), the size of the game chart's markers (templates/_chart.html's m-star).
STAR = "M0 -4.6 L1.1 -1.5 L4.4 -1.4 L1.8 0.6 L2.7 3.8 L0 1.9 L-2.7 3.8 L-1.8 0.6 L-4.4 -1.4 L-1.1 -1.5 Z"
RESULTS = Size(PHONE.width, 170, PHONE.font)


@dataclass(frozen=True, slots=True)
class Mark:
    x: float
    y: float
    value: int
    won: bool


@dataclass(frozen=True, slots=True)
class ResultsChart:
    width: int
    height: int
    font: int
    marks: tuple[Mark, ...]
    ticks: tuple[tuple[int, float], ...]  # (value, y)
    x_labels: tuple[tuple[int, float], ...]  # (the game's number, oldest 1; x)
    left: int
    right: int
    bottom: int
    places: bool  # the values are places (1 at the top), not totals

    @property
    def path(self) -> str:
        return " ".join(f"{m.x:.1f},{m.y:.1f}" for m in self.marks)

    @property
    def star(self) -> str:
        return STAR

    @property
    def tick_x(self) -> int:
        return self.left - MARKER - 3

    @property
    def x_label_y(self) -> float:
        return self.bottom + MARKER + 2 + self.font


def build_results_chart(values: list[int], won: list[bool], places: bool = False, size: Size = RESULTS) -> ResultsChart:
    """`values`: final totals (or places, with `places`), oldest first; `won`: whether each game was won."""
    font = size.font
    if places:
        low, high, step = 1, max([*values, 2]), 1
        ticks = list(range(low, high + 1, max(1, -(-(high - low) // 5))))
    else:
        low, high = min(values, default=0), max(values, default=0)
        step = nice_step(max(high - low, 1))
        low, high = (low // step) * step, -((-high) // step) * step
        if high == low:
            high = low + step
        ticks = list(range(low, high + 1, step))
    left = round(CHAR * font * max(len(str(v)) for v in ticks) + MARKER + 3 + 4)
    right = size.width - MARKER - 5
    top, bottom = MARKER + 5, size.height - (MARKER + 2 + font + 4)
    plot_w, plot_h = right - left, bottom - top
    count = max(len(values), 1)

    def x(i: int) -> float:  # each game in the middle of its own slot: one game sits in the middle
        return left + plot_w * (i + 0.5) / count

    def y(v: int) -> float:
        share = (v - low) / (high - low)
        return top + plot_h * (share if places else 1 - share)

    marks = tuple(Mark(x(i), y(v), v, w) for i, (v, w) in enumerate(zip(values, won, strict=True)))
    widest = CHAR * font * (len(str(count)) + 1.5)
    every = max(1, -(-count // max(1, int(plot_w // widest))))
    numbers = list(range(0, len(values), every))
    if values and numbers[-1] != len(values) - 1 and (len(values) - 1 - numbers[-1]) * plot_w / count >= widest:
        numbers.append(len(values) - 1)  # the newest game's number too, where it fits
    return ResultsChart(
        size.width,
        size.height,
        font,
        marks,
        tuple((v, y(v)) for v in ticks),
        tuple((i + 1, x(i)) for i in numbers),
        left,
        right,
        bottom,
        places,
    )
