"""A running game's players through the API (app/games/players.py): a rename keeps every score, is logged and
reverted; a refused name changes nothing; at a table the player follows the roster's person of the new name."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import API, GameHandle, assert_problem, game_url
from tests.tables.test_tables import make_table, results  # noqa: F401 (a fixture)

ROUNDS = [[(3, 0), (2, 4), (1, 6), (0, 8)], [(5, 0), (4, 2), (3, 3), (2, 5)]]


@pytest.fixture
def played(make_game) -> GameHandle:
    game = make_game(rules={"target": 1000})
    for counts in ROUNDS:
        assert game.add_round(counts).status_code == 201
    return game


def rename(game: GameHandle, index: int, name: Any, **headers: str):
    url = game_url(game.id, f"/players/{game.player_ids[index]}")
    return game.client.patch(url, json={"name": name}, headers=game.auth | headers)


def changes(game: GameHandle) -> list[dict[str, Any]]:
    response = game.client.get(game_url(game.id, "/changes"))
    assert response.status_code == 200, response.text
    return response.json()


def revert(game: GameHandle, change_id: int):
    return game.client.post(game_url(game.id, f"/changes/{change_id}/revert"), headers=game.auth)


def figures(body: dict[str, Any]) -> list[tuple[int, int, int]]:
    """Each player's (id, total, rank): what a rename must leave as it was."""
    return [(p["id"], p["total"], p["rank"]) for p in body["players"]]


def test_a_rename_keeps_every_score_and_is_logged_and_reverted(played: GameHandle):
    before = played.get()
    ben = played.player_ids[1]
    response = rename(played, 1, "  Benjamin ")
    assert response.status_code == 200, response.text
    after = response.json()
    assert [p["name"] for p in after["players"]] == ["Ana", "Benjamin", "Cy", "Dee"]
    assert figures(after) == figures(before) and after["rounds"] == before["rounds"]
    assert after["version"] == before["version"] + 1 and response.headers["ETag"] == f'"{after["version"]}"'
    [change] = changes(played)
    assert {k: change[k] for k in ("kind", "round", "reverts", "revertable", "old", "new")} == {
        "kind": "rename",
        "round": None,
        "reverts": None,
        "revertable": True,
        "old": {"player_id": ben, "name": "Ben"},
        "new": {"player_id": ben, "name": "Benjamin"},
    }
    undone = revert(played, change["id"])
    assert undone.status_code == 200, undone.text
    assert [p["name"] for p in undone.json()["players"]] == ["Ana", "Ben", "Cy", "Dee"]
    assert figures(undone.json()) == figures(before)
    latest = changes(played)[0]
    assert (latest["kind"], latest["reverts"], latest["new"]) == ("rename", change["id"], change["old"])


REFUSED = {
    "blank": "   ",
    "too long": "x" * 41,
    "another player's": "cy",
    "another player's, spaced": " CY ",
    "a control character": "Be\nn",
    "only invisible": "\u200b",
    "not text": 7,
}


@pytest.mark.parametrize("name", REFUSED.values(), ids=REFUSED.keys())
def test_a_refused_name_says_why_beside_the_field_and_changes_nothing(played: GameHandle, name):
    before = played.get()
    body = assert_problem(rename(played, 1, name), 422)
    assert [e["field"] for e in body["errors"]][-1].endswith("name"), body
    assert played.get() == before
    assert changes(played) == []


def test_the_same_name_again_or_in_another_case_of_ones_own_is_fine(played: GameHandle):
    version = played.get()["version"]
    same = rename(played, 1, "Ben")
    assert same.status_code == 200 and same.json()["version"] == version
    assert played.get()["version"] == version  # nothing changed: no version, so no page or waiting round goes stale
    assert changes(played) == []  # nothing logged
    assert rename(played, 1, "BEN").status_code == 200
    assert played.get()["players"][1]["name"] == "BEN"
    assert [c["kind"] for c in changes(played)] == ["rename"]


def test_who_may_rename_whom(played: GameHandle, make_game):
    other = make_game()
    url = game_url(played.id, f"/players/{other.player_ids[0]}")
    assert_problem(played.client.patch(url, json={"name": "X"}, headers=played.auth), 404)
    url = game_url(played.id, f"/players/{played.player_ids[0]}")
    assert_problem(played.client.patch(url, json={"name": "X"}), 401)
    assert_problem(played.client.patch(url, json={"name": "X"}, headers={"Authorization": "Bearer nope"}), 403)
    assert_problem(rename(played, 0, "X", **{"If-Match": '"1"'}), 412)
    assert_problem(played.client.patch(url, json={"name": "X", "seat": 2}, headers=played.auth), 422)
    assert_problem(
        played.client.patch(game_url("nosuchgame", "/players/1"), json={"name": "X"}, headers=played.auth), 404
    )
    assert played.get()["players"][0]["name"] == "Ana"
    assert changes(played) == []
    version = played.get()["version"]
    assert rename(played, 0, "Anna", **{"If-Match": f'"{version}"'}).status_code == 200


def test_a_retried_rename_is_done_once(played: GameHandle):
    first = rename(played, 2, "Cyrus", **{"Idempotency-Key": "r1"})
    again = rename(played, 2, "Cyrus", **{"Idempotency-Key": "r1"})
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.json()["version"] == first.json()["version"]
    assert len(changes(played)) == 1


def test_a_rename_renamed_again_is_reverted_latest_first(played: GameHandle):
    assert rename(played, 0, "Anna").status_code == 200
    assert rename(played, 0, "Annie").status_code == 200
    later, first = changes(played)
    assert (first["revertable"], later["revertable"]) == (False, True)
    refused = assert_problem(revert(played, first["id"]), 409)
    assert "Annie" in refused["detail"]
    assert revert(played, later["id"]).status_code == 200
    assert revert(played, first["id"]).status_code == 200
    assert played.get()["players"][0]["name"] == "Ana"


def test_a_revert_whose_old_name_another_player_took_is_refused(played: GameHandle):
    assert rename(played, 0, "Anna").status_code == 200
    [change] = changes(played)
    assert rename(played, 1, "Ana").status_code == 200
    body = assert_problem(revert(played, change["id"]), 409)
    assert "Ana" in body["detail"]
    assert [p["name"] for p in played.get()["players"]][:2] == ["Anna", "Ana"]


# --- at a table -------------------------------------------------------------------------------------------


def test_at_a_table_a_typo_fixed_moves_the_game_to_the_right_person(app, client: TestClient, make_table):  # noqa: F811
    table = make_table("The Millers", ["Ana", "Ben"])
    game = table.game(["Ana", "Bn"], rules={"target": 10})  # "Bn" joined the roster as a new person
    ben, typo = table.person("Ben")["id"], table.person("Bn")["id"]
    assert game.add_round([(10, 0), (2, 4)]).status_code == 201
    assert {r[0] for r in results(app, game.id)} == {table.person("Ana")["id"], typo}
    response = rename(game, 1, "ben")
    assert response.status_code == 200, response.text
    player = response.json()["players"][1]
    assert (player["name"], player["person_id"]) == ("Ben", ben)  # the roster's spelling
    assert {r[0] for r in results(app, game.id)} == {table.person("Ana")["id"], ben}
    assert table.person("Bn")["id"] == typo  # still on the roster, without this game
    # Reverted: the person they were again.
    assert revert(game, changes(game)[0]["id"]).status_code == 200
    assert game.get()["players"][1]["person_id"] == typo
    assert {r[0] for r in results(app, game.id)} == {table.person("Ana")["id"], typo}


def test_at_a_table_the_games_key_changes_the_game_never_the_roster(client: TestClient, make_table):  # noqa: F811
    table = make_table("The Millers", ["Ana", "Ben"])
    game = table.game(["Ana", "Ben"])
    before, version = table.get()["people"], table.get()["version"]
    played_before = game.get()
    # A name the roster doesn't have is for the table's page (the table's key) to add.
    body = assert_problem(rename(game, 1, "Benno"), 422)
    assert body["errors"][-1]["field"].endswith("name") and "Benno" in body["errors"][-1]["message"], body
    # A change of capitals only is the roster's spelling, which the table's page changes.
    body = assert_problem(rename(game, 1, "BEN"), 422)
    assert "“Ben”" in body["errors"][-1]["message"], body
    assert table.get()["people"] == before and table.get()["version"] == version
    assert game.get() == played_before
    assert changes(game) == []


def test_at_a_table_a_revert_finds_the_person_by_who_they_are_not_by_the_old_name(client: TestClient, make_table):  # noqa: F811
    table = make_table("The Millers", ["Ana", "Ben"])
    game = table.game(["Ana", "Bn"])
    typo = table.person("Bn")["id"]
    assert rename(game, 1, "Ben").status_code == 200
    [change] = changes(game)
    # The table's page renames the person the player was: the revert goes back to that person, by their name now.
    people = f"{API}/tables/{table.id}/people/{typo}"
    assert client.patch(people, json={"name": "Bert"}, headers=table.auth).status_code == 200
    assert revert(game, change["id"]).status_code == 200
    player = game.get()["players"][1]
    assert (player["name"], player["person_id"]) == ("Bert", typo)
    assert [p["name"] for p in table.get()["people"]].count("Bn") == 0  # nobody new joined for the old name


def test_at_a_table_a_rename_the_tables_page_made_since_is_named_as_such(client: TestClient, make_table):  # noqa: F811
    table = make_table("The Millers", ["Ana", "Ben"])
    game = table.game(["Ana", "Bn"])
    assert rename(game, 1, "Ben").status_code == 200
    [change] = changes(game)
    ben = table.person("Ben")["id"]
    assert (
        client.patch(f"{API}/tables/{table.id}/people/{ben}", json={"name": "Benjamin"}, headers=table.auth).status_code
        == 200
    )
    body = assert_problem(revert(game, change["id"]), 409)
    assert "table" in body["detail"] and "Benjamin" in body["detail"], body


def test_at_a_table_two_players_cant_become_one_person(client: TestClient, make_table):  # noqa: F811
    table = make_table("The Millers", ["Ana", "Ben"])
    game = table.game(["Ana", "Ben"])
    assert_problem(rename(game, 1, "ANA"), 422)
    assert [p["name"] for p in game.get()["players"]] == ["Ana", "Ben"]
    assert len(table.get()["people"]) == 2
    assert client.get(f"{API}/tables/{table.id}").status_code == 200
