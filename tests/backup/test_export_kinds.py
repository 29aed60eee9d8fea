"""The CSV export of the other games: Dutch (hands, points, totals, who called) and 31 (hands, lives
lost, lives left, who knocked; empty cells once a player is out). Dutch Blitz's is in test_api.py."""

from __future__ import annotations

import csv
import io

from fastapi.testclient import TestClient


def rows(client: TestClient, game_id: str) -> list[list[str]]:
    answer = client.get(f"/api/v1/games/{game_id}/export.csv")
    assert answer.status_code == 200
    return list(csv.reader(io.StringIO(answer.text.removeprefix("\ufeff"))))


def play(client: TestClient, make_game, preset: str, rounds: list[tuple[list[tuple[int, int]], str, int | None]]):
    game = make_game(players=[{"name": "Ana"}, {"name": "Ben"}, {"name": "=Cy"}], rules={"preset": preset})
    ids = game.player_ids
    for hands, field, who in rounds:
        body = {"scores": [{"player_id": ids[seat], "hand": hand} for seat, hand in hands]}
        body[field] = None if who is None else ids[who]
        answer = client.post(f"/api/v1/games/{game.id}/rounds", json=body, headers=game.auth)
        assert answer.status_code == 201, answer.text
    return game


def test_a_dutch_game_exports_each_hand_its_points_and_who_called(client: TestClient, make_game):
    # Round 1: Ben calls with the lowest hand (3): 0 for him, the others their hands.
    # Round 2: Ana calls with 9 but Cy has 2: Cy scores 0, Ana and Ben their hands.
    game = play(
        client,
        make_game,
        "dutch",
        [([(0, 7), (1, 3), (2, 12)], "caller", 1), ([(0, 9), (1, 5), (2, 2)], "caller", 0)],
    )
    assert rows(client, game.id) == [
        ["round", "caller"] + [f"{n} {c}" for n in ("Ana", "Ben", "'=Cy") for c in ("hand", "points", "total")],
        ["start", "", "", "", "0", "", "", "0", "", "", "0"],
        ["1", "Ben", "7", "7", "7", "3", "0", "0", "12", "12", "12"],
        ["2", "Ana", "9", "9", "16", "5", "5", "5", "2", "0", "12"],
    ]


def test_a_game_of_31_exports_lives_and_leaves_a_player_who_is_out_empty(client: TestClient, make_game):
    game = play(
        client,
        make_game,
        "thirty_one",
        [
            ([(0, 20), (1, 25), (2, 10)], "knocker", 2),  # Cy knocked and is the sole lowest: loses two
            ([(0, 20), (1, 25), (2, 10)], "knocker", None),  # Cy lowest again: 0 lives, on the county
            ([(0, 20), (1, 25), (2, 10)], "knocker", None),  # Cy loses on the county: out
            ([(0, 31), (1, 25)], "knocker", 1),  # 31: Ben (the knocker) loses one
        ],
    )
    assert rows(client, game.id) == [
        ["round", "knocker"] + [f"{n} {c}" for n in ("Ana", "Ben", "'=Cy") for c in ("hand", "lives lost", "lives")],
        ["start", "", "", "", "3", "", "", "3", "", "", "3"],
        ["1", "'=Cy", "20", "0", "3", "25", "0", "3", "10", "2", "1"],
        ["2", "", "20", "0", "3", "25", "0", "3", "10", "1", "0"],
        ["3", "", "20", "0", "3", "25", "0", "3", "10", "1", "0"],
        ["4", "Ben", "31", "0", "3", "25", "1", "2", "", "", ""],
    ]
