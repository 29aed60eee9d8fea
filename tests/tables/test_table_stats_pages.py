"""A table's standings, head-to-head and awards on its page, and a person's page, through
the TestClient, parsed with BeautifulSoup and checked by CSS selectors.

Every figure a page shows is checked against figures worked out here from the games' rounds as
`GET /api/v1/games/{id}` answers them (tests/helpers.py table_figures, table_pairs), never from
app.tables.standings. The games are placed in time (their rounds' and result rows' moments set in the database)
around the moment the test runs, so "Tonight" and "Last 30 days" pick known games.
"""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from babel.dates import format_date
from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import i18n
from app.config import Settings
from tests.helpers import (
    API,
    CLOSE,
    OPEN,
    PlayedGame,
    PlayedTable,
    html,
    standings_order,
    table_figures,
    table_pairs,
    unlimited_settings,
)
from tests.helpers import text_of as text

HTMX = {"HX-Request": "true"}
PRESETS = ["dutch_blitz", "dutch_blitz_100", "nerts", "ligretto", "dutch", "thirty_one"]  # the pages' order
SCRIPT_NAME = "<script>alert(1)</script>"
MINUS = "\u2212"


@pytest.fixture(name="settings")
def no_rate_limit(database_url: str) -> Settings:
    return unlimited_settings(database_url)


def joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# --- the Millers: six finished games over forty days, and one being played --------------------------------


Millers, Played = PlayedTable, PlayedGame


NOW = datetime.now(UTC)


@pytest.fixture
def millers(client: TestClient, app: FastAPI) -> Millers:
    """Dutch Blitz three times (one a shared win, one with starting scores), Nerts, Dutch and 31 over forty
    days, three of them in the last few hours; Eve at only some; a game still being played."""
    table = Millers(client, app, ["Ana", "Ben", "Cy", "Dee", "Eve"])
    first = table.start(["Ana", "Ben", "Cy"], {"preset": "dutch_blitz"})
    first.cards(Ana=(30, 0), Ben=(20, 3), Cy=(10, 5))
    first.cards(Ana=(25, 2), Ben=(28, 0), Cy=(15, 4))
    first.cards(Ana=(30, 0), Ben=(12, 6), Cy=(10, 8))  # 81, 42, 1: Ana
    first.finished_at(NOW - timedelta(days=40))
    shared = table.start(["Ana", "Ben", "Dee"], {"preset": "dutch_blitz", "tie_break": "shared"})
    shared.cards(Ana=(40, 0), Ben=(40, 0), Dee=(10, 5))
    assert len(shared.cards(Ana=(35, 0), Ben=(35, 0), Dee=(20, 2))["winners"]) == 2  # 75, 75, 16: shared
    shared.finished_at(NOW - timedelta(days=10))
    dutch = table.start(["Ben", "Cy", "Dee"], {"preset": "dutch"})
    dutch.hands("Ben", Ben=5, Cy=20, Dee=12)
    dutch.hands("Ben", Ben=30, Cy=8, Dee=8)
    dutch.hands(None, Ben=40, Cy=50, Dee=3)
    dutch.hands("Dee", Ben=10, Cy=35, Dee=10)  # 80, 105, 15: Dee
    dutch.finished_at(NOW - timedelta(days=20))
    t31 = table.start(["Ana", "Ben", "Eve"], {"preset": "thirty_one"})
    t31.hands("Eve", Ana=25, Ben=20, Eve=28)
    t31.hands(None, Ana=31, Ben=15, Eve=22)
    t31.hands("Ana", Ana=10, Ben=20, Eve=25)
    t31.hands(None, Ana=18, Ben=12, Eve=30)
    t31.hands(None, Ana=15, Ben=9, Eve=20)
    t31.hands(None, Ana=12, Eve=25)
    t31.hands("Ana", Ana=5, Eve=29)  # Eve is the last one in
    t31.finished_at(NOW - timedelta(hours=3))
    carried = table.start([("Ben", 50), ("Cy", 10), ("Dee", 0)], {"preset": "dutch_blitz"})
    carried.cards(Ben=(20, 0), Cy=(15, 3), Dee=(18, 2))
    carried.cards(Ben=(10, 4), Cy=(30, 0), Dee=(25, 1))
    carried.cards(Ben=(12, 0), Cy=(20, 2), Dee=(5, 9))  # 84, 65, 24: Ben
    carried.finished_at(NOW - timedelta(hours=2))
    nerts = table.start(["Ana", "Cy", "Eve"], {"preset": "nerts"})
    nerts.cards(Ana=(40, 0), Cy=(30, 5), Eve=(45, 0))
    nerts.cards(Ana=(50, 0), Cy=(20, 13), Eve=(30, 2))
    nerts.cards(Ana=(10, 8), Cy=(35, 0), Eve=(35, 0))  # 84, 49, 106: Eve
    nerts.finished_at(NOW - timedelta(hours=1))
    playing = table.start(["Ana", "Eve"], {"preset": "dutch_blitz"})
    playing.cards(Ana=(10, 0), Eve=(5, 3))
    return table


# --- reading the pages --------------------------------------------------------------------------------------


def said(node: Tag) -> str:
    """What a line says, as read: its text with no space added between its parts ("Ana, +50", where
    text_of() would say "Ana , +50" for `<bdi>Ana</bdi>, +50`)."""
    return " ".join(node.get_text().split())


def page_of(client: TestClient, path: str, status: int = 200, **headers: str) -> BeautifulSoup:
    response = client.get(path, headers=headers)
    assert response.status_code == status, response.text
    return html(response)


def number(shown: str) -> float:
    """A figure as the page writes it ("14.8", "−5.0", "67%"), as a number."""
    return float(shown.replace(MINUS, "-").replace("%", "").replace(",", ".").strip())


def rounded(shown: str, exact: float, places: int = 1) -> bool:
    """Whether `shown` is `exact` rounded to `places` decimals (halves away from zero, by hand)."""
    return number(shown) == float(Decimal(str(exact)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))


def period_since(query: str) -> datetime | None:
    """The first moment the period in `query` counts (app.web.periods: 12 hours, 30 days, a UTC day)."""
    if query == "?period=tonight":
        return NOW - timedelta(hours=12)
    if query == "?period=30d":
        return NOW - timedelta(days=30)
    if query.startswith("?from="):
        day = datetime.strptime(query.removeprefix("?from="), "%Y-%m-%d")
        return day.replace(tzinfo=UTC)
    return None


SEASON = f"?from={(NOW - timedelta(days=15)).date().isoformat()}"
PERIODS = ["?period=all", "?period=tonight", "?period=30d", SEASON]


def person_path(table: Millers, name: str) -> str:
    return f"/t/{table.id}/p/{table.people[name]}"


# --- the standings ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", PERIODS, ids=["all-time", "tonight", "30-days", "season"])
def test_the_standings_are_the_figures_of_the_rounds(client: TestClient, millers: Millers, query: str):
    expected = table_figures(millers.since(period_since(query)))
    page = page_of(client, f"/t/{millers.id}{query}")
    tables = page.select("#stats table.standings-table")
    assert [t["data-preset"] for t in tables] == [p for p in PRESETS if p in expected]
    names = {"dutch_blitz": "Dutch Blitz", "nerts": "Nerts", "dutch": "Dutch (lowest score wins)", "thirty_one": "31"}
    for shown in tables:
        preset = str(shown["data-preset"])
        people = expected[preset]
        assert text(shown.select_one("caption")) == names[preset]
        rows = shown.select("tbody tr")
        assert [int(r["data-person"]) for r in rows] == standings_order(people)
        columns = [str(th["class"][0]) for th in shown.select("thead th")]
        lives = preset == "thirty_one"  # 31 has no points: no average
        assert columns == ["who", "games", "wins", "win-rate", *([] if lives else ["average"]), "streak"]
        for row in rows:
            f = people[int(row["data-person"])]
            link = row.select_one("th[scope=row] a")
            assert (text(link), link["href"]) == (f["name"], f"/t/{millers.id}/p/{row['data-person']}")
            assert text(row.select_one(".games")) == str(f["games"])
            wins = str(f["wins"]) + (f" ({f['shared']} shared)" if f["shared"] else "")
            assert text(row.select_one(".wins")) == wins
            assert text(row.select_one(".win-rate")).endswith("%")
            assert rounded(text(row.select_one(".win-rate")), 100 * f["win_rate"], 0)
            if not lives:
                assert rounded(text(row.select_one(".average")), f["average"])
            assert text(row.select_one(".streak")) == str(f["streak"])


def test_the_figures_by_hand(client: TestClient, millers: Millers):
    """A few figures worked out by hand from the rounds above, so the page can't share a mistake with
    table_figures: Ana's and Ben's shared win, Ben's average, the streaks."""
    rows = {
        text(r.select_one("th a")): [text(c) for c in r.select("td")]
        for r in page_of(client, f"/t/{millers.id}?period=all").select("#stats table[data-preset=dutch_blitz] tbody tr")
    }
    # Ana: won the first and shared the second; 30, 21, 30, 40, 35 a round.
    assert rows["Ana"] == ["2", "2 (1 shared)", "100%", "31.2", "2"]
    # Ben: 3 games, the shared win and the last; 14, 28, 0, 40, 35, 20, 2, 12 a round.
    assert rows["Ben"] == ["3", "2 (1 shared)", "67%", "18.9", "2"]
    # Cy: two games lost; 0, 7, −6, 9, 30, 16 a round.
    assert rows["Cy"] == ["2", "0", "0%", "9.3", "0"]
    assert list(rows) == ["Ana", "Ben", "Cy", "Dee"]
    tonight = page_of(client, f"/t/{millers.id}?period=tonight").select("#stats table.standings-table")
    assert [t["data-preset"] for t in tonight] == ["dutch_blitz", "nerts", "thirty_one"]


def test_no_finished_games_in_the_period(client: TestClient, millers: Millers):
    page = page_of(client, f"/t/{millers.id}?from=2999-01-01")
    assert page.select("#stats table") == []
    assert text(page.select_one("#stats > p.muted")) == "No finished games in this period."
    assert text(page.select_one(".period-note")) == "Games that finished on Jan 1, 2999 or later (from midnight UTC)."


def test_a_new_table_has_no_standings_yet(client: TestClient):
    created = client.post(f"{API}/tables", json={"name": "Empty", "people": [{"name": "Ana"}]}).json()
    page = page_of(client, f"/t/{created['id']}")
    assert page.select("#stats table, #stats .kept-awards") == []
    assert text(page.select_one("#stats > p.muted")) == "No finished games yet: the standings start with the first."


# --- the head-to-head matrix --------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["?period=all", "?period=tonight"], ids=["all-time", "tonight"])
def test_the_head_to_head_matrix_is_who_finished_ahead_in_the_rounds(client: TestClient, millers: Millers, query: str):
    games = millers.since(period_since(query))
    pairs = table_pairs(games)
    people = sorted({p["person_id"]: p["name"] for g, _ in games if g["status"] == "finished" for p in g["players"]}.items(),
                    key=lambda p: p[1].casefold())  # fmt: skip
    matrix = page_of(client, f"/t/{millers.id}{query}").select_one("#stats table.h2h")
    columns = matrix.select("thead th[scope=col]")
    assert [(int(th["data-person"]), th.select_one("abbr")["title"]) for th in columns] == people
    assert [text(th) for th in columns] == [name[0] for _, name in people]  # Ana Ben Cy Dee Eve: A B C D E
    rows = matrix.select("tbody tr")
    assert [(int(r["data-person"]), text(r.select_one("th[scope=row]"))) for r in rows] == people
    for row, (me, _name) in zip(rows, people, strict=True):
        assert row.select_one("th a")["href"] == f"/t/{millers.id}/p/{me}"
        cells = row.select("td")
        assert len(cells) == len(people)
        for cell, (other, _) in zip(cells, people, strict=True):
            pair = pairs.get((me, other))
            if me == other:
                assert cell["class"] == ["self"] and text(cell) == ""
            elif pair is None:
                assert text(cell) == ""  # never finished a game together
            else:
                assert text(cell) == f"{pair['ahead']}–{pair['behind']}"


def test_the_matrix_by_hand(client: TestClient, millers: Millers):
    """Ana and Ben: Ana ahead in the first game, level in the shared win, Ana ahead in 31 (out after Ben)."""
    matrix = page_of(client, f"/t/{millers.id}?period=all").select_one("#stats table.h2h")
    ana = matrix.select_one(f"tbody tr[data-person='{millers.people['Ana']}']")
    ben = matrix.select_one(f"tbody tr[data-person='{millers.people['Ben']}']")
    assert [text(td) for td in ana.select("td")] == ["", "2–0", "2–0", "1–0", "0–2"]
    assert [text(td) for td in ben.select("td")] == ["0–2", "", "3–0", "2–1", "0–1"]


def test_short_labels_tell_people_apart(client: TestClient, app: FastAPI):
    table = Millers(client, app, ["Ana", "Ana Maria", "Bea", "Ben", "Émile"])
    game = table.start(["Ana", "Ana Maria", "Bea", "Ben", "Émile"], {"preset": "dutch_blitz", "target": 10})
    game.cards(Ana=(10, 0), **{"Ana Maria": (5, 2)}, Bea=(3, 4), Ben=(2, 4), Émile=(1, 6))
    game.finished_at(NOW)
    columns = page_of(client, f"/t/{table.id}").select("#stats table.h2h thead th[scope=col] abbr")
    assert [(a["title"], text(a)) for a in columns] == [
        ("Ana", "Ana"),
        ("Ana Maria", "Ana M"),
        ("Bea", "Bea"),
        ("Ben", "Ben"),
        ("Émile", "É"),
    ]


# --- the awards kept ----------------------------------------------------------------------------------------


def best_round_and_calls(game: dict[str, Any]) -> list[str]:
    """A card game's best round and most calls as the page words them, worked out from its rounds."""
    names = {p["id"]: p["name"] for p in game["players"]}
    scores = [(r["number"], s) for r in game["rounds"] for s in r["scores"]]
    best = max(s["points"] for _, s in scores)
    rounds = {pid: {n for n, s in scores if s["player_id"] == pid and s["points"] == best} for pid in names}
    who = [pid for pid in names if rounds[pid]]
    lines = []
    if len(who) < len(names):
        together = set.intersection(*(rounds[pid] for pid in who))  # the first round all of them scored it in
        said = joined([names[pid] for pid in who])
        lines.append(f"Best round: {said}, +{best} " + (f"in round {min(together)}" if together else "each"))
    calls = {pid: sum(s["player_id"] == pid and s["blitz"] == 0 for _, s in scores) for pid in names}
    most = max(calls.values())
    callers = [names[pid] for pid in names if calls[pid] == most]
    if most and len(callers) < len(names):
        word = {"nerts": "Nerts", "dutch_blitz": "Blitz"}[game["rules"]["preset"]]
        lines.append(f"Most {word} calls: {joined(callers)} ({most})")
    return lines


@pytest.mark.parametrize("query", ["?period=all", "?period=tonight"], ids=["all-time", "tonight"])
def test_the_awards_of_the_latest_finished_games_are_kept(client: TestClient, millers: Millers, query: str):
    games = sorted(
        ((g, at) for g, at in millers.since(period_since(query)) if g["status"] == "finished"),
        key=lambda g: g[1],
        reverse=True,
    )[:5]
    kept = page_of(client, f"/t/{millers.id}{query}").select("#stats .kept-awards > li")
    assert [li["data-game"] for li in kept] == [g["id"] for g, _ in games]
    for li, (game, _at) in zip(kept, games, strict=True):
        assert li.select_one("a")["href"] == f"/g/{game['id']}"
        assert text(li.select_one("a")) == joined([p["name"] for p in game["players"]])
        # The same awards, in the same words, as the game's own game-over banner...
        banner = page_of(client, f"/g/{game['id']}").select("#banner .awards li")
        assert [text(a) for a in li.select(".awards li")] == [text(a) for a in banner]
        # ...and the card games' best round and most calls as their rounds say.
        if game["rules"]["kind"] == "cards":
            assert [said(a) for a in li.select(".award-best_round, .award-most_calls")] == best_round_and_calls(game)
    if not query:
        nerts = kept[0]
        assert [said(a) for a in nerts.select(".awards li")][:2] == [
            "Best round: Ana, +50 in round 2",
            "Most Nerts calls: Ana and Eve (2)",
        ]
        assert text(nerts.select_one(".winners")) == "won by Eve"


# --- a person's page ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "?period=tonight"], ids=["all-time", "tonight"])
def test_a_persons_figures_are_their_rounds(client: TestClient, millers: Millers, query: str):
    ana = millers.people["Ana"]
    expected = table_figures(millers.since(period_since(query)))
    page = page_of(client, person_path(millers, "Ana") + query)
    assert text(page.select_one("h1")) == "Ana"
    assert page.select_one("#table-link a")["href"] == f"/t/{millers.id}"
    shown = page.select("#figures dl.figures")
    assert [dl["data-preset"] for dl in shown] == [p for p in PRESETS if ana in expected.get(p, {})]
    for dl in shown:
        f = expected[str(dl["data-preset"])][ana]
        dd = {str(div["class"][0]): text(div.select_one("dd")) for div in dl.select("div")}
        assert dd["games"] == str(f["games"])
        assert dd["wins"] == str(f["wins"]) + (f" ({f['shared']} shared)" if f["shared"] else "")
        assert rounded(dd["win-rate"], 100 * f["win_rate"], 0)
        assert (dd["rounds"], dd["calls"], dd["streak"]) == (str(f["rounds"]), str(f["calls"]), str(f["streak"]))
        assert dd["highest"] == str(f["highest"])
        if f["kind"] == "lives":
            assert {"average", "best", "lowest", "cards-left"}.isdisjoint(dd)
            continue
        assert rounded(dd["average"], f["average"])
        assert number(dd["best"]) == f["best"] and dd["lowest"] == str(f["lowest"])
        assert rounded(dd["cards-left"], f["cards_left"])


def test_a_persons_head_to_head_row(client: TestClient, millers: Millers):
    pairs = table_pairs(millers.games())
    ben = millers.people["Ben"]
    names = {pid: name for name, pid in millers.people.items()}
    rows = page_of(client, person_path(millers, "Ben")).select("#opponents tbody tr")
    others = sorted((other for me, other in pairs if me == ben), key=lambda p: names[p].casefold())
    assert [int(r["data-person"]) for r in rows] == others
    for row in rows:
        other = int(row["data-person"])
        pair = pairs[(ben, other)]
        assert row.select_one("th a")["href"] == f"/t/{millers.id}/p/{other}"
        figures = [text(row.select_one(f".{c}")) for c in ("games", "ahead", "behind", "level")]
        assert figures == [str(pair[c]) for c in ("games", "ahead", "behind", "level")]
    # Ben and Ana, by hand: Ana ahead in the first game and in 31, level in the shared win.
    ana = page_of(client, person_path(millers, "Ben")).select_one(
        f"#opponents tr[data-person='{millers.people['Ana']}']"
    )
    assert [text(td) for td in ana.select("td")] == ["3", "0", "2", "1"]


def test_a_persons_games_newest_first_with_how_they_finished(client: TestClient, millers: Millers):
    ana = millers.people["Ana"]
    every = [
        client.get(f"{API}/games/{g['id']}").json() for g in client.get(f"{API}/tables/{millers.id}").json()["games"]
    ]
    theirs = sorted(
        (g for g in every if any(p["person_id"] == ana for p in g["players"])),
        key=lambda g: g["created_at"],
        reverse=True,
    )
    assert len(theirs) == 5 and theirs[0]["status"] == "playing"
    rows = page_of(client, person_path(millers, "Ana")).select("#games ul.game-list li")
    assert [li["data-game"] for li in rows] == [g["id"] for g in theirs]
    for li, game in zip(rows, theirs, strict=True):
        me = next(p for p in game["players"] if p["person_id"] == ana)
        result = (
            "playing"
            if game["status"] == "playing"
            else "won"
            if me["id"] in game["winners"]
            else f"place {me['rank']}"
        )
        assert text(li.select_one(".result")) == result
        assert li.select_one("a")["href"] == f"/g/{game['id']}"


def test_a_persons_results_over_time_as_a_chart_and_a_list(client: TestClient, millers: Millers):
    ana = millers.people["Ana"]
    page = page_of(client, person_path(millers, "Ana"))
    charts = page.select("#results figure.results-chart")
    played = [
        (g, at)
        for g, at in sorted(millers.games(), key=lambda g: g[1])
        if any(p["person_id"] == ana for p in g["players"])
    ]
    presets = [p for p in ("dutch_blitz", "nerts", "thirty_one") if any(g["rules"]["preset"] == p for g, _ in played)]
    assert [c["data-preset"] for c in charts] == presets
    for chart in charts:
        games = [g for g, _ in played if g["rules"]["preset"] == chart["data-preset"]]
        svg = chart.select_one("svg")
        assert svg["role"] == "img" and svg.select_one("title") and svg.select_one("desc")
        assert len(svg.select(".mark")) == len(games)
        mine = [next(p for p in g["players"] if p["person_id"] == ana) for g in games]
        assert [bool("won" in m["class"]) for m in svg.select(".mark")] == [
            p["id"] in g["winners"] for p, g in zip(mine, games, strict=True)
        ]
        places = chart["data-preset"] == "thirty_one"
        said = [text(li) for li in chart.select(".results-list li")]
        expected = []
        for player, (game, at) in zip(
            mine, [(g, a) for g, a in played if g["rules"]["preset"] == chart["data-preset"]], strict=True
        ):
            won = player["id"] in game["winners"]
            value = f"place {1 if won else player['rank']}" if places else f"total {player['total']}"
            day = format_date(at.date(), "medium", locale="en")  # "Dec 1, 2026"
            expected.append(f"{day} · {value}" + (" · won" if won else ""))
        assert said == expected
        links = [a["href"] for a in chart.select(".results-list li a")]
        assert links == [f"/g/{g['id']}" for g in games]


def test_the_chart_is_bounded_and_its_points_follow_the_totals(client: TestClient, app: FastAPI):
    table = Millers(client, app, ["Ana", "Ben"])
    totals = []
    for n in range(53):
        game = table.start(["Ana", "Ben"], {"preset": "dutch_blitz", "target": 10})
        ana = 10 + n % 7
        game.cards(Ana=(ana, 0), Ben=(3, 4))
        game.finished_at(NOW - timedelta(days=60) + timedelta(hours=n))
        totals.append(ana)
    svg = page_of(client, person_path(table, "Ana")).select_one("#results svg")
    marks = svg.select(".mark")
    assert len(marks) == 50  # the newest 50
    ys = [float(re.search(r"translate\([\d.]+ ([\d.]+)\)", m["transform"])[1]) for m in marks]
    points = list(zip(totals[-50:], ys, strict=True))
    for (a, ya), (b, yb) in itertools.pairwise(points):
        assert (ya > yb) == (a < b) and (ya == yb) == (a == b)  # higher totals higher on the chart
    assert len(page_of(client, person_path(table, "Ana")).select("#results .results-list li")) == 50


def test_a_person_who_has_not_played(client: TestClient, millers: Millers):
    added = client.post(
        f"{API}/tables/{millers.id}/people", json={"name": "Flo"}, headers={"Authorization": f"Bearer {millers.key}"}
    )
    flo = next(p["id"] for p in added.json()["people"] if p["name"] == "Flo")
    page = page_of(client, f"/t/{millers.id}/p/{flo}")
    assert text(page.select_one("h1")) == "Flo"
    assert page.select("#figures dl, #opponents, #results") == []
    assert text(page.select_one("#games p.muted")) == "No games yet."


def test_a_person_of_another_table_is_not_found(client: TestClient, millers: Millers, app: FastAPI):
    other = Millers(client, app, ["Zed"])
    for path in (
        f"/t/{millers.id}/p/{other.people['Zed']}",
        f"/t/{other.id}/p/{millers.people['Ana']}",
        f"/t/{millers.id}/p/999999",
        f"/t/nosuchtable/p/{millers.people['Ana']}",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert text(html(response).select_one("h1")) == "Not found"
    assert client.get(f"/t/{millers.id}/p/0").status_code == 422


def test_every_person_is_a_link_away(client: TestClient, millers: Millers):
    page = page_of(client, f"/t/{millers.id}")
    roster = {text(a): a["href"] for a in page.select("#roster a.person-link")}
    assert roster == {name: f"/t/{millers.id}/p/{pid}" for name, pid in millers.people.items()}
    ana = page_of(client, person_path(millers, "Ana"))
    assert {a["href"] for a in ana.select("#opponents th a")} <= set(roster.values())


# --- the period picker ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "current", "note"),
    [
        ("", "All time", "Every finished game."),
        ("?period=tonight", "Tonight", "Games that finished in the last 12 hours."),
        ("?period=30d", "Last 30 days", "Games that finished in the last 30 days."),
        ("?period=yesterday", "All time", "Every finished game."),
        ("?from=2026-03-01", None, "Games that finished on Mar 1, 2026 or later (from midnight UTC)."),
    ],
)
@pytest.mark.parametrize("page", ["table", "person"])
def test_the_period_links_and_the_season_form(client: TestClient, millers: Millers, query, current, note, page):
    path = f"/t/{millers.id}" if page == "table" else person_path(millers, "Ana")
    # The Millers finished games in the last 12 hours: the table's page opens on "Tonight", and its "All
    # time" says so in its link (a person's page opens on all time, as ever).
    night = page == "table"
    if night and query == "":
        current, note = "Tonight", "Games that finished in the last 12 hours."
    shown = page_of(client, path + query)
    links = shown.select(".periods .period-links a")
    assert [(text(a), a["href"]) for a in links] == [
        ("Tonight", f"{path}?period=tonight"),
        ("Last 30 days", f"{path}?period=30d"),
        ("All time", f"{path}?period=all" if night else path),
    ]
    assert [text(a) for a in links if a.get("aria-current") == "page"] == ([current] if current else [])
    form = shown.select_one(".periods form.season")
    assert (form["method"], form["action"]) == ("get", path)
    field = form.select_one("input[name=from]")
    assert field["type"] == "date"
    assert field["value"] == (query.removeprefix("?from=") if current is None else f"{NOW.year}-01-01")
    assert ("current" in form["class"]) == (current is None)
    assert text(shown.select_one(".period-note")) == note
    switch = shown.select_one("header form.lang-switch input[name=next]")
    kept = {"": "?period=tonight", "?period=yesterday": "?period=all"} if night else {"?period=yesterday": ""}
    assert switch["value"] == path + kept.get(query, query)  # the language keeps it


@pytest.mark.parametrize(
    ("finished", "opens_on"),
    [(None, "All time"), (timedelta(hours=11), "Tonight"), (timedelta(hours=13), "All time")],
    ids=["playing", "11-hours-ago", "13-hours-ago"],
)
def test_the_table_page_opens_on_tonight_after_a_game_of_the_night(
    client: TestClient, app: FastAPI, finished: timedelta | None, opens_on: str
):
    """A table night: a game finished in the last 12 hours opens the standings on "Tonight" (which then
    counts it); a game still being played, or last night's, leaves them on all time."""
    table = Millers(client, app, ["Ana", "Ben"])
    game = table.start(["Ana", "Ben"], {"preset": "dutch_blitz", "target": 10})
    if finished is not None:
        game.cards(Ana=(10, 0), Ben=(3, 4))
        game.finished_at(NOW - finished)
    path = f"/t/{table.id}"
    page = page_of(client, path)
    assert [text(a) for a in page.select(".period-links a[aria-current=page]")] == [opens_on]
    all_time = page.select_one(".period-links a.period-all")["href"]
    assert all_time == (f"{path}?period=all" if opens_on == "Tonight" else path)
    tables = page.select("#stats table.standings-table")
    assert [t["data-preset"] for t in tables] == ([] if finished is None else ["dutch_blitz"])
    # "All time" is a link away, and stays there
    again = page_of(client, all_time)
    assert [text(a) for a in again.select(".period-links a[aria-current=page]")] == ["All time"]


@pytest.mark.parametrize("typed", ["someday", "2026-02-30", "", "2026-3-1"])
def test_a_season_that_is_not_a_date_comes_back_beside_its_field(client: TestClient, millers: Millers, typed: str):
    for path in (f"/t/{millers.id}", person_path(millers, "Ana")):
        page = page_of(client, f"{path}?from={typed}", status=422)
        field = page.select_one("#season-from")
        assert (field["aria-invalid"], field["aria-describedby"], field["value"]) == (
            "true",
            "season-from-error",
            typed,
        )
        message = text(page.select_one("#season-from-error"))
        assert message == ("Pick the day the season began." if not typed else "That is not a date: pick a day.")
        assert text(page.select_one(".period-links a[aria-current=page]")) == "All time"  # and what it shows


def test_the_table_page_boosts_its_period_links_and_the_keepers_forms_keep_the_period(
    client: TestClient, millers: Millers
):
    claimed = client.get(f"/t/{millers.id}/edit/{millers.key}", follow_redirects=False)
    assert claimed.status_code == 303
    page = page_of(client, f"/t/{millers.id}")
    nav = page.select_one("#table #stats nav.periods")
    assert nav["hx-boost"] == "true"  # inside #table, whose hx-target / hx-swap it inherits
    assert page.select_one("#table")["hx-target"] == "this"
    assert page_of(client, person_path(millers, "Ana")).select_one("nav.periods").get("hx-boost") is None
    # htmx asks for the period: the fragment, #table, with the forms posting to it
    response = client.get(f"/t/{millers.id}?period=tonight", headers=HTMX)
    fragment = html(response)
    assert [t.get("id") for t in fragment.children if isinstance(t, Tag)] == ["table"]
    assert [t["data-preset"] for t in fragment.select("#stats table.standings-table")] == [
        "dutch_blitz",
        "nerts",
        "thirty_one",
    ]
    actions = {str(f["action"]) for f in fragment.select("#table form[method=post]")}
    assert actions and all(a.endswith("?period=tonight") for a in actions)
    assert all(str(f["hx-post"]).endswith("?period=tonight") for f in fragment.select("#table form[method=post]"))
    # a keeper's form without JavaScript comes back to the period; with htmx, its fragment shows it
    form = fragment.select_one("form.add-person")
    data = {"csrf": form.select_one("input[name=csrf]")["value"], "name": "Flo"}
    posted = client.post(str(form["action"]), data=data, follow_redirects=False)
    assert (posted.status_code, posted.headers["location"]) == (303, f"/t/{millers.id}?period=tonight")
    posted = client.post(str(form["action"]), data=data | {"name": "Gus"}, headers=HTMX)
    assert posted.status_code == 200
    assert [t["data-preset"] for t in html(posted).select("#stats table.standings-table")] == [
        "dutch_blitz",
        "nerts",
        "thirty_one",
    ]
    assert "Gus" in [text(a) for a in html(posted).select("#roster .person-name")]


def test_renaming_a_person_renames_them_in_the_standings(client: TestClient, millers: Millers):
    assert client.get(f"/t/{millers.id}/edit/{millers.key}", follow_redirects=False).status_code == 303
    ana = millers.people["Ana"]
    form = page_of(client, f"/t/{millers.id}?period=all").select_one(f"#person-{ana}-row form")
    data = {"csrf": form.select_one("input[name=csrf]")["value"], "name": "Anna"}
    fragment = html(client.post(str(form["action"]), data=data, headers=HTMX))
    assert text(fragment.select_one(f"#stats table[data-preset=dutch_blitz] tr[data-person='{ana}'] th")) == "Anna"
    assert fragment.select_one(f"#stats table.h2h thead th[data-person='{ana}'] abbr")["title"] == "Anna"


# --- names, languages ---------------------------------------------------------------------------------------


def test_names_are_escaped_everywhere_they_are_shown(client: TestClient, app: FastAPI):
    table = Millers(client, app, [SCRIPT_NAME, "Ben"])
    game = table.start([SCRIPT_NAME, "Ben"], {"preset": "dutch_blitz", "target": 10})
    game.cards(**{SCRIPT_NAME: (10, 0)}, Ben=(3, 4))
    game.finished_at(NOW)
    for path in (f"/t/{table.id}", person_path(table, SCRIPT_NAME), person_path(table, "Ben")):
        response = client.get(path)
        assert SCRIPT_NAME not in response.text, path
        page = html(response)
        assert all(s.get("src") for s in page.select("script")), path  # no script the name made
        assert SCRIPT_NAME in text(page.select_one("main")), path  # shown as text
    page = page_of(client, f"/t/{table.id}")
    assert page.select_one("#stats table.h2h thead abbr")["title"] == SCRIPT_NAME
    assert (
        said(page.select_one("#stats .kept-awards .award-best_round")) == f"Best round: {SCRIPT_NAME}, +10 in round 1"
    )


def test_numbers_the_languages_way(client: TestClient, millers: Millers):
    client.cookies.set(i18n.COOKIE, "de")
    row = page_of(client, f"/t/{millers.id}?period=all").select_one(
        f"#stats table[data-preset=dutch_blitz] tr[data-person='{millers.people['Ben']}']"
    )
    # German: a decimal comma, and a space (no-break) before the percent sign; text_of() makes it a space.
    assert (text(row.select_one(".average")), text(row.select_one(".win-rate"))) == ("18,9", "67 %")
    figures = page_of(client, person_path(millers, "Cy")).select_one("#figures dl[data-preset=dutch_blitz]")
    assert text(figures.select_one(".average dd")) == "9,3"


def test_the_pages_in_a_pseudo_language(client: TestClient, millers: Millers, pseudo: str):
    """Every text of these pages from the catalogs (tests/web/test_i18n_templates.py checks whole pages;
    here the parts that are worded per game and per figure)."""
    client.cookies.set(i18n.COOKIE, pseudo)
    page = page_of(client, f"/t/{millers.id}?period=all")
    heads = [text(th) for th in page.select("#stats table[data-preset=dutch_blitz] thead th")]
    assert heads and all(h.startswith(OPEN) and h.endswith(CLOSE) for h in heads)
    assert text(page.select_one("#stats table[data-preset=dutch_blitz] .wins .shared")) == f"{OPEN}(1 shared){CLOSE}"
    person = page_of(client, person_path(millers, "Ana"))
    terms = [text(dt) for dt in person.select("#figures dt")]
    assert terms and all(t.startswith(OPEN) and t.endswith(CLOSE) for t in terms)
    assert all(text(s).startswith(OPEN) for s in person.select("#results svg title, #results svg desc"))
