"""Seats and rows sent again: `Idempotency-Key` on taking a seat and on a row (a retry gets the first answer and
changes nothing; the same key for another request is the API's 422), wrong seat links and seat keys counted toward
the wrong-key limit (429), and the 409 of a row sent for a round saved since, with the state to send it again from.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.models import IdempotencyRecord
from tests.helpers import API, GameHandle, assert_problem, game_url, limited_app

NAMES = [{"name": n} for n in ("Ana", "Ben", "Cy")]


def link_of(game: GameHandle) -> str:
    response = game.client.get(game_url(game.id, "/seats"), headers=game.auth)
    assert response.status_code == 200, response.text
    return response.json()["link_key"]


def take(game: GameHandle, index: int, link: str, retry: str | None = None):
    headers = {"Idempotency-Key": retry} if retry else {}
    url = game_url(game.id, f"/seats/{game.player_ids[index]}")
    return game.client.post(url, json={"link": link}, headers=headers)


def send(game: GameHandle, index: int, key: str, body: dict[str, Any], retry: str | None = None):
    headers = {"Authorization": f"Bearer {key}"} | ({"Idempotency-Key": retry} if retry else {})
    return game.client.put(game_url(game.id, f"/draft/{game.player_ids[index]}"), json=body, headers=headers)


def draft(game: GameHandle) -> dict[str, Any]:
    return game.client.get(game_url(game.id, "/draft")).json()


def taken(game: GameHandle) -> list[Any]:
    response = game.client.get(game_url(game.id, "/seats"), headers=game.auth)
    return [(s["taken"], s["taken_at"]) for s in response.json()["seats"]]


# --- taking a seat again ---------------------------------------------------------------------------


def test_a_claim_retried_with_its_key_gets_the_same_seat_key_and_takes_nothing_more(make_game, app):
    game = make_game(players=NAMES)
    link = link_of(game)
    first = take(game, 0, link, retry="tap-seat")
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    seats_after = taken(game)
    again = take(game, 0, link, retry="tap-seat")
    assert (again.status_code, again.json(), again.headers["Idempotent-Replayed"]) == (201, first.json(), "true")
    assert taken(game) == seats_after  # not taken anew
    key = first.json()["seat_key"]
    assert send(game, 0, key, {"round": 1, "dutch": 3, "blitz": 0}).status_code == 200  # the key holds the seat
    # Its record keeps the seat key sealed, never in the clear.
    with Session(app.state.engine) as session:
        records = session.exec(select(IdempotencyRecord).where(IdempotencyRecord.game_id == game.id)).all()
    assert len(records) == 1 and records[0].sealed_key
    stored = b"".join(bytes(v) if isinstance(v, bytes) else str(v).encode() for v in records[0].model_dump().values())
    assert key.encode() not in stored and b"tap-seat" not in stored


def test_another_phone_with_the_link_and_the_same_claim_key_gets_no_seat_key(make_game, app):
    # The seat link is the whole table's: a retry's seat key goes back only to the address that took the seat.
    game = make_game(players=NAMES)
    link = link_of(game)
    first = take(game, 0, link, retry="seat-1")
    assert first.status_code == 201
    other = TestClient(app, client=("192.0.2.7", 50000))
    url = game_url(game.id, f"/seats/{game.player_ids[0]}")
    refused = other.post(url, json={"link": link}, headers={"Idempotency-Key": "seat-1"})
    problem = assert_problem(refused, 409)
    assert "taken" in problem["detail"] and "seat_key" not in refused.text


def test_the_same_claim_key_for_another_seat_is_422_and_takes_nothing(make_game):
    game = make_game(players=NAMES)
    link = link_of(game)
    assert take(game, 0, link, retry="one-key").status_code == 201
    problem = assert_problem(take(game, 1, link, retry="one-key"), 422)
    assert problem["type"].endswith("/idempotency-key-reused")
    assert [t for t, _ in taken(game)] == [True, False, False]


def test_a_claim_retried_after_the_seat_was_freed_gives_no_key(make_game):
    game = make_game(players=NAMES)
    link = link_of(game)
    assert take(game, 0, link, retry="lost-answer").status_code == 201
    assert game.client.delete(game_url(game.id, f"/seats/{game.player_ids[0]}"), headers=game.auth).status_code == 204
    problem = assert_problem(take(game, 0, link, retry="lost-answer"), 422)
    assert problem["type"].endswith("/idempotency-replay-unavailable")
    assert [t for t, _ in taken(game)] == [False, False, False]  # still free
    assert take(game, 0, link, retry="another-tap").status_code == 201  # a new request takes it


def test_a_claim_retried_after_a_new_edit_key_still_gets_its_seat_key(make_game):
    # A new edit key ends the link, not the seats taken with it: the retry of a seat taken is answered.
    game = make_game(players=NAMES)
    link = link_of(game)
    first = take(game, 0, link, retry="before-rotation")
    rotated = game.client.post(game_url(game.id, "/key"), headers=game.auth)
    assert rotated.status_code == 200, rotated.text
    again = take(game, 0, link, retry="before-rotation")
    assert (again.status_code, again.json()) == (201, first.json())
    assert_problem(take(game, 1, link, retry="new-tap"), 403)  # the old link takes no other seat


def test_a_claim_retried_after_the_game_finished_is_409(make_game):
    game = make_game(players=NAMES, rules={"target": 10})
    link = link_of(game)
    assert take(game, 0, link, retry="late").status_code == 201
    assert game.add_round([(12, 0), (2, 4), (1, 6)]).status_code == 201
    assert assert_problem(take(game, 0, link, retry="late"), 409)["type"].endswith("/game-over")


# --- a row sent again ------------------------------------------------------------------------------


def test_a_row_retried_with_its_key_changes_nothing(make_game):
    game = make_game(players=NAMES)
    key = take(game, 0, link_of(game)).json()["seat_key"]
    first = send(game, 0, key, {"round": 1, "dutch": 3, "blitz": 0}, retry="row-1")
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    again = send(game, 0, key, {"round": 1, "dutch": 3, "blitz": 0}, retry="row-1")
    assert (again.status_code, again.json(), again.headers["Idempotent-Replayed"]) == (200, first.json(), "true")
    # The keeper corrects the row; a late retry of the first one changes nothing, and says the draft as it stands.
    fixed = game.client.put(
        game_url(game.id, f"/draft/{game.player_ids[0]}"), json={"round": 1, "dutch": 4, "blitz": 0}, headers=game.auth
    )
    assert fixed.status_code == 200, fixed.text
    late = send(game, 0, key, {"round": 1, "dutch": 3, "blitz": 0}, retry="row-1")
    assert late.status_code == 200 and late.headers["Idempotent-Replayed"] == "true"
    assert late.json() == fixed.json() == draft(game) | {"saved_round": None}
    assert [(r["dutch"], r["by_seat"]) for r in draft(game)["rows"]] == [(4, False)]


def test_the_same_row_key_with_another_row_is_422_and_changes_nothing(make_game):
    game = make_game(players=NAMES)
    key = take(game, 0, link_of(game)).json()["seat_key"]
    assert send(game, 0, key, {"round": 1, "dutch": 3, "blitz": 0}, retry="row-k").status_code == 200
    problem = assert_problem(send(game, 0, key, {"round": 1, "dutch": 5, "blitz": 0}, retry="row-k"), 422)
    assert problem["type"].endswith("/idempotency-key-reused")
    assert problem["errors"][0]["field"] == "Idempotency-Key"
    assert [r["dutch"] for r in draft(game)["rows"]] == [3]


def test_a_rows_record_is_bound_to_the_key_that_sent_it(make_game):
    # The keeper's edit key with a seat's Idempotency-Key is a request of its own, never that seat's replay.
    game = make_game(players=NAMES)
    key = take(game, 0, link_of(game)).json()["seat_key"]
    assert send(game, 0, key, {"round": 1, "dutch": 3, "blitz": 0}, retry="shared").status_code == 200
    keeper = send(game, 0, game.key, {"round": 1, "dutch": 3, "blitz": 0}, retry="shared")
    assert keeper.status_code == 200 and "Idempotent-Replayed" not in keeper.headers
    assert [r["by_seat"] for r in draft(game)["rows"]] == [False]


def test_a_row_retried_after_its_round_was_saved_is_answered_not_refused(make_game):
    game = make_game(players=NAMES)
    key = take(game, 2, link_of(game)).json()["seat_key"]
    assert send(game, 2, key, {"round": 1, "dutch": 7, "blitz": 6}, retry="slow").status_code == 200
    assert game.add_round([(12, 0), (9, 4), (7, 6)]).status_code == 201
    again = send(game, 2, key, {"round": 1, "dutch": 7, "blitz": 6}, retry="slow")
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == {"game_id": game.id, "round": 2, "rows": [], "saved_round": None}
    assert_problem(send(game, 2, key, {"round": 1, "dutch": 7, "blitz": 6}, retry="other"), 409)  # a new request


def test_the_row_that_saved_the_last_round_by_itself_is_answered_again_after_the_game_finished(make_game):
    game = make_game(players=NAMES, rules={"target": 10})
    settings = game.client.patch(game_url(game.id), json={"seats": {"save_round": True}}, headers=game.auth)
    assert settings.status_code == 200, settings.text
    link = link_of(game)
    keys = [take(game, i, link).json()["seat_key"] for i in range(3)]
    for index, (dutch, blitz) in enumerate([(2, 4), (1, 6)], start=1):
        assert send(game, index, keys[index], {"round": 1, "dutch": dutch, "blitz": blitz}).status_code == 200
    last = send(game, 0, keys[0], {"round": 1, "dutch": 12, "blitz": 0}, retry="the-last-row")
    assert last.status_code == 200 and last.json()["saved_round"] == 1
    assert game.get()["status"] == "finished"
    again = send(game, 0, keys[0], {"round": 1, "dutch": 12, "blitz": 0}, retry="the-last-row")
    assert (again.status_code, again.json(), again.headers["Idempotent-Replayed"]) == (200, last.json(), "true")
    assert len(game.get()["rounds"]) == 1


# --- wrong seat links and seat keys: the wrong-key limit -------------------------------------------


def test_wrong_seat_links_and_seat_keys_count_toward_the_wrong_key_limit(database_url: str):
    app = limited_app(database_url, wrong_keys_per_minute=3)
    try:
        with TestClient(app) as client:
            created = client.post(f"{API}/games", json={"players": NAMES})
            assert created.status_code == 201, created.text
            game = GameHandle(client, created.json())
            link = link_of(game)
            key = take(game, 0, link).json()["seat_key"]
            row = {"round": 1, "dutch": 3, "blitz": 0}
            guesses = [
                take(game, 1, "0" * 32),  # a wrong seat link
                send(game, 1, "x" * 32, row),  # a wrong seat key
                send(game, 1, key, row),  # Ana's seat key on Ben's row
                take(game, 2, "1" * 32),
                send(game, 2, "y" * 32, row),
            ]
            assert [r.status_code for r in guesses] == [403, 403, 403, 429, 429]
            for refused in guesses[3:]:
                assert assert_problem(refused, 429)["type"].endswith("/rate-limited")
                assert 1 <= int(refused.headers["Retry-After"]) <= 60
            assert draft(game)["rows"] == [] and [t for t, _ in taken(game)] == [True, False, False]
            # The right link and the right seat key still go through.
            assert take(game, 1, link).status_code == 201
            assert send(game, 0, key, row).status_code == 200
    finally:
        app.state.engine.dispose()


# --- a row for a round saved since -----------------------------------------------------------------


def test_a_row_for_a_round_saved_since_is_409_with_the_round_now_and_the_games_version(make_game):
    game = make_game(players=NAMES)
    key = take(game, 1, link_of(game)).json()["seat_key"]
    assert game.add_round([(12, 0), (9, 4), (7, 6)]).status_code == 201
    assert game.add_round([(10, 0), (9, 4), (7, 6)]).status_code == 201
    version = game.get()["version"]
    late = send(game, 1, key, {"round": 1, "dutch": 9, "blitz": 4})
    problem = assert_problem(late, 409)
    assert problem["type"].endswith("/round-saved")
    assert (problem["saved_round"], problem["round"], problem["version"]) == (1, 3, version)
    assert late.headers["ETag"] == f'"{version}"'
    assert draft(game)["rows"] == []
    # Sent again for the round now: taken.
    assert send(game, 1, key, {"round": problem["round"], "dutch": 9, "blitz": 4}).status_code == 200
    # A round not begun yet is refused the same way, with no round saved.
    ahead = assert_problem(send(game, 1, key, {"round": 7, "dutch": 9, "blitz": 4}), 409)
    assert (ahead["saved_round"], ahead["round"], ahead["version"]) == (None, 3, version)
