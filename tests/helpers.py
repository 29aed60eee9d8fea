"""What many test modules share: the worked example, a game played through the API, the databases,
problem+json checks, parsed pages, the browser-side form helpers and bounded waits for real servers.

Fixtures live in conftest.py; everything a test module imports comes from here (or tests/servers.py
for server processes), never from another test module.
"""

from __future__ import annotations

import gettext
import os
import re
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import lxml.html
from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, func, update
from sqlmodel import Session, select

from app.config import Settings
from app.main import create_app
from app.migrations import upgrade
from app.models import Game, GameResult, Round

API = "/api/v1"
PROBLEM_JSON = "application/problem+json"
MAX_BODY = 64 * 1024
EVIL = "https://evil.example"

# The worked example of the rules (docs/rules.md, "A worked example"): scores before the round, then the round itself.
WORKED_EXAMPLE_PLAYERS = [
    {"name": "Ana", "starting_score": 58},
    {"name": "Ben", "starting_score": 70},
    {"name": "Cy", "starting_score": 30},
    {"name": "Dee", "starting_score": 20},
]
WORKED_EXAMPLE_ROUND = [(22, 0), (14, 3), (11, 5), (9, 7)]  # (dutch, blitz) per player, in seat order

# A valid round for any game of the worked example's four players that has not reached its target.
SMALL_ROUND = [(3, 0), (2, 4), (1, 6), (0, 8)]


# --- the databases -----------------------------------------------------------------------------------

# The suite runs on SQLite by default, and on PostgreSQL when this is set (scripts/test does both).
# Each run makes databases of its own (blitzboard_test_<random>) and drops them at the end.
POSTGRES_URL = os.environ.get("BLITZBOARD_TEST_POSTGRES_URL", "")


def on_postgres() -> bool:
    return bool(POSTGRES_URL)


def missing_tool(reason: str) -> None:
    """A program a test needs (Chromium, pg_dump) is not installed: skipped with the reason, or failed
    where every test must run (BLITZBOARD_REQUIRE_TOOLS=1: CI)."""
    import pytest

    if os.environ.get("BLITZBOARD_REQUIRE_TOOLS") == "1":
        pytest.fail(reason + " (BLITZBOARD_REQUIRE_TOOLS=1)")
    pytest.skip(reason)


def pg_connect(database: str | None = None):
    """An autocommit connection to the run's PostgreSQL server: its own database, or `database`."""
    import psycopg

    url = POSTGRES_URL if database is None else urlunsplit(urlsplit(POSTGRES_URL)._replace(path=f"/{database}"))
    return psycopg.connect(url, autocommit=True)


def create_pg_database(template: str | None = None) -> str:
    """A new database, empty or a copy of `template` (a database nobody is connected to)."""
    name = f"blitzboard_test_{secrets.token_hex(6)}"
    with pg_connect() as admin:
        admin.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return urlunsplit(urlsplit(POSTGRES_URL)._replace(path=f"/{name}"))


def drop_pg_database(url: str) -> None:
    with pg_connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{urlsplit(url).path.lstrip("/")}" WITH (FORCE)')


def limited_app(database_url: str, **limits: int) -> FastAPI:
    """An app with some settings (limits) of its own, on a migrated database."""
    app = create_app(Settings(database_url=database_url, _env_file=None, **limits))
    upgrade(app.state.engine)
    return app


def count_games(app: FastAPI) -> int:
    with Session(app.state.engine) as session:
        return session.exec(select(func.count()).select_from(Game)).one()


# --- the API ---------------------------------------------------------------------------------------


class GameHandle:
    """A game created through the API, with its key, for tests that play it."""

    def __init__(self, client: TestClient, body: dict[str, Any]):
        self.client = client
        self.body = body
        self.id: str = body["id"]
        self.key: str = body["edit_key"]
        self.player_ids: list[int] = [p["id"] for p in body["players"]]

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def scores(self, counts: list[tuple[int, int]]) -> dict[str, Any]:
        return round_body(self.player_ids, counts)

    def add_round(self, counts: list[tuple[int, int]], **headers: str):
        return self.client.post(
            f"/api/v1/games/{self.id}/rounds", json=self.scores(counts), headers=self.auth | headers
        )

    def get(self) -> dict[str, Any]:
        response = self.client.get(f"/api/v1/games/{self.id}")
        assert response.status_code == 200, response.text
        return response.json()


def game_url(game_id: str, suffix: str = "") -> str:
    return f"{API}/games/{game_id}{suffix}"


def round_body(player_ids: list[int], counts: list[tuple[int, int]]) -> dict[str, Any]:
    return {
        "scores": [
            {"player_id": pid, "dutch": dutch, "blitz": blitz}
            for pid, (dutch, blitz) in zip(player_ids, counts, strict=True)
        ]
    }


def assert_problem(response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].split(";")[0].strip() == PROBLEM_JSON
    body = response.json()
    assert {"type", "title", "status", "detail"} <= body.keys()
    assert body["status"] == status
    assert isinstance(body["type"], str) and body["type"]
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    if status == 422:
        assert isinstance(body["errors"], list) and body["errors"]
        for error in body["errors"]:
            assert set(error) >= {"field", "message"}
            assert isinstance(error["field"], str) and error["field"]
            assert isinstance(error["message"], str) and error["message"]
    return body


# --- a pseudo-language ---------------------------------------------------------------------------

PSEUDO = "qps"  # a private-use-looking tag no browser sends
OPEN, CLOSE = "⟦", "⟧"


class Marked(gettext.NullTranslations):
    """A language whose every translated text is wrapped in ⟦…⟧ (placeholders kept, so pages still
    fill them in): text that skipped the catalogs stands out. The `pseudo` fixture registers it."""

    def gettext(self, message: str) -> str:
        return OPEN + message + CLOSE

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return OPEN + (singular if n == 1 else plural) + CLOSE

    def pgettext(self, context: str, message: str) -> str:
        return OPEN + message + CLOSE

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return self.ngettext(singular, plural, n)


# --- the pages -------------------------------------------------------------------------------------


def parse(text: str) -> BeautifulSoup:
    """A page parsed: a whole document by lxml's parser (the same tree for the pages we serve, about ten
    times faster than Python's own, which was three quarters of the hostile-names tests' time); a
    fragment (an htmx answer) by Python's, which adds no <html> or <body> around it."""
    whole = text.lstrip()[:9].lower() == "<!doctype"
    return BeautifulSoup(text, "lxml" if whole else "html.parser")


def html(response: httpx.Response) -> BeautifulSoup:
    assert response.headers["content-type"].startswith("text/html"), response.headers
    return parse(response.text)


def text_of(node: Tag | None) -> str:
    assert node is not None
    return " ".join(node.get_text(" ", strip=True).split())


def claim(browser_: TestClient, game_id: str, key: str) -> httpx.Response:
    """Open the edit link the way a browser does: it keeps the cookie and does not show the key's URL."""
    response = browser_.get(f"/g/{game_id}/edit/{key}", follow_redirects=False)
    assert response.status_code == 303, response.text
    return response


def csrf_of(browser_: TestClient, game_id: str) -> str:
    """The CSRF token the scorekeeper's page gives this browser's forms."""
    page = browser_.get(f"/g/{game_id}/score")
    assert page.headers["content-type"].startswith("text/html"), page.headers
    # lxml's own tree, not BeautifulSoup's: many tests ask for a token, and this is ten times cheaper.
    tokens = {str(value) for value in lxml.html.fromstring(page.text).xpath('//form//input[@name="csrf"]/@value')}
    assert len(tokens) == 1, tokens
    return tokens.pop()


def form_data(form: Tag) -> dict[str, str]:
    """What a browser without JavaScript submits for this form: its inputs and textareas, unchecked boxes
    and radios left out (and no submit button's own name and value)."""
    data: dict[str, str] = {}
    for field in form.select("input[name], textarea[name]"):
        if field.get("type") in ("radio", "checkbox") and not field.has_attr("checked"):
            continue
        data[str(field["name"])] = field.get_text() if field.name == "textarea" else str(field.get("value", ""))
    return data


def round_form(player_ids: Sequence[int | str], counts: Sequence[tuple[Any, Any]], csrf: str) -> dict[str, str]:
    """A Dutch Blitz round as the round form posts it: the token, then each player's (dutch, blitz) counts."""
    data = {"csrf": csrf}
    for pid, (dutch, blitz) in zip(player_ids, counts, strict=True):
        data[f"dutch-{pid}"] = str(dutch)
        data[f"blitz-{pid}"] = str(blitz)
    return data


# --- real servers under load -------------------------------------------------------------------------

REQUEST_TIMEOUT = httpx.Timeout(60.0)
ALL_DONE_TIMEOUT_S = 300.0
SERVER_LOG_FAILURES = ("database is locked", "Traceback", "Exception in ASGI application")


def all_at_once(count: int, work: Callable[[int, threading.Barrier], Any]) -> list[Any]:
    """Run work(i) for i in range(count) on `count` threads released together; bounded in time."""
    barrier = threading.Barrier(count, timeout=60)
    with ThreadPoolExecutor(max_workers=count) as pool:
        futures = [pool.submit(work, i, barrier) for i in range(count)]
        return [future.result(timeout=ALL_DONE_TIMEOUT_S) for future in futures]


# --- counting the queries a request makes --------------------------------------------------------


@contextmanager
def statements(app: FastAPI) -> Iterator[list[str]]:
    seen: list[str] = []

    def note(_conn, _cursor, statement, *_args) -> None:
        seen.append(" ".join(statement.split()))

    event.listen(app.state.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(app.state.engine, "before_cursor_execute", note)


def reads_of(seen: list[str], table: str) -> int:
    """SELECTs whose FROM names `table` (the game row, or its players: one each per load of a game)."""
    pattern = re.compile(rf"^SELECT .* FROM {table}\b(?! *_)", re.IGNORECASE)
    return sum(1 for statement in seen if pattern.search(statement))


def v1_rules(body: dict) -> dict:
    """The rules as a client written before game kinds reads them: their four fields, unchanged. The
    answer adds `kind`, `preset` and the other parameters of the kind (new fields, never in their way)."""
    rules = body["rules"]
    assert (rules["kind"], rules["preset"]) == ("cards", "dutch_blitz")
    return {name: rules[name] for name in ("target", "dutch_points", "blitz_points", "tie_break")}


# --- a table's figures, worked out from its games' rounds ----------------------------------------------
# For the tests of the pages that show app.tables.standings' figures: the same figures from each finished game as
# `GET /api/v1/games/{id}` answers it (its rounds' points, winners and ranks), never from app.tables.standings.


def table_figures(games: list[tuple[dict[str, Any], Any]]) -> dict[str, dict[int, dict[str, Any]]]:
    """Per preset and person: games, wins, shared, rounds, win_rate, average, best, highest, lowest, calls,
    cards_left, streak and the game's kind. `games`: each game's answer and when it finished (anything
    that orders; the game's id breaks a tie, as app.tables.standings' streak does); unfinished games don't count."""
    found: dict[str, dict[int, dict[str, Any]]] = {}
    for game, _at in sorted(games, key=lambda g: (g[1], g[0]["id"])):
        if game["status"] != "finished":
            continue
        kind, preset = game["rules"]["kind"], game["rules"]["preset"]
        for player in game["players"]:
            mine = [(r, s) for r in game["rounds"] for s in r["scores"] if s["player_id"] == player["id"]]
            won = player["id"] in game["winners"]
            f = found.setdefault(preset, {}).setdefault(
                player["person_id"],
                {"name": player["name"], "kind": kind, "games": 0, "wins": 0, "shared": 0, "rounds": 0, "calls": 0}
                | {"points": [], "left": [], "totals": [], "won": []},
            )
            f["games"] += 1
            f["wins"] += won
            f["shared"] += won and len(game["winners"]) > 1
            f["rounds"] += len(mine)
            f["totals"].append(player["total"])
            f["won"].append(won)
            if kind != "lives":
                f["points"] += [s["points"] for _, s in mine]
            if kind == "cards":
                f["left"] += [s["blitz"] for _, s in mine]
                f["calls"] += sum(s["blitz"] == 0 for _, s in mine)
            else:
                f["calls"] += sum(r.get("caller", r.get("knocker")) == player["id"] for r, _ in mine)
    for people in found.values():
        for f in people.values():
            f["win_rate"] = f["wins"] / f["games"]
            f["average"] = sum(f["points"]) / len(f["points"]) if f["points"] else None
            best = {"cards": max, "lowest": min}.get(f["kind"])
            f["best"] = best(f["points"]) if best and f["points"] else None
            f["highest"], f["lowest"] = max(f["totals"]), min(f["totals"])
            f["cards_left"] = sum(f["left"]) / len(f["left"]) if f["left"] else None
            f["streak"] = next((n for n, won in enumerate(reversed(f["won"])) if not won), len(f["won"]))
    return found


def standings_order(people: dict[int, dict[str, Any]]) -> list[int]:
    """The people of one game's standings in the order they are listed: wins, win rate, name."""
    return sorted(people, key=lambda p: (-people[p]["wins"], -people[p]["win_rate"], people[p]["name"].casefold(), p))


def table_pairs(games: list[tuple[dict[str, Any], Any]]) -> dict[tuple[int, int], dict[str, int]]:
    """For every two people who finished a game together, both ways round, (me, other): the games, how
    often `me` finished ahead (a better place: every winner is first, then the ranks), behind, level."""
    pairs: dict[tuple[int, int], dict[str, int]] = {}
    for game, _at in games:
        if game["status"] != "finished":
            continue
        places = {p["person_id"]: 1 if p["id"] in game["winners"] else p["rank"] for p in game["players"]}
        for me, mine in places.items():
            for other, theirs in places.items():
                if me != other:
                    pair = pairs.setdefault((me, other), {"games": 0, "ahead": 0, "behind": 0, "level": 0})
                    pair["games"] += 1
                    pair["ahead" if mine < theirs else "behind" if mine > theirs else "level"] += 1
    return pairs


# --- a table's games played through the API, placed in time (tests of standings and their pages) ---------


class PlayedTable:
    """A table made through the API, with games started at it; each game is placed in time once played
    (`PlayedGame.finished_at`), and `games()` answers them as the game API does, with that moment."""

    def __init__(self, client: TestClient, app: FastAPI, names: list[str], name: str = "Millers"):
        created = client.post(f"{API}/tables", json={"name": name, "people": [{"name": n} for n in names]})
        assert created.status_code == 201, created.text
        self.client, self.app = client, app
        self.id: str = created.json()["id"]
        self.key: str = created.json()["edit_key"]
        self.auth = {"Authorization": f"Bearer {self.key}"}
        self.people = {p["name"]: p["id"] for p in created.json()["people"]}
        self.played: list[tuple[PlayedGame, datetime]] = []  # each game and when it finished, as placed

    def start(self, players: list[str | tuple[str, int]], rules: dict[str, Any]) -> PlayedGame:
        body = {
            "players": [{"name": p} if isinstance(p, str) else {"name": p[0], "starting_score": p[1]} for p in players],
            "table_id": self.id,
            "rules": rules,
        }
        created = self.client.post(f"{API}/games", json=body, headers=self.auth)
        assert created.status_code == 201, created.text
        return PlayedGame(self, created.json())

    def games(self) -> list[tuple[dict[str, Any], datetime]]:
        """Every game placed in time, as the game API answers it, with when it finished."""
        return [(self.client.get(f"{API}/games/{game.id}").json(), at) for game, at in self.played]

    def since(self, moment: datetime | None) -> list[tuple[dict[str, Any], datetime]]:
        return [(game, at) for game, at in self.games() if moment is None or at >= moment]


class PlayedGame:
    def __init__(self, table: PlayedTable, body: dict[str, Any]):
        self.table, self.id = table, body["id"]
        self.auth = {"Authorization": f"Bearer {body['edit_key']}"}
        self.ids = {p["name"]: p["id"] for p in body["players"]}
        self.preset: str = body["rules"]["preset"]

    def cards(self, **counts: tuple[int, int]) -> dict[str, Any]:
        scores = [{"player_id": self.ids[name], "dutch": d, "blitz": b} for name, (d, b) in counts.items()]
        return self.post({"scores": scores})

    def hands(self, who: str | None = None, **hands: int) -> dict[str, Any]:
        """A Dutch or 31 round: each hand, and who called Dutch or knocked (the game's kind says which)."""
        body: dict[str, Any] = {"scores": [{"player_id": self.ids[n], "hand": h} for n, h in hands.items()]}
        if who is not None:
            body["knocker" if self.preset == "thirty_one" else "caller"] = self.ids[who]
        return self.post(body)

    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.table.client.post(f"{API}/games/{self.id}/rounds", json=body, headers=self.auth)
        assert answer.status_code == 201, answer.text
        return answer.json()

    def finished_at(self, moment: datetime) -> None:
        """Place the game in time: its rounds saved (and so the game finished) at `moment`."""
        with Session(self.table.app.state.engine) as session:
            session.exec(update(Round).where(Round.game_id == self.id).values(created_at=moment))  # type: ignore[call-overload]
            session.exec(update(GameResult).where(GameResult.game_id == self.id).values(finished_at=moment))  # type: ignore[call-overload]
            session.commit()
        self.table.played.append((self, moment))


def unlimited_settings(database_url: str) -> Settings:
    """Many tables and games from one address in a few seconds: no rate limit in the way."""
    return Settings(database_url=database_url, tune_gc=False, _env_file=None, games_per_minute=1_000_000)
