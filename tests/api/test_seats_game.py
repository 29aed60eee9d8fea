"""A whole game of Dutch Blitz played through the API alone, every player entering their own row from their own
phone: the keeper creates the game and hands out the seat link; each player takes their seat and sends their row
with their seat key; the keeper reads the draft, corrects a row, and saves each round with one POST, the piles
catching a miscount first; a row sent late is the 409 that says where the game is; a seat key does nothing else; the game that finishes closes the seats.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.helpers import API, assert_problem, game_url

PLAYERS = ("Ana", "Ben", "Cy", "Dee")
# Each round as every player's (Dutch cards, Blitz cards left), as their phones send them: big numbers, so that
# three rounds reach the target of 75. Ana goes out every round and wins (30 + 30 + 20).
ROUNDS = [
    [(30, 0), (20, 2), (10, 4), (5, 6)],
    [(30, 0), (25, 0), (12, 3), (8, 5)],
    [(20, 0), (18, 1), (15, 2), (9, 4)],
]
# The keeper's correction of round 1 before it is saved: Ben miscounted his Dutch cards.
CORRECTED = (1, 1, (22, 2))  # round, player index, the row as corrected


class Phone:
    """A player's own phone: its own client, holding its seat key once it took the seat."""

    def __init__(self, app: FastAPI, game_id: str, player_id: int):
        self.client = TestClient(app)
        self.game_id = game_id
        self.player_id = player_id
        self.key = ""

    def take_seat(self, link: str):
        return self.client.post(game_url(self.game_id, f"/seats/{self.player_id}"), json={"link": link})

    def send(self, number: int, dutch: int, blitz: int, player_id: int | None = None):
        url = game_url(self.game_id, f"/draft/{player_id or self.player_id}")
        body = {"round": number, "dutch": dutch, "blitz": blitz}
        return self.client.put(url, json=body, headers=self.auth)

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def test_four_players_play_a_game_of_dutch_blitz_from_their_own_phones(client: TestClient, app: FastAPI):
    # The keeper creates the game.
    created = client.post(f"{API}/games", json={"name": "Friday", "players": [{"name": n} for n in PLAYERS]})
    assert created.status_code == 201, created.text
    game_id, keeper = created.json()["id"], {"Authorization": f"Bearer {created.json()['edit_key']}"}
    assert created.json()["rules"]["target"] == 75
    ids = [p["id"] for p in created.json()["players"]]

    def read() -> dict[str, Any]:
        response = client.get(game_url(game_id))
        assert response.status_code == 200, response.text
        return response.json()

    def draft() -> dict[str, Any]:
        response = client.get(game_url(game_id, "/draft"))
        assert response.status_code == 200, response.text
        return response.json()

    def seats() -> dict[str, Any]:
        response = client.get(game_url(game_id, "/seats"), headers=keeper)
        assert response.status_code == 200, response.text
        return response.json()

    # The keeper shows the seat link; each player takes their own seat on their own phone.
    link = seats()["link_key"]
    phones = [Phone(app, game_id, player_id) for player_id in ids]
    for phone, name in zip(phones, PLAYERS, strict=True):
        taken = phone.take_seat(link)
        assert taken.status_code == 201, taken.text
        assert (taken.json()["name"], taken.json()["player_id"]) == (name, phone.player_id)
        phone.key = taken.json()["seat_key"]
    assert [(s["name"], s["taken"]) for s in seats()["seats"]] == [(n, True) for n in PLAYERS]
    assert len({p.key for p in phones}) == 4

    # A seat key does nothing but its own player's row: every other call refuses it as a wrong key.
    ana = phones[0]
    refused = [
        ana.send(1, 10, 0, player_id=ids[1]),  # Ben's row
        ana.client.patch(game_url(game_id), json={"name": "Mine"}, headers=ana.auth),
        ana.client.post(game_url(game_id, "/rounds"), json=_round(ids, ROUNDS[0]), headers=ana.auth),
        ana.client.get(game_url(game_id, "/seats"), headers=ana.auth),
        ana.client.delete(game_url(game_id, f"/seats/{ids[1]}"), headers=ana.auth),
        ana.client.post(game_url(game_id, "/key"), headers=ana.auth),
        ana.client.post(game_url(game_id, "/start"), headers=ana.auth),
        ana.client.delete(game_url(game_id), headers=ana.auth),
    ]
    assert [assert_problem(r, 403)["status"] for r in refused] == [403] * len(refused)
    assert draft()["rows"] == [] and read()["version"] == created.json()["version"]

    for number, counts in enumerate(ROUNDS, start=1):
        version = read()["version"]
        # Each player sends their own row, in no particular order.
        for index in (2, 0, 3, 1):
            sent = phones[index].send(number, *counts[index])
            assert sent.status_code == 200, sent.text
            assert sent.json()["round"] == number and sent.json()["saved_round"] is None
        rows = draft()
        assert rows["round"] == number
        assert [(r["player_id"], r["dutch"], r["blitz"], r["by_seat"]) for r in rows["rows"]] == [
            (pid, dutch, blitz, True) for pid, (dutch, blitz) in zip(ids, counts, strict=True)
        ]
        assert read()["version"] == version  # rows sent are no round: nothing moved yet

        if number == CORRECTED[0]:  # the keeper corrects a row before saving, with the edit key
            index, (dutch, blitz) = CORRECTED[1], CORRECTED[2]
            body = {"round": number, "dutch": dutch, "blitz": blitz}
            fixed = client.put(game_url(game_id, f"/draft/{ids[index]}"), json=body, headers=keeper)
            assert fixed.status_code == 200, fixed.text
            row = next(r for r in fixed.json()["rows"] if r["player_id"] == ids[index])
            assert (row["dutch"], row["blitz"], row["by_seat"]) == (dutch, blitz, False)
            counts = [*counts[:index], (dutch, blitz), *counts[index + 1 :]]

        # The keeper saves the round with one POST, from the draft as it stands.
        rows = draft()["rows"]
        scores = [{"player_id": r["player_id"], "dutch": r["dutch"], "blitz": r["blitz"]} for r in rows]
        body: dict[str, Any] = {"scores": scores}
        # The piles check the count: tops that add up to one card more than the rows are a 422 that saves
        # nothing; counted again, the right sum is kept with the round.
        rows_say = sum(dutch for dutch, _ in counts)
        miscounted = client.post(game_url(game_id, "/rounds"), json=body | {"piles": rows_say + 1}, headers=keeper)
        problem = assert_problem(miscounted, 422)
        assert problem["type"].endswith("/piles-differ")
        assert (problem["piles"], problem["rows"]) == (rows_say + 1, rows_say)
        assert read()["version"] == version and draft()["rows"] == rows
        body["piles"] = rows_say
        saved = client.post(game_url(game_id, "/rounds"), json=body, headers=keeper)
        assert saved.status_code == 201, saved.text
        game = saved.json()
        assert game["version"] == version + 1 and len(game["rounds"]) == number
        assert [(s["dutch"], s["blitz"]) for s in _saved_round(game, number)] == counts
        assert game["rounds"][number - 1]["piles"] == rows_say
        assert draft() == {"game_id": game_id, "round": number + 1, "rows": [], "saved_round": None}

        if game["status"] == "finished":
            break
        # A row sent late, for the round just saved: 409, with where the game is now; written nowhere.
        late = phones[2].send(number, *counts[2])
        problem = assert_problem(late, 409)
        assert problem["type"].endswith("/round-saved")
        assert (problem["saved_round"], problem["round"], problem["version"]) == (number, number + 1, game["version"])
        assert late.headers["ETag"] == f'"{game["version"]}"'
        assert draft()["rows"] == []

    # Three rounds to a winner: Ana, over 75.
    game = read()
    assert (game["status"], len(game["rounds"]), game["winners"]) == ("finished", len(ROUNDS), [ids[0]])
    totals = {p["name"]: p["total"] for p in game["players"]}
    assert totals["Ana"] == 80 and max(totals, key=lambda name: totals[name]) == "Ana"

    # Finishing the game closed the seats: every seat is free, no row or seat is taken any more.
    assert [s["taken"] for s in seats()["seats"]] == [False] * 4
    for phone in phones:
        assert assert_problem(phone.send(len(ROUNDS) + 1, 5, 0), 409)["type"].endswith("/game-over")
    assert assert_problem(phones[0].take_seat(link), 409)["type"].endswith("/game-over")
    assert draft()["rows"] == [] and read() == game


def _round(player_ids: list[int], counts: list[tuple[int, int]]) -> dict[str, Any]:
    return {
        "scores": [
            {"player_id": pid, "dutch": dutch, "blitz": blitz}
            for pid, (dutch, blitz) in zip(player_ids, counts, strict=True)
        ]
    }


def _saved_round(game: dict[str, Any], number: int) -> list[dict[str, Any]]:
    """The round's scores as the game answer shows them, in seating order."""
    return game["rounds"][number - 1]["scores"]
