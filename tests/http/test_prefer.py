"""`Prefer: return=minimal` (RFC 7240) on every write of the API, through httpx like tests/api/test_api.py:
each write with and without the preference (status, ETag, Location, Preference-Applied, Vary, the body),
replays answered in the form the retry asks for, the minimal body's size independent of the game's
length, keys never lost, problems unchanged, and the answers' bytes as strict JSON (orjson)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.answers import GamePublic, TablePublic
from app.http.prefer import preferences, wants_minimal
from app.minimal import (
    GameCreatedMinimal,
    GameMinimal,
    PersonMinimal,
    RoundMinimal,
    RoundStartedMinimal,
    TableCreatedMinimal,
    TableImportedMinimal,
    TableMinimal,
)
from tests.helpers import API, SMALL_ROUND, WORKED_EXAMPLE_PLAYERS, GameHandle, assert_problem, game_url

MINIMAL = {"Prefer": "return=minimal"}
GAME_FIELDS = set(GameMinimal.model_fields)
WRITES = ["create", "update", "add_round", "start", "replace_round", "delete_round", "revert", "rotate"]
# What each write's minimal answer holds beside the game's minimal fields.
EXTRA = {
    "create": {"edit_key", "urls"},
    "rotate": {"edit_key", "urls"},
    "add_round": {"round"},
    "replace_round": {"round"},
    "start": {"round_started_at", "blitz_at", "server_now"},
}
MODELS = {
    "create": GameCreatedMinimal,
    "rotate": GameCreatedMinimal,
    "add_round": RoundMinimal,
    "replace_round": RoundMinimal,
    "start": RoundStartedMinimal,
}


# --- reading the header -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "minimal"),
    [
        (["return=minimal"], True),
        (["RETURN=Minimal"], True),
        (['return="minimal"'], True),
        (["respond-async, wait=100, return=minimal"], True),
        (["return=minimal; foo=bar"], True),
        ([" return = minimal ;x"], True),
        (["wait=10", "return=minimal"], True),  # several Prefer headers
        (["return=representation"], False),
        (["return=representation, return=minimal"], False),  # only the first counts
        (["return=representation", "return=minimal"], False),
        (['foo="a, return=minimal", return=representation'], False),  # a comma inside quotes is no separator
        (['foo="a\\", return=minimal"'], False),
        (["return=minimalist"], False),
        (["handling=lenient"], False),
        ([""], False),
        ([], False),
    ],
)
def test_the_prefer_header_is_read_as_rfc_7240_says(headers: list[str], minimal: bool):
    assert wants_minimal(headers) is minimal


def test_preferences_have_their_names_in_lower_case_and_values_unquoted():
    assert preferences(['Respond-Async, Wait=10;x=1, foo="a \\"b\\""']) == {
        "respond-async": "",
        "wait": "10",
        "foo": 'a "b"',
    }


# --- every write of a game, both forms ------------------------------------------------------------------


@pytest.fixture
def played(make_game) -> GameHandle:
    """A game with three rounds and a correction (so there is a change to revert), far from its target."""
    game = make_game(rules={"target": 10_000})
    for _ in range(3):
        assert game.add_round(SMALL_ROUND).status_code == 201
    corrected = game.client.put(game_url(game.id, "/rounds/2"), json=game.scores(SMALL_ROUND[::-1]), headers=game.auth)
    assert corrected.status_code == 200, corrected.text
    return game


def _write(client: TestClient, game: GameHandle, write: str, headers: dict[str, str]):
    name = f"Renamed {headers.get('Prefer', 'plainly')}"
    headers = game.auth | headers
    if write == "create":
        return client.post(f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS}, headers=headers)
    if write == "update":
        return client.patch(game_url(game.id), json={"name": name}, headers=headers)
    if write == "add_round":
        return client.post(game_url(game.id, "/rounds"), json=game.scores(SMALL_ROUND), headers=headers)
    if write == "start":
        return client.post(game_url(game.id, "/start"), headers=headers)
    if write == "replace_round":
        return client.put(game_url(game.id, "/rounds/2"), json=game.scores(SMALL_ROUND), headers=headers)
    if write == "delete_round":
        return client.delete(game_url(game.id, "/rounds/1"), headers=headers)
    if write == "revert":
        changes = client.get(game_url(game.id, "/changes")).json()
        change = next(c["id"] for c in changes if c["revertable"])
        return client.post(game_url(game.id, f"/changes/{change}/revert"), headers=headers)
    assert write == "rotate"
    answer = client.post(game_url(game.id, "/key"), headers=headers)
    if answer.status_code == 200:
        game.key = answer.json()["edit_key"]
    return answer


def _location(write: str, body: dict[str, Any], after: dict[str, Any]) -> str | None:
    if write == "create":
        return f"http://testserver{API}/games/{body['id']}"
    if write == "add_round":
        return f"http://testserver{API}/games/{after['id']}/rounds/{len(after['rounds'])}"
    return None


def _cut(whole: dict[str, Any]) -> dict[str, Any]:
    """What the minimal answer must say of a game read whole (GET) at the same version."""
    standing = ("id", "total", "rank", "lives", "out")
    return {name: whole[name] for name in GAME_FIELDS - {"players"}} | {
        "players": [{k: p[k] for k in standing if k in p} for p in whole["players"]]
    }


@pytest.mark.parametrize("write", WRITES)
def test_every_write_answers_whole_by_default_and_minimal_when_preferred(
    client: TestClient, played: GameHandle, write: str
):
    for headers in ({}, {"Prefer": "return=representation"}):
        full = _write(client, played, write, headers)
        assert full.status_code in (200, 201), full.text
        body = full.json()
        after = client.get(game_url(body["id"])).json()
        GamePublic.model_validate(body)
        assert {k: v for k, v in body.items() if k not in ("edit_key", "urls", "blitz_at", "server_now")} == after
        assert full.headers["ETag"] == f'"{after["version"]}"'
        assert full.headers.get("Location") == _location(write, body, after)
        assert "Preference-Applied" not in full.headers
        assert "Prefer" in full.headers["Vary"].split(", ")

    short = _write(client, played, write, MINIMAL)
    assert short.status_code == full.status_code, short.text
    body = short.json()
    after = client.get(game_url(body["id"])).json()
    assert set(body) == GAME_FIELDS | EXTRA.get(write, set())
    MODELS.get(write, GameMinimal).model_validate(body)
    assert {k: v for k, v in body.items() if k in GAME_FIELDS} == _cut(after)
    assert short.headers["ETag"] == f'"{after["version"]}"'
    assert short.headers.get("Location") == _location(write, body, after)
    assert short.headers["Preference-Applied"] == "return=minimal"
    assert "Prefer" in short.headers["Vary"].split(", ")
    if write == "add_round":
        assert body["round"] == after["rounds"][-1]
        assert [s["points"] for s in body["round"]["scores"]] == [3, -6, -11, -16]
    if write == "replace_round":
        assert body["round"] == after["rounds"][1] and body["round"]["number"] == 2
    if write == "start":
        assert body["blitz_at"] == body["round_started_at"] == after["round_started_at"]
    if write in ("create", "rotate"):  # the new key is in the minimal answer, and it works
        key = {"Authorization": f"Bearer {body['edit_key']}"}
        assert body["urls"]["edit"].endswith(f"/g/{body['id']}/edit/{body['edit_key']}")
        assert client.patch(game_url(body["id"]), json={"name": "Mine"}, headers=key).status_code == 200


def test_a_replay_answers_in_the_form_the_retry_asks_for(client: TestClient, played: GameHandle):
    first = played.add_round(SMALL_ROUND, **MINIMAL, **{"Idempotency-Key": "round-4"})
    assert first.status_code == 201 and first.headers["Preference-Applied"] == "return=minimal"
    whole = played.get()

    again = played.add_round(SMALL_ROUND, **MINIMAL, **{"Idempotency-Key": "round-4"})
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Preference-Applied"] == "return=minimal"
    assert (again.status_code, again.content) == (201, first.content)
    assert again.headers["Location"] == first.headers["Location"] == f"http://testserver{game_url(played.id)}/rounds/4"

    asked_whole = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "round-4"})
    assert asked_whole.headers["Idempotent-Replayed"] == "true" and "Preference-Applied" not in asked_whole.headers
    assert (asked_whole.status_code, asked_whole.json()) == (201, whole)
    assert (
        asked_whole.headers["ETag"] == first.headers["ETag"]
        and asked_whole.headers["Location"] == first.headers["Location"]
    )
    assert played.get() == whole  # nothing was added twice

    # And the other way round: a first answer given whole, replayed minimal.
    whole_first = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "round-5"})
    short = played.add_round(SMALL_ROUND, **MINIMAL, **{"Idempotency-Key": "round-5"})
    assert short.headers["Preference-Applied"] == "return=minimal"
    assert short.json()["round"] == whole_first.json()["rounds"][-1] and short.json()["version"] == whole["version"] + 1


def test_a_rotation_replayed_minimal_gives_the_same_new_key(client: TestClient, played: GameHandle):
    retry = played.auth | {"Idempotency-Key": "rotate-1"}
    first = client.post(game_url(played.id, "/key"), headers=retry)
    again = client.post(game_url(played.id, "/key"), headers=retry | MINIMAL)
    assert again.headers["Idempotent-Replayed"] == "true" and again.headers["Preference-Applied"] == "return=minimal"
    assert again.json()["edit_key"] == first.json()["edit_key"] and again.json()["urls"] == first.json()["urls"]
    GameCreatedMinimal.model_validate(again.json())


def _numbers_as_zero(text: str) -> str:
    return re.sub(r"-?[0-9]+", "0", text)


def test_the_minimal_answer_does_not_grow_with_the_game(client: TestClient, make_game):
    answers = {}
    for rounds in (3, 60):
        game = make_game(rules={"target": 10_000})
        for _ in range(rounds):
            assert game.add_round(SMALL_ROUND).status_code == 201
        whole = game.add_round(SMALL_ROUND)
        short = game.add_round(SMALL_ROUND, **MINIMAL)
        answers[rounds] = (whole.content, short.text.replace(game.id, "<id>"))
    # Same shape and size but for the players' figures (totals, ids, the version, the round's number) ...
    assert _numbers_as_zero(answers[3][1]) == _numbers_as_zero(answers[60][1])
    assert abs(len(answers[60][1]) - len(answers[3][1])) <= 20
    # ... while the whole answer grows with every round.
    assert len(answers[60][0]) > 10 * len(answers[3][1])


# --- problems are problems ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "change"),
    [
        (401, lambda headers: {k: v for k, v in headers.items() if k != "Authorization"}),
        (403, lambda headers: headers | {"Authorization": "Bearer " + "x" * 32}),
        (412, lambda headers: headers | {"If-Match": '"1"'}),
        (422, None),
    ],
)
def test_a_refused_write_with_the_preference_is_the_same_problem(
    client: TestClient, played: GameHandle, status: int, change: Callable[[dict[str, str]], dict[str, str]] | None
):
    before = played.get()
    body = played.scores([(41, 0), *SMALL_ROUND[1:]]) if change is None else played.scores(SMALL_ROUND)
    answers = []
    for prefer in ({}, MINIMAL):
        headers = played.auth | prefer
        headers = change(headers) if change else headers
        answers.append(client.post(game_url(played.id, "/rounds"), json=body, headers=headers))
    plain, preferred = answers
    assert_problem(preferred, status)
    assert preferred.json() == plain.json()
    assert "Preference-Applied" not in preferred.headers and "Location" not in preferred.headers
    assert played.get() == before


# --- tables and imports ---------------------------------------------------------------------------------


def test_every_write_of_a_table_answers_minimal_when_preferred(client: TestClient):
    made = client.post(f"{API}/tables", json={"name": "Club", "people": [{"name": "Ana"}]}, headers=MINIMAL)
    assert made.status_code == 201 and made.headers["Preference-Applied"] == "return=minimal"
    table = TableCreatedMinimal.model_validate(made.json())
    assert set(made.json()) == {"id", "name", "version", "edit_key", "urls"}
    assert made.headers["Location"] == f"http://testserver{API}/tables/{table.id}"
    url, key = f"{API}/tables/{table.id}", {"Authorization": f"Bearer {table.edit_key}"}
    assert made.headers["ETag"] == client.get(url).headers["ETag"]

    def both(method: str, path: str, **kwargs):
        whole = client.request(method, url + path, headers=key, **kwargs)
        assert "Preference-Applied" not in whole.headers and "Prefer" in whole.headers["Vary"]
        TablePublic.model_validate(whole.json())
        return whole

    both("PATCH", "", json={"name": "Club 2"})
    renamed = client.patch(url, json={"name": "Club 3"}, headers=key | MINIMAL)
    assert renamed.json() == {"id": table.id, "name": "Club 3", "version": 3}
    assert renamed.headers["ETag"] == client.get(url).headers["ETag"]

    whole = both("POST", "/people", json={"name": "Ben"})
    ben = next(p for p in whole.json()["people"] if p["name"] == "Ben")
    assert whole.headers["Location"] == f"http://testserver{url}"  # the table, as v1 always answered
    added = client.post(url + "/people", json={"name": "Cy"}, headers=key | MINIMAL)
    assert added.status_code == 201 and added.headers["Preference-Applied"] == "return=minimal"
    cy = PersonMinimal.model_validate(added.json()).person
    assert (cy.name, cy.games) == ("Cy", 0) and added.headers["Location"] == f"http://testserver{url}"

    moved = client.patch(f"{url}/people/{ben['id']}", json={"name": "Benny"}, headers=key | MINIMAL)
    assert moved.json()["person"] == {"id": ben["id"], "name": "Benny", "games": 0}
    gone = client.delete(f"{url}/people/{cy.id}", headers=key | MINIMAL)
    assert set(TableMinimal.model_validate(gone.json()).model_dump()) == set(gone.json()) == {"id", "name", "version"}

    rotated = client.post(url + "/key", headers=key | MINIMAL | {"Idempotency-Key": "t-rot"})
    assert set(rotated.json()) == {"id", "name", "version", "edit_key", "urls"}
    again = client.post(url + "/key", headers=key | {"Idempotency-Key": "t-rot"})  # replayed whole
    assert again.headers["Idempotent-Replayed"] == "true" and again.json()["edit_key"] == rotated.json()["edit_key"]
    TablePublic.model_validate(again.json())


def test_imports_answer_minimal_with_every_key(client: TestClient, played: GameHandle):
    document = client.get(game_url(played.id, "/export")).content
    headers = {"Content-Type": "application/json"} | MINIMAL
    imported = client.post(f"{API}/games/import", content=document, headers=headers)
    assert imported.status_code == 201 and imported.headers["Preference-Applied"] == "return=minimal"
    body = GameCreatedMinimal.model_validate(imported.json())
    assert imported.headers["Location"] == f"http://testserver{game_url(body.id)}"
    assert body.players[0].total == played.get()["players"][0]["total"]

    table = client.post(f"{API}/tables", json={"name": "Club", "people": [{"name": "Ana"}, {"name": "Ben"}]}).json()
    at_table = {"players": [{"name": "Ana"}, {"name": "Ben"}], "table_id": table["id"]}
    client.post(f"{API}/games", json=at_table, headers={"Authorization": f"Bearer {table['edit_key']}"})
    document = client.get(f"{API}/tables/{table['id']}/export").content
    imported = client.post(f"{API}/tables/import", content=document, headers=headers)
    assert imported.status_code == 201 and imported.headers["Preference-Applied"] == "return=minimal"
    body = TableImportedMinimal.model_validate(imported.json())
    assert len(body.game_keys) == 1 and set(imported.json()) == {
        "id",
        "name",
        "version",
        "edit_key",
        "urls",
        "game_keys",
    }
    assert imported.headers["ETag"] == client.get(f"{API}/tables/{body.id}").headers["ETag"]


# --- the OpenAPI document -------------------------------------------------------------------------------


def test_the_document_declares_the_preference_the_minimal_answers_and_their_headers(client: TestClient):
    document = client.get("/openapi.json").json()
    takes = set()
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            if not any(p["name"] == "Prefer" and p["in"] == "header" for p in operation.get("parameters", [])):
                continue
            takes.add(operation["operationId"])
            status, answer = next((s, r) for s, r in operation["responses"].items() if s.startswith("2"))
            refs = [s["$ref"].rsplit("/", 1)[1] for s in answer["content"]["application/json"]["schema"]["anyOf"]]
            assert len(refs) == 2 and refs[1].endswith("Minimal"), (path, method)
            assert {"ETag", "Preference-Applied", "Vary"} <= set(answer["headers"]), (path, method)
            assert ("Location" in answer["headers"]) == (status == "201"), (path, method)
    assert takes == {
        "create_game", "update_game", "add_round", "start_round", "replace_round", "delete_round", "revert_change",
        "rename_player", "rotate_key", "create_table", "update_table", "rotate_table_key", "add_person", "rename_person",
        "remove_person", "import_game", "import_table", "add_player",
    }  # fmt: skip


# --- the bytes (orjson) ---------------------------------------------------------------------------------


def test_answers_are_the_same_strict_json_bytes_as_before(client: TestClient, make_game):
    game = make_game(players=[{"name": "Zoë"}, {"name": "Ана 🃏"}])
    answer = client.get(game_url(game.id))
    # What Starlette's JSONResponse wrote: compact, UTF-8, non-ASCII as it is.
    expected = json.dumps(answer.json(), ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
    assert answer.content == expected and "Ана 🃏".encode() in answer.content
    refused = client.post(game_url(game.id, "/rounds"), json={"scores": "no"}, headers=game.auth)
    assert refused.content == json.dumps(refused.json(), ensure_ascii=False, separators=(",", ":")).encode()
