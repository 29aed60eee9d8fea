"""The correction log through the API (app/games/changes.py): what is logged and what is not, reverting each kind
of change, the refusals that change nothing, and the log being history, never state."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete
from sqlmodel import Session

from app.models import RoundChange
from tests.helpers import SMALL_ROUND, GameHandle, assert_problem, game_url

ROUNDS = [[(3, 0), (2, 4), (1, 6), (0, 8)], [(5, 0), (4, 2), (3, 3), (2, 5)], [(7, 0), (6, 1), (5, 2), (4, 3)]]
BEN_FIXED = [(5, 0), (4, 1), (3, 3), (2, 5)]  # round 2 with Ben's Blitz count 2 -> 1


@pytest.fixture
def played(make_game) -> GameHandle:
    game = make_game(rules={"target": 1000})
    for counts in ROUNDS:
        assert game.add_round(counts).status_code == 201
    return game


def changes(game: GameHandle) -> list[dict[str, Any]]:
    response = game.client.get(game_url(game.id, "/changes"))
    assert response.status_code == 200, response.text
    return response.json()


def cards(game: GameHandle, counts: list[tuple[int, int]]) -> list[dict[str, int]]:
    return game.scores(counts)["scores"]


def correct(game: GameHandle, number: int, counts: list[tuple[int, int]], **headers: str):
    return game.client.put(
        game_url(game.id, f"/rounds/{number}"), json=game.scores(counts), headers=game.auth | headers
    )


def delete_round(game: GameHandle, number: int):
    return game.client.delete(game_url(game.id, f"/rounds/{number}"), headers=game.auth)


def patch(game: GameHandle, body: dict[str, Any]):
    return game.client.patch(game_url(game.id), json=body, headers=game.auth)


def revert(game: GameHandle, change_id: int, **headers: str):
    return game.client.post(game_url(game.id, f"/changes/{change_id}/revert"), headers=game.auth | headers)


def played_cards(game: GameHandle) -> list[list[tuple[int, int]]]:
    return [[(s["dutch"], s["blitz"]) for s in r["scores"]] for r in game.get()["rounds"]]


# --- what is logged ----------------------------------------------------------------------------------

LOGGED = {
    "correction": (
        lambda g: correct(g, 2, BEN_FIXED),
        {"kind": "correction", "round": 2, "old": "round 2", "new": BEN_FIXED},
    ),
    "deletion": (lambda g: delete_round(g, 1), {"kind": "deletion", "round": 1, "old": "round 1", "new": None}),
    "target": (
        lambda g: patch(g, {"rules": {"target": 100}}),
        {"kind": "rules", "round": None, "old": {"target": 1000}, "new": {"target": 100}},
    ),
    "rules-and-name": (
        lambda g: patch(g, {"name": "Later", "rules": {"blitz_points": -1, "tie_break": "shared"}}),
        {
            "kind": "rules",
            "round": None,
            "old": {"name": "", "blitz_points": -2, "tie_break": "play_on"},
            "new": {"name": "Later", "blitz_points": -1, "tie_break": "shared"},
        },
    ),
}


@pytest.mark.parametrize("action, expected", LOGGED.values(), ids=LOGGED.keys())
def test_a_change_to_a_past_round_or_the_rules_is_logged_with_old_and_new_values(played: GameHandle, action, expected):
    before = played.get()
    response = action(played)
    assert response.status_code == 200, response.text
    [change] = changes(played)
    assert {k: change[k] for k in ("kind", "round", "reverts", "revertable")} == {
        "kind": expected["kind"],
        "round": expected["round"],
        "reverts": None,
        "revertable": True,
    }
    assert change["at"].endswith("Z") and before["updated_at"] <= change["at"] <= played.get()["updated_at"]
    for side in ("old", "new"):
        value = expected[side]
        if value == "round 1" or value == "round 2":
            value = {"scores": cards(played, ROUNDS[int(value[-1]) - 1])}
        elif isinstance(value, list):
            value = {"scores": cards(played, value)}
        assert change[side] == value, side


NOT_LOGGED = {
    "a new round": lambda g: g.add_round(SMALL_ROUND),
    "a correction that changes nothing": lambda g: correct(g, 1, ROUNDS[0]),
    "rules as they are": lambda g: patch(g, {"name": "", "rules": {"target": 1000}}),
    "a refused correction": lambda g: correct(g, 1, [(3, 1), (2, 4), (1, 6), (0, 8)]),
    "a refused rules change": lambda g: patch(g, {"rules": {"target": 0}}),
    "a new key": lambda g: g.client.post(game_url(g.id, "/key"), headers=g.auth),
}


@pytest.mark.parametrize("action", NOT_LOGGED.values(), ids=NOT_LOGGED.keys())
def test_play_and_what_changes_nothing_are_not_logged(played: GameHandle, action):
    assert changes(played) == []  # nor is the game's creation, nor its first rounds
    action(played)
    assert changes(played) == []


def test_changes_are_listed_newest_first_with_the_round_number_of_their_time(played: GameHandle):
    assert correct(played, 3, [(7, 0), (6, 0), (5, 2), (4, 3)]).status_code == 200
    assert delete_round(played, 1).status_code == 200
    assert patch(played, {"rules": {"target": 500}}).status_code == 200
    listed = changes(played)
    assert [(c["kind"], c["round"]) for c in listed] == [("rules", None), ("deletion", 1), ("correction", 3)]
    assert [c["id"] for c in listed] == sorted((c["id"] for c in listed), reverse=True)


# --- reverting -----------------------------------------------------------------------------------------

REVERTS = {
    "correction": (lambda g: correct(g, 2, BEN_FIXED), "correction"),
    "deletion of the first round": (lambda g: delete_round(g, 1), "restoration"),
    "deletion in the middle": (lambda g: delete_round(g, 2), "restoration"),
    "deletion of the last round": (lambda g: delete_round(g, 3), "restoration"),
    "rules": (lambda g: patch(g, {"name": "Later", "rules": {"target": 100, "dutch_points": 2}}), "rules"),
}


@pytest.mark.parametrize("action, logged_as", REVERTS.values(), ids=REVERTS.keys())
def test_a_revert_puts_the_game_back_and_is_itself_logged(played: GameHandle, action, logged_as: str):
    before = played.get()
    assert action(played).status_code == 200
    changed = played.get()
    [change] = changes(played)
    reverted = revert(played, change["id"])
    assert reverted.status_code == 200, reverted.text
    after = reverted.json()
    assert reverted.headers["ETag"] == f'"{after["version"]}"' and after["version"] == before["version"] + 2
    for field in ("name", "rules", "players", "rounds", "status", "winners"):
        assert after[field] == before[field], field
    newest, undone = changes(played)
    assert (newest["kind"], newest["reverts"], newest["revertable"]) == (logged_as, change["id"], True)
    assert (newest["old"], newest["new"]) == (change["new"], change["old"])
    assert undone["revertable"] is False  # what it touched is no longer as it left it
    # A revert is a change like the others: reverting it makes the first change again.
    again = revert(played, newest["id"])
    assert again.status_code == 200, again.text
    for field in ("name", "rules", "rounds"):
        assert again.json()[field] == changed[field], field


def test_a_restored_round_goes_back_between_its_neighbours_and_later_rounds_move_down(played: GameHandle):
    assert delete_round(played, 2).status_code == 200
    deletion = changes(played)[0]
    assert played.add_round(SMALL_ROUND).status_code == 201  # play went on: now rounds 1, 3 and the new one
    assert delete_round(played, 1).status_code == 200
    assert revert(played, deletion["id"]).status_code == 200
    assert played_cards(played) == [ROUNDS[1], ROUNDS[2], SMALL_ROUND]
    assert changes(played)[0]["round"] == 1  # where it went back, now that round 1 is gone


def refusal(game: GameHandle, change_id: int, status: int, slug: str | None = None, **headers: str) -> dict:
    before = game.get()
    log_before = changes(game)
    body = assert_problem(revert(game, change_id, **headers), status)
    if slug:
        assert body["type"].endswith(f"/{slug}"), body
    assert game.get() == before and changes(game) == log_before  # nothing changed
    return body


def test_a_correction_corrected_again_is_reverted_by_reverting_the_later_one_first(played: GameHandle):
    assert correct(played, 2, BEN_FIXED).status_code == 200
    assert correct(played, 2, [(5, 0), (4, 0), (3, 3), (2, 5)]).status_code == 200
    later, first = changes(played)
    assert first["revertable"] is False
    body = refusal(played, first["id"], 409, "cant-revert")
    assert body["detail"] == "Round 2 was corrected again since: revert the later change first."
    assert revert(played, later["id"]).status_code == 200
    assert revert(played, first["id"]).status_code == 200
    assert played_cards(played) == ROUNDS


CANT = {
    "round deleted since": (
        lambda g: correct(g, 2, BEN_FIXED),
        lambda g: delete_round(g, 2),
        "Round 2 was deleted since: there is nothing to revert.",
    ),
    "rules changed again": (
        lambda g: patch(g, {"rules": {"target": 100}}),
        lambda g: patch(g, {"rules": {"target": 200}}),
        "The target was changed again since: revert the later change first.",
    ),
    "last round deleted, then played on": (
        lambda g: delete_round(g, 3),
        lambda g: g.add_round(SMALL_ROUND),
        "Round 3 was the last round and the table has played on since: enter it again as a new round if it counts.",
    ),
    "deletion already reverted": (
        lambda g: delete_round(g, 1),
        lambda g: revert(g, changes(g)[0]["id"]),
        "Round 1 is back already.",
    ),
}


@pytest.mark.parametrize("change, since, detail", CANT.values(), ids=CANT.keys())
def test_a_revert_that_is_no_longer_possible_says_why_and_changes_nothing(played: GameHandle, change, since, detail):
    assert change(played).status_code == 200
    first = changes(played)[-1]
    assert since(played).status_code in (200, 201)
    assert [c["revertable"] for c in changes(played) if c["id"] == first["id"]] == [False]
    assert refusal(played, first["id"], 409, "cant-revert")["detail"] == detail


def test_a_revert_needs_the_key_a_current_version_and_a_change_of_this_game(
    client: TestClient, played: GameHandle, make_game
):
    assert correct(played, 2, BEN_FIXED).status_code == 200
    [change] = changes(played)
    url = game_url(played.id, f"/changes/{change['id']}/revert")
    before = played.get()
    assert_problem(client.post(url), 401)
    assert_problem(client.post(url, headers={"Authorization": "Bearer " + "x" * 32}), 403)
    refusal(played, change["id"], 412, "version-mismatch", **{"If-Match": f'"{before["version"] - 1}"'})
    refusal(played, change["id"] + 1000, 404, "not-found")
    other = make_game()
    assert_problem(client.post(game_url(other.id, f"/changes/{change['id']}/revert"), headers=other.auth), 404)
    assert_problem(client.post(game_url("never-was", "/changes/1/revert"), headers=played.auth), 404)
    for bad in ("0", "-1", "x", str(2**31)):
        assert_problem(client.post(game_url(played.id, f"/changes/{bad}/revert"), headers=played.auth), 422)
    assert played.get() == before
    ok = revert(played, change["id"], **{"If-Match": f'"{before["version"]}"'})
    assert ok.status_code == 200, ok.text


def test_a_retried_revert_gets_the_first_answer_and_reverts_nothing_twice(played: GameHandle):
    assert correct(played, 2, BEN_FIXED).status_code == 200
    [change] = changes(played)
    first = revert(played, change["id"], **{"Idempotency-Key": "revert-1"})
    assert first.status_code == 200
    again = revert(played, change["id"], **{"Idempotency-Key": "revert-1"})
    assert (again.status_code, again.json(), again.headers["Idempotent-Replayed"]) == (200, first.json(), "true")
    assert len(changes(played)) == 2
    assert_problem(  # the same key for another change is another request
        played.client.post(
            game_url(played.id, f"/changes/{change['id'] + 1}/revert"),
            headers=played.auth | {"Idempotency-Key": "revert-1"},
        ),
        422,
    )


# --- reading -------------------------------------------------------------------------------------------


def test_reading_the_log_needs_no_key_and_answers_304_while_the_game_is_unchanged(client: TestClient, played):
    url = game_url(played.id, "/changes")
    first = client.get(url)
    assert first.status_code == 200 and first.json() == []
    etag = first.headers["ETag"]
    assert etag == f'"{played.get()["version"]}"'
    unchanged = client.get(url, headers={"If-None-Match": etag})
    assert (unchanged.status_code, unchanged.content, unchanged.headers["ETag"]) == (304, b"", etag)
    assert correct(played, 1, [(3, 0), (2, 3), (1, 6), (0, 8)]).status_code == 200
    changed = client.get(url, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and len(changed.json()) == 1 and changed.headers["ETag"] != etag


def test_the_log_of_a_game_that_is_not_there_is_404_or_410(client: TestClient, played):
    assert_problem(client.get(game_url("never-was", "/changes")), 404)
    assert_problem(client.get(game_url("never-was", "/changes"), headers={"If-None-Match": '"1"'}), 404)
    assert client.delete(game_url(played.id), headers=played.auth).status_code == 204
    assert_problem(client.get(game_url(played.id, "/changes")), 410)
    assert_problem(revert(played, 1), 410)


def test_the_log_is_history_not_state(app: FastAPI, played: GameHandle):
    """Totals never read the log: the game answers the same with its log emptied."""
    assert correct(played, 2, BEN_FIXED).status_code == 200
    assert delete_round(played, 1).status_code == 200
    assert patch(played, {"rules": {"target": 300}}).status_code == 200
    game = played.get()
    with Session(app.state.engine) as session:
        session.exec(delete(RoundChange).where(RoundChange.game_id == played.id))
        session.commit()
    assert changes(played) == []
    assert played.get() == game


def test_a_restored_round_comes_back_with_its_time(make_game):
    game = make_game(rules={"target": 1000})
    timed = {**game.scores(SMALL_ROUND), "started_at": "2026-11-30T20:00:00Z", "duration_s": 92}
    assert game.client.post(game_url(game.id, "/rounds"), json=timed, headers=game.auth).status_code == 201
    assert game.add_round(SMALL_ROUND).status_code == 201  # untimed
    assert delete_round(game, 1).status_code == 200
    deletion = changes(game)[0]
    answer = revert(game, deletion["id"])
    assert answer.status_code == 200, answer.text
    first = answer.json()["rounds"][0]
    assert (first["duration_s"], first["started_at"]) == (92, "2026-11-30T20:00:00Z")
    assert game.get()["rounds"][0]["duration_s"] == 92
    assert game.get()["rounds"][1]["duration_s"] is None
    assert delete_round(game, 2).status_code == 200  # an untimed round comes back untimed
    assert revert(game, changes(game)[0]["id"]).status_code == 200
    assert [r["duration_s"] for r in game.get()["rounds"]] == [92, None]
