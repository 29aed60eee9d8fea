"""A latecomer who comes to a running game, through the API (app/games/players.py, `POST .../players`): the
next seat, in no round before they came and in every one after, with the starting score the keeper gives
(by default last place's total; in 31 the lives); logged ("join") and taken out again by its revert while
they have played no round."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.games.test_players import ROUNDS, changes, revert
from tests.helpers import GameHandle, assert_problem, game_url, round_body
from tests.tables.test_tables import make_table  # noqa: F401 (a fixture)

NAMES = [{"name": n} for n in ("Ana", "Ben", "Cy")]


def join(game: GameHandle, body: dict[str, Any], **headers: str):
    return game.client.post(game_url(game.id, "/players"), json=body, headers=game.auth | headers)


def everyone(game: GameHandle, counts: list[tuple[int, int]]):
    """A round for every player the game has now (a latecomer last)."""
    ids = [p["id"] for p in game.get()["players"]]
    return game.client.post(game_url(game.id, "/rounds"), json=round_body(ids, counts), headers=game.auth)


def hands(game: GameHandle, *points: int, key: str | None = None, by: int | None = None) -> dict[str, Any]:
    ids = [p["id"] for p in game.get()["players"]][: len(points)]
    body: dict[str, Any] = {"scores": [{"player_id": pid, "hand": h} for pid, h in zip(ids, points, strict=True)]}
    if key:
        body[key] = by
    return body


def test_a_latecomer_starts_last_and_plays_from_the_next_round(make_game):
    game = make_game(players=NAMES, rules={"target": 1000})
    for counts in ([(3, 0), (2, 4), (1, 6)], [(5, 0), (4, 2), (3, 3)]):
        assert game.add_round(counts).status_code == 201
    before = game.get()
    lowest = min(p["total"] for p in before["players"])
    response = join(game, {"name": "Dee"})
    assert response.status_code == 201, response.text
    body = response.json()
    dee = body["players"][3]
    assert (dee["name"], dee["starting_score"], dee["total"], dee["joined_after_round"]) == ("Dee", lowest, lowest, 2)
    assert dee["rank"] == 3  # level with last place: nobody who played all along is behind her
    assert [p["joined_after_round"] for p in body["players"][:3]] == [None, None, None]
    assert body["rounds"] == before["rounds"] and body["version"] == before["version"] + 1
    # The next round needs her, and the rounds before stay without her.
    missing = assert_problem(game.add_round([(3, 0), (2, 4), (1, 6)]), 422)
    assert any("Dee" in e["message"] for e in missing["errors"]), missing
    assert everyone(game, [(3, 0), (2, 4), (1, 6), (6, 0)]).status_code == 201
    after = game.get()
    assert [len(r["scores"]) for r in after["rounds"]] == [3, 3, 4]
    assert after["players"][3]["total"] == lowest + 6
    # Round 1 is corrected as it was played: without her.
    fixed = game.client.put(
        game_url(game.id, "/rounds/1"), json=round_body(game.player_ids, [(4, 0), (2, 4), (1, 6)]), headers=game.auth
    )
    assert fixed.status_code == 200, fixed.text
    with_her = round_body([*game.player_ids, dee["id"]], [(4, 0), (2, 4), (1, 6), (1, 0)])
    assert_problem(game.client.put(game_url(game.id, "/rounds/1"), json=with_her, headers=game.auth), 422)


def test_the_keeper_chooses_the_starting_score(make_game):
    game = make_game(players=NAMES)
    assert game.add_round([(3, 0), (2, 4), (1, 6)]).status_code == 201
    body = join(game, {"name": "Dee", "starting_score": 0}).json()
    assert (body["players"][3]["starting_score"], body["players"][3]["total"]) == (0, 0)


def test_a_player_added_before_the_first_round_plays_from_the_start(make_game):
    game = make_game(players=[{"name": "Ana", "starting_score": 5}, {"name": "Ben", "starting_score": 8}])
    body = join(game, {"name": "Cy"}).json()
    assert [(p["starting_score"], p["joined_after_round"]) for p in body["players"]] == [
        (5, None),
        (8, None),
        (5, 0),  # came before any round: after 0 rounds
    ]
    assert everyone(game, [(3, 0), (2, 4), (1, 6)]).status_code == 201


def test_in_dutch_lowest_wins_a_latecomer_starts_at_the_highest_total(make_game):
    game = make_game(players=NAMES, rules={"preset": "dutch"})
    url = game_url(game.id, "/rounds")
    response = game.client.post(url, json=hands(game, 3, 17, 9, key="caller", by=game.player_ids[0]), headers=game.auth)
    assert response.status_code == 201, response.text
    totals = [p["total"] for p in response.json()["players"]]
    dee = join(game, {"name": "Dee"}).json()["players"][3]
    assert dee["total"] == max(totals) and dee["rank"] == 3
    assert_problem(join(game, {"name": "Eve", "lives": 2}), 422)


def test_in_thirty_one_a_latecomer_comes_with_the_fewest_lives_or_those_given(make_game):
    game = make_game(players=NAMES, rules={"preset": "thirty_one", "lives": 3})
    url = game_url(game.id, "/rounds")
    assert game.client.post(url, json=hands(game, 30, 20, 25), headers=game.auth).status_code == 201
    lives = [p["lives"] for p in game.get()["players"]]
    assert lives == [3, 2, 3]
    dee = join(game, {"name": "Dee"}).json()["players"][3]
    assert (dee["lives"], dee["starting_score"], dee["out"]) == (2, -1, False)
    eve = join(game, {"name": "Eve", "lives": 3}).json()["players"][4]
    assert (eve["lives"], eve["starting_score"]) == (3, 0)
    for body, field in (({"name": "Fay", "lives": 4}, "lives"), ({"name": "Fay", "lives": 0}, "lives")):
        assert assert_problem(join(game, body), 422)["errors"][0]["field"] == field
    assert assert_problem(join(game, {"name": "Fay", "starting_score": 2}), 422)["errors"][0]["field"] == (
        "starting_score"
    )
    # Both are in the next round, Dee with her two lives.
    response = game.client.post(url, json=hands(game, 25, 20, 30, 28, 29), headers=game.auth)
    assert response.status_code == 201, response.text
    assert [p["lives"] for p in response.json()["players"]] == [3, 1, 3, 2, 3]


def test_what_a_join_refuses_changes_nothing(make_game):
    game = make_game(players=NAMES, rules={"target": 10})
    version = game.get()["version"]
    for body, field in (
        ({"name": "ben"}, "name"),  # another player's, ignoring case
        ({"name": "  "}, "name"),
        ({"name": "Dee", "starting_score": 10_001}, "starting_score"),
        ({"name": "Dee", "lives": 2}, "lives"),
    ):
        assert assert_problem(join(game, body), 422)["errors"][0]["field"] == field, body
    assert_problem(join(game, {"name": "Dee"}, **{"If-Match": f'"{version + 5}"'}), 412)
    assert_problem(game.client.post(game_url(game.id, "/players"), json={"name": "Dee"}), 401)
    assert game.get()["version"] == version and len(game.get()["players"]) == 3
    assert game.add_round([(12, 0), (2, 4), (1, 6)]).status_code == 201  # Ana wins
    assert_problem(join(game, {"name": "Dee"}), 409)


def test_a_game_of_eight_takes_nobody_more(make_game):
    game = make_game(players=[{"name": f"P{n}"} for n in range(7)])
    assert join(game, {"name": "P7"}).status_code == 201
    assert assert_problem(join(game, {"name": "P8"}), 422)["errors"][0]["field"] == "name"


def test_a_join_is_logged_and_reverted_while_they_have_played_no_round(make_game):
    game = make_game(players=NAMES, rules={"target": 1000})
    assert game.add_round(ROUNDS[0][:3]).status_code == 201
    before = game.get()
    dee = join(game, {"name": "Dee", "starting_score": 4}).json()["players"][3]
    [change] = changes(game)
    assert {k: change[k] for k in ("kind", "round", "revertable", "old", "new")} == {
        "kind": "join",
        "round": 1,
        "revertable": True,
        "old": None,
        "new": {"player_id": dee["id"], "name": "Dee", "starting_score": 4},
    }
    back = revert(game, change["id"])
    assert back.status_code == 200, back.text
    assert back.json()["players"] == before["players"]
    taken_out = changes(game)[0]
    assert (taken_out["kind"], taken_out["reverts"], taken_out["new"], taken_out["revertable"]) == (
        "join",
        change["id"],
        None,
        False,
    )
    assert "add them again" in assert_problem(revert(game, taken_out["id"]), 409)["detail"]
    # Once they played a round, their coming stays: they can leave instead.
    join(game, {"name": "Dee"})
    assert everyone(game, [(3, 0), (2, 4), (1, 6), (6, 0)]).status_code == 201
    latest = next(c for c in changes(game) if c["kind"] == "join" and c["new"])
    assert not latest["revertable"]
    assert "has played since" in assert_problem(revert(game, latest["id"]), 409)["detail"]


def test_a_new_round_that_takes_a_deleted_rounds_id_is_the_latecomers(make_game):
    # Dee came after round 2; round 2 is deleted (SQLite gives its id to the next round): the next round is hers.
    game = make_game(players=NAMES, rules={"target": 1000})
    for counts in ([(3, 0), (2, 4), (1, 6)], [(5, 0), (4, 2), (3, 3)]):
        assert game.add_round(counts).status_code == 201
    assert join(game, {"name": "Dee"}).status_code == 201
    assert game.client.delete(game_url(game.id, "/rounds/2"), headers=game.auth).status_code == 200
    response = everyone(game, [(3, 0), (2, 4), (1, 6), (6, 0)])
    assert response.status_code == 201, response.text
    assert [len(r["scores"]) for r in game.get()["rounds"]] == [3, 4]


def test_a_deleted_round_from_before_the_latecomer_goes_back_without_them(make_game):
    game = make_game(players=NAMES, rules={"target": 1000})
    assert game.add_round([(3, 0), (2, 4), (1, 6)]).status_code == 201
    assert join(game, {"name": "Dee"}).status_code == 201
    assert everyone(game, [(3, 0), (2, 4), (1, 6), (6, 0)]).status_code == 201
    assert game.client.delete(game_url(game.id, "/rounds/1"), headers=game.auth).status_code == 200
    [deletion] = [c for c in changes(game) if c["kind"] == "deletion"]
    response = revert(game, deletion["id"])
    assert response.status_code == 200, response.text
    assert [len(r["scores"]) for r in game.get()["rounds"]] == [3, 4]


def test_a_join_replays_with_its_idempotency_key(make_game):
    game = make_game(players=NAMES)
    first = join(game, {"name": "Dee"}, **{"Idempotency-Key": "dee-1"})
    again = join(game, {"name": "Dee"}, **{"Idempotency-Key": "dee-1"})
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json() and len(game.get()["players"]) == 4


def test_at_a_table_a_latecomer_is_someone_on_the_roster(client: TestClient, make_table):  # noqa: F811
    table = make_table("The Millers", ["Ana", "Ben", "Cy", "Dee"])
    game = table.game(["Ana", "Ben", "Cy"])
    body = assert_problem(join(game, {"name": "Eve"}), 422)
    assert "isn't on this table's roster" in body["errors"][0]["message"]
    dee = join(game, {"name": "dee"}).json()["players"][3]
    assert (dee["name"], dee["person_id"]) == ("Dee", table.person("Dee")["id"])


@pytest.mark.parametrize("value", ["3", 2.5, True])
def test_a_starting_score_and_lives_are_json_integers(make_game, value):
    game = make_game(players=NAMES)
    assert_problem(join(game, {"name": "Dee", "starting_score": value}), 422)
    assert len(game.get()["players"]) == 3


def test_in_thirty_one_a_player_added_before_the_first_round_comes_with_the_lives_given(make_game):
    game = make_game(players=NAMES, rules={"preset": "thirty_one", "lives": 3})
    dee = join(game, {"name": "Dee", "lives": 1}).json()["players"][3]
    assert (dee["lives"], dee["starting_score"], dee["joined_after_round"]) == (1, -2, 0)


def test_a_taken_out_latecomers_join_is_not_reverted_onto_the_next_one(make_game):
    # SQLite gives a taken-out player's id to the next player: the first join's entry must not take them out.
    game = make_game(players=NAMES, rules={"target": 1000})
    assert game.add_round([(3, 0), (2, 4), (1, 6)]).status_code == 201
    join(game, {"name": "Dee"})
    [first] = changes(game)
    assert revert(game, first["id"]).status_code == 200
    assert game.add_round([(3, 0), (2, 4), (1, 6)]).status_code == 201
    eve = join(game, {"name": "Eve"}).json()["players"][3]
    assert assert_problem(revert(game, first["id"]), 409)
    assert [p["name"] for p in game.get()["players"]] == ["Ana", "Ben", "Cy", "Eve"] and eve["name"] == "Eve"
    # Even when the next one came after the same round (the same mark, and on SQLite the same id).
    assert revert(game, changes(game)[0]["id"]).status_code == 200  # Eve out again
    join(game, {"name": "Fay"})
    assert_problem(revert(game, first["id"]), 409)
    assert [p["name"] for p in game.get()["players"]][-1] == "Fay"


def test_a_round_deleted_before_a_latecomer_came_says_why_it_cant_go_back(make_game):
    game = make_game(players=NAMES, rules={"target": 1000})
    for _ in range(3):
        assert game.add_round([(3, 0), (2, 4), (1, 6)]).status_code == 201
    assert game.client.delete(game_url(game.id, "/rounds/3"), headers=game.auth).status_code == 200
    [deletion] = [c for c in changes(game) if c["kind"] == "deletion"]
    join(game, {"name": "Dee"})  # after round 2: the deleted round 3 has no row of hers
    deletion = next(c for c in changes(game) if c["id"] == deletion["id"])
    assert not deletion["revertable"]
    assert "Dee came after round 3 was deleted" in assert_problem(revert(game, deletion["id"]), 409)["detail"]
