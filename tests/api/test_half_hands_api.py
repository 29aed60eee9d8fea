"""31's three of a kind at 30½ through the API: the rule `thirty_and_a_half` (off by default) on a new game,
in its answer and its presets; a round's `hand` of 30.5 under it, read back as 30.5 while every other hand
stays an integer; refused (422 naming the field) without the rule, or as any other fraction; the rule stays on
while a round holds one; the seats' draft rows; a backup's round trip."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.answers import GamePublic
from tests.helpers import API, GameHandle, assert_problem, game_url

NAMES = ("Ana", "Ben", "Cy")
HALF_31 = {"preset": "thirty_one", "thirty_and_a_half": True}


def new_game(make_game, rules: dict[str, Any]) -> GameHandle:
    return make_game([{"name": n} for n in NAMES], rules)


def hands(game: GameHandle, *values: Any, knocker: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "scores": [{"player_id": p, "hand": h} for p, h in zip(game.player_ids, values, strict=True)]
    }
    return body | ({"knocker": game.player_ids[knocker]} if knocker is not None else {})


def post(game: GameHandle, body: dict[str, Any]):
    return game.client.post(game_url(game.id, "/rounds"), json=body, headers=game.auth)


def test_the_rule_is_off_by_default_and_listed_with_the_presets(client: TestClient, make_game):
    game = new_game(make_game, {"preset": "thirty_one"})
    assert game.body["rules"] == {"kind": "lives", "preset": "thirty_one", "lives": 3, "county": True,
                                  "thirty_and_a_half": False}  # fmt: skip
    presets = {p["name"]: p["params"] for p in client.get(f"{API}/presets").json()}
    assert presets["thirty_one"]["thirty_and_a_half"] == {"default": False, "type": "boolean"}
    assert "thirty_and_a_half" not in presets["dutch"]
    on = new_game(make_game, HALF_31)
    assert on.body["rules"]["thirty_and_a_half"] is True


def test_a_hand_of_30_and_a_half_is_saved_and_read_back_and_the_others_stay_integers(make_game):
    game = new_game(make_game, HALF_31)
    ana, ben, cy = game.player_ids
    created = post(game, hands(game, 30.5, 30, 25, knocker=1))
    assert created.status_code == 201, created.text
    assert '"hand":30,' in created.text.replace(" ", "") and "30.0" not in created.text
    for body in (created.json(), game.get()):
        GamePublic.model_validate(body)
        [round_] = body["rounds"]
        assert [(s["player_id"], s["hand"], s["lives_lost"]) for s in round_["scores"]] == [
            (ana, 30.5, 0), (ben, 30, 0), (cy, 25, 1),
        ]  # fmt: skip
        assert [type(s["hand"]) for s in round_["scores"]] == [float, int, int]
    # 30½ beats the knocker's 30 but not a 31: a lone 30½ against a 31 loses a life.
    replaced = game.client.put(game_url(game.id, "/rounds/1"), json=hands(game, 30.5, 31, 30), headers=game.auth)
    assert replaced.status_code == 200, replaced.text
    assert [s["lives_lost"] for s in replaced.json()["rounds"][0]["scores"]] == [1, 0, 1]
    assert [s["hand"] for s in game.get()["rounds"][0]["scores"]] == [30.5, 31, 30]
    csv = game.client.get(game_url(game.id, "/export.csv")).text
    assert csv.splitlines()[2].split(",")[2:5] == ["30.5", "1", "2"]


@pytest.mark.parametrize(
    ("rules", "hand", "message"),
    [
        pytest.param({"preset": "thirty_one"}, 30.5, "Ana's hand must be a whole number from 0 to 31.", id="rule-off"),
        pytest.param(
            HALF_31, 12.5, "Ana's hand must be a whole number from 0 to 31, or 30½ for three of a kind.", id="12.5"
        ),
        pytest.param(
            HALF_31, 31.5, "Ana's hand must be a whole number from 0 to 31, or 30½ for three of a kind.", id="31.5"
        ),
        pytest.param({"preset": "dutch"}, 30.5, "Ana's hand must be a whole number from 0 to 250.", id="dutch"),
    ],
)
def test_any_other_half_is_refused_naming_the_hand(make_game, rules, hand, message):
    game = new_game(make_game, rules)
    body = assert_problem(post(game, hands(game, hand, 20, 25)), 422)
    assert {"field": "scores[0].hand", "message": message} in [
        {k: e[k] for k in ("field", "message")} for e in body["errors"]
    ]
    assert game.get()["rounds"] == []


@pytest.mark.parametrize("raw", ["30.0", "true", '"30.5"', "1e400"])
def test_a_whole_hand_is_still_a_json_integer(make_game, raw):
    game = new_game(make_game, HALF_31)
    body = json.dumps(hands(game, 0, 20, 25)).replace('"hand": 0', f'"hand": {raw}', 1)
    response = game.client.post(
        game_url(game.id, "/rounds"), content=body, headers=game.auth | {"Content-Type": "application/json"}
    )
    problem = assert_problem(response, 422)
    assert [e["field"] for e in problem["errors"]] == ["scores[0].hand"]


def test_the_message_is_in_the_readers_language(make_game):
    game = new_game(make_game, HALF_31)
    response = game.client.post(
        game_url(game.id, "/rounds"), json=hands(game, 12.5, 20, 25), headers=game.auth | {"Accept-Language": "de"}
    )
    messages = [e["message"] for e in assert_problem(response, 422)["errors"]]
    assert messages == [
        "Ana: Die Punkte auf der Hand müssen eine ganze Zahl von 0 bis 31\u00a0sein oder 30½ für drei gleiche Karten."
    ]


def test_the_rule_stays_on_while_a_round_holds_a_half_and_goes_off_once_none_does(make_game):
    game = new_game(make_game, HALF_31)
    assert post(game, hands(game, 30.5, 30, 25)).status_code == 201
    before = game.get()
    # Off, round 1's 30½ could no longer be corrected or restored from a backup: refused, nothing changed.
    off = {"rules": {"thirty_and_a_half": False}}
    refused = game.client.patch(game_url(game.id), json=off, headers=game.auth)
    assert_problem(refused, 422)
    assert refused.json()["errors"] == [
        {"field": "rules", "message": "Round 1\u00a0isn't possible under these rules: correct it first."}
    ]
    assert game.get() == before
    # Corrected to a whole hand, the rule can go off; then a 30½ is refused as any other fraction.
    corrected = game.client.put(game_url(game.id, "/rounds/1"), json=hands(game, 29, 30, 25), headers=game.auth)
    assert corrected.status_code == 200, corrected.text
    patched = game.client.patch(game_url(game.id), json=off, headers=game.auth)
    assert patched.status_code == 200, patched.text
    assert patched.json()["rules"]["thirty_and_a_half"] is False
    changes = game.client.get(game_url(game.id, "/changes")).json()
    assert [(c["kind"], c["old"], c["new"]) for c in changes if c["kind"] == "rules"] == [
        ("rules", {"thirty_and_a_half": True}, {"thirty_and_a_half": False}),
    ]
    assert_problem(post(game, hands(game, 30.5, 20, 25)), 422)
    # And its backup comes back whole.
    exported = game.client.get(game_url(game.id, "/export")).json()
    imported = game.client.post("/api/v1/games/import", json=exported)
    assert imported.status_code == 201, imported.text


def test_a_draft_row_takes_30_and_a_half_and_the_round_saves_from_it(make_game):
    game = new_game(make_game, HALF_31)
    ana, ben, cy = game.player_ids
    for pid, hand in ((ana, 30.5), (ben, 30), (cy, 12)):
        sent = game.client.put(game_url(game.id, f"/draft/{pid}"), json={"round": 1, "hand": hand}, headers=game.auth)
        assert sent.status_code == 200, sent.text
    draft = game.client.get(game_url(game.id, "/draft")).json()
    assert [(r["player_id"], r["hand"]) for r in draft["rows"]] == [(ana, 30.5), (ben, 30), (cy, 12)]
    assert [type(r["hand"]) for r in draft["rows"]] == [float, int, int]
    refused = game.client.put(game_url(game.id, f"/draft/{cy}"), json={"round": 1, "hand": 12.5}, headers=game.auth)
    assert [e["field"] for e in assert_problem(refused, 422)["errors"]] == ["body[0].hand"]


def test_a_draft_row_of_30_and_a_half_is_refused_without_the_rule(make_game):
    game = new_game(make_game, {"preset": "thirty_one"})
    ana = game.player_ids[0]
    sent = game.client.put(game_url(game.id, f"/draft/{ana}"), json={"round": 1, "hand": 30.5}, headers=game.auth)
    problem = assert_problem(sent, 422)
    assert [(e["field"], e["message"]) for e in problem["errors"]] == [
        ("body[0].hand", "Ana's hand must be a whole number from 0 to 31.")
    ]


def test_a_backup_keeps_the_rule_and_the_half_hand(client: TestClient, make_game):
    game = new_game(make_game, HALF_31)
    assert post(game, hands(game, 30.5, 30, 25)).status_code == 201
    document = client.get(f"{API}/games/{game.id}/export")
    assert document.status_code == 200, document.text
    backup = document.json()
    assert backup["rules"]["thirty_and_a_half"] is True
    assert [s["hand"] for s in backup["rounds"][0]["scores"]] == [30.5, 30, 25]
    imported = client.post(
        f"{API}/games/import", content=document.content, headers={"Content-Type": "application/json"}
    )
    assert imported.status_code == 201, imported.text
    again = imported.json()
    assert again["rules"]["thirty_and_a_half"] is True
    assert [(s["hand"], s["lives"]) for s in again["rounds"][0]["scores"]] == [(30.5, 3), (30, 3), (25, 2)]
    # An older backup, made before the rule: restored with it off.
    del backup["rules"]["thirty_and_a_half"]
    backup["rounds"][0]["scores"][0]["hand"] = 30
    older = client.post(f"{API}/games/import", json=backup)
    assert older.status_code == 201, older.text
    assert older.json()["rules"]["thirty_and_a_half"] is False
