"""A table's standings, head-to-head and standings CSV, through the API.

Games are played at a table through the API; every expected figure is then worked out here, in Python,
from the games as `GET /api/v1/games/{id}` answers them (players, rounds with their points, winners,
ranks), never from app.tables.standings' SQL or game_result. The games are placed in time by setting when
their rounds were saved (and so when they finished) in the database.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from statistics import mean
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from app.config import Settings
from app.tables.answers import TableHeadToHead, TableStats
from tests.helpers import API, PlayedGame, PlayedTable, assert_problem, statements, unlimited_settings

NIGHT = datetime(2026, 11, 6, 20, 0, tzinfo=UTC)  # a Friday, 20:00 UTC
DUTCH_BLITZ, SHARED = {"preset": "dutch_blitz"}, {"preset": "dutch_blitz", "tie_break": "shared"}


@pytest.fixture(name="settings")
def no_rate_limit(database_url: str) -> Settings:
    return unlimited_settings(database_url)


# --- playing at a table -------------------------------------------------------------------------------


class Table(PlayedTable):
    def __init__(self, client: TestClient, app: FastAPI, names: list[str]):
        super().__init__(client, app, names, name="Friday club")

    def url(self, what: str = "stats", **query: str) -> str:
        return f"{API}/tables/{self.id}/{what}" + (
            "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
        )

    def stats(self, **query: str) -> dict[str, Any]:
        answer = self.client.get(self.url("stats", **query))
        assert answer.status_code == 200, answer.text
        assert TableStats.model_validate(answer.json()).model_dump(mode="json", by_alias=True) == answer.json()
        return answer.json()

    def head_to_head(self, **query: str) -> dict[str, Any]:
        answer = self.client.get(self.url("head-to-head", **query))
        assert answer.status_code == 200, answer.text
        assert TableHeadToHead.model_validate(answer.json()).model_dump(mode="json", by_alias=True) == answer.json()
        return answer.json()


Game = PlayedGame


# --- the expected figures, from the games as the API answers them -----------------------------------------


def counted(games: list[tuple[dict, datetime]], since=None, until=None, kind=None) -> list[tuple[dict, datetime]]:
    return [
        (game, at)
        for game, at in games
        if game["status"] == "finished"
        and (since is None or at >= since)
        and (until is None or at < until)
        and kind in (None, game["rules"]["kind"], game["rules"]["preset"])
    ]


def place(game: dict, player: dict) -> int:
    return 1 if player["id"] in game["winners"] else player["rank"]


def expected_stats(games: list[tuple[dict, datetime]], **period: Any) -> list[dict[str, Any]]:
    played: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    kinds, names = {}, {}
    for game, at in counted(games, **period):
        kind, preset = game["rules"]["kind"], game["rules"]["preset"]
        kinds[preset] = kind
        for player in game["players"]:
            mine = [(r, s) for r in game["rounds"] for s in r["scores"] if s["player_id"] == player["id"]]
            if kind == "cards":
                calls = sum(s["blitz"] == 0 for _, s in mine)
            else:
                calls = sum(r.get("caller", r.get("knocker")) == player["id"] for r, _ in mine)
            names[player["person_id"]] = player["name"]
            played[preset, player["person_id"]].append(
                {
                    "at": (at, game["id"]),
                    "won": player["id"] in game["winners"],
                    "shared": player["id"] in game["winners"] and len(game["winners"]) > 1,
                    "total": player["total"],
                    "points": [s["points"] for _, s in mine] if kind != "lives" else [],
                    "left": [s["blitz"] for _, s in mine] if kind == "cards" else [],
                    "calls": calls,
                    "rounds": len(mine),
                }
            )
    groups = []
    for preset in [p for p in PRESET_ORDER if p in kinds]:
        people = []
        for (of, person_id), rows in played.items():
            if of != preset:
                continue
            wins = sum(r["won"] for r in rows)
            points = [p for r in rows for p in r["points"]]
            left = [n for r in rows for n in r["left"]]
            newest_first = sorted(rows, key=lambda r: r["at"], reverse=True)
            streak = next((i for i, r in enumerate(newest_first) if not r["won"]), len(rows))
            best = {"cards": max, "lowest": min}.get(kinds[preset])
            people.append(
                {
                    "person_id": person_id,
                    "name": names[person_id],
                    "games": len(rows),
                    "wins": wins,
                    "shared_wins": sum(r["shared"] for r in rows),
                    "win_rate": round(wins / len(rows), 4),
                    "rounds": sum(r["rounds"] for r in rows),
                    "average_points": round(mean(points), 4) if points else None,
                    "best_round": best(points) if best and points else None,
                    "highest_total": max(r["total"] for r in rows),
                    "lowest_total": min(r["total"] for r in rows),
                    "calls": sum(r["calls"] for r in rows),
                    "average_cards_left": round(mean(left), 4) if left else None,
                    "streak": streak,
                }
            )
        people.sort(key=lambda p: (-p["wins"], -p["win_rate"], p["name"].casefold(), p["person_id"]))
        groups.append({"preset": preset, "kind": kinds[preset], "people": people})
    return groups


def expected_head_to_head(games: list[tuple[dict, datetime]], **period: Any) -> tuple[list[dict], list[dict]]:
    pairs: dict[tuple[int, int], dict[str, int]] = {}
    names = {}
    for game, _ in counted(games, **period):
        places = {p["person_id"]: place(game, p) for p in game["players"]}
        names |= {p["person_id"]: p["name"] for p in game["players"]}
        for a in places:
            for b in places:
                if a < b:
                    pair = pairs.setdefault(
                        (a, b), {"a": a, "b": b, "games": 0, "a_ahead": 0, "b_ahead": 0, "level": 0}
                    )
                    pair["games"] += 1
                    which = "a_ahead" if places[a] < places[b] else "b_ahead" if places[b] < places[a] else "level"
                    pair[which] += 1
    people = sorted(
        ({"person_id": i, "name": n} for i, n in names.items()), key=lambda p: (p["name"].casefold(), p["person_id"])
    )
    return people, [pairs[key] for key in sorted(pairs)]


PRESET_ORDER = ["dutch_blitz", "dutch_blitz_100", "nerts", "ligretto", "dutch", "thirty_one"]


# --- a season at the Friday club ------------------------------------------------------------------------


@pytest.fixture
def club(client: TestClient, app: FastAPI) -> Table:
    """Six finished games over three nights (Dutch Blitz three times: one a shared win, one with starting
    scores; Nerts; Dutch; 31), Eve at only some of them, and a game still being played."""
    table = Table(client, app, ["Ana", "Ben", "Cy", "Dee", "Eve"])
    first = table.start(["Ana", "Ben", "Cy"], DUTCH_BLITZ)
    first.cards(Ana=(30, 0), Ben=(20, 3), Cy=(10, 5))
    first.cards(Ana=(25, 2), Ben=(28, 0), Cy=(15, 4))
    assert first.cards(Ana=(30, 0), Ben=(12, 6), Cy=(10, 8))["winners"] == [first.ids["Ana"]]  # 81, 42, 1
    first.finished_at(NIGHT)

    shared = table.start(["Ana", "Ben", "Dee"], SHARED)
    shared.cards(Ana=(40, 0), Ben=(40, 0), Dee=(10, 5))
    won = shared.cards(Ana=(35, 0), Ben=(35, 0), Dee=(20, 2))  # 75, 75, 16: Ana and Ben share the win
    assert won["winners"] == [shared.ids["Ana"], shared.ids["Ben"]]
    shared.finished_at(NIGHT + timedelta(hours=1))

    carried = table.start([("Ben", 50), ("Cy", 10), ("Dee", 0)], DUTCH_BLITZ)
    carried.cards(Ben=(20, 0), Cy=(15, 3), Dee=(18, 2))
    carried.cards(Ben=(10, 4), Cy=(30, 0), Dee=(25, 1))
    assert carried.cards(Ben=(12, 0), Cy=(20, 2), Dee=(5, 9))["winners"] == [carried.ids["Ben"]]  # 84, 65, 24
    carried.finished_at(NIGHT + timedelta(days=7))

    nerts = table.start(["Ana", "Cy", "Eve"], {"preset": "nerts"})
    nerts.cards(Ana=(40, 0), Cy=(30, 5), Eve=(45, 0))
    nerts.cards(Ana=(50, 0), Cy=(20, 13), Eve=(30, 2))
    assert nerts.cards(Ana=(10, 8), Cy=(35, 0), Eve=(35, 0))["winners"] == [nerts.ids["Eve"]]  # 84, 49, 106
    nerts.finished_at(NIGHT + timedelta(days=7, hours=1))

    dutch = table.start(["Ben", "Cy", "Dee"], {"preset": "dutch"})
    dutch.hands("Ben", Ben=5, Cy=20, Dee=12)  # the caller is lowest: Ben 0
    dutch.hands("Ben", Ben=30, Cy=8, Dee=8)  # the caller is not: Cy and Dee 0, Ben 30 and a penalty
    dutch.hands(None, Ben=40, Cy=50, Dee=3)  # nobody called
    end = dutch.hands("Dee", Ben=10, Cy=35, Dee=10)  # Dee called, tied lowest with Ben: Dee 0, Ben 10
    assert [p["total"] for p in end["players"]] == [80, 105, 15] and end["winners"] == [dutch.ids["Dee"]]
    dutch.finished_at(NIGHT + timedelta(days=14))

    t31 = table.start(["Ana", "Ben", "Eve"], {"preset": "thirty_one"})
    t31.hands("Eve", Ana=25, Ben=20, Eve=28)  # Ben loses a life
    t31.hands(None, Ana=31, Ben=15, Eve=22)  # a 31: Ben and Eve lose one
    t31.hands("Ana", Ana=10, Ben=20, Eve=25)  # Ana knocked and is lowest: two lives
    t31.hands(None, Ana=18, Ben=12, Eve=30)  # Ben on the county
    t31.hands(None, Ana=15, Ben=9, Eve=20)  # Ben out
    t31.hands(None, Ana=12, Eve=25)  # Ana on the county
    assert t31.hands("Ana", Ana=5, Eve=29)["winners"] == [t31.ids["Eve"]]  # Ana out: Eve wins
    t31.finished_at(NIGHT + timedelta(days=14, hours=1))

    unfinished = table.start(["Ana", "Eve"], DUTCH_BLITZ)
    unfinished.cards(Ana=(10, 0), Eve=(5, 3))
    unfinished.finished_at(NIGHT + timedelta(days=14, hours=2))  # its rounds' time; it has no result
    return table


def test_the_standings_are_the_figures_of_the_rounds_the_games_answer(club: Table):
    stats = club.stats()
    assert (stats["table_id"], stats["from"], stats["to"], stats["kind"]) == (club.id, None, None, None)
    assert stats["groups"] == expected_stats(club.games())
    # And by hand, the figures the issue names, so the expectation above can't share a mistake with them:
    groups = {g["preset"]: {p["name"]: p for p in g["people"]} for g in stats["groups"]}
    assert list(groups) == ["dutch_blitz", "nerts", "dutch", "thirty_one"]
    assert [p["name"] for p in stats["groups"][0]["people"]] == ["Ana", "Ben", "Cy", "Dee"]
    ana, ben = groups["dutch_blitz"]["Ana"], groups["dutch_blitz"]["Ben"]
    assert (ana["games"], ana["wins"], ana["shared_wins"], ana["win_rate"], ana["streak"]) == (2, 2, 1, 1.0, 2)
    assert (ben["games"], ben["wins"], ben["shared_wins"], ben["win_rate"], ben["streak"]) == (3, 2, 1, 0.6667, 2)
    assert (ana["rounds"], ana["best_round"], ana["calls"], ana["highest_total"], ana["lowest_total"]) == (
        5,
        40,
        4,
        81,
        75,
    )
    assert ana["average_points"] == round((30 + 21 + 30 + 40 + 35) / 5, 4)
    assert ana["average_cards_left"] == 0.4
    assert (ben["highest_total"], ben["lowest_total"]) == (84, 42)  # 84 from a start of 50
    assert groups["dutch_blitz"]["Cy"]["streak"] == 0 and "Eve" not in groups["dutch_blitz"]
    dee = groups["dutch"]["Dee"]
    assert (dee["wins"], dee["rounds"], dee["average_points"], dee["best_round"], dee["calls"]) == (1, 4, 3.75, 0, 1)
    assert (groups["dutch"]["Ben"]["average_points"], groups["dutch"]["Ben"]["calls"]) == (20.0, 2)
    assert groups["dutch"]["Ben"]["average_cards_left"] is None
    eve, ana31 = groups["thirty_one"]["Eve"], groups["thirty_one"]["Ana"]
    assert (eve["wins"], eve["rounds"], eve["calls"], eve["highest_total"]) == (1, 7, 1, 2)
    assert (ana31["rounds"], ana31["calls"], ana31["lowest_total"], groups["thirty_one"]["Ben"]["rounds"]) == (
        7,
        2,
        0,
        5,
    )
    assert ana31["average_points"] is ana31["best_round"] is ana31["average_cards_left"] is None


def test_head_to_head_counts_who_finished_ahead_in_every_game_two_people_played(club: Table):
    answer = club.head_to_head()
    people, pairs = expected_head_to_head(club.games())
    assert (answer["people"], answer["pairs"]) == (people, pairs)
    ids = {p["name"]: p["person_id"] for p in answer["people"]}
    ana_ben = next(p for p in answer["pairs"] if (p["a"], p["b"]) == (ids["Ana"], ids["Ben"]))
    # Dutch Blitz: Ana won, then they shared a win; 31: Ana was out after Ben.
    assert {k: ana_ben[k] for k in ("games", "a_ahead", "b_ahead", "level")} == {
        "games": 3,
        "a_ahead": 2,
        "b_ahead": 0,
        "level": 1,
    }
    assert all(p["a"] < p["b"] for p in answer["pairs"])


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


WEEK_TWO = iso(NIGHT + timedelta(days=7) - timedelta(hours=1))
WEEK_THREE = iso(NIGHT + timedelta(days=14) - timedelta(hours=1))


@pytest.mark.parametrize(
    ("query", "games"),
    [
        ({"from": WEEK_TWO}, 4),
        ({"to": WEEK_TWO}, 2),
        ({"from": WEEK_TWO, "to": WEEK_THREE}, 2),
        ({"from": iso(NIGHT), "to": iso(NIGHT + timedelta(hours=1))}, 1),  # from in, to out
        ({"from": "2026-11-06T21:00:00%2B01:00"}, 6),  # 20:00 UTC: the first night's first game too
        ({"from": "2026-11-06T21:00:00+01:00"}, 6),  # a + sent unencoded reads as a space: taken back
        ({"kind": "cards"}, 4),
        ({"kind": "dutch_blitz"}, 3),
        ({"kind": "nerts"}, 1),
        ({"kind": "lowest"}, 1),
        ({"kind": "thirty_one"}, 1),
        ({"kind": "ligretto"}, 0),
        ({"kind": "dutch_blitz", "from": WEEK_TWO}, 1),
    ],
)
def test_a_period_and_a_kind_pick_the_games_by_when_they_finished_and_what_they_were(club, query, games):
    period: dict[str, Any] = {"kind": query.get("kind")}
    for name, key in (("from", "since"), ("to", "until")):
        if query.get(name):
            period[key] = datetime.fromisoformat(query[name].replace("%2B", "+"))
    expected = counted(club.games(), **period)
    assert len({game["id"] for game, _ in expected}) == games
    stats = club.stats(**query)
    assert stats["groups"] == expected_stats(club.games(), **period)
    assert stats["kind"] == query.get("kind")
    assert (stats["from"] is None) == (not query.get("from")) and (stats["to"] is None) == (not query.get("to"))
    people, pairs = expected_head_to_head(club.games(), **period)
    answer = club.head_to_head(**query)
    assert (answer["people"], answer["pairs"]) == (people, pairs)


def test_the_period_is_echoed_in_utc(club: Table):
    stats = club.stats(**{"from": "2026-11-06T21:00:00%2B01:00", "to": "2026-11-30T00:00:00.5-03:00"})
    assert (stats["from"], stats["to"]) == ("2026-11-06T20:00:00Z", "2026-11-30T03:00:00.500000Z")


def test_a_game_counts_only_while_it_is_finished(club: Table):
    before = club.stats()
    game = club.start(["Cy", "Dee"], DUTCH_BLITZ)
    assert club.stats() == before  # started, not finished
    game.cards(Cy=(40, 0), Dee=(0, 10))
    game.cards(Cy=(40, 0), Dee=(0, 10))  # 80: Cy wins
    game.finished_at(NIGHT + timedelta(days=20))
    assert club.stats()["groups"] == expected_stats(club.games()) != before["groups"]
    assert club.client.delete(f"{API}/games/{game.id}/rounds/2", headers=game.auth).status_code == 200
    assert club.stats() == before  # not over any more


def test_the_etag_is_a_digest_of_the_answer_and_a_correction_changes_it(club: Table):
    for what in ("stats", "head-to-head", "stats.csv"):
        first = club.client.get(club.url(what))
        etag = first.headers["ETag"]
        assert etag.startswith('"') and etag.endswith('"') and len(etag) > 10
        again = club.client.get(club.url(what), headers={"If-None-Match": etag})
        assert (again.status_code, again.content, again.headers["ETag"]) == (304, b"", etag)
        assert club.client.get(club.url(what), headers={"If-None-Match": '"1"'}).status_code == 200
    etag = club.client.get(club.url("stats")).headers["ETag"]
    version = club.client.get(f"{API}/tables/{club.id}").json()["version"]
    # The first game's first round corrected (one more Dutch card each for whoever called Blitz): the
    # standings change, the table's version does not, so it can't be the ETag.
    game, _ = club.played[0]
    first = club.client.get(f"{API}/games/{game.id}").json()["rounds"][0]["scores"]
    corrected = [
        {"player_id": s["player_id"], "dutch": s["dutch"] + (s["blitz"] == 0), "blitz": s["blitz"]} for s in first
    ]
    changed = club.client.put(f"{API}/games/{game.id}/rounds/1", json={"scores": corrected}, headers=game.auth)
    assert changed.status_code == 200, changed.text
    assert club.client.get(f"{API}/tables/{club.id}").json()["version"] == version
    answer = club.client.get(club.url("stats"), headers={"If-None-Match": etag})
    assert answer.status_code == 200 and answer.headers["ETag"] != etag
    assert answer.json()["groups"] == expected_stats(club.games())


def test_renaming_a_person_renames_them_in_the_standings(club: Table):
    ids = {p["name"]: p["person_id"] for p in club.head_to_head()["people"]}
    renamed = club.client.patch(f"{API}/tables/{club.id}/people/{ids['Cy']}", json={"name": "Cyd"}, headers=club.auth)
    assert renamed.status_code == 200, renamed.text
    names = {p["name"] for g in club.stats()["groups"] for p in g["people"]}
    assert "Cyd" in names and "Cy" not in names
    assert {p["name"] for p in club.head_to_head()["people"]} == {"Ana", "Ben", "Cyd", "Dee", "Eve"}


def test_the_standings_csv_has_a_header_and_a_row_per_person_and_game(club: Table):
    ids = {p["name"]: p["person_id"] for p in club.head_to_head()["people"]}
    club.client.patch(f"{API}/tables/{club.id}/people/{ids['Dee']}", json={"name": "=Dee"}, headers=club.auth)
    answer = club.client.get(club.url("stats.csv", kind="cards"))
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/csv; charset=utf-8"
    assert answer.headers["content-disposition"] == f'attachment; filename="blitzboard-table-{club.id}-standings.csv"'
    assert answer.headers["content-language"] == "en"
    assert answer.text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(answer.text.removeprefix("\ufeff"))))
    columns = ["preset", "kind", "person_id", "name", "games", "wins", "shared_wins", "win_rate", "rounds"]
    columns += [
        "average_points",
        "best_round",
        "highest_total",
        "lowest_total",
        "calls",
        "average_cards_left",
        "streak",
    ]
    assert rows[0] == columns
    stats = club.stats(kind="cards")
    expected = [
        [g["preset"], g["kind"]] + ["" if p[c] is None else str(p[c]) for c in columns[2:]]
        for g in stats["groups"]
        for p in g["people"]
    ]
    for row in expected:
        row[3] = "'=Dee" if row[3] == "=Dee" else row[3]  # a spreadsheet must not run it as a formula
    assert rows[1:] == expected and len(rows) == 1 + 4 + 3
    assert "'=Dee" in {row[3] for row in rows}
    empty = club.client.get(club.url("stats.csv", kind="ligretto"))
    assert list(csv.reader(io.StringIO(empty.text.removeprefix("\ufeff")))) == [columns]
    thirty_one = club.client.get(club.url("stats.csv", kind="lives")).text
    assert list(csv.reader(io.StringIO(thirty_one.removeprefix("\ufeff"))))[1][9:11] == ["", ""]  # nulls


@pytest.mark.parametrize("what", ["stats", "head-to-head", "stats.csv"])
def test_an_unknown_table_is_a_404_problem(client: TestClient, what: str):
    body = assert_problem(client.get(f"{API}/tables/nosuchtable/{what}"), 404)
    assert "nosuchtable" in body["detail"]


@pytest.mark.parametrize("what", ["stats", "head-to-head", "stats.csv"])
@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("from=yesterday", "from"),
        ("from=2026-11-06T20:00:00", "from"),  # no timezone
        ("to=2026-11-06", "to"),  # a date alone has none either
        ("from=1762459200", "from"),  # a number of seconds is not ISO 8601
        ("from=", "from"),
        ("from=0001-01-01T00:00:00%2B01:00", "from"),  # before the first moment UTC can hold (was a 500)
        ("to=9999-12-31T23:59:59-01:00", "to"),  # after the last one
        ("from=2026-11-06T20:00:00Z&to=2026-11-06T20:00:00Z", "to"),  # an empty period
        ("from=2026-11-07T00:00:00Z&to=2026-11-06T00:00:00Z", "to"),
        ("kind=poker", "kind"),
        ("kind=Dutch", "kind"),
        ("since=2026-11-06T20:00:00Z", "since"),  # not ignored: the client meant a period
    ],
)
def test_a_bad_period_or_kind_is_a_422_naming_the_field(client: TestClient, app: FastAPI, what, query, field):
    table = Table(client, app, ["Ana", "Ben"])
    body = assert_problem(client.get(f"{API}/tables/{table.id}/{what}?{query}"), 422)
    assert [e["field"] for e in body["errors"]] == [field]


def test_a_table_with_more_games_than_are_named_in_the_queries_gets_the_same_figures(club: Table, monkeypatch):
    """Up to NAMED_GAMES the queries list the games that count (the planner then looks their rows up by
    index); past it they find them with a subquery. Both give the same figures."""
    monkeypatch.setattr("app.tables.standings.NAMED_GAMES", 2)
    assert club.stats()["groups"] == expected_stats(club.games())
    people, pairs = expected_head_to_head(club.games())
    assert club.head_to_head()["pairs"] == pairs and club.head_to_head()["people"] == people
    period = {"from": WEEK_TWO, "to": WEEK_THREE}  # two games: named again
    since, until = datetime.fromisoformat(WEEK_TWO), datetime.fromisoformat(WEEK_THREE)
    assert club.stats(**period)["groups"] == expected_stats(club.games(), since=since, until=until)


def test_a_period_without_games_has_no_groups_and_no_pairs(club: Table):
    empty = {"from": "2030-01-01T00:00:00Z"}
    assert club.stats(**empty)["groups"] == []
    assert (club.head_to_head(**empty)["people"], club.head_to_head(**empty)["pairs"]) == ([], [])


def test_the_figures_take_a_fixed_number_of_queries_however_many_games(club: Table):
    """Aggregates in the database: the games are not loaded one by one (nor their rounds)."""
    counts = []
    for extra in (0, 3):
        for n in range(extra):
            game = club.start(["Ana", "Dee"], DUTCH_BLITZ)
            game.cards(Ana=(40, 0), Dee=(0, 10))
            game.cards(Ana=(40, 0), Dee=(0, 10))
            game.finished_at(NIGHT + timedelta(days=21, hours=n))
        with statements(club.app) as seen:
            club.stats()
            club.head_to_head()
        counts.append(sum(statement.startswith("SELECT") for statement in seen))
    # Each: the table, the games that count; the games' figures, the rounds' figures, the names; the pairs,
    # the people.
    assert counts == [9, 9], counts


# --- a property: random games, the same figures ------------------------------------------------------------

NAMES = ["Ana", "Ben", "Cy", "Dee"]


@st.composite
def a_round(draw: st.DrawFn, preset: str, players: list[str]) -> dict[str, Any]:
    """A valid round; often one where everyone has the same cards or hand, so totals tie (shared wins)."""
    alike = draw(st.booleans())
    if preset == "dutch_blitz":
        if alike:
            return {"cards": dict.fromkeys(players, (draw(st.integers(0, 40)), 0))}
        out = draw(st.sampled_from(players))
        counts = {}
        for name in players:
            blitz = 0 if name == out else draw(st.integers(0, 10))
            counts[name] = (draw(st.integers(0, 40 - blitz)), blitz)
        return {"cards": counts}
    high = 31 if preset == "thirty_one" else 60
    if alike:
        return {"hands": dict.fromkeys(players, draw(st.integers(0, high))), "who": None}
    hands = {name: draw(st.integers(0, high)) for name in players}
    return {"hands": hands, "who": draw(st.none() | st.sampled_from(players))}


@st.composite
def a_game(draw: st.DrawFn) -> dict[str, Any]:
    preset = draw(st.sampled_from(["dutch_blitz", "dutch", "thirty_one"]))
    players = draw(st.permutations(NAMES))[: draw(st.integers(2, len(NAMES)))]
    rules: dict[str, Any] = {"preset": preset}
    if preset == "thirty_one":
        rules |= {"lives": draw(st.integers(1, 2)), "county": draw(st.booleans())}
    else:  # a low target, so games end within a few rounds
        rules |= {"target": draw(st.integers(20, 60)), "tie_break": draw(st.sampled_from(["play_on", "shared"]))}
    return {"rules": rules, "players": players}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data(), games=st.lists(a_game(), min_size=1, max_size=4))
def test_random_games_give_the_figures_of_their_rounds(client: TestClient, app: FastAPI, data: st.DataObject, games):
    table = Table(client, app, NAMES)
    for index, spec in enumerate(games):
        game = table.start(spec["players"], spec["rules"])
        preset = spec["rules"]["preset"]
        for _ in range(12):  # most games end sooner; one that doesn't stays unfinished and must not count
            state = client.get(f"{API}/games/{game.id}").json()
            if state["status"] == "finished":
                break
            playing = [p["name"] for p in state["players"] if not p.get("out")]
            drawn = data.draw(a_round(preset, playing), label="round")
            if "cards" in drawn:
                game.cards(**drawn["cards"])
            else:
                game.hands(drawn["who"], **drawn["hands"])
        game.finished_at(NIGHT + timedelta(hours=data.draw(st.integers(0, 3), label="hour"), minutes=index))
    everything = table.games()
    for game, _ in everything:  # --hypothesis-show-statistics: how often each game ended, and shared
        event(f"{game['rules']['preset']} {game['status']}" + (" shared" if len(game["winners"]) > 1 else ""))
    assert table.stats()["groups"] == expected_stats(everything)
    people, pairs = expected_head_to_head(everything)
    assert table.head_to_head() == {
        "table_id": table.id,
        "from": None,
        "to": None,
        "kind": None,
        "people": people,
        "pairs": pairs,
    }
    since = NIGHT + timedelta(hours=1)
    assert table.stats(**{"from": iso(since)})["groups"] == expected_stats(everything, since=since)
