"""A backup keeps each round's centre piles as counted ("Check the piles") and the game's seat settings: an
export says them, an import makes them again (a table's as a game's), and an older backup without them
imports with no count and both settings off."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.backup.test_backup import bearer, export, import_, new_game, new_table, without_id
from tests.helpers import API

ROUNDS = [  # (Dutch counts, Blitz counts, piles sent, saved anyway)
    ([12, 9], [0, 4], 21, False),
    ([5, 7], [6, 0], None, False),
    ([3, 8], [0, 2], 12, True),  # the table counted one more than the rows: saved anyway
]


def play_counted(client: TestClient, game: dict[str, Any]) -> None:
    ids = [p["id"] for p in game["players"]]
    for dutch, blitz, piles, anyway in ROUNDS:
        body: dict[str, Any] = {
            "scores": [{"player_id": i, "dutch": d, "blitz": b} for i, d, b in zip(ids, dutch, blitz, strict=True)]
        }
        if piles is not None:
            body |= {"piles": piles, "piles_anyway": anyway}
        saved = client.post(f"{API}/games/{game['id']}/rounds", json=body, headers=bearer(game["edit_key"]))
        assert saved.status_code == 201, saved.text


def set_seats(client: TestClient, game: dict[str, Any], seats: dict[str, bool]) -> None:
    answer = client.patch(f"{API}/games/{game['id']}", json={"seats": seats}, headers=bearer(game["edit_key"]))
    assert answer.status_code == 200, answer.text


SEATS = [
    {"save_round": False, "on_view": False},
    {"save_round": True, "on_view": False},
    {"save_round": False, "on_view": True},
    {"save_round": True, "on_view": True},
]


@pytest.mark.parametrize("seats", SEATS)
def test_a_game_round_trips_with_its_piles_and_seat_settings(client: TestClient, seats: dict[str, bool]):
    game = new_game(client, None, ["Ana", "Ben"], {"preset": "dutch_blitz", "target": 500})
    play_counted(client, game)
    set_seats(client, game, seats)
    document = export(client, "games", game["id"])
    exported = json.loads(document)
    assert [r["piles"] for r in exported["rounds"]] == [21, None, 12]
    assert exported["seats"] == seats
    imported = import_(client, "games", document)
    assert imported.status_code == 201, imported.text
    assert [r["piles"] for r in imported.json()["rounds"]] == [21, None, 12]
    assert imported.json()["seats"] == seats
    again = client.get(f"{API}/games/{imported.json()['id']}").json()
    assert [r["piles"] for r in again["rounds"]] == [21, None, 12] and again["seats"] == seats
    assert without_id(export(client, "games", again["id"]))[1] == without_id(document)[1]


def test_an_import_retried_answers_with_the_piles_and_seat_settings(client: TestClient):
    game = new_game(client, None, ["Ana", "Ben"], {"preset": "dutch_blitz", "target": 500})
    play_counted(client, game)
    set_seats(client, game, {"save_round": False, "on_view": True})
    document = export(client, "games", game["id"])
    first = import_(client, "games", document, **{"Idempotency-Key": "piles-once"})
    again = import_(client, "games", document, **{"Idempotency-Key": "piles-once"})
    assert first.status_code == again.status_code == 201
    assert [r["piles"] for r in again.json()["rounds"]] == [21, None, 12]
    assert again.json()["seats"] == {"save_round": False, "on_view": True}
    assert again.json() == first.json()


@pytest.mark.parametrize("seats", SEATS[1:])
def test_a_table_round_trips_with_its_games_piles_and_seat_settings(client: TestClient, seats: dict[str, bool]):
    table = new_table(client, "The Millers", ["Ana", "Ben"])
    game = new_game(client, table, ["Ana", "Ben"], {"preset": "nerts"})
    play_counted(client, game)
    set_seats(client, game, seats)
    document = export(client, "tables", table["id"])
    [exported] = json.loads(document)["games"]
    assert [r["piles"] for r in exported["rounds"]] == [21, None, 12] and exported["seats"] == seats
    imported = import_(client, "tables", document)
    assert imported.status_code == 201, imported.text
    [game_id] = [g["id"] for g in imported.json()["game_keys"]]
    again = client.get(f"{API}/games/{game_id}").json()
    assert [r["piles"] for r in again["rounds"]] == [21, None, 12] and again["seats"] == seats


def test_an_older_backup_without_them_imports_with_no_count_and_the_settings_off(client: TestClient):
    game = new_game(client, None, ["Ana", "Ben"], {"preset": "dutch_blitz", "target": 500})
    play_counted(client, game)
    set_seats(client, game, {"save_round": True, "on_view": True})
    older = json.loads(export(client, "games", game["id"]))
    del older["seats"]
    for round_ in older["rounds"]:
        del round_["piles"]
    imported = import_(client, "games", json.dumps(older).encode())
    assert imported.status_code == 201, imported.text
    assert [r["piles"] for r in imported.json()["rounds"]] == [None, None, None]
    assert imported.json()["seats"] == {"save_round": False, "on_view": False}


def test_a_game_without_centre_piles_exports_none(client: TestClient):
    game = new_game(client, None, ["Ana", "Ben"], {"preset": "dutch"})
    saved = client.post(
        f"{API}/games/{game['id']}/rounds",
        json={"scores": [{"player_id": p["id"], "hand": 4} for p in game["players"]]},
        headers=bearer(game["edit_key"]),
    )
    assert saved.status_code == 201
    [round_] = json.loads(export(client, "games", game["id"]))["rounds"]
    assert "piles" not in round_
