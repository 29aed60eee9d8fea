"""A night at a table, in a real browser on a 390 px phone, as a new user would: make a table on the start
page, play three games at it (the first tied at the top and decided by a tie-break round, the second
started with "Rematch", the third a shared win with a newcomer), then open the table's page and find the
standings, the head-to-head and the awards right, and a person's page with their figures and chart; no
page of it scrolls sideways.

Every expected figure is worked out here from the rounds this test types (Dutch Blitz: +1 per Dutch card,
−2 per Blitz card left; the highest total wins once someone reaches the target), never by the app.
"""

from __future__ import annotations

import json
import re
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from babel.dates import format_date
from playwright.sync_api import Page, expect

from tests.browser.helpers import OVERFLOWING, Phones, fill_round, save_round

pytestmark = pytest.mark.browser

WIDTH = 390
TARGET = 30


@dataclass
class Played:
    """A game as this test played it: the players in their seats and each round's (dutch, blitz) per player."""

    names: list[str]
    rounds: list[list[tuple[int, int]]]
    shared: bool = False  # tie-break "shared": a tie at the top ends the game

    def points(self) -> list[list[int]]:
        return [[d - 2 * b for d, b in r] for r in self.rounds]

    def totals(self) -> list[int]:
        return [sum(column) for column in zip(*self.points(), strict=True)]

    def winners(self) -> list[str]:
        totals = self.totals()
        return [n for n, t in zip(self.names, totals, strict=True) if t == max(totals)]

    def places(self) -> dict[str, int]:
        """Every winner first, then competition ranks by total."""
        totals = dict(zip(self.names, self.totals(), strict=True))
        return {n: 1 if n in self.winners() else 1 + sum(t > totals[n] for t in totals.values()) for n in self.names}

    def awards(self) -> list[str]:
        """Best round, most Blitz calls, biggest comeback, steadiest, as the banner words them (app.rules.awards'
        rules, docs/rules.md "Awards": ties share one; one that names everyone is left out)."""
        points, names, lines = self.points(), self.names, []
        best = max(max(r) for r in points)
        rounds = {n: {i + 1 for i, r in enumerate(points) if r[s] == best} for s, n in enumerate(names)}
        who = [n for n in names if rounds[n]]
        if len(who) < len(names):
            together = set.intersection(*(rounds[n] for n in who))
            lines.append(f"Best round: {joined(who)}, +{best} " + (f"in round {min(together)}" if together else "each"))
        calls = {n: sum(r[s][1] == 0 for r in self.rounds) for s, n in enumerate(names)}
        most = max(calls.values())
        if most and len(callers := [n for n in names if calls[n] == most]) < len(names):
            lines.append(f"Most Blitz calls: {joined(callers)} ({most})")
        running = [0] * len(names)
        worst = {n: (1, set()) for n in self.winners()}  # each winner's lowest place, and the rounds it was
        for number, r in enumerate(points, start=1):
            running = [t + p for t, p in zip(running, r, strict=True)]
            for n, (rank, when) in worst.items():
                now = 1 + sum(t > running[names.index(n)] for t in running)
                worst[n] = (now, {number}) if now > rank else (rank, when | {number}) if now == rank else (rank, when)
        lowest = max(rank for rank, _ in worst.values())
        if lowest > 1:
            climbed = [n for n in names if n in worst and worst[n][0] == lowest]
            when = set.intersection(*(worst[n][1] for n in climbed))
            after = f" after round {max(when)}" if when else ""
            lines.append(f"Biggest comeback: {joined(climbed)}, from place {lowest}{after} to the win")
        if len(points) >= 3:
            spread = {n: statistics.pstdev(r[s] for r in points) for s, n in enumerate(names)}
            steadiest = [n for n in names if spread[n] == min(spread.values())]
            if len(steadiest) < len(names):
                lines.append(f"Most even rounds: {joined(steadiest)}")
        return lines


def joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# The night: a tie at 30 after round 2 and a tie-break round; the rematch; a shared win with Dee, new.
TIED = Played(
    ["Ana", "Ben", "Cy"], [[(15, 0), (17, 1), (5, 5)], [(15, 0), (17, 1), (10, 2)], [(10, 0), (5, 3), (3, 4)]]
)
REMATCH = Played(["Ana", "Ben", "Cy"], [[(10, 2), (30, 0), (8, 3)]])
SHARED = Played(["Ana", "Cy", "Dee"], [[(30, 0), (30, 0), (5, 5)]], shared=True)
NIGHT = [TIED, REMATCH, SHARED]  # in the order they finished


def standings() -> dict[str, dict[str, object]]:
    """Per person: games, wins (shared), win %, average points per round, current streak."""
    people: dict[str, dict[str, list]] = {}
    for game in NIGHT:
        for seat, name in enumerate(game.names):
            p = people.setdefault(name, {"won": [], "shared": [], "points": []})
            won = name in game.winners()
            p["won"].append(won)
            p["shared"].append(won and len(game.winners()) > 1)
            p["points"] += [r[seat] for r in game.points()]
    figures = {}
    for name, p in people.items():
        wins, games = sum(p["won"]), len(p["won"])
        figures[name] = {
            "games": str(games),
            "wins": str(wins) + (f" ({sum(p['shared'])} shared)" if any(p["shared"]) else ""),
            "win-rate": f"{round(100 * wins / games)}%",
            "average": f"{sum(p['points']) / len(p['points']):.1f}".replace("-", "\u2212"),
            "streak": str(next((i for i, w in enumerate(reversed(p["won"])) if not w), games)),
            "order": (-wins, -wins / games, name.casefold()),
        }
    return figures


def head_to_head(me: str, other: str) -> str:
    """ "ahead–behind" of `me` against `other` over the games they finished together; "" if none (or
    `me` is `other`: the matrix's diagonal)."""
    together = [g.places() for g in NIGHT if me in g.names and other in g.names]
    if me == other or not together:
        return ""
    return f"{sum(p[me] < p[other] for p in together)}–{sum(p[me] > p[other] for p in together)}"


def fits(page: Page, where: str) -> None:
    """Nothing spills past its box or the screen, and the page itself never scrolls sideways."""
    found = page.evaluate(OVERFLOWING, WIDTH)
    assert found == [], f"{where}: " + json.dumps(found, indent=1, ensure_ascii=False)
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH, where


def play(page: Page, game: Played) -> None:
    for number, counts in enumerate(game.rounds, start=1):
        fill_round(page, game.names, counts)
        save_round(page, number)


@pytest.mark.postgres
def test_a_night_at_the_table(phones: Phones):
    page = phones.page(viewport={"width": WIDTH, "height": 844})
    page.goto("/")
    page.locator("summary", has_text="New table").tap()
    page.get_by_label("Table name", exact=True).fill("The Millers")
    page.locator("#people").fill("Ana\nBen\nCy")
    page.get_by_role("button", name="Make the table").tap()
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    table_url = page.url
    expect(page.locator("#stats")).to_contain_text("No finished games yet")

    # The first game: Ana, Ben and Cy to 30. Ana and Ben tie at 30 after round 2: a tie-break round.
    page.get_by_role("link", name="New game at this table").tap()
    for name in TIED.names:
        page.get_by_role("checkbox", name=name).tap()
    page.locator("summary", has_text="House rules").tap()
    page.get_by_label("Target score", exact=True).fill(str(TARGET))
    page.get_by_role("button", name="Start game").tap()
    page.wait_for_url("**/g/*/score")
    fill_round(page, TIED.names, TIED.rounds[0])
    save_round(page, 1)
    fill_round(page, TIED.names, TIED.rounds[1])
    save_round(page, 2)
    expect(page.locator("#banner h2")).to_have_text("Tie at the top: Ana and Ben have 30.")
    expect(page.locator("#round-entry h2")).to_have_text("Round 3 (tie-break)")
    fill_round(page, TIED.names, TIED.rounds[2])
    save_round(page, 3)
    expect(page.locator("#banner h2")).to_have_text(f"🏆 Ana wins with {TIED.totals()[0]}!")

    # The second: "Rematch", the same people at the same table.
    first = page.url
    page.locator("#banner").get_by_role("button", name="Rematch").tap()
    page.wait_for_url(lambda url: url.endswith("/score") and url != first)
    play(page, REMATCH)
    expect(page.locator("#banner h2")).to_have_text("🏆 Ben wins with 30!")

    # The third: Ana and Cy with Dee, new to the table; a tie at the top shares the win. The last game's
    # people come ticked: Ben goes home (one tap).
    page.locator("#table-link a").tap()
    page.wait_for_url(table_url)
    page.get_by_role("link", name="New game at this table").tap()
    for name in ("Ana", "Ben", "Cy"):
        expect(page.get_by_role("checkbox", name=name)).to_be_checked()
    page.get_by_role("checkbox", name="Ben").tap()
    page.get_by_label("New player 1", exact=True).fill("Dee")
    page.locator("summary", has_text="House rules").tap()
    page.get_by_label("Target score", exact=True).fill(str(TARGET))
    page.get_by_role("radio", name="They share the win").tap()
    page.get_by_role("button", name="Start game").tap()
    page.wait_for_url("**/g/*/score")
    play(page, SHARED)
    expect(page.locator("#banner h2")).to_have_text("🏆 Ana and Cy share the win with 30!")

    # The table's page: the standings, the head-to-head and the awards of the night.
    page.locator("#table-link a").tap()
    page.wait_for_url(table_url)
    expected = standings()
    people = sorted(expected, key=lambda n: expected[n]["order"])
    rows = page.locator("#stats table[data-preset=dutch_blitz] tbody tr")
    expect(rows.locator("th")).to_have_text(people)
    for index, name in enumerate(people):
        for column in ("games", "wins", "win-rate", "average", "streak"):
            expect(rows.nth(index).locator(f"td.{column}")).to_have_text(expected[name][column])
    fits(page, "the table's page")

    matrix = page.locator("#stats table.h2h")
    everyone = sorted(expected, key=str.casefold)
    expect(matrix.locator("thead abbr")).to_have_text([n[0] for n in everyone])
    for index, name in enumerate(everyone):
        row = matrix.locator("tbody tr").nth(index)
        expect(row.locator("th")).to_have_text(name)
        expect(row.locator("td")).to_have_text([head_to_head(name, other) for other in everyone])

    kept = page.locator("#stats .kept-awards > li")
    expect(kept).to_have_count(3)
    for index, game in enumerate(reversed(NIGHT)):  # newest first
        expect(kept.nth(index).locator(".winners")).to_have_text(f"won by {joined(game.winners())}")
        expect(kept.nth(index).locator(".awards li")).to_have_text(game.awards())
    phones.screenshot(page, "table-night")

    # A table night: the page opened on "Tonight" (all three games are tonight's). "All time": htmx swaps
    # the figures in place and the address says so.
    expect(page.locator(".period-links a[aria-current=page]")).to_have_text("Tonight")
    expect(page.locator(".period-note")).to_have_text("Games that finished in the last 12 hours.")
    fits(page, "the table's page, tonight")
    page.locator(".period-links a", has_text="All time").tap()
    expect(page).to_have_url(table_url + "?period=all")
    expect(page.locator(".period-links a[aria-current=page]")).to_have_text("All time")
    expect(page.locator(".period-note")).to_have_text("Every finished game.")
    expect(rows.locator("th")).to_have_text(people)
    page.go_back()  # the whole page again, tonight (htmx keeps no copies: it reloads it)
    expect(page).to_have_url(table_url)
    expect(page.locator(".period-links a[aria-current=page]")).to_have_text("Tonight")
    expect(page.locator("header .brand")).to_be_visible()

    # A season from today (UTC): the date form, swapped in by htmx too; an empty day is said beside it.
    today = datetime.now(UTC).date().isoformat()
    page.locator("#season-from").fill(today)
    page.get_by_role("button", name="Show").tap()
    expect(page).to_have_url(f"{table_url}?from={today}")
    shown = format_date(datetime.fromisoformat(today).date(), "medium", locale="en")  # "Dec 1, 2026"
    expect(page.locator(".period-note")).to_have_text(f"Games that finished on {shown} or later (from midnight UTC).")
    expect(rows.locator("th")).to_have_text(people)
    page.locator("#season-from").fill("")
    page.get_by_role("button", name="Show").tap()
    expect(page.locator("#season-from-error")).to_have_text("Pick the day the season began.")
    expect(page.locator("#season-from")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#request-error")).to_be_empty()  # the form came back in its place, not as an error

    # Ana's page, from her row: her figures, her head-to-head row, her results over time.
    rows.locator("th a", has_text="Ana").tap()
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+/p/\d+$"))
    expect(page.locator("h1")).to_have_text("Ana")
    figures = page.locator("#figures dl[data-preset=dutch_blitz]")
    for column in ("games", "wins", "win-rate", "average", "streak"):
        expect(figures.locator(f".{column} dd")).to_have_text(expected["Ana"][column])
    against = page.locator("#opponents tbody tr")
    others = [n for n in everyone if n != "Ana" and head_to_head("Ana", n)]
    expect(against.locator("th")).to_have_text(others)
    for index, other in enumerate(others):
        ahead, behind = head_to_head("Ana", other).split("–")
        expect(against.nth(index).locator(".ahead")).to_have_text(ahead)
        expect(against.nth(index).locator(".behind")).to_have_text(behind)
    chart = page.locator("#results figure[data-preset=dutch_blitz]")
    ana = [g for g in NIGHT if "Ana" in g.names]
    expect(chart.locator("svg .mark")).to_have_count(len(ana))
    expect(chart.locator("svg .mark.won")).to_have_count(sum("Ana" in g.winners() for g in ana))
    chart.locator("summary").tap()
    expect(chart.locator(".results-list li")).to_have_text(
        [
            re.compile(rf"· total {g.totals()[g.names.index('Ana')]}" + (" · won$" if "Ana" in g.winners() else "$"))
            for g in ana
        ]
    )
    fits(page, "Ana's page")
    phones.screenshot(page, "table-person")
