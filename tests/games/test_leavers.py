"""A player who leaves a running game, through the API (app/games/players.py, `PATCH .../players/{id}` with
`left`): they keep their rounds, are in no new round, are listed after the players still in and can't win;
the leave is logged and reverted (coming back) only while no round was played since."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.games.test_players import ROUNDS, changes, revert
from tests.helpers import GameHandle, assert_problem, game_url, round_body
from tests.tables.test_tables import make_table, results  # noqa: F401 (a fixture)


def patch(game: GameHandle, index: int, body: dict[str, Any], **headers: str):
    url = game_url(game.id, f"/players/{game.player_ids[index]}")
    return game.client.patch(url, json=body, headers=game.auth | headers)


def leave(game: GameHandle, index: int, **headers: str):
    return patch(game, index, {"left": True}, **headers)


def without(game: GameHandle, index: int, counts: list[tuple[int, int]]):
    """A round for everyone but player `index` (who left)."""
    ids = [pid for i, pid in enumerate(game.player_ids) if i != index]
    return game.client.post(game_url(game.id, "/rounds"), json=round_body(ids, counts), headers=game.auth)


def test_a_leaver_keeps_their_rounds_gets_no_new_ones_and_is_listed_last(make_game):
    game = make_game(rules={"target": 1000})
    for counts in ROUNDS:
        assert game.add_round(counts).status_code == 201
    before = game.get()
    response = leave(game, 0)  # Ana, in the lead
    assert response.status_code == 200, response.text
    after = response.json()
    ana = after["players"][0]
    assert (ana["left"], ana["left_after_round"], ana["total"], ana["rank"]) == (
        True,
        2,
        before["players"][0]["total"],
        4,
    )
    assert [p["rank"] for p in after["players"][1:]] == [1, 2, 3]
    assert after["rounds"] == before["rounds"] and after["leaders"] == [game.player_ids[1]]
    # A round with Ana is refused beside her; one without her is the next round.
    body = assert_problem(game.add_round([(3, 0), (2, 4), (1, 6), (0, 8)]), 422)
    assert any("Ana has left the game" in e["message"] for e in body["errors"]), body
    assert without(game, 0, [(5, 0), (1, 3), (0, 9)]).status_code == 201
    third = game.get()["rounds"][2]
    assert [s["player_id"] for s in third["scores"]] == game.player_ids[1:]
    [change] = changes(game)
    assert {k: change[k] for k in ("kind", "round", "revertable", "old", "new")} == {
        "kind": "leave",
        "round": 2,
        "revertable": False,  # a round was played since: she'd be missing from it
        "old": {"player_id": game.player_ids[0], "left": False},
        "new": {"player_id": game.player_ids[0], "left": True},
    }
    assert "can't come back" in assert_problem(revert(game, change["id"]), 409)["detail"]
    assert_problem(patch(game, 0, {"left": False}), 422)
    # An old round is corrected with her, as she played it.
    fixed = game.client.put(
        game_url(game.id, "/rounds/1"), json=game.scores([(4, 0), (2, 4), (1, 6), (0, 8)]), headers=game.auth
    )
    assert fixed.status_code == 200, fixed.text


def test_a_leave_is_reverted_while_no_round_was_played_since(make_game):
    game = make_game()
    assert game.add_round(ROUNDS[0]).status_code == 201
    before = game.get()
    assert leave(game, 2).status_code == 200
    assert leave(game, 2).status_code == 200  # again: nothing to change
    [change] = changes(game)
    assert change["revertable"]
    back = revert(game, change["id"])
    assert back.status_code == 200, back.text
    assert back.json()["players"] == before["players"]
    latest = changes(game)[0]
    assert (latest["kind"], latest["reverts"], latest["new"]["left"]) == ("leave", change["id"], False)
    assert game.add_round(ROUNDS[1]).status_code == 201  # everyone plays again


def test_what_a_leave_refuses_changes_nothing(make_game):
    two = make_game(players=[{"name": "Ana"}, {"name": "Ben"}])
    body = assert_problem(leave(two, 0), 422)
    assert body["errors"][0]["field"].endswith("left")
    assert_problem(patch(two, 0, {}), 422)
    assert_problem(patch(two, 0, {"left": "soon"}), 422)
    assert_problem(two.client.patch(game_url(two.id, f"/players/{two.player_ids[0]}"), json={"left": True}), 401)
    finished = make_game(rules={"target": 10})
    assert finished.add_round([(12, 0), (2, 4), (1, 6), (0, 8)]).status_code == 201
    assert_problem(leave(finished, 3), 409)
    for game in (two, finished):
        assert not any(p["left"] for p in game.get()["players"]) and changes(game) == []


def test_a_leaver_past_the_target_ends_nothing(make_game):
    game = make_game(players=[{"name": n} for n in ("Ana", "Ben", "Cy", "Dee")], rules={"target": 20})
    assert game.add_round([(19, 0), (10, 0), (0, 10), (0, 10)]).status_code == 201
    response = leave(game, 0)
    assert response.status_code == 200, response.text
    assert without(game, 0, [(12, 0), (11, 0), (0, 10)]).status_code == 201  # Ben 22, Cy 1, Ana 19
    body = game.get()
    assert body["status"] == "finished" and body["winners"] == [game.player_ids[1]]


def test_a_new_round_that_takes_a_deleted_rounds_id_is_not_the_leavers(make_game):
    """SQLite gives a deleted last round's id to the next one: the leaver's mark named it."""
    game = make_game(rules={"target": 1000})
    for counts in ROUNDS:
        assert game.add_round(counts).status_code == 201
    assert leave(game, 3).status_code == 200
    assert game.client.delete(game_url(game.id, "/rounds/2"), headers=game.auth).status_code == 200
    assert without(game, 3, [(5, 0), (1, 3), (0, 9)]).status_code == 201
    body = game.get()
    assert [len(r["scores"]) for r in body["rounds"]] == [4, 3]
    assert body["players"][3]["left_after_round"] == 1


def test_in_thirty_one_a_player_out_cant_leave_and_the_last_one_in_wins(make_game):
    names = [{"name": n} for n in ("Ana", "Ben", "Cy", "Dee")]
    game = make_game(players=names, rules={"preset": "thirty_one", "lives": 1})

    def hands(*points: int) -> dict[str, Any]:
        return {"scores": [{"player_id": pid, "hand": h} for pid, h in zip(game.player_ids, points, strict=True)]}

    url = game_url(game.id, "/rounds")
    assert game.client.post(url, json=hands(31, 20, 25, 28), headers=game.auth).status_code == 201
    assert game.client.post(url, json=hands(25, 20, 30, 28), headers=game.auth).status_code == 201  # Ben out
    state = game.get()
    assert [p["out"] for p in state["players"]] == [False, True, False, False] and state["status"] == "playing"
    body = assert_problem(leave(game, 1), 422)
    assert "out of the game already" in body["errors"][0]["message"]
    assert leave(game, 2).status_code == 200 and leave(game, 3).status_code == 422  # two must stay
    assert game.client.post(url, json=hands(25, 20, 30, 28), headers=game.auth).status_code == 422
    players = game.get()["players"]
    assert [(p["name"], p["out"], p["left"]) for p in players][2] == ("Cy", True, True)


def test_at_a_table_a_leaver_gets_a_result_after_those_who_stayed(app, client: TestClient, make_table):  # noqa: F811
    table = make_table("The Millers", ["Ana", "Ben", "Cy"])
    game = table.game(["Ana", "Ben", "Cy"], rules={"target": 20})
    assert game.add_round([(15, 0), (5, 2), (2, 6)]).status_code == 201
    assert leave(game, 0).status_code == 200
    assert without(game, 0, [(20, 0), (3, 4)]).status_code == 201
    ana, ben, cy = (table.person(n)["id"] for n in ("Ana", "Ben", "Cy"))
    rows = {r[0]: r for r in results(app, game.id)}
    assert rows[ben][2:4] == (1, True)
    assert rows[ana][1:4] == (15, 3, False)  # ahead of Cy on points, but placed after those who stayed
    assert rows[cy][2] == 2


def test_the_spreadsheet_leaves_a_leavers_later_cells_empty(make_game):
    game = make_game(players=[{"name": n} for n in ("Ana", "Ben", "Cy")], rules={"target": 1000})
    assert game.add_round([(5, 0), (4, 2), (3, 3)]).status_code == 201
    assert leave(game, 1).status_code == 200
    assert without(game, 1, [(6, 0), (2, 4)]).status_code == 201
    sheet = game.client.get(game_url(game.id, "/export.csv")).text.lstrip("\ufeff").splitlines()
    assert sheet[3].split(",") == ["2", "6", "0", "6", "11", "", "", "", "", "2", "4", "-6", "-9"]


@pytest.mark.parametrize("left", ["yes", 1, "true"])
def test_leaving_takes_a_json_boolean_only(make_game, left):
    game = make_game(players=[{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}])
    url = f"/api/v1/games/{game.id}/players/{game.player_ids[2]}"
    assert_problem(game.client.patch(url, json={"left": left}, headers=game.auth), 422)
    assert [p["left"] for p in game.get()["players"]] == [False, False, False]


@pytest.mark.parametrize("rounds", [2, 3])
def test_a_deleted_round_a_leaver_played_goes_back_with_their_row(make_game, rounds: int):
    # Dee played every round and left; round 2 deleted (the last, or the one before the last), then put
    # back: it is hers too, so its revert puts it back whole (it was refused: "Dee has left the game").
    game = make_game(rules={"target": 1000})
    for counts in (ROUNDS + ROUNDS)[:rounds]:
        assert game.add_round(counts).status_code == 201
    assert leave(game, 3).status_code == 200
    assert game.client.delete(game_url(game.id, "/rounds/2"), headers=game.auth).status_code == 200
    [deletion] = [c for c in changes(game) if c["kind"] == "deletion"]
    assert deletion["revertable"]
    response = revert(game, deletion["id"])
    assert response.status_code == 200, response.text
    body = game.get()
    assert [len(r["scores"]) for r in body["rounds"]] == [4] * rounds
    assert (body["players"][3]["left"], body["players"][3]["left_after_round"]) == (True, rounds)


def test_in_thirty_one_a_correction_that_leaves_nobody_in_is_refused(make_game):
    # One life, no county: Ana out in round 1, Dee leaves; a correction putting Ben and Cy out with her
    # would leave a game nobody can play or win (Dee's 30 spares the round from being void).
    names = [{"name": n} for n in ("Ana", "Ben", "Cy", "Dee")]
    game = make_game(players=names, rules={"preset": "thirty_one", "lives": 1, "county": False})

    def hands(*points: int) -> dict[str, Any]:
        return {"scores": [{"player_id": pid, "hand": h} for pid, h in zip(game.player_ids, points, strict=True)]}

    assert (
        game.client.post(game_url(game.id, "/rounds"), json=hands(10, 20, 25, 30), headers=game.auth).status_code == 201
    )
    assert leave(game, 3).status_code == 200
    before = game.get()
    url = game_url(game.id, "/rounds/1")
    body = assert_problem(game.client.put(url, json=hands(10, 10, 10, 30), headers=game.auth), 422)
    assert "nobody left to play or win" in body["errors"][0]["message"], body
    assert game.get() == before
    # A correction that leaves someone in is fine.
    assert game.client.put(url, json=hands(10, 10, 25, 30), headers=game.auth).status_code == 200
