"""Reliability under load, crashes and retry storms, against real server processes on the loopback address.

Each test runs uvicorn in a process of its own on a migrated database of its own (a SQLite file, or
a PostgreSQL database in the PostgreSQL pass), as in production. What the server answered is
compared with what the database holds, read directly rather than through the API, so a round that
is half-written or stored twice cannot hide behind the scoring code.

Every wait has a timeout and every loop a fixed count; nothing measures time.

The live part of the reliability suite (a view that was offline while rounds were saved shows the
latest state once it is back) is covered by tests/http/test_live.py
(test_a_client_that_was_away_catches_up_on_reconnect, at the event-stream level) and by
tests/browser/test_browser_live.py (test_the_view_catches_up_after_going_offline, in Chromium).
"""

from __future__ import annotations

import signal
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.db import is_sqlite, make_engine
from tests.helpers import REQUEST_TIMEOUT, SERVER_LOG_FAILURES, all_at_once
from tests.servers import Server, running_server, start_server

pytestmark = pytest.mark.server

PLAYERS = [{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}]
TARGET = 10_000  # far out of reach: no game ends, so no round is refused for that
WAIT_S = 120.0  # the bound on every wait for threads or for the load to reach a point

Signature = tuple[int, int]  # (Ana's Dutch cards, Ben's Dutch cards): which writer sent a round, and which


# --- helpers -------------------------------------------------------------------------------------


@dataclass
class ApiGame:
    id: str
    auth: dict[str, str]
    player_ids: list[int]


def create_game(server: Server, name: str = "") -> ApiGame:
    body = {"name": name, "players": PLAYERS, "rules": {"target": TARGET}}
    response = httpx.post(f"{server.url}/api/v1/games", json=body, timeout=REQUEST_TIMEOUT)
    assert response.status_code == 201, response.text
    game = response.json()
    return ApiGame(game["id"], {"Authorization": f"Bearer {game['edit_key']}"}, [p["id"] for p in game["players"]])


def round_body(game: ApiGame, writer: int, index: int) -> dict[str, Any]:
    """A valid round whose counts say who sent it: Ana's Dutch cards the writer, Ben's its index."""
    ana, ben, cy = game.player_ids
    return {
        "scores": [
            {"player_id": ana, "dutch": writer, "blitz": 0},
            {"player_id": ben, "dutch": index, "blitz": 0},
            {"player_id": cy, "dutch": 0, "blitz": 5},
        ]
    }


@dataclass
class StoredGame:
    version: int
    player_ids: set[int]
    # One entry per stored round, in the order stored: {player id: (dutch, blitz)}.
    rounds: list[dict[int, tuple[int, int]]] = field(default_factory=list)

    def signatures(self, game: ApiGame) -> list[Signature]:
        ana, ben, _ = game.player_ids
        return [(r[ana][0], r[ben][0]) for r in self.rounds]


def stored_games(database_url: str) -> dict[str, StoredGame]:
    """Every game, player, round and score as the database holds them (read straight from the tables)."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            games = {
                game_id: StoredGame(version, set())
                for game_id, version in connection.exec_driver_sql("SELECT id, version FROM game")
            }
            for player_id, game_id in connection.exec_driver_sql("SELECT id, game_id FROM player"):
                games[game_id].player_ids.add(player_id)
            rounds: dict[int, dict[int, tuple[int, int]]] = {}
            for round_id, game_id in connection.exec_driver_sql("SELECT id, game_id FROM round ORDER BY id"):
                rounds[round_id] = {}
                games[game_id].rounds.append(rounds[round_id])
            orphans = []
            for round_id, player_id, dutch, blitz in connection.exec_driver_sql(
                "SELECT round_id, player_id, dutch, blitz FROM round_score"
            ):
                if round_id in rounds:
                    rounds[round_id][player_id] = (dutch, blitz)
                else:
                    orphans.append(round_id)
    finally:
        engine.dispose()
    assert orphans == [], f"scores of rounds that do not exist: {orphans}"
    return games


def assert_consistent(games: dict[str, StoredGame]) -> None:
    """Nothing half-written: each round has a score for every player, and one version per change."""
    for game_id, game in games.items():
        for number, round_ in enumerate(game.rounds, start=1):
            assert set(round_) == game.player_ids, f"game {game_id} round {number} is partial: {round_}"
        # Each round was one change, and every change bumps the version in the same transaction.
        assert game.version == 1 + len(game.rounds), (game_id, game.version, len(game.rounds))


def assert_clean_log(server: Server) -> None:
    log = server.output()
    for failure in SERVER_LOG_FAILURES:
        assert failure not in log, log[-4000:]


def sqlite_path(database_url: str) -> Path:
    return Path(database_url.removeprefix("sqlite:///"))


def sqlite_integrity(database_url: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """PRAGMA integrity_check and foreign_key_check on a raw connection (the server must be stopped)."""
    connection = sqlite3.connect(sqlite_path(database_url), timeout=10)
    try:
        integrity = [row[0] for row in connection.execute("PRAGMA integrity_check")]
        foreign_keys = connection.execute("PRAGMA foreign_key_check").fetchall()
    finally:
        connection.close()
    return integrity, foreign_keys


@pytest.fixture
def server(server_database_url: str, tmp_path: Path) -> Iterator[Server]:
    with running_server(server_database_url, tmp_path / "server.log") as running:
        yield running


# --- 1. many writers on several games ------------------------------------------------------------

WRITERS = 32
GAMES = 4  # writer w plays game w % GAMES: 8 writers a game
ROUNDS_PER_WRITER = 6


def test_concurrent_writers_on_several_games_store_each_acknowledged_round_once(
    server: Server, server_database_url: str
):
    games = [create_game(server, f"Table {g}") for g in range(GAMES)]

    def writer(w: int, barrier: threading.Barrier) -> list[tuple[Signature, int, str]]:
        game = games[w % GAMES]
        url = f"{server.url}/api/v1/games/{game.id}/rounds"
        answers = []
        with httpx.Client(timeout=REQUEST_TIMEOUT) as http:
            barrier.wait()
            for index in range(ROUNDS_PER_WRITER):
                try:
                    response = http.post(url, json=round_body(game, w, index), headers=game.auth)
                except httpx.TransportError as error:  # counted as a failure below, with the server's log
                    answers.append(((w, index), 0, f"{type(error).__name__}: {error}"))
                    continue
                answers.append(((w, index), response.status_code, response.text))
        return answers

    answers = [answer for per_writer in all_at_once(WRITERS, writer) for answer in per_writer]

    statuses = Counter(status for _, status, _ in answers)
    assert not [a for a in answers if a[1] >= 500], (statuses, server.output()[-4000:])
    assert not [a for a in answers if "database is locked" in a[2]]
    assert statuses == {201: WRITERS * ROUNDS_PER_WRITER}, (statuses, server.output()[-4000:])
    assert server.process.poll() is None, "the server died"
    assert_clean_log(server)

    stored = stored_games(server_database_url)
    assert_consistent(stored)
    acknowledged = {signature for signature, status, _ in answers if status == 201}
    all_stored: list[Signature] = []
    for g, game in enumerate(games):
        signatures = stored[game.id].signatures(game)
        all_stored += signatures
        # Only this game's writers' rounds are in it, and its version counts each of them once.
        assert {w % GAMES for w, _ in signatures} <= {g}
        assert stored[game.id].version == 1 + len(signatures)
        # The API serves the same rounds the tables hold.
        served = httpx.get(f"{server.url}/api/v1/games/{game.id}", timeout=REQUEST_TIMEOUT).json()
        assert served["version"] == stored[game.id].version
        assert served["status"] == "playing"
        assert [(r["scores"][0]["dutch"], r["scores"][1]["dutch"]) for r in served["rounds"]] == signatures
    duplicates = [s for s, n in Counter(all_stored).items() if n > 1]
    assert duplicates == []
    assert set(all_stored) == acknowledged


# --- 2. kill -9 in the middle of a write load ----------------------------------------------------

CRASH_WRITERS = 8
CRASH_GAMES = 2
CRASH_MAX_ROUNDS = 200  # per writer: far more than get sent before the kill, but a bound
KILL_AFTER_ACKNOWLEDGED = 40


@dataclass
class CrashLoad:
    """What the writers sent and what the server acknowledged, shared between their threads."""

    games: list[ApiGame]
    lock: threading.Lock = field(default_factory=threading.Lock)
    enough: threading.Event = field(default_factory=threading.Event)
    acknowledged: dict[Signature, str] = field(default_factory=dict)  # -> Idempotency-Key
    unanswered: dict[Signature, str] = field(default_factory=dict)  # sent (or about to be) when the server died
    refused: list[tuple[Signature, int, str]] = field(default_factory=list)
    finished: list[int] = field(default_factory=list)  # writers that sent every round: the kill came too late

    def game_of(self, writer: int) -> ApiGame:
        return self.games[writer % len(self.games)]

    def writer(self, w: int, server: Server) -> None:
        game = self.game_of(w)
        url = f"{server.url}/api/v1/games/{game.id}/rounds"
        with httpx.Client(timeout=REQUEST_TIMEOUT) as http:
            for index in range(CRASH_MAX_ROUNDS):
                key = f"crash-{w}-{index}"
                try:
                    response = http.post(
                        url, json=round_body(game, w, index), headers=game.auth | {"Idempotency-Key": key}
                    )
                except httpx.TransportError:
                    with self.lock:
                        self.unanswered[(w, index)] = key
                    return  # the server is gone
                with self.lock:
                    if response.status_code == 201:
                        self.acknowledged[(w, index)] = key
                        if len(self.acknowledged) >= KILL_AFTER_ACKNOWLEDGED:
                            self.enough.set()
                    else:
                        self.refused.append(((w, index), response.status_code, response.text))
                        self.enough.set()  # nothing to wait for: the test fails on it below
                        return
        with self.lock:
            self.finished.append(w)
            self.enough.set()


def test_kill_9_during_a_write_load_loses_no_acknowledged_round(server_database_url: str, tmp_path: Path):
    first = start_server(server_database_url, tmp_path / "before-the-kill.log")
    try:
        load = CrashLoad([create_game(first, f"Crash {g}") for g in range(CRASH_GAMES)])
        with ThreadPoolExecutor(max_workers=CRASH_WRITERS) as pool:
            futures = [pool.submit(load.writer, w, first) for w in range(CRASH_WRITERS)]
            assert load.enough.wait(WAIT_S), "the write load did not get going"
            first.stop(signal.SIGKILL)  # kill -9, with requests in flight
            for future in futures:
                future.result(timeout=WAIT_S)
    finally:
        first.stop(signal.SIGKILL)

    assert first.process.returncode == -signal.SIGKILL
    assert load.refused == [], load.refused
    assert load.finished == [], "the load was over before the kill"
    assert len(load.acknowledged) >= KILL_AFTER_ACKNOWLEDGED
    assert len(load.unanswered) == CRASH_WRITERS  # every writer was cut off by the kill
    before = first.output()
    assert "database is locked" not in before and "Traceback" not in before, before[-4000:]

    def stored_signatures(stored: dict[str, StoredGame]) -> Counter[Signature]:
        return sum((Counter(stored[game.id].signatures(game)) for game in load.games), Counter())

    with running_server(server_database_url, tmp_path / "after-the-kill.log") as second:
        # What survived the crash: every acknowledged round, once; of the rounds in flight, some or
        # none, each whole; nothing that was never sent.
        stored = stored_games(server_database_url)
        assert_consistent(stored)
        counts = stored_signatures(stored)
        assert [s for s, n in counts.items() if n > 1] == []
        assert set(load.acknowledged) <= set(counts), set(load.acknowledged) - set(counts)
        assert set(counts) <= set(load.acknowledged) | set(load.unanswered)
        for game in load.games:
            served = httpx.get(f"{second.url}/api/v1/games/{game.id}", timeout=REQUEST_TIMEOUT).json()
            assert served["version"] == stored[game.id].version
            assert len(served["rounds"]) == len(stored[game.id].rounds)

        # The clients whose answers were lost retry with the same Idempotency-Key: a round that was
        # committed before the kill is answered again, not stored again.
        for (w, index), key in sorted(load.unanswered.items()):
            game = load.game_of(w)
            response = httpx.post(
                f"{second.url}/api/v1/games/{game.id}/rounds",
                json=round_body(game, w, index),
                headers=game.auth | {"Idempotency-Key": key},
                timeout=REQUEST_TIMEOUT,
            )
            assert response.status_code == 201, response.text
            was_stored = (w, index) in counts
            assert (response.headers.get("Idempotent-Replayed") == "true") == was_stored
        # A retry of an acknowledged round changes nothing either.
        (w, index), key = min(load.acknowledged.items())
        game = load.game_of(w)
        retry = httpx.post(
            f"{second.url}/api/v1/games/{game.id}/rounds",
            json=round_body(game, w, index),
            headers=game.auth | {"Idempotency-Key": key},
            timeout=REQUEST_TIMEOUT,
        )
        assert retry.status_code == 201 and retry.headers.get("Idempotent-Replayed") == "true"

        after = stored_games(server_database_url)
        assert_consistent(after)
        assert stored_signatures(after) == Counter(set(load.acknowledged) | set(load.unanswered))
        assert_clean_log(second)

    if is_sqlite(server_database_url):
        integrity, foreign_keys = sqlite_integrity(server_database_url)
        assert integrity == ["ok"]
        assert foreign_keys == []


# --- 3. retry storms: one Idempotency-Key sent 50 times at once ------------------------------------

STORM = 50


def storm(count: int, send) -> list[httpx.Response | str]:
    """send(http) from `count` threads released together; a failed request is kept as its error."""

    def one(_: int, barrier: threading.Barrier) -> httpx.Response | str:
        with httpx.Client(timeout=REQUEST_TIMEOUT) as http:
            barrier.wait()
            try:
                return send(http)
            except httpx.TransportError as error:
                return f"{type(error).__name__}: {error}"

    return all_at_once(count, one)


def test_one_idempotency_key_sent_50_times_at_once_stores_one_round(server: Server, server_database_url: str):
    game = create_game(server, "Storm")
    body = round_body(game, 7, 3)
    url = f"{server.url}/api/v1/games/{game.id}/rounds"

    answers = storm(STORM, lambda http: http.post(url, json=body, headers=game.auth | {"Idempotency-Key": "storm"}))

    failed = [a for a in answers if isinstance(a, str)]
    assert failed == [], failed  # on the loopback address every request completes
    responses = [a for a in answers if isinstance(a, httpx.Response)]
    assert Counter(r.status_code for r in responses) == {201: STORM}, [
        r.text for r in responses if r.status_code != 201
    ]
    assert all(r.json() == responses[0].json() for r in responses)
    assert {r.headers["ETag"] for r in responses} == {'"2"'}
    # One request did the work; every other one was answered from what it stored.
    assert Counter(r.headers.get("Idempotent-Replayed") for r in responses) == {None: 1, "true": STORM - 1}
    assert_clean_log(server)

    stored = stored_games(server_database_url)
    assert_consistent(stored)
    assert stored[game.id].signatures(game) == [(7, 3)]
    assert stored[game.id].version == 2  # up by exactly one


def test_one_idempotency_key_sent_50_times_at_once_creates_one_game(server_database_url: str, tmp_path: Path):
    body = {"name": "Storm", "players": PLAYERS, "rules": {"target": TARGET}}
    # The limit on new games counts requests; this test is about idempotency, so keep it out of reach.
    env = {"BLITZBOARD_GAMES_PER_MINUTE": str(10 * STORM)}
    with running_server(server_database_url, tmp_path / "server.log", env=env) as server:
        answers = storm(
            STORM,
            lambda http: http.post(f"{server.url}/api/v1/games", json=body, headers={"Idempotency-Key": "new-game"}),
        )
        failed = [a for a in answers if isinstance(a, str)]
        assert failed == [], failed
        responses = [a for a in answers if isinstance(a, httpx.Response)]
        assert Counter(r.status_code for r in responses) == {201: STORM}, [
            r.text for r in responses if r.status_code != 201
        ]
        first = responses[0].json()
        assert all(r.json() == first for r in responses)  # the same game, and the same edit key, for all
        assert Counter(r.headers.get("Idempotent-Replayed") for r in responses) == {None: 1, "true": STORM - 1}
        assert_clean_log(server)

        stored = stored_games(server_database_url)
        assert list(stored) == [first["id"]]
        assert len(stored[first["id"]].player_ids) == len(PLAYERS)
        assert_consistent(stored)

        # And the edit key all of them got works.
        game = ApiGame(
            first["id"], {"Authorization": f"Bearer {first['edit_key']}"}, [p["id"] for p in first["players"]]
        )
        response = httpx.post(
            f"{server.url}/api/v1/games/{game.id}/rounds",
            json=round_body(game, 1, 1),
            headers=game.auth,
            timeout=REQUEST_TIMEOUT,
        )
        assert response.status_code == 201, response.text
