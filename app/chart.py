"""The running-totals chart: coordinates for an inline SVG rendered by the server.

Pure geometry from a scored game; templates/_chart.html draws it. Each player keeps one colour and
one marker shape (so the lines are told apart without colour too), and the target is a dashed line.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring import GameState, Player

WIDTH, HEIGHT = 360, 220
LEFT, RIGHT, TOP, BOTTOM = 34, 10, 10, 24  # room for the axis labels
MARKERS = ("circle", "square", "triangle", "diamond", "triangle-down", "plus", "cross", "star")
MAX_MARKED_ROUNDS = 30  # beyond this, only the last point of each line carries its marker


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Line:
    player: Player
    colour: int  # index into the palette (CSS classes p0..p7)
    marker: str
    points: tuple[Point, ...]
    marked: tuple[Point, ...]  # the points that carry a marker

    @property
    def path(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


@dataclass(frozen=True, slots=True)
class Tick:
    value: int
    y: float


@dataclass(frozen=True, slots=True)
class Chart:
    width: int
    height: int
    lines: tuple[Line, ...]
    target_y: float
    target: int
    y_ticks: tuple[Tick, ...]
    x_labels: tuple[tuple[int, float], ...]  # (round number, x)
    left: int
    right: int
    bottom: int


def _nice_step(span: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if span / step <= 5:
            return step
    return 10_000


def build_chart(players: list[Player], state: GameState) -> Chart:
    target = state.rules.target
    series: dict[int, list[int]] = {p.id: [p.starting_score] for p in players}
    for round_ in state.rounds:
        for score in round_.scores:
            series[score.player_id].append(score.total)
    values = [v for line in series.values() for v in line] + [target, 0]
    low, high = min(values), max(values)
    step = _nice_step(max(high - low, 1))
    low = (low // step) * step
    high = -((-high) // step) * step
    if high == low:
        high = low + step
    rounds = max(len(state.rounds), 1)
    tick_values = range(low, high + 1, step)
    # Room for the longest axis label ("-10000" needs more than "80"), about 6 px a character at 10 px.
    left = max(LEFT, 8 + 6 * max(len(str(v)) for v in tick_values))
    plot_w = WIDTH - left - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return left + plot_w * i / rounds

    def y(v: int) -> float:
        return TOP + plot_h * (high - v) / (high - low)

    lines = []
    for index, player in enumerate(players):
        points = tuple(Point(x(i), y(v)) for i, v in enumerate(series[player.id]))
        marked = points if len(state.rounds) <= MAX_MARKED_ROUNDS else points[-1:]
        lines.append(Line(player, index % len(MARKERS), MARKERS[index % len(MARKERS)], points, marked))
    ticks = tuple(Tick(v, y(v)) for v in tick_values)
    label_every = max(1, -(-len(state.rounds) // 10))
    x_labels = tuple((i, x(i)) for i in range(0, len(state.rounds) + 1, label_every))
    return Chart(WIDTH, HEIGHT, tuple(lines), y(target), target, ticks, x_labels, left, WIDTH - RIGHT, HEIGHT - BOTTOM)
