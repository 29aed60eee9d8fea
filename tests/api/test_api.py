"""The REST API v1 through httpx (the TestClient): the contract, status by status.

Every write that is refused is checked to have changed nothing: the game read back afterwards is
exactly the game read before (version, updated_at, rounds, totals and all).
"""

from __future__ import annotations

import base64
import itertools
import json
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, SQLModel, select

from app import idempotency as replay_store
from app.games import writes as use_cases
from app.models import IdempotencyRecord
from tests.helpers import (
    API,
    MAX_BODY,
    PROBLEM_JSON,
    SMALL_ROUND,
    WORKED_EXAMPLE_PLAYERS,
    WORKED_EXAMPLE_ROUND,
    GameHandle,
    assert_problem,
    count_games,
    game_url,
    round_body,
    v1_rules,
)

GAME_FIELDS = {
    "id",
    "name",
    "version",
    "created_at",
    "updated_at",
    "status",
    "winners",
    "tie_break",
    "rules",
    "players",
    "rounds",
}
RULE_FIELDS = {"target", "dutch_points", "blitz_points", "tie_break"}
PLAYER_FIELDS = {"id", "name", "starting_score", "total", "rank"}
SCORE_FIELDS = {"player_id", "dutch", "blitz", "points", "total"}


# --- helpers -------------------------------------------------------------------------------------


def send(
    client: TestClient,
    method: str,
    url: str,
    body: Any = None,
    *,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
):
    if raw is not None:
        headers = {"Content-Type": "application/json", **(headers or {})}
        return client.request(method, url, content=raw, headers=headers)
    return client.request(method, url, json=body, headers=headers)


def assert_errors(body: dict[str, Any], expected: list[tuple[str | set[str], list[str]]]) -> None:
    """Each expected (field or set of acceptable fields, message fragments) is among the errors."""
    for fields, fragments in expected:
        acceptable = {fields} if isinstance(fields, str) else fields
        matches = [
            e
            for e in body["errors"]
            if e["field"] in acceptable and all(f.lower() in e["message"].lower() for f in fragments)
        ]
        assert matches, f"no error at {acceptable} saying {fragments}: {body['errors']}"


def totals(game: dict[str, Any]) -> list[int]:
    return [p["total"] for p in game["players"]]


def ranks(game: dict[str, Any]) -> list[int]:
    return [p["rank"] for p in game["players"]]


def database_dump(app) -> str:
    """Every row of every table, as text (on SQLite or PostgreSQL alike)."""
    with app.state.engine.connect() as connection:
        return "\n".join(
            repr(tuple(row)) for table in SQLModel.metadata.sorted_tables for row in connection.execute(table.select())
        )


def decoded_bytes(token: str) -> int:
    return len(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))


@pytest.fixture
def game(make_game) -> GameHandle:
    """The worked example's players, no round yet."""
    return make_game()


@pytest.fixture
def played(make_game) -> GameHandle:
    """The worked example's players with a far target and one round played: every write is valid."""
    handle = make_game(rules={"target": 1000})
    response = handle.add_round(SMALL_ROUND)
    assert response.status_code == 201, response.text
    return handle


def writes(handle: GameHandle) -> list[tuple[str, str, dict[str, Any] | None]]:
    """One valid request of each write operation on a game that has one round and is not over."""
    return [
        ("PATCH", game_url(handle.id), {"name": "Renamed"}),
        ("POST", game_url(handle.id, "/rounds"), handle.scores(SMALL_ROUND)),
        ("PUT", game_url(handle.id, "/rounds/1"), handle.scores([(5, 0), (4, 1), (3, 2), (2, 3)])),
        ("DELETE", game_url(handle.id, "/rounds/1"), None),
    ]


WRITE_NAMES = ["patch-game", "post-round", "put-round", "delete-round"]


# --- creating a game -------------------------------------------------------------------------------


def test_create_answers_201_with_location_and_every_field(client: TestClient):
    response = client.post(
        f"{API}/games",
        json={
            "name": "Friday night",
            "players": WORKED_EXAMPLE_PLAYERS,
            "rules": {"target": 75, "dutch_points": 1, "blitz_points": -2, "tie_break": "play_on"},
        },
    )
    assert response.status_code == 201, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert GAME_FIELDS | {"edit_key", "urls"} <= body.keys()
    assert body["name"] == "Friday night"
    assert body["version"] == 1
    assert response.headers["etag"] == '"1"'
    assert body["status"] == "playing"
    assert body["winners"] == []
    assert body["tie_break"] is False
    assert body["rounds"] == []
    assert v1_rules(body) == {"target": 75, "dutch_points": 1, "blitz_points": -2, "tie_break": "play_on"}
    assert isinstance(body["created_at"], str) and isinstance(body["updated_at"], str)
    assert [p["name"] for p in body["players"]] == ["Ana", "Ben", "Cy", "Dee"]
    for player, sent in zip(body["players"], WORKED_EXAMPLE_PLAYERS, strict=True):
        assert set(player) >= PLAYER_FIELDS
        assert isinstance(player["id"], int)
        assert player["starting_score"] == sent["starting_score"]
        assert player["total"] == sent["starting_score"]
    assert ranks(body) == [2, 1, 3, 4]  # Ben leads on his starting score
    assert len({p["id"] for p in body["players"]}) == 4

    location = response.headers["location"]
    assert urlsplit(location).path == game_url(body["id"])
    read = client.get(location)
    assert read.status_code == 200
    assert read.json() == {k: v for k, v in body.items() if k not in ("edit_key", "urls")}


def test_create_defaults_rules_and_starting_scores(client: TestClient):
    response = client.post(f"{API}/games", json={"players": [{"name": "Ana"}, {"name": "Ben"}]})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["name"] == ""
    assert v1_rules(body) == {"target": 75, "dutch_points": 1, "blitz_points": -2, "tie_break": "play_on"}
    assert [(p["starting_score"], p["total"], p["rank"]) for p in body["players"]] == [(0, 0, 1), (0, 0, 1)]


def test_create_answers_absolute_view_and_edit_urls(client: TestClient, game: GameHandle):
    urls = game.body["urls"]
    assert set(urls) >= {"view", "edit"}
    for url in urls.values():
        parts = urlsplit(url)
        assert parts.scheme in ("http", "https") and parts.netloc, url
        assert game.id in parts.path
    assert game.key not in urls["view"]
    assert game.key in urls["edit"]
    assert urls["view"] != urls["edit"]


def test_edit_key_is_long_random_and_game_ids_are_random(client: TestClient, make_game):
    handles = [make_game() for _ in range(6)]
    ids = [h.id for h in handles]
    keys = [h.key for h in handles]
    assert len(set(ids)) == len(ids) and len(set(keys)) == len(keys)
    for game_id, key in zip(ids, keys, strict=True):
        assert len(game_id) >= 11 and decoded_bytes(game_id) >= 8  # at least 64 bits
        assert decoded_bytes(key) >= 16  # at least 128 bits
        assert not game_id.isdigit()
        assert key != game_id
    # Not sequential: ids made one after the other share (almost) nothing position by position.
    for first, second in itertools.pairwise(ids):
        same = sum(a == b for a, b in zip(first, second, strict=False))
        assert same < len(first) // 2, (first, second)


def test_edit_key_appears_in_no_other_response(client: TestClient, make_game):
    handle = make_game(rules={"target": 1000})
    key = handle.key
    seen = []
    seen.append(client.get(game_url(handle.id)))
    seen.append(handle.add_round(SMALL_ROUND))
    seen.append(handle.add_round(SMALL_ROUND, **{"Idempotency-Key": "again"}))
    seen.append(handle.add_round(SMALL_ROUND, **{"Idempotency-Key": "again"}))  # a replay
    seen.append(client.patch(game_url(handle.id), json={"name": "Renamed"}, headers=handle.auth))
    seen.append(client.put(game_url(handle.id, "/rounds/1"), json=handle.scores(SMALL_ROUND), headers=handle.auth))
    seen.append(client.delete(game_url(handle.id, "/rounds/2"), headers=handle.auth))
    seen.append(client.get(game_url(handle.id)))
    # Refusals must not echo it either.
    seen.append(client.post(game_url(handle.id, "/rounds"), json={"scores": []}, headers=handle.auth))
    seen.append(client.patch(game_url(handle.id), json={"name": "x"}, headers=handle.auth | {"If-Match": '"1"'}))
    for response in seen:
        assert response.status_code < 500
        assert key not in response.text, response.request.method
        for name, value in response.headers.items():
            assert key not in value, name
    assert [r.status_code for r in seen] == [200, 201, 201, 201, 200, 200, 200, 200, 422, 412]


def test_edit_key_is_stored_only_as_a_hash(client: TestClient, app):
    plain = client.post(f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS})
    body = {"players": [{"name": "Ana"}, {"name": "Ben"}]}
    headers = {"Idempotency-Key": "create-once"}
    idempotent = client.post(f"{API}/games", json=body, headers=headers)
    replay = client.post(f"{API}/games", json=body, headers=headers)
    assert plain.status_code == idempotent.status_code == replay.status_code == 201
    assert replay.json() == idempotent.json()  # the retry still gets the key, from nothing stored in clear
    dump = database_dump(app)
    for response in (plain, idempotent):
        assert response.json()["id"] in dump
        assert response.json()["edit_key"] not in dump


# --- the worked example, end to end -----------------------------------------------------------------


def test_worked_example_end_to_end(client: TestClient, game: GameHandle):
    response = game.add_round(WORKED_EXAMPLE_ROUND)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["version"] == 2
    assert response.headers["etag"] == '"2"'
    assert totals(body) == [80, 78, 31, 15]
    assert ranks(body) == [1, 2, 3, 4]
    assert body["status"] == "finished"
    assert body["winners"] == [game.player_ids[0]]
    assert body["tie_break"] is False
    [round_] = body["rounds"]
    assert round_["number"] == 1
    for score in round_["scores"]:
        assert set(score) >= SCORE_FIELDS
    assert [(s["player_id"], s["dutch"], s["blitz"], s["points"], s["total"]) for s in round_["scores"]] == [
        (game.player_ids[0], 22, 0, 22, 80),
        (game.player_ids[1], 14, 3, 8, 78),
        (game.player_ids[2], 11, 5, 1, 31),
        (game.player_ids[3], 9, 7, -5, 15),
    ]
    assert game.get() == body

    refused = game.add_round(SMALL_ROUND)
    problem = assert_problem(refused, 409)
    assert "over" in problem["detail"].lower()
    assert game.get() == body


def test_scores_may_come_in_any_order_and_are_answered_in_seating_order(client: TestClient, game: GameHandle):
    scores = game.scores(WORKED_EXAMPLE_ROUND)["scores"][::-1]
    response = client.post(game_url(game.id, "/rounds"), json={"scores": scores}, headers=game.auth)
    assert response.status_code == 201, response.text
    assert totals(response.json()) == [80, 78, 31, 15]
    assert [s["player_id"] for s in response.json()["rounds"][0]["scores"]] == game.player_ids


# --- corrections and deletions --------------------------------------------------------------------


def test_correcting_a_round_changes_the_winner(client: TestClient, game: GameHandle):
    assert game.add_round(WORKED_EXAMPLE_ROUND).status_code == 201
    ben = game.player_ids[1]
    # The round was misread: Ana had 14 Dutch / 3 Blitz, Ben called Blitz with 22 Dutch cards.
    corrected = game.scores([(14, 3), (22, 0), (11, 5), (9, 7)])
    response = client.put(game_url(game.id, "/rounds/1"), json=corrected, headers=game.auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["version"] == 3
    assert totals(body) == [66, 92, 31, 15]
    assert ranks(body) == [2, 1, 3, 4]
    assert body["status"] == "finished"
    assert body["winners"] == [ben]
    assert [(s["dutch"], s["blitz"], s["points"]) for s in body["rounds"][0]["scores"]] == [
        (14, 3, 8),
        (22, 0, 22),
        (11, 5, 1),
        (9, 7, -5),
    ]
    assert game.get() == body

    # Corrected again so that nobody reaches the target: the game is back on.
    low = game.scores([(2, 0), (1, 2), (0, 0), (3, 1)])
    response = client.put(game_url(game.id, "/rounds/1"), json=low, headers=game.auth)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "playing"
    assert response.json()["winners"] == []
    assert totals(response.json()) == [60, 67, 30, 21]
    assert game.add_round(SMALL_ROUND).status_code == 201  # no longer over: rounds can be added


def test_deleting_the_deciding_round_reopens_the_game(client: TestClient, game: GameHandle):
    assert game.add_round(WORKED_EXAMPLE_ROUND).status_code == 201
    response = client.delete(game_url(game.id, "/rounds/1"), headers=game.auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["version"] == 3
    assert body["status"] == "playing"
    assert body["winners"] == []
    assert body["rounds"] == []
    assert totals(body) == [58, 70, 30, 20]
    assert game.get() == body
    assert game.add_round(SMALL_ROUND).status_code == 201


def test_deleting_a_middle_round_moves_later_rounds_up(client: TestClient, make_game):
    handle = make_game(rules={"target": 1000})
    for k in (1, 2, 3):
        assert handle.add_round([(k, 0), (k + 1, 1), (k + 2, 2), (k + 3, 3)]).status_code == 201
    response = client.delete(game_url(handle.id, "/rounds/2"), headers=handle.auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert [r["number"] for r in body["rounds"]] == [1, 2]
    assert [r["scores"][0]["dutch"] for r in body["rounds"]] == [1, 3]  # the old round 3 is now round 2
    # Running totals are recomputed from rounds 1 and 3 only: Ana 58 + 1 + 3, Ben 70 + 0 + 2, ...
    assert totals(body) == [62, 72, 30, 18]
    assert [s["total"] for s in body["rounds"][1]["scores"]] == totals(body)
    assert body["version"] == 5

    # The new round 2 is the one a correction of "round 2" now changes.
    response = client.put(
        game_url(handle.id, "/rounds/2"), json=handle.scores([(9, 0), (0, 0), (0, 0), (0, 0)]), headers=handle.auth
    )
    assert response.status_code == 200, response.text
    assert [r["scores"][0]["dutch"] for r in response.json()["rounds"]] == [1, 9]


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
@pytest.mark.parametrize("number", [2, 99])
def test_unknown_round_number_is_404(client: TestClient, played: GameHandle, method: str, number: int):
    before = played.get()
    body = played.scores(SMALL_ROUND) if method == "PUT" else None
    response = send(client, method, game_url(played.id, f"/rounds/{number}"), body, headers=played.auth)
    assert_problem(response, 404)
    assert played.get() == before


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("GET", "", None),
        ("PATCH", "", {"name": "x"}),
        ("POST", "/rounds", {"scores": []}),
        ("PUT", "/rounds/1", {"scores": []}),
        ("DELETE", "/rounds/1", None),
    ],
)
def test_unknown_game_is_404(client: TestClient, game: GameHandle, method: str, suffix: str, body):
    # Even with a real key (another game's), an unknown game is a 404, and nothing is created.
    response = send(client, method, game_url("NoSuchGame123", suffix), body, headers=game.auth)
    assert_problem(response, 404)


# --- house rules ----------------------------------------------------------------------------------


def test_patch_name_and_rules_recomputes_totals_and_winner(client: TestClient, game: GameHandle):
    assert game.add_round(WORKED_EXAMPLE_ROUND).status_code == 201
    response = client.patch(
        game_url(game.id),
        json={
            "name": "  Sunday league  ",
            "rules": {"target": 100, "dutch_points": 2, "blitz_points": -1, "tie_break": "shared"},
        },
        headers=game.auth,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["name"] == "Sunday league"
    assert v1_rules(body) == {"target": 100, "dutch_points": 2, "blitz_points": -1, "tie_break": "shared"}
    assert [s["points"] for s in body["rounds"][0]["scores"]] == [44, 25, 17, 11]
    assert totals(body) == [102, 95, 47, 31]
    assert body["status"] == "finished"
    assert body["winners"] == [game.player_ids[0]]
    assert body["version"] == 3
    assert response.headers["etag"] == '"3"'
    assert game.get() == body


def test_patch_only_the_target_keeps_the_other_rules_and_reopens_the_game(client: TestClient, game: GameHandle):
    assert game.add_round(WORKED_EXAMPLE_ROUND).status_code == 201
    response = client.patch(game_url(game.id), json={"rules": {"target": 100}}, headers=game.auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert v1_rules(body) == {"target": 100, "dutch_points": 1, "blitz_points": -2, "tie_break": "play_on"}
    assert totals(body) == [80, 78, 31, 15]
    assert body["status"] == "playing"
    assert body["winners"] == []


def test_patch_points_hands_the_win_to_another_player(client: TestClient, game: GameHandle):
    assert game.add_round(WORKED_EXAMPLE_ROUND).status_code == 201
    response = client.patch(game_url(game.id), json={"rules": {"blitz_points": 0}}, headers=game.auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert totals(body) == [80, 84, 41, 29]
    assert body["winners"] == [game.player_ids[1]]
    assert ranks(body) == [2, 1, 3, 4]


def test_patch_only_the_name_keeps_the_rules(client: TestClient, game: GameHandle):
    response = client.patch(game_url(game.id), json={"name": "Renamed"}, headers=game.auth)
    assert response.status_code == 200, response.text
    assert response.json()["name"] == "Renamed"
    assert response.json()["rules"] == game.body["rules"]


# --- tie-break ------------------------------------------------------------------------------------

TIED_PLAYERS = [{"name": "Ana", "starting_score": 70}, {"name": "Ben", "starting_score": 70}]


def test_tie_at_the_top_under_play_on_means_another_round(client: TestClient, make_game):
    handle = make_game(TIED_PLAYERS)
    response = handle.add_round([(5, 0), (5, 0)])
    assert response.status_code == 201, response.text
    body = response.json()
    assert totals(body) == [75, 75]
    assert ranks(body) == [1, 1]
    assert body["tie_break"] is True
    assert body["status"] == "playing"
    assert body["winners"] == []

    response = handle.add_round([(3, 0), (1, 0)])
    assert response.status_code == 201, response.text
    body = response.json()
    assert totals(body) == [78, 76]
    assert body["tie_break"] is False
    assert body["status"] == "finished"
    assert body["winners"] == [handle.player_ids[0]]


def test_tie_at_the_top_under_shared_means_co_winners(client: TestClient, make_game):
    handle = make_game(TIED_PLAYERS, rules={"tie_break": "shared"})
    body = handle.add_round([(5, 0), (5, 0)]).json()
    assert body["status"] == "finished"
    assert body["tie_break"] is False
    assert body["winners"] == handle.player_ids


def test_switching_tie_break_rule_on_a_tied_game(client: TestClient, make_game):
    handle = make_game(TIED_PLAYERS)
    assert handle.add_round([(5, 0), (5, 0)]).json()["tie_break"] is True
    shared = client.patch(game_url(handle.id), json={"rules": {"tie_break": "shared"}}, headers=handle.auth)
    assert shared.status_code == 200, shared.text
    assert (shared.json()["status"], shared.json()["winners"]) == ("finished", handle.player_ids)
    back = client.patch(game_url(handle.id), json={"rules": {"tie_break": "play_on"}}, headers=handle.auth)
    assert (back.json()["status"], back.json()["winners"], back.json()["tie_break"]) == ("playing", [], True)


# --- 401 and 403 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(4), ids=WRITE_NAMES)
@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer    ", "Basic dXNlcjpwYXNz", "Token abc"],
    ids=["no-header", "empty", "bearer-alone", "bearer-blank", "basic", "other-scheme"],
)
def test_write_without_a_key_is_401(client: TestClient, played: GameHandle, index: int, authorization):
    method, url, body = writes(played)[index]
    before = played.get()
    headers = {} if authorization is None else {"Authorization": authorization}
    response = send(client, method, url, body, headers=headers)
    assert_problem(response, 401)
    assert response.headers.get("www-authenticate", "").lower().startswith("bearer")
    assert played.get() == before


@pytest.mark.parametrize("index", range(4), ids=WRITE_NAMES)
@pytest.mark.parametrize("wrong", ["random", "other-game", "key-plus-one", "key-cut-short", "key-other-case"])
def test_write_with_a_wrong_key_is_403(client: TestClient, make_game, played: GameHandle, index: int, wrong: str):
    keys = {
        "random": "x" * 32,
        "other-game": make_game().key,
        "key-plus-one": played.key + "A",
        "key-cut-short": played.key[:-1],
        "key-other-case": played.key.swapcase(),
    }
    method, url, body = writes(played)[index]
    before = played.get()
    response = send(client, method, url, body, headers={"Authorization": f"Bearer {keys[wrong]}"})
    assert_problem(response, 403)
    assert played.get() == before


def test_bearer_scheme_is_case_insensitive(client: TestClient, played: GameHandle):
    response = client.patch(game_url(played.id), json={"name": "Ok"}, headers={"Authorization": f"bearer {played.key}"})
    assert response.status_code == 200, response.text


def test_reading_needs_no_key(client: TestClient, played: GameHandle):
    response = client.get(game_url(played.id))
    assert response.status_code == 200
    assert "edit_key" not in response.json()


# --- 409, 412, 413 --------------------------------------------------------------------------------


def test_finished_game_still_takes_corrections_but_no_new_round(client: TestClient, game: GameHandle):
    assert game.add_round(WORKED_EXAMPLE_ROUND).status_code == 201
    before = game.get()
    assert_problem(game.add_round(WORKED_EXAMPLE_ROUND, **{"Idempotency-Key": "late"}), 409)
    assert game.get() == before
    # The refused request was not remembered: once the game is reopened the same key works.
    assert client.delete(game_url(game.id, "/rounds/1"), headers=game.auth).status_code == 200
    assert game.add_round(WORKED_EXAMPLE_ROUND, **{"Idempotency-Key": "late"}).status_code == 201


@pytest.mark.parametrize("index", range(4), ids=WRITE_NAMES)
@pytest.mark.parametrize("if_match", ['"1"', 'W/"1"', '"3"', '"0", "1"', "garbage", '""'])
def test_stale_if_match_is_412_and_changes_nothing(client: TestClient, played: GameHandle, index: int, if_match):
    before = played.get()
    assert before["version"] == 2
    method, url, body = writes(played)[index]
    response = send(client, method, url, body, headers=played.auth | {"If-Match": if_match})
    problem = assert_problem(response, 412)
    assert "2" in problem["detail"]  # says which version the game is at
    assert played.get() == before


def _padded(body: bytes, size: int) -> bytes:
    """The JSON body padded with trailing whitespace to exactly `size` bytes (still valid JSON)."""
    assert len(body) <= size
    return body + b" " * (size - len(body))


def _chunks(data: bytes, size: int = 4096):
    for start in range(0, len(data), size):
        yield data[start : start + size]


@pytest.mark.parametrize("how", ["content-length", "chunked"])
@pytest.mark.parametrize("target", ["create", "post-round", "patch-game", "put-round"])
def test_body_over_64_kib_is_413_and_changes_nothing(client: TestClient, app, played: GameHandle, how, target):
    method, url, body = {
        "create": ("POST", f"{API}/games", {"players": WORKED_EXAMPLE_PLAYERS}),
        "post-round": ("POST", game_url(played.id, "/rounds"), played.scores(SMALL_ROUND)),
        "patch-game": ("PATCH", game_url(played.id), {"name": "big"}),
        "put-round": ("PUT", game_url(played.id, "/rounds/1"), played.scores(SMALL_ROUND)),
    }[target]
    data = _padded(json.dumps(body).encode(), MAX_BODY + 1)
    before, games_before = played.get(), count_games(app)
    content = data if how == "content-length" else _chunks(data)
    response = client.request(method, url, content=content, headers=played.auth | {"Content-Type": "application/json"})
    sent = response.request.headers
    if how == "chunked":
        assert "content-length" not in sent and sent.get("transfer-encoding") == "chunked"
    else:
        assert sent["content-length"] == str(MAX_BODY + 1)
    problem = assert_problem(response, 413)
    assert str(MAX_BODY) in problem["detail"]
    assert played.get() == before
    assert count_games(app) == games_before


@pytest.mark.parametrize("how", ["content-length", "chunked"])
def test_body_of_exactly_64_kib_is_accepted(client: TestClient, played: GameHandle, how: str):
    data = _padded(json.dumps(played.scores(SMALL_ROUND)).encode(), MAX_BODY)
    content = data if how == "content-length" else _chunks(data)
    response = client.post(
        game_url(played.id, "/rounds"), content=content, headers=played.auth | {"Content-Type": "application/json"}
    )
    assert response.status_code == 201, response.text


# --- 422: every validation message, pointing at the right field --------------------------------------


def _scores(pids: list[int], counts: list[tuple[int, int]]) -> list[dict[str, Any]]:
    return round_body(pids, counts)["scores"]


def _with(pids, index: int, **changes) -> dict[str, Any]:
    scores = _scores(pids, SMALL_ROUND)
    scores[index] = scores[index] | changes
    return {"scores": scores}


ROUND_INVALID = [
    pytest.param(
        lambda p: round_body(p[:3], SMALL_ROUND[:3]),
        [("scores", ["Dee", "missing"])],
        id="player-missing",
    ),
    pytest.param(
        lambda p: round_body([p[0], p[1], p[2], p[0]], SMALL_ROUND),
        [({"scores[0].player_id", "scores[3].player_id"}, ["Ana", "more than once"]), ("scores", ["Dee", "missing"])],
        id="player-twice",
    ),
    pytest.param(
        lambda p: round_body([p[0], p[1], p[2], 987654], SMALL_ROUND),
        [("scores[3].player_id", ["987654"]), ("scores", ["Dee", "missing"])],
        id="unknown-player",
    ),
    pytest.param(lambda p: _with(p, 1, dutch=41), [("scores[1].dutch", ["Ben", "Dutch", "0", "40"])], id="dutch-41"),
    pytest.param(lambda p: _with(p, 2, dutch=-1), [("scores[2].dutch", ["Cy", "Dutch", "0", "40"])], id="dutch-neg"),
    pytest.param(lambda p: _with(p, 1, blitz=11), [("scores[1].blitz", ["Ben", "Blitz", "0", "10"])], id="blitz-11"),
    pytest.param(lambda p: _with(p, 3, blitz=-1), [("scores[3].blitz", ["Dee", "Blitz", "0", "10"])], id="blitz-neg"),
    pytest.param(
        lambda p: _with(p, 2, dutch=31, blitz=10),
        [({"scores[2].dutch", "scores[2].blitz", "scores[2]"}, ["Cy", "40"])],
        id="dutch-plus-blitz-over-40",
    ),
    pytest.param(
        lambda p: round_body(p, [(3, 1), (2, 4), (1, 6), (0, 8)]),
        [("scores", ["Nobody called Blitz"])],
        id="nobody-called-blitz",
    ),
    pytest.param(
        lambda p: {"scores": []},
        [("scores", [name, "missing"]) for name in ("Ana", "Ben", "Cy", "Dee")],
        id="no-scores",
    ),
    pytest.param(lambda p: _with(p, 0, dutch="many"), [("scores[0].dutch", ["integer"])], id="dutch-not-int"),
    pytest.param(lambda p: _with(p, 0, dutch=1.5), [("scores[0].dutch", ["integer"])], id="dutch-fraction"),
    pytest.param(lambda p: _with(p, 1, blitz=None), [("scores[1].blitz", ["integer"])], id="blitz-null"),
    pytest.param(lambda p: _with(p, 2, player_id="Cy"), [("scores[2].player_id", ["integer"])], id="id-not-int"),
    pytest.param(
        lambda p: {"scores": [{"player_id": p[0], "dutch": 1}, *_scores(p, SMALL_ROUND)[1:]]},
        [("scores[0].blitz", ["required"])],
        id="blitz-absent",
    ),
    pytest.param(lambda p: _with(p, 0, jokers=2), [("scores[0].jokers", ["not permitted"])], id="unknown-key"),
    pytest.param(lambda p: {"scores": "all of them"}, [("scores", ["list"])], id="scores-not-list"),
    pytest.param(lambda p: {}, [("scores", ["required"])], id="scores-absent"),
    pytest.param(lambda p: [1, 2], [("body", ["object"])], id="body-is-array"),
    pytest.param(lambda p: b'{"scores": [', [("body", ["JSON"])], id="malformed-json"),
    pytest.param(lambda p: b"", [("body", ["required"])], id="empty-body"),
]


@pytest.mark.parametrize("method", ["POST", "PUT"])
@pytest.mark.parametrize(("build", "expected"), ROUND_INVALID)
def test_invalid_round_is_422_with_field_and_message(client: TestClient, played: GameHandle, method, build, expected):
    before = played.get()
    payload = build(played.player_ids)
    url = game_url(played.id, "/rounds" if method == "POST" else "/rounds/1")
    if isinstance(payload, bytes):
        response = send(client, method, url, raw=payload, headers=played.auth)
    else:
        response = send(client, method, url, payload, headers=played.auth)
    assert_errors(assert_problem(response, 422), expected)
    assert played.get() == before


def _players(*names: str) -> list[dict[str, Any]]:
    return [{"name": name} for name in names]


CREATE_INVALID = [
    pytest.param({"players": _players("Ana")}, [("players", ["2", "8", "1"])], id="one-player"),
    pytest.param({"players": _players(*"ABCDEFGHI")}, [("players", ["2", "8", "9"])], id="nine-players"),
    pytest.param({"players": []}, [("players", ["2", "8"])], id="no-players"),
    pytest.param({}, [("players", ["required"])], id="players-absent"),
    pytest.param({"players": {"name": "Ana"}}, [("players", ["list"])], id="players-not-list"),
    pytest.param({"players": _players("Ana", "Ben", "ana")}, [("players[2].name", ["ana"])], id="same-name-case"),
    pytest.param({"players": _players("Ana", "  BEN ", "Ben")}, [("players[2].name", ["Ben"])], id="same-name-trim"),
    pytest.param({"players": _players("Анна", "АННА")}, [("players[1].name", ["АННА"])], id="same-name-cyrillic"),
    pytest.param({"players": _players("Émile", "émile")}, [("players[1].name", ["émile"])], id="same-name-accent"),
    pytest.param({"players": _players("Ana", "")}, [("players[1].name", ["Enter a name"])], id="empty-name"),
    pytest.param({"players": _players("Ana", "   ")}, [("players[1].name", ["Enter a name"])], id="blank-name"),
    pytest.param({"players": _players("x" * 41, "Ben")}, [("players[0].name", ["40"])], id="name-41-chars"),
    pytest.param({"players": _players("Ana", "Ben\x07")}, [("players[1].name", ["control"])], id="name-control"),
    pytest.param({"players": _players("Ana", "\u202eneB")}, [("players[1].name", ["direction"])], id="name-bidi"),
    pytest.param({"players": [{"name": 5}, {"name": "Ben"}]}, [("players[0].name", ["string"])], id="name-not-str"),
    pytest.param(
        {"players": [{"starting_score": 3}, {"name": "Ben"}]}, [("players[0].name", ["required"])], id="no-name"
    ),
    pytest.param(
        {"players": [{"name": "Ana"}, {"name": "Ben", "starting_score": 10_001}]},
        [("players[1].starting_score", ["10000"])],
        id="starting-score-range",
    ),
    pytest.param(
        {"players": [{"name": "Ana"}, {"name": "Ben", "starting_score": "lots"}]},
        [("players[1].starting_score", ["integer"])],
        id="starting-score-type",
    ),
    pytest.param(
        {"players": [{"name": "Ana", "colour": "red"}, {"name": "Ben"}]},
        [("players[0].colour", ["not permitted"])],
        id="player-unknown-key",
    ),
    pytest.param({"players": _players("A", "B"), "rules": {"target": 0}}, [("rules.target", ["1"])], id="target-0"),
    pytest.param(
        {"players": _players("A", "B"), "rules": {"target": 10_001}}, [("rules.target", ["10000"])], id="target-big"
    ),
    pytest.param(
        {"players": _players("A", "B"), "rules": {"target": "high"}}, [("rules.target", ["integer"])], id="target-str"
    ),
    pytest.param(
        {"players": _players("A", "B"), "rules": {"dutch_points": 101}},
        [("rules.dutch_points", ["100"])],
        id="dutch-points",
    ),
    pytest.param(
        {"players": _players("A", "B"), "rules": {"blitz_points": -101}},
        [("rules.blitz_points", ["-100"])],
        id="blitz-points",
    ),
    pytest.param(
        {"players": _players("A", "B"), "rules": {"tie_break": "coin_flip"}},
        [("rules.tie_break", ["play_on", "shared"])],
        id="tie-break",
    ),
    pytest.param(
        {"players": _players("A", "B"), "rules": {"jokers_wild": True}},
        [("rules.jokers_wild", ["not permitted"])],
        id="rules-unknown-key",
    ),
    pytest.param({"players": _players("A", "B"), "rules": "hard"}, [("rules", ["object"])], id="rules-not-object"),
    pytest.param({"players": _players("A", "B"), "name": "x" * 81}, [("name", ["80"])], id="game-name-81"),
    pytest.param({"players": _players("A", "B"), "colour": "red"}, [("colour", ["not permitted"])], id="unknown-key"),
    pytest.param(b'{"players": [{"name": "Ana"}', [("body", ["JSON"])], id="malformed-json"),
    pytest.param(b"null", [("body", ["object"])], id="null-body"),
]


@pytest.mark.parametrize(("payload", "expected"), CREATE_INVALID)
def test_invalid_new_game_is_422_with_field_and_message(client: TestClient, app, payload, expected):
    games_before = count_games(app)
    if isinstance(payload, bytes):
        response = send(client, "POST", f"{API}/games", raw=payload)
    else:
        response = send(client, "POST", f"{API}/games", payload)
    assert_errors(assert_problem(response, 422), expected)
    assert count_games(app) == games_before


PATCH_INVALID = [
    pytest.param({"name": "x" * 81}, [("name", ["80"])], id="name-81"),
    pytest.param({"name": "Bad\x00name"}, [("name", ["control"])], id="name-control"),
    pytest.param({"name": 12}, [("name", ["string"])], id="name-not-str"),
    pytest.param({"rules": {"target": 0}}, [("rules.target", ["1"])], id="target-0"),
    pytest.param({"rules": {"dutch_points": 1000}}, [("rules.dutch_points", ["100"])], id="dutch-points"),
    pytest.param({"rules": {"tie_break": "rock-paper-scissors"}}, [("rules.tie_break", ["shared"])], id="tie-break"),
    pytest.param({"rules": {"jokers": 1}}, [("rules.jokers", ["not permitted"])], id="rules-unknown-key"),
    pytest.param({"version": 7}, [("version", ["not permitted"])], id="unknown-key"),
    pytest.param(b"{name: 'x'}", [("body", ["JSON"])], id="malformed-json"),
]


@pytest.mark.parametrize(("payload", "expected"), PATCH_INVALID)
def test_invalid_patch_is_422_with_field_and_message(client: TestClient, played: GameHandle, payload, expected):
    before = played.get()
    url = game_url(played.id)
    if isinstance(payload, bytes):
        response = send(client, "PATCH", url, raw=payload, headers=played.auth)
    else:
        response = send(client, "PATCH", url, payload, headers=played.auth)
    assert_errors(assert_problem(response, 422), expected)
    assert played.get() == before


@pytest.mark.parametrize("number", ["0", "-1", "one"])
def test_round_number_that_is_no_number_is_refused(client: TestClient, played: GameHandle, number: str):
    before = played.get()
    response = client.delete(game_url(played.id, f"/rounds/{number}"), headers=played.auth)
    assert response.status_code in (404, 422)
    assert response.headers["content-type"].startswith(PROBLEM_JSON)
    assert played.get() == before


# --- ETag and If-Match -----------------------------------------------------------------------------


def test_every_change_bumps_the_version_by_one_and_the_etag_follows(client: TestClient, make_game):
    handle = make_game(rules={"target": 1000})
    assert client.get(game_url(handle.id)).headers["etag"] == '"1"'
    steps = [
        lambda: handle.add_round(SMALL_ROUND),
        lambda: handle.add_round(SMALL_ROUND),
        lambda: client.patch(game_url(handle.id), json={"name": "v4"}, headers=handle.auth),
        lambda: client.put(game_url(handle.id, "/rounds/2"), json=handle.scores(SMALL_ROUND), headers=handle.auth),
        lambda: client.delete(game_url(handle.id, "/rounds/1"), headers=handle.auth),
        lambda: client.patch(game_url(handle.id), json={"rules": {"target": 500}}, headers=handle.auth),
    ]
    for expected, step in enumerate(steps, start=2):
        response = step()
        assert response.status_code in (200, 201), response.text
        assert response.json()["version"] == expected
        assert response.headers["etag"] == f'"{expected}"'
        read = client.get(game_url(handle.id))
        assert read.headers["etag"] == f'"{expected}"'
        assert read.json()["version"] == expected
    updated_at = datetime.fromisoformat(client.get(game_url(handle.id)).json()["updated_at"])
    assert updated_at > datetime.fromisoformat(handle.body["created_at"])


@pytest.mark.parametrize("index", range(4), ids=WRITE_NAMES)
@pytest.mark.parametrize("form", ["strong", "weak", "star", "list"])
def test_current_if_match_is_accepted(client: TestClient, played: GameHandle, index: int, form: str):
    etag = client.get(game_url(played.id)).headers["etag"]
    assert etag == '"2"'
    if_match = {"strong": etag, "weak": f"W/{etag}", "star": "*", "list": f'"1", {etag}'}[form]
    method, url, body = writes(played)[index]
    response = send(client, method, url, body, headers=played.auth | {"If-Match": if_match})
    assert response.status_code in (200, 201), response.text
    assert response.json()["version"] == 3


def test_two_editors_from_the_same_version_only_the_first_wins(client: TestClient, played: GameHandle):
    etag = client.get(game_url(played.id)).headers["etag"]
    first = played.add_round(SMALL_ROUND, **{"If-Match": etag})
    assert first.status_code == 201
    second = played.add_round(SMALL_ROUND, **{"If-Match": etag})
    assert_problem(second, 412)
    assert len(played.get()["rounds"]) == 2


# --- Idempotency-Key -------------------------------------------------------------------------------


def test_same_key_same_body_returns_the_first_answer_and_stores_once(client: TestClient, played: GameHandle):
    headers = {"Idempotency-Key": "tap-1"}
    first = played.add_round(SMALL_ROUND, **headers)
    again = played.add_round(SMALL_ROUND, **headers)
    third = played.add_round(SMALL_ROUND, **headers)
    assert first.status_code == again.status_code == third.status_code == 201
    assert first.json() == again.json() == third.json()
    assert first.headers["etag"] == again.headers["etag"] == '"3"'
    game = played.get()
    assert game["version"] == 3
    assert len(game["rounds"]) == 2


@pytest.mark.parametrize("index", range(4), ids=WRITE_NAMES)
def test_every_write_is_idempotent(client: TestClient, played: GameHandle, index: int):
    method, url, body = writes(played)[index]
    headers = played.auth | {"Idempotency-Key": f"write-{index}"}
    first = send(client, method, url, body, headers=headers)
    after_first = played.get()
    again = send(client, method, url, body, headers=headers)
    assert first.status_code in (200, 201)
    assert (again.status_code, again.json()) == (first.status_code, first.json())
    assert played.get() == after_first  # the retry changed nothing (a second DELETE would remove round 2)


def test_retry_after_a_later_change_answers_the_game_as_it_now_stands(client: TestClient, played: GameHandle):
    # The round is saved once; the retry learns so, and gets the game as a read would give it now.
    first = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "slow-network"})
    assert first.status_code == 201
    assert played.add_round(SMALL_ROUND).status_code == 201
    assert client.patch(game_url(played.id), json={"name": "Later"}, headers=played.auth).status_code == 200
    before = played.get()
    retry = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "slow-network", "If-Match": '"1"'})
    assert (retry.status_code, retry.json()) == (201, before)
    assert retry.headers["Location"] == first.headers["Location"]  # the round it made, not the last one
    assert retry.headers["ETag"] == f'"{before["version"]}"' and retry.headers["Idempotent-Replayed"] == "true"
    assert played.get() == before
    minimal = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "slow-network", "Prefer": "return=minimal"})
    assert minimal.json()["round"] == before["rounds"][len(first.json()["rounds"]) - 1]


@pytest.mark.parametrize(
    "other",
    ["other-counts", "other-operation", "other-round-number"],
)
def test_same_key_with_another_request_is_422(client: TestClient, played: GameHandle, other: str):
    headers = played.auth | {"Idempotency-Key": "k-1"}
    assert (
        client.put(game_url(played.id, "/rounds/1"), json=played.scores(SMALL_ROUND), headers=headers).status_code
        == 200
    )
    before = played.get()
    if other == "other-counts":
        response = client.put(
            game_url(played.id, "/rounds/1"), json=played.scores([(4, 0), (2, 4), (1, 6), (0, 8)]), headers=headers
        )
    elif other == "other-operation":
        response = client.post(game_url(played.id, "/rounds"), json=played.scores(SMALL_ROUND), headers=headers)
    else:
        assert played.add_round(SMALL_ROUND).status_code == 201
        before = played.get()
        response = client.put(game_url(played.id, "/rounds/2"), json=played.scores(SMALL_ROUND), headers=headers)
    problem = assert_problem(response, 422)
    assert_errors(problem, [("Idempotency-Key", ["Idempotency-Key"])])
    assert played.get() == before


def test_keys_are_per_game(client: TestClient, make_game):
    one, two = make_game(rules={"target": 1000}), make_game(rules={"target": 1000})
    headers = {"Idempotency-Key": "shared-key"}
    first = one.add_round(SMALL_ROUND, **headers)
    second = two.add_round(SMALL_ROUND, **headers)
    assert first.status_code == second.status_code == 201
    assert first.json()["id"] == one.id and second.json()["id"] == two.id
    assert len(one.get()["rounds"]) == len(two.get()["rounds"]) == 1
    # Another body on the second game is judged against that game's use of the key only.
    changed = two.add_round([(4, 0), (2, 4), (1, 6), (0, 8)], **headers)
    assert_problem(changed, 422)


def test_a_refused_request_does_not_use_up_its_key(client: TestClient, played: GameHandle):
    bad = played.add_round([(41, 0), (2, 4), (1, 6), (0, 8)], **{"Idempotency-Key": "fix-and-retry"})
    assert_problem(bad, 422)
    good = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "fix-and-retry"})
    assert good.status_code == 201
    assert len(played.get()["rounds"]) == 2


def test_a_replay_still_needs_the_key(client: TestClient, played: GameHandle):
    url = game_url(played.id, "/rounds")
    body = played.scores(SMALL_ROUND)
    assert client.post(url, json=body, headers=played.auth | {"Idempotency-Key": "mine"}).status_code == 201
    assert_problem(client.post(url, json=body, headers={"Idempotency-Key": "mine"}), 401)
    assert_problem(client.post(url, json=body, headers={"Idempotency-Key": "mine", "Authorization": "Bearer x"}), 403)


def test_create_game_is_idempotent(client: TestClient, app):
    body = {"name": "Retry me", "players": WORKED_EXAMPLE_PLAYERS}
    headers = {"Idempotency-Key": "new-game-1"}
    games_before = count_games(app)
    first = client.post(f"{API}/games", json=body, headers=headers)
    again = client.post(f"{API}/games", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert first.headers["location"] == again.headers["location"]
    assert count_games(app) == games_before + 1
    # The key still works after the game has moved on, and it still edits the game.
    handle = GameHandle(client, again.json())
    assert handle.add_round(WORKED_EXAMPLE_ROUND).status_code == 201
    assert client.post(f"{API}/games", json=body, headers=headers).json() == first.json()

    other = client.post(f"{API}/games", json=body | {"name": "Another"}, headers=headers)
    assert_problem(other, 422)
    assert count_games(app) == games_before + 1
    # Without a key, the same body makes a new game each time.
    assert client.post(f"{API}/games", json=body).json()["id"] != first.json()["id"]


def test_keys_are_kept_at_least_24_hours(client: TestClient, played: GameHandle, monkeypatch, settings):
    first = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "day-old"})
    assert first.status_code == 201
    real_utcnow = use_cases.utcnow

    for module in (use_cases, replay_store):
        monkeypatch.setattr(module, "utcnow", lambda: real_utcnow() + timedelta(hours=24, minutes=-1))
    retry = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "day-old"})
    assert retry.json() == first.json()
    assert len(played.get()["rounds"]) == 2

    # Past the configured keeping time the key is forgotten and the request counts as new.
    later = timedelta(hours=settings.idempotency_hours + 1)
    for module in (use_cases, replay_store):
        monkeypatch.setattr(module, "utcnow", lambda: real_utcnow() + later)
    fresh = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "day-old"})
    assert fresh.status_code == 201
    assert fresh.json()["version"] == first.json()["version"] + 1
    assert len(played.get()["rounds"]) == 3


def test_idempotency_records_do_not_pile_up_past_their_time(client: TestClient, app, played, monkeypatch, settings):
    assert played.add_round(SMALL_ROUND, **{"Idempotency-Key": "old"}).status_code == 201
    real_utcnow = use_cases.utcnow
    later = timedelta(hours=settings.idempotency_hours + 1)
    for module in (use_cases, replay_store):
        monkeypatch.setattr(module, "utcnow", lambda: real_utcnow() + later)
    assert played.add_round(SMALL_ROUND, **{"Idempotency-Key": "new"}).status_code == 201
    with Session(app.state.engine) as session:
        records = session.exec(select(IdempotencyRecord)).all()
    assert len(records) == 1


# --- player names ----------------------------------------------------------------------------------


def test_names_in_any_script_come_back_as_typed(client: TestClient):
    names = ["  Анна  ", "José", "Zoë", "🃏 Joker 🎉", "李雷", "<script>alert(1)</script>", "O'Brien & Sons"]
    response = client.post(f"{API}/games", json={"name": " Ёлка ", "players": _players(*names)})
    assert response.status_code == 201, response.text
    expected = [name.strip() for name in names]
    assert [p["name"] for p in response.json()["players"]] == expected
    assert response.json()["name"] == "Ёлка"
    read = client.get(game_url(response.json()["id"]))
    assert read.headers["content-type"].startswith("application/json")
    assert [p["name"] for p in read.json()["players"]] == expected


@pytest.mark.parametrize("name", ["x" * 40, "🃏" * 40, "Ж" * 40, "A"])
def test_names_up_to_40_characters_are_accepted(client: TestClient, name: str):
    response = client.post(f"{API}/games", json={"players": _players(name, "Other")})
    assert response.status_code == 201, response.text
    assert response.json()["players"][0]["name"] == name


def test_names_differing_in_more_than_case_are_distinct(client: TestClient):
    response = client.post(f"{API}/games", json={"players": _players("Ana", "Anna", "Åna", "Ana-Maria")})
    assert response.status_code == 201, response.text


# --- the OpenAPI document ---------------------------------------------------------------------------

OPERATIONS = {
    ("post", "/api/v1/games"),
    ("get", "/api/v1/games/{game_id}"),
    ("patch", "/api/v1/games/{game_id}"),
    ("post", "/api/v1/games/{game_id}/rounds"),
    ("put", "/api/v1/games/{game_id}/rounds/{number}"),
    ("delete", "/api/v1/games/{game_id}/rounds/{number}"),
}


def test_openapi_lists_every_operation_and_its_errors(client: TestClient):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    document = response.json()
    listed = {(method, path) for path, item in document["paths"].items() for method in item}
    assert listed >= OPERATIONS
    for method, path in OPERATIONS:
        operation = document["paths"][path][method]
        assert operation.get("summary")
        statuses = set(operation["responses"])
        if method != "get":
            assert {"413", "422"} <= statuses, (method, path)
        if (method, path) != ("post", "/api/v1/games") and method != "get":
            assert {"401", "403", "404", "412"} <= statuses, (method, path)
    assert "409" in document["paths"]["/api/v1/games/{game_id}/rounds"]["post"]["responses"]
    assert "404" in document["paths"]["/api/v1/games/{game_id}"]["get"]["responses"]
    schemas = document["components"]["schemas"]
    assert set(schemas["GamePublic"]["properties"]) >= GAME_FIELDS
    assert set(schemas["GameCreated"]["properties"]) >= GAME_FIELDS | {"edit_key", "urls"}


def test_docs_answer(client: TestClient):
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "/openapi.json" in response.text


def test_every_answer_matches_the_documented_game_model_exactly(make_game):
    """The game JSON is built by hand (for speed): it must stay what answers.GamePublic documents."""
    from app.answers import GameCreated, GamePublic

    game = make_game()
    created = GameCreated.model_validate(game.body)
    assert created.model_dump(mode="json") == game.body
    answers = [game.add_round(WORKED_EXAMPLE_ROUND).json(), game.get()]
    answers.append(game.client.delete(f"/api/v1/games/{game.id}/rounds/1", headers=game.auth).json())
    for body in answers:
        assert GamePublic.model_validate(body).model_dump(mode="json") == body
