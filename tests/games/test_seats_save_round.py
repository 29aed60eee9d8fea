"""A round its players' seats complete saves by itself when the game says so (`seats.save_round`, off by
default): only once every player still in sent a row, only when the rows make a valid round, and never over a
round the scorekeeper saved meanwhile."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import GameHandle, assert_problem, game_url

NAMES = [{"name": n} for n in ("Ana", "Ben", "Cy")]


def seat_keys(game: GameHandle) -> list[str]:
    link = game.client.get(game_url(game.id, "/seats"), headers=game.auth).json()["link_key"]
    keys = []
    for player_id in game.player_ids:
        taken = game.client.post(game_url(game.id, f"/seats/{player_id}"), json={"link": link})
        assert taken.status_code == 201, taken.text
        keys.append(taken.json()["seat_key"])
    return keys


def send(game: GameHandle, index: int, key: str, body: dict[str, Any]):
    url = game_url(game.id, f"/draft/{game.player_ids[index]}")
    return game.client.put(url, json=body, headers={"Authorization": f"Bearer {key}"})


def turn_on(game: GameHandle, **settings: bool) -> dict[str, Any]:
    answer = game.client.patch(game_url(game.id), json={"seats": settings}, headers=game.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


# The rows of one round by kind: (rules, rows, what the saved round holds).
KINDS = [
    pytest.param(
        None,
        [{"dutch": 12, "blitz": 0}, {"dutch": 9, "blitz": 4}, {"dutch": 7, "blitz": 6}],
        [12 - 0, 9 - 8, 7 - 12],
        id="dutch-blitz",
    ),
    pytest.param(
        {"preset": "dutch"},
        [{"hand": 0, "called": True}, {"hand": 7}, {"hand": 12}],
        [0, 7, 12],
        id="dutch-lowest",
    ),
    pytest.param(
        {"preset": "thirty_one"},
        [{"hand": 31, "called": True}, {"hand": 20}, {"hand": 25}],
        None,  # 31 counts lives, not points: the saved round is checked by its knocker
        id="thirty-one",
    ),
]


@pytest.mark.parametrize(("rules", "rows", "totals"), KINDS)
def test_the_last_row_in_saves_the_round_when_the_game_says_so(make_game, rules, rows, totals):
    game = make_game(players=NAMES, rules=rules)
    assert game.get()["seats"] == {"save_round": False, "on_view": False}
    assert turn_on(game, save_round=True)["seats"] == {"save_round": True, "on_view": False}
    keys = seat_keys(game)
    for index in (0, 1):
        answer = send(game, index, keys[index], {"round": 1, **rows[index]})
        assert answer.status_code == 200 and answer.json()["saved_round"] is None
        assert game.get()["rounds"] == []  # not every row is in yet
    last = send(game, 2, keys[2], {"round": 1, **rows[2]})
    assert last.status_code == 200, last.text
    assert last.json() == {"game_id": game.id, "round": 2, "rows": [], "saved_round": 1}
    played = game.get()
    assert len(played["rounds"]) == 1
    if totals is not None:
        assert [p["total"] for p in played["players"]] == totals
    else:
        assert played["rounds"][0]["knocker"] == game.player_ids[0]
    assert game.client.get(game_url(game.id, "/draft")).json()["rows"] == []


def test_off_by_default_every_row_in_stays_a_draft_for_the_keeper(make_game):
    game = make_game(players=NAMES)
    keys = seat_keys(game)
    for index, (dutch, blitz) in enumerate([(12, 0), (9, 4), (7, 6)]):
        assert (
            send(game, index, keys[index], {"round": 1, "dutch": dutch, "blitz": blitz}).json()["saved_round"] is None
        )
    assert game.get()["rounds"] == []
    assert len(game.client.get(game_url(game.id, "/draft")).json()["rows"]) == 3


def test_rows_that_make_no_valid_round_stay_a_draft(make_game):
    # Nobody went out: a round Dutch Blitz refuses. The rows wait for the keeper, who fixes one and saves.
    game = make_game(players=NAMES)
    turn_on(game, save_round=True)
    keys = seat_keys(game)
    for index, (dutch, blitz) in enumerate([(12, 2), (9, 4), (7, 6)]):
        answer = send(game, index, keys[index], {"round": 1, "dutch": dutch, "blitz": blitz})
        assert answer.status_code == 200, answer.text
    assert answer.json()["saved_round"] is None and answer.json()["round"] == 1
    assert game.get()["rounds"] == []
    assert len(game.client.get(game_url(game.id, "/draft")).json()["rows"]) == 3


def test_a_leaver_is_not_waited_for_and_a_player_without_a_row_is(make_game):
    game = make_game(players=[*NAMES, {"name": "Dee"}])
    turn_on(game, save_round=True)
    keys = seat_keys(game)
    left = game.client.patch(
        game_url(game.id, f"/players/{game.player_ids[3]}"), json={"left": True}, headers=game.auth
    )
    assert left.status_code == 200, left.text
    assert send(game, 0, keys[0], {"round": 1, "dutch": 12, "blitz": 0}).json()["saved_round"] is None
    assert send(game, 1, keys[1], {"round": 1, "dutch": 9, "blitz": 4}).json()["saved_round"] is None
    assert send(game, 2, keys[2], {"round": 1, "dutch": 7, "blitz": 6}).json()["saved_round"] == 1


def test_the_setting_needs_the_edit_key_and_a_flag(make_game):
    game = make_game(players=NAMES)
    keys = seat_keys(game)
    refused = game.client.patch(
        game_url(game.id), json={"seats": {"save_round": True}}, headers={"Authorization": f"Bearer {keys[0]}"}
    )
    assert_problem(refused, 403)
    assert_problem(game.client.patch(game_url(game.id), json={"seats": {"save_round": "yes"}}, headers=game.auth), 422)
    assert_problem(game.client.patch(game_url(game.id), json={"seats": {"autosave": True}}, headers=game.auth), 422)
    assert game.get()["seats"] == {"save_round": False, "on_view": False}
    assert turn_on(game, on_view=True)["seats"] == {"save_round": False, "on_view": True}
    assert game.client.get(game_url(game.id, "/changes")).json() == []  # a setting, not the rules: nothing to revert
