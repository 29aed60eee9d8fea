"""The centre piles as the table counted them ("Check the piles"), kept with the round through the API: `piles`
on POST and PUT of a round (a correction: left out keeps it, null clears it), refused out of range, on a game
without centre piles, or when it differs from the rows' Dutch counts unless `piles_anyway`; every round's
answer carries it, and the change log keeps it (a revert puts the old count back)."""

from __future__ import annotations

from typing import Any

import pytest

from app.http.problems import PROBLEM_TYPE_BASE as PROBLEM_BASE

API = "/api/v1"
TWO = [{"name": "Ana"}, {"name": "Ben"}]
ROW = [(12, 0), (9, 4)]  # 21 cards on the centre piles
DUTCH = {"kind": "lowest", "preset": "dutch", "target": 100, "tie_break": "play_on"}


def rounds_url(game, number: int | None = None) -> str:
    return f"{API}/games/{game.id}/rounds" + (f"/{number}" if number else "")


def post(game, **extra: Any):
    return game.client.post(rounds_url(game), json=game.scores(ROW) | extra, headers=game.auth)


def put(game, number: int, counts=ROW, **extra: Any):
    return game.client.put(rounds_url(game, number), json=game.scores(counts) | extra, headers=game.auth)


@pytest.mark.parametrize(("extra", "kept"), [({}, None), ({"piles": None}, None), ({"piles": 21}, 21)])
def test_a_new_round_keeps_the_piles_it_was_sent_with(make_game, extra: dict[str, Any], kept: int | None):
    game = make_game(players=TWO)
    answer = post(game, **extra)
    assert answer.status_code == 201, answer.text
    assert answer.json()["rounds"][0]["piles"] == kept
    assert game.get()["rounds"][0]["piles"] == kept


def test_piles_that_differ_are_refused_with_their_own_problem_unless_saved_anyway(make_game):
    game = make_game(players=TWO)
    refused = post(game, piles=23)
    assert refused.status_code == 422
    assert refused.headers["content-type"].startswith("application/problem+json")
    body = refused.json()
    assert body["type"] == PROBLEM_BASE + "piles-differ"
    assert (body["piles"], body["rows"]) == (23, 21)
    assert "The piles hold 23 cards; the rows say 21" in body["detail"]
    assert [e["field"] for e in body["errors"]] == ["piles"]
    assert game.get()["rounds"] == [] and game.get()["version"] == 1
    anyway = post(game, piles=23, piles_anyway=True)
    assert anyway.status_code == 201, anyway.text
    assert anyway.json()["rounds"][0]["piles"] == 23


@pytest.mark.parametrize(
    ("piles", "said"),
    [
        (-1, "between 0 and 80\u00a0cards"),  # two players' decks of 40
        (81, "between 0 and 80\u00a0cards"),
        (10**6, "between 0 and 80\u00a0cards"),
    ],
)
def test_a_count_no_table_can_have_is_refused_and_nothing_changes(make_game, piles: int, said: str):
    game = make_game(players=TWO)
    for answer in (post(game, piles=piles, piles_anyway=True), post(game, piles=piles)):
        assert answer.status_code == 422
        body = answer.json()
        assert body["type"] == PROBLEM_BASE + "invalid-input"
        assert [e["field"] for e in body["errors"]] == ["piles"]
        assert said in body["errors"][0]["message"]
    assert game.get()["rounds"] == [] and game.get()["version"] == 1


@pytest.mark.parametrize("piles", ["21", 21.0, True])
def test_piles_are_a_json_integer(make_game, piles: Any):
    game = make_game(players=TWO)
    answer = post(game, piles=piles)
    assert answer.status_code == 422
    assert [e["field"] for e in answer.json()["errors"]] == ["piles"]
    assert game.get()["rounds"] == []


def test_a_game_without_centre_piles_refuses_a_count(make_game):
    game = make_game(players=TWO, rules=DUTCH)
    body = {"scores": [{"player_id": pid, "hand": 5} for pid in game.player_ids], "piles": 10}
    answer = game.client.post(rounds_url(game), json=body, headers=game.auth)
    assert answer.status_code == 422
    assert [e["field"] for e in answer.json()["errors"]] == ["piles"]
    assert game.get()["rounds"] == []
    answer = game.client.post(rounds_url(game), json=body | {"piles": None}, headers=game.auth)
    assert answer.status_code == 201 and "piles" not in answer.json()["rounds"][0]


@pytest.mark.parametrize(
    ("extra", "after"),
    [
        ({}, 21),  # left out: the round keeps its count
        ({"piles": None}, None),  # null: cleared
        ({"piles": 21}, 21),
        ({"piles": 25, "piles_anyway": True}, 25),
    ],
)
def test_a_correction_keeps_clears_or_replaces_the_count(make_game, extra: dict[str, Any], after: int | None):
    game = make_game(players=TWO)
    assert post(game, piles=21).status_code == 201
    answer = put(game, 1, **extra)
    assert answer.status_code == 200, answer.text
    assert game.get()["rounds"][0]["piles"] == after


def test_a_correction_whose_rows_differ_from_the_count_it_sends_is_refused(make_game):
    game = make_game(players=TWO)
    assert post(game, piles=21).status_code == 201
    answer = put(game, 1, [(13, 0), (9, 4)], piles=21)  # 22 in the rows now
    assert answer.status_code == 422
    assert answer.json()["type"] == PROBLEM_BASE + "piles-differ"
    assert (answer.json()["piles"], answer.json()["rows"]) == (21, 22)
    assert game.get()["rounds"][0]["scores"][0]["dutch"] == 12 and game.get()["version"] == 2


def changes(game) -> list[dict[str, Any]]:
    return game.client.get(f"{API}/games/{game.id}/changes").json()


def revert(game, change_id: int):
    return game.client.post(f"{API}/games/{game.id}/changes/{change_id}/revert", headers=game.auth)


@pytest.mark.parametrize(
    ("before", "extra"), [(21, {"piles": None}), (None, {"piles": 21}), (21, {"piles": 23, "piles_anyway": True})]
)
def test_a_correction_of_the_count_is_logged_and_its_revert_puts_it_back(make_game, before, extra):
    game = make_game(players=TWO)
    assert post(game, piles=before).status_code == 201
    assert put(game, 1, **extra).status_code == 200
    [change] = changes(game)
    assert change["kind"] == "correction"
    assert (change["old"].get("piles"), change["new"].get("piles")) == (before, extra["piles"])
    assert revert(game, change["id"]).status_code == 200
    assert game.get()["rounds"][0]["piles"] == before


def test_a_deleted_round_comes_back_with_its_count(make_game):
    game = make_game(players=TWO)
    assert post(game, piles=23, piles_anyway=True).status_code == 201
    assert game.client.delete(rounds_url(game, 1), headers=game.auth).status_code == 200
    [change] = changes(game)
    assert change["old"]["piles"] == 23
    assert revert(game, change["id"]).status_code == 200
    assert game.get()["rounds"][0]["piles"] == 23


def test_the_openapi_document_declares_the_fields(client):
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    fields = schema["RoundIn"]["properties"]
    assert "piles_anyway" in fields["piles"]["description"]
    assert "piles-differ" in fields["piles"]["description"]
    assert fields["piles_anyway"]["type"] == "boolean" and fields["piles_anyway"]["description"]
    assert "piles" in schema["RoundPublic"]["properties"]
    assert {"piles", "rows"} <= set(schema["ProblemDetails"]["properties"])
    assert "piles" not in schema["RoundIn"].get("required", [])
