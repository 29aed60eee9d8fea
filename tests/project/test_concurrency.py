"""Rounds posted at the same moment from many clients, against a real uvicorn server.

The server runs in a process of its own on a temporary, migrated SQLite file (or a PostgreSQL
database of its own when the suite runs on PostgreSQL), as in production: uvicorn's thread pool runs
the sync routes, so the requests really overlap. Each round must be stored exactly once, in one
definite order, with no "database is locked" and no 5xx. Every wait is bounded; nothing measures time.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import REQUEST_TIMEOUT, SERVER_LOG_FAILURES, all_at_once
from tests.servers import Server, running_server

pytestmark = pytest.mark.server

CLIENTS = 24
ROUNDS_PER_CLIENT = 5
SAME_KEY_RETRIES = 10


@pytest.fixture
def server(server_database_url: str, tmp_path: Path) -> Iterator[Server]:
    """uvicorn in a process of its own, on a migrated database of its own (a SQLite file by default)."""
    with running_server(server_database_url, tmp_path / "server.log") as running:
        yield running


def _create_game(server: Server, **extra: Any) -> tuple[str, dict[str, str], list[int]]:
    body = {"players": [{"name": "Ana"}, {"name": "Ben"}], "rules": {"target": 10_000}} | extra
    response = httpx.post(server.url + "/api/v1/games", json=body, timeout=REQUEST_TIMEOUT)
    assert response.status_code == 201, response.text
    game = response.json()
    return game["id"], {"Authorization": f"Bearer {game['edit_key']}"}, [p["id"] for p in game["players"]]


def _round(player_ids: list[int], client: int, number: int) -> dict[str, Any]:
    # Ana's Dutch cards say which client sent the round, Ben's which of its rounds it is.
    ana, ben = player_ids
    return {
        "scores": [
            {"player_id": ana, "dutch": client, "blitz": 0},
            {"player_id": ben, "dutch": number, "blitz": 0},
        ]
    }


def _signature(round_: dict[str, Any]) -> tuple[int, int]:
    ana, ben = round_["scores"]
    return ana["dutch"], ben["dutch"]


def _assert_healthy(server: Server) -> None:
    assert server.process.poll() is None, "the server died"
    log = server.output()
    for failure in SERVER_LOG_FAILURES:
        assert failure not in log, log[-4000:]


def test_concurrent_rounds_are_each_stored_once_in_one_order(server: Server):
    game_id, auth, player_ids = _create_game(server)
    url = f"{server.url}/api/v1/games/{game_id}/rounds"

    def one_client(client: int, barrier: threading.Barrier) -> list[tuple[int, int, dict[str, Any] | str]]:
        answers = []
        with httpx.Client(timeout=REQUEST_TIMEOUT) as http:
            barrier.wait()
            for number in range(ROUNDS_PER_CLIENT):
                try:
                    response = http.post(
                        url,
                        json=_round(player_ids, client, number),
                        headers=auth | {"Idempotency-Key": f"client-{client}-round-{number}"},
                    )
                except httpx.TransportError as error:  # counted as a failure below, with the server's log
                    answers.append((number, 0, f"{type(error).__name__}: {error}"))
                    continue
                is_json = response.headers.get("content-type", "").startswith("application/json")
                answers.append((number, response.status_code, response.json() if is_json else response.text))
        return answers

    per_client = all_at_once(CLIENTS, one_client)

    answers = [answer for client_answers in per_client for answer in client_answers]
    statuses = Counter(status for _, status, _ in answers)
    bodies = [body if isinstance(body, str) else str(body) for _, _, body in answers]
    assert not any("database is locked" in body for body in bodies)
    assert statuses == {201: CLIENTS * ROUNDS_PER_CLIENT}, (statuses, server.output()[-4000:])
    _assert_healthy(server)

    final = httpx.get(f"{server.url}/api/v1/games/{game_id}", timeout=REQUEST_TIMEOUT).json()
    rounds = final["rounds"]
    # Exactly as many rounds as 201 answers, each submitted round exactly once, numbered 1..N.
    assert len(rounds) == statuses[201]
    assert Counter(_signature(r) for r in rounds) == Counter(
        (client, number) for client in range(CLIENTS) for number in range(ROUNDS_PER_CLIENT)
    )
    assert [r["number"] for r in rounds] == list(range(1, len(rounds) + 1))
    assert final["version"] == 1 + len(rounds)
    assert final["status"] == "playing"

    # One definite order: every answer saw a prefix of the final list, the writes got the versions
    # 2..N+1 one each, and the round an answer added is the last of the prefix it saw.
    versions = []
    for client, client_answers in enumerate(per_client):
        for number, _, body in client_answers:
            seen = body["rounds"]
            versions.append(body["version"])
            assert body["version"] == 1 + len(seen)
            assert seen == rounds[: len(seen)]
            assert _signature(seen[-1]) == (client, number)
    assert sorted(versions) == list(range(2, len(rounds) + 2))
    # Each client waited for an answer before sending its next round, so its rounds keep its order.
    for client in range(CLIENTS):
        mine = [r["number"] for r in rounds if _signature(r)[0] == client]
        assert [_signature(rounds[n - 1])[1] for n in mine] == list(range(ROUNDS_PER_CLIENT))
    totals = [p["total"] for p in final["players"]]
    assert totals == [
        sum(range(CLIENTS)) * ROUNDS_PER_CLIENT,
        sum(range(ROUNDS_PER_CLIENT)) * CLIENTS,
    ]


def test_concurrent_retries_of_one_round_store_it_once(server: Server):
    game_id, auth, player_ids = _create_game(server)
    url = f"{server.url}/api/v1/games/{game_id}/rounds"
    body = _round(player_ids, 7, 3)

    def retry(_: int, barrier: threading.Barrier) -> tuple[int, str]:
        with httpx.Client(timeout=REQUEST_TIMEOUT) as http:
            barrier.wait()
            try:
                response = http.post(url, json=body, headers=auth | {"Idempotency-Key": "double-tap"})
            except httpx.TransportError as error:
                return 0, f"{type(error).__name__}: {error}"
            return response.status_code, response.text

    answers = all_at_once(SAME_KEY_RETRIES, retry)
    assert {status for status, _ in answers} == {201}, answers
    assert len({text for _, text in answers}) == 1  # every retry got the very same answer
    _assert_healthy(server)

    final = httpx.get(f"{server.url}/api/v1/games/{game_id}", timeout=REQUEST_TIMEOUT).json()
    assert [_signature(r) for r in final["rounds"]] == [(7, 3)]
    assert final["version"] == 2


def test_concurrent_retries_of_one_new_game_create_it_once(server: Server):
    body = {"name": "Retried", "players": [{"name": "Ana"}, {"name": "Ben"}]}

    def retry(_: int, barrier: threading.Barrier) -> tuple[int, str]:
        with httpx.Client(timeout=REQUEST_TIMEOUT) as http:
            barrier.wait()
            try:
                response = http.post(
                    server.url + "/api/v1/games", json=body, headers={"Idempotency-Key": "new-game-tap"}
                )
            except httpx.TransportError as error:
                return 0, f"{type(error).__name__}: {error}"
            return response.status_code, response.text

    answers = all_at_once(SAME_KEY_RETRIES, retry)
    assert {status for status, _ in answers} == {201}, answers
    assert len({text for _, text in answers}) == 1
    _assert_healthy(server)


def test_concurrent_editors_with_the_same_if_match_only_one_wins(server: Server):
    game_id, auth, _ = _create_game(server)
    url = f"{server.url}/api/v1/games/{game_id}"

    def rename(index: int, barrier: threading.Barrier) -> int:
        with httpx.Client(timeout=REQUEST_TIMEOUT) as http:
            barrier.wait()
            try:
                response = http.patch(url, json={"name": f"Editor {index}"}, headers=auth | {"If-Match": '"1"'})
            except httpx.TransportError:
                return 0
            return response.status_code

    statuses = Counter(all_at_once(SAME_KEY_RETRIES, rename))
    assert statuses == {200: 1, 412: SAME_KEY_RETRIES - 1}, statuses
    final = httpx.get(url, timeout=REQUEST_TIMEOUT).json()
    assert final["version"] == 2
    assert final["name"].startswith("Editor ")
    _assert_healthy(server)
