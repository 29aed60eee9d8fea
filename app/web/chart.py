"""The running-totals chart: coordinates for an inline SVG rendered by the server.

Pure geometry from a scored game; templates/_chart.html draws it. Each player keeps one colour and
one marker shape (so the lines are told apart without colour too), and the target is a dashed line.
No label overlaps another or a line: the axis labels sit clear of the start markers, round numbers are
spaced for their width, and "target 75" goes where no line passes (tried right, left, then between,
above the dashed line and then below it).

A long game's lines are thinned to at most MAX_POINTS points each (`kept_rounds`), so the chart weighs
the same at 1,000 rounds as at 60: every line keeps the start and the last round, its own highest and
lowest point, and each lead change (the round where the leader changes and the one before it, the
latest ones first when there are more than fit), and the rest of its budget goes to rounds spread
evenly between. A game of up to MAX_POINTS rounds is drawn point for point.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from app.rules.scoring import End, GameState, Kind, Player

MARKERS = ("circle", "square", "triangle", "diamond", "triangle-down", "plus", "cross", "star")
MAX_MARKED_ROUNDS = 30  # beyond this, only the last point of each line carries its marker
MAX_POINTS = 60  # a line's points at most, whatever the game's length
MARKER = 5  # a marker's half width (user units)
CHAR = 0.6  # a digit or letter's width, as a share of the font size (system-ui, generous)


@dataclass(frozen=True, slots=True)
class Size:
    width: int
    height: int
    font: int  # the labels' font size, in the viewBox's units


PHONE = Size(360, 220, 10)
# The TV view: drawn about 630 px wide at 1280×800, so a 16-unit label is about 25 px, readable from 4 m.
TV = Size(400, 230, 16)


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
    rounds: tuple[int, ...] = ()  # which round each point shows (0: the start), in order

    @property
    def path(self) -> str:
        # A thinned line (a long game) in whole units: a unit is under a pixel on a phone, and the
        # line's many points are the chart's weight.
        if self.rounds and self.rounds[-1] >= len(self.rounds):
            return " ".join(f"{p.x:.0f},{p.y:.0f}" for p in self.points)
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


@dataclass(frozen=True, slots=True)
class Tick:
    value: int
    y: float


@dataclass(frozen=True, slots=True)
class Label:
    x: float  # where its text-anchor is
    y: float  # its baseline
    anchor: str  # "start" or "end"
    text: str = ""  # what it says ("target 75"), placed by its length


@dataclass(frozen=True, slots=True)
class Chart:
    width: int
    height: int
    font: int
    lines: tuple[Line, ...]
    target_y: float | None  # None: the game has no target (31 counts lives; a game of N rounds)
    target: int | None
    target_label: Label | None
    y_ticks: tuple[Tick, ...]
    x_labels: tuple[tuple[int, float], ...]  # (round number, x)
    left: int
    right: int
    bottom: int

    @property
    def tick_x(self) -> int:
        """Where the value labels end: clear of the start markers on the left edge."""
        return self.left - MARKER - 3

    @property
    def x_label_y(self) -> float:
        return self.bottom + MARKER + 2 + self.font


def nice_step(span: int) -> int:
    """A round step for an axis of `span` units: at most five steps (app.web.results_chart uses it too)."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if span / step <= 5:
            return step
    return 10_000


def build_chart(players: list[Player], state: GameState, size: Size = PHONE, target_text: str | None = None) -> Chart:
    """`target_text`: the dashed line's label in the reader's language (app.web.context translates it;
    this module stays pure geometry), "target 75" when not given. Its place is worked out from its length."""
    rules = state.rules
    lives = rules.kind == Kind.LIVES
    has_target = not lives and (rules.kind == Kind.LOWEST or rules.end == End.TARGET)
    target = rules.target if has_target else None
    font = size.font
    # 31: each player's lives from the start; a player out has no more points after their last round. A
    # latecomer's line starts where they came (None before: no point), at their starting total.
    came = {s.player.id: s.player.joined_after or 0 for s in state.standings}
    series: dict[int, list[int | None]] = {p.id: [None] * came.get(p.id, 0) for p in players}
    latecomers = {s.player.id for s in state.standings if s.player.joined_after is not None}
    for p in players:
        late = p.id in latecomers
        start = (max(1, rules.lives + p.starting_score) if late else rules.lives) if lives else p.starting_score
        series[p.id].append(start)
    for round_ in state.rounds:
        for score in round_.scores:
            series[score.player_id].append(score.total)
    values = [v for line in series.values() for v in line if v is not None]
    values += ([target] if target is not None else []) + [0]
    low, high = min(values), max(values)
    step = nice_step(max(high - low, 1))
    low = (low // step) * step
    high = -((-high) // step) * step
    if high == low:
        high = low + step
    rounds = max(len(state.rounds), 1)
    tick_values = range(low, high + 1, step)
    # Room for the longest value label ("-10000" needs more than "80"), then a gap, then the markers.
    left = round(CHAR * font * max(len(str(v)) for v in tick_values) + MARKER + 3 + 4)
    right = size.width - MARKER - 5
    top, bottom = MARKER + 5, size.height - (MARKER + 2 + font + 4)
    plot_w, plot_h = right - left, bottom - top

    def x(i: int) -> float:
        return left + plot_w * i / rounds

    def y(v: int) -> float:
        return top + plot_h * (high - v) / (high - low)

    changes = lead_changes(series, lowest=rules.kind == Kind.LOWEST)
    lines = []
    for index, player in enumerate(players):
        first = came.get(player.id, 0)
        values = [v for v in series[player.id][first:] if v is not None]
        shown = [first + i for i in kept_rounds(values, [c - first for c in changes if c >= first])]
        points = tuple(Point(x(i), y(values[i - first])) for i in shown)
        marked = points if len(state.rounds) <= MAX_MARKED_ROUNDS else points[-1:]
        lines.append(Line(player, index % len(MARKERS), MARKERS[index % len(MARKERS)], points, marked, tuple(shown)))
    ticks = tuple(Tick(v, y(v)) for v in tick_values)
    # Round numbers spaced by their own width: the widest label and a gap between two.
    widest = CHAR * font * (len(str(len(state.rounds))) + 1.5)
    label_every = max(1, -(-len(state.rounds) // max(1, int(plot_w // widest))))
    x_labels = tuple((i, x(i)) for i in range(0, len(state.rounds) + 1, label_every))
    target_y = label = None
    if target is not None:
        target_y = y(target)
        text = target_text if target_text is not None else f"target {target}"
        label = _place_target_label(text, target_y, lines, font, left, right, top, bottom)
    return Chart(
        size.width, size.height, font, tuple(lines), target_y, target, label, ticks, x_labels, left, right, bottom
    )


def lead_changes(series: dict[int, list[int | None]], *, lowest: bool = False) -> list[int]:
    """The rounds (0 is the start) where the leader is someone else than after the round before: the
    player or players with the highest total (the lowest in a game where the lowest wins). A player
    whose line ended (out in 31) leads no more."""
    length = max((len(values) for values in series.values()), default=0)
    best = min if lowest else max
    changes, before = [], None
    for i in range(length):
        now = {pid: v for pid, values in series.items() if i < len(values) and (v := values[i]) is not None}
        top = best(now.values())
        leaders = frozenset(pid for pid, value in now.items() if value == top)
        if before is not None and leaders != before:
            changes.append(i)
        before = leaders
    return changes


def kept_rounds(values: list[int], changes: list[int], cap: int = MAX_POINTS) -> list[int]:
    """Which of a line's points (by round, 0 the start) the chart draws: all of them up to `cap`; else
    the first and last, the line's highest and lowest, each lead change and the round before it (the
    latest first, while they fit), and evenly spread rounds for the rest. Never more than `cap`."""
    count = len(values)
    if count <= cap:
        return list(range(count))
    last = count - 1
    keep = {0, last, values.index(max(values)), values.index(min(values))}
    for change in reversed(changes):
        more = {i for i in (change - 1, change) if i <= last} - keep
        if len(keep) + len(more) > cap:
            break
        keep |= more
    room = cap - len(keep)
    for k in range(1, room + 1):
        if len(keep) >= cap:
            break
        keep.add(round(k * last / (room + 1)))
    return sorted(keep)


def _place_target_label(
    text: str,
    line_y: float,
    lines: list[Line],
    font: int,
    left: float,
    right: float,
    top: float,
    bottom: float,
) -> Label:
    """The first place along the dashed line where the label's box meets no line and no marker."""
    width, gap = CHAR * font * len(text), 3
    ascent, descent = 0.8 * font, 0.25 * font
    places = []
    for baseline in (line_y - gap - descent, line_y + gap + ascent):  # above the dashed line, then below
        if baseline - ascent < 0 or baseline + descent > bottom:
            continue
        for x0 in (right - width, left + gap, *(left + (right - left - width) * f for f in (0.5, 0.25, 0.75))):
            places.append((x0, baseline))
    for x0, baseline in places:
        box = (x0 - 2, baseline - ascent - 2, x0 + width + 2, baseline + descent + 2)
        if not any(_crosses(line, box) for line in lines):
            return _label(text, x0, baseline, width, right)
    x0, baseline = places[0] if places else (right - width, line_y - gap - descent)
    return _label(text, x0, baseline, width, right)  # nowhere free (a crowded chart): the usual place


def _label(text: str, x0: float, baseline: float, width: float, right: float) -> Label:
    # Anchored at the end when at the right edge, so the text never runs past it in a wider font.
    if x0 + width >= right - 0.5:
        return Label(right, baseline, "end", text)
    return Label(x0, baseline, "start", text)


def _crosses(line: Line, box: tuple[float, float, float, float]) -> bool:
    x0, y0, x1, y1 = box
    points = line.points
    # The points run left to right: look only at the segments under the box.
    xs = [p.x for p in points]
    first = max(0, bisect_left(xs, x0 - MARKER) - 1)
    last = min(len(points) - 1, bisect_right(xs, x1 + MARKER))
    marked = set(line.marked)
    for i in range(first, last + 1):
        p = points[i]
        if p in marked and p.x + MARKER > x0 and p.x - MARKER < x1 and p.y + MARKER > y0 and p.y - MARKER < y1:
            return True
        if i < last and _segment_meets_box(p, points[i + 1], box):
            return True
    return False


def _segment_meets_box(a: Point, b: Point, box: tuple[float, float, float, float]) -> bool:
    """Liang–Barsky: does the segment a–b pass through the box (inflated by the line's width)?"""
    x0, y0, x1, y1 = box[0] - 1.5, box[1] - 1.5, box[2] + 1.5, box[3] + 1.5
    t0, t1 = 0.0, 1.0
    dx, dy = b.x - a.x, b.y - a.y
    for p, q in ((-dx, a.x - x0), (dx, x1 - a.x), (-dy, a.y - y0), (dy, y1 - a.y)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True
