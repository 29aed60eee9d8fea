"""Every player enters their own row, on their own phone, through the API (app/games/seats.py): the seat link,
taking a seat (its seat key), sending a row (checked field by field), the draft, freeing a seat; a seat key
does nothing else, a row for a round saved since gets 409, and a saved round clears the draft."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import GameHandle, assert_problem, game_url

NAMES = [{"name": n} for n in ("Ana", "Ben", "Cy")]


def seats(game: GameHandle) -> dict[str, Any]:
    response = game.client.get(game_url(game.id, "/seats"), headers=game.auth)
    assert response.status_code == 200, response.text
    return response.json()


def take(game: GameHandle, index: int, link: str | None = None):
    link = link if link is not None else seats(game)["link_key"]
    return game.client.post(game_url(game.id, f"/seats/{game.player_ids[index]}"), json={"link": link})


def send(game: GameHandle, index: int, key: str, body: dict[str, Any]):
    url = game_url(game.id, f"/draft/{game.player_ids[index]}")
    return game.client.put(url, json=body, headers={"Authorization": f"Bearer {key}"})


def test_each_player_sends_their_own_row_and_the_keeper_saves_the_round(make_game):
    game = make_game(players=NAMES)
    listed = seats(game)
    assert listed["link"].endswith(f"/g/{game.id}/seat/{listed['link_key']}")
    assert [(s["name"], s["taken"]) for s in listed["seats"]] == [("Ana", False), ("Ben", False), ("Cy", False)]
    keys = []
    for index in range(3):
        response = take(game, index)
        assert response.status_code == 201, response.text
        assert response.json()["player_id"] == game.player_ids[index]
        keys.append(response.json()["seat_key"])
    assert all(s["taken"] and s["taken_at"] for s in seats(game)["seats"])
    version = game.get()["version"]
    for index, (dutch, blitz) in enumerate([(12, 0), (9, 4), (7, 6)]):
        answer = send(game, index, keys[index], {"round": 1, "dutch": dutch, "blitz": blitz})
        assert answer.status_code == 200, answer.text
    draft = game.client.get(game_url(game.id, "/draft")).json()
    assert draft["round"] == 1
    assert [(r["player_id"], r["dutch"], r["blitz"], r["by_seat"]) for r in draft["rows"]] == [
        (game.player_ids[0], 12, 0, True),
        (game.player_ids[1], 9, 4, True),
        (game.player_ids[2], 7, 6, True),
    ]
    assert game.get()["version"] == version  # a draft is not a round
    # The keeper corrects Ben's row with the edit key, then saves the round.
    fixed = game.client.put(
        game_url(game.id, f"/draft/{game.player_ids[1]}"), json={"round": 1, "dutch": 10, "blitz": 4}, headers=game.auth
    )
    assert fixed.status_code == 200 and fixed.json()["rows"][1]["by_seat"] is False
    assert game.add_round([(12, 0), (10, 4), (7, 6)]).status_code == 201
    assert game.client.get(game_url(game.id, "/draft")).json() == {
        "game_id": game.id,
        "round": 2,
        "rows": [],
        "saved_round": None,
    }
    # A row sent late, for the round saved: 409, and the draft stays empty.
    late = assert_problem(send(game, 2, keys[2], {"round": 1, "dutch": 8, "blitz": 6}), 409)
    assert "saved already" in late["detail"]
    assert game.client.get(game_url(game.id, "/draft")).json()["rows"] == []


def test_a_row_with_a_stale_if_match_is_refused(make_game):
    game = make_game(players=NAMES)
    key = take(game, 0).json()["seat_key"]
    version = game.get()["version"]
    url = game_url(game.id, f"/draft/{game.player_ids[0]}")
    body = {"round": 1, "dutch": 3, "blitz": 0}
    stale = {"Authorization": f"Bearer {key}", "If-Match": f'"{version - 1}"'}
    assert_problem(game.client.put(url, json=body, headers=stale), 412)
    fresh = {"Authorization": f"Bearer {key}", "If-Match": f'"{version}"'}
    assert game.client.put(url, json=body, headers=fresh).status_code == 200


def test_a_seat_key_sends_its_own_row_and_nothing_else(make_game):
    game = make_game(players=NAMES)
    key = take(game, 0).json()["seat_key"]
    assert_problem(send(game, 1, key, {"round": 1, "dutch": 3, "blitz": 0}), 403)  # Ben's row
    headers = {"Authorization": f"Bearer {key}"}
    assert_problem(game.client.patch(game_url(game.id), json={"name": "Mine"}, headers=headers), 403)
    body = {"scores": [{"player_id": p, "dutch": 1, "blitz": 0} for p in game.player_ids]}
    assert_problem(game.client.post(game_url(game.id, "/rounds"), json=body, headers=headers), 403)
    assert_problem(game.client.get(game_url(game.id, "/seats"), headers=headers), 403)
    assert_problem(send(game, 0, "", {"round": 1, "dutch": 3, "blitz": 0}), 401)


def test_a_taken_seat_is_refused_until_the_keeper_frees_it(make_game):
    game = make_game(players=NAMES)
    first = take(game, 0).json()["seat_key"]
    assert "taken" in assert_problem(take(game, 0), 409)["detail"]
    assert game.client.delete(game_url(game.id, f"/seats/{game.player_ids[0]}"), headers=game.auth).status_code == 204
    assert_problem(send(game, 0, first, {"round": 1, "dutch": 3, "blitz": 0}), 403)  # the old phone's key stopped
    again = take(game, 0)
    assert again.status_code == 201 and again.json()["seat_key"] != first
    assert_problem(game.client.delete(game_url(game.id, f"/seats/{game.player_ids[0]}")), 401)


def test_a_wrong_or_old_seat_link_is_refused(make_game):
    game = make_game(players=NAMES)
    link = seats(game)["link_key"]
    assert_problem(take(game, 0, "0" * 32), 403)
    rotated = game.client.post(game_url(game.id, "/key"), headers=game.auth)
    assert rotated.status_code == 200, rotated.text
    assert "no longer" in assert_problem(take(game, 0, link), 403)["detail"]  # a new edit key ends the link


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"round": 1, "dutch": 41, "blitz": 0}, "dutch"),
        ({"round": 1, "dutch": 3, "blitz": 11}, "blitz"),
        ({"round": 1, "dutch": 35, "blitz": 8}, "dutch"),  # 43 cards: more than a deck
        ({"round": 1, "hand": 5}, "hand"),  # not Dutch Blitz's
        ({"round": 1, "dutch": 3}, "blitz"),
        ({"round": 1, "dutch": "3", "blitz": 0}, "dutch"),
        ({"round": 1, "dutch": 3, "blitz": 0, "called": True}, "called"),  # Dutch Blitz has no caller
    ],
)
def test_a_row_is_checked_field_by_field_and_a_refused_one_changes_nothing(make_game, body, field):
    game = make_game(players=NAMES)
    key = take(game, 0).json()["seat_key"]
    problem = assert_problem(send(game, 0, key, body), 422)
    assert any(field in e["field"] for e in problem["errors"]), problem
    assert game.client.get(game_url(game.id, "/draft")).json()["rows"] == []


def test_a_row_in_dutch_and_thirty_one_is_a_hand(make_game):
    game = make_game(players=NAMES, rules={"preset": "dutch"})
    key = take(game, 2).json()["seat_key"]
    sent = send(game, 2, key, {"round": 1, "hand": 4, "called": True})
    assert sent.status_code == 200, sent.text
    assert sent.json()["rows"][0] | {"sent_at": None} == {
        "player_id": game.player_ids[2], "dutch": None, "blitz": None, "hand": 4, "called": True, "by_seat": True,
        "sent_at": None,
    }  # fmt: skip
    assert_problem(send(game, 2, key, {"round": 1, "dutch": 4, "blitz": 0}), 422)


def test_a_finished_game_takes_no_seat_and_no_row(make_game):
    game = make_game(players=NAMES, rules={"target": 10})
    link = seats(game)["link_key"]
    key = take(game, 0, link).json()["seat_key"]
    assert game.add_round([(12, 0), (2, 4), (1, 6)]).status_code == 201
    assert not any(s["taken"] for s in seats(game)["seats"])  # the finished game closed its seats
    assert_problem(take(game, 1, link), 409)
    assert_problem(send(game, 0, key, {"round": 2, "dutch": 3, "blitz": 0}), 409)


def test_a_deleted_game_takes_its_seats_and_draft_with_it(make_game):
    game = make_game(players=NAMES)
    key = take(game, 0).json()["seat_key"]
    assert send(game, 0, key, {"round": 1, "dutch": 3, "blitz": 0}).status_code == 200
    assert game.client.delete(game_url(game.id), headers=game.auth).status_code == 204
    assert_problem(game.client.get(game_url(game.id, "/draft")), 410)


def test_a_saved_round_clears_the_draft_even_when_the_round_is_deleted_again(make_game):
    # Round 1 saved, then deleted: round 1 is being played again and starts with an empty draft, not the
    # rows sent for the round that was saved.
    game = make_game(players=NAMES)
    key = take(game, 0).json()["seat_key"]
    assert send(game, 0, key, {"round": 1, "dutch": 3, "blitz": 0}).status_code == 200
    assert game.add_round([(3, 0), (2, 4), (1, 6)]).status_code == 201
    assert game.client.delete(game_url(game.id, "/rounds/1"), headers=game.auth).status_code == 200
    assert game.client.get(game_url(game.id, "/draft")).json() == {
        "game_id": game.id,
        "round": 1,
        "rows": [],
        "saved_round": None,
    }


def test_a_round_deleted_or_put_back_keeps_the_rows_of_the_deal_being_played(make_game):
    # Two rounds saved, Ana sent her row of the third deal. Round 1 deleted: that deal is round 2 now, with
    # her row; a phone still sending for round 3 hears so. Put back: it is round 3 again, still with her row.
    game = make_game(players=NAMES)
    ana, ben = (take(game, i).json()["seat_key"] for i in (0, 1))
    for counts in ([(3, 0), (2, 4), (1, 6)], [(5, 0), (2, 1), (1, 2)]):
        assert game.add_round(counts).status_code == 201
    assert send(game, 0, ana, {"round": 3, "dutch": 7, "blitz": 0}).status_code == 200
    assert game.client.delete(game_url(game.id, "/rounds/1"), headers=game.auth).status_code == 200
    draft = game.client.get(game_url(game.id, "/draft")).json()
    assert (draft["round"], [(r["player_id"], r["dutch"]) for r in draft["rows"]]) == (2, [(game.player_ids[0], 7)])
    late = send(game, 1, ben, {"round": 3, "dutch": 4, "blitz": 2})
    problem = assert_problem(late, 409)
    assert problem["detail"] == "The round being played is round 2, not 3: the row is for round 2 now."
    assert (problem["round"], problem["saved_round"]) == (2, None)
    change = game.client.get(game_url(game.id, "/changes")).json()[0]
    assert game.client.post(game_url(game.id, f"/changes/{change['id']}/revert"), headers=game.auth).status_code == 200
    draft = game.client.get(game_url(game.id, "/draft")).json()
    assert (draft["round"], [r["player_id"] for r in draft["rows"]]) == (3, [game.player_ids[0]])
