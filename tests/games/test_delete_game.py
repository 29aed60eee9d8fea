"""Deleting a game, by its scorekeeper (the page, with a confirmation) or through the API: everything of it
goes, its links answer 410 Gone, and nothing changes without the key, the CSRF token or a current If-Match."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import Session, select

from app.models import DeletedGame, Game, IdempotencyRecord, Player, Round, RoundChange, RoundScore
from tests.helpers import WORKED_EXAMPLE_ROUND, GameHandle, assert_problem, csrf_of, html, statements, text_of

API = "/api/v1"


def rows_of(app: FastAPI, game_id: str) -> dict[str, int]:
    with Session(app.state.engine) as session:
        rounds = select(Round.id).where(Round.game_id == game_id)
        return {
            "game": session.exec(select(func.count()).select_from(Game).where(Game.id == game_id)).one(),
            "player": session.exec(select(func.count()).select_from(Player).where(Player.game_id == game_id)).one(),
            "round": session.exec(select(func.count()).select_from(Round).where(Round.game_id == game_id)).one(),
            "score": session.exec(
                select(func.count()).select_from(RoundScore).where(RoundScore.round_id.in_(rounds))
            ).one(),
            "replay": session.exec(
                select(func.count()).select_from(IdempotencyRecord).where(IdempotencyRecord.scope == game_id)
            ).one(),
            "change": session.exec(
                select(func.count()).select_from(RoundChange).where(RoundChange.game_id == game_id)
            ).one(),
            "tombstone": session.exec(
                select(func.count()).select_from(DeletedGame).where(DeletedGame.id == game_id)
            ).one(),
        }


@pytest.fixture
def played(make_game) -> GameHandle:
    game = make_game()
    assert game.add_round(WORKED_EXAMPLE_ROUND, **{"Idempotency-Key": "round-1"}).status_code == 201
    return game


@pytest.fixture
def corrected(played: GameHandle) -> GameHandle:
    """The played game with a change in its log (Ben's Blitz count corrected)."""
    fixed = played.scores([(22, 0), (14, 2), (11, 5), (9, 7)])
    response = played.client.put(f"{API}/games/{played.id}/rounds/1", json=fixed, headers=played.auth)
    assert response.status_code == 200, response.text
    return played


def test_the_api_deletes_a_game_with_its_key_and_its_links_then_answer_410(
    app: FastAPI, client: TestClient, corrected: GameHandle
):
    played = corrected
    before = rows_of(app, played.id)
    assert before["player"] == 4 and before["round"] == 1 and before["replay"] == 1 and before["tombstone"] == 0
    assert before["change"] == 1
    url = f"{API}/games/{played.id}"
    assert_problem(client.delete(url), 401)
    assert_problem(client.delete(url, headers={"Authorization": "Bearer wrong"}), 403)
    assert_problem(client.delete(url, headers=played.auth | {"If-Match": '"1"'}), 412)
    assert rows_of(app, played.id) == before  # refusals change nothing

    deleted = client.delete(url, headers=played.auth | {"If-Match": '"3"'})
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert rows_of(app, played.id) == {
        "game": 0,
        "player": 0,
        "round": 0,
        "score": 0,
        "replay": 0,
        "change": 0,
        "tombstone": 1,
    }

    for gone in (
        client.get(url),
        client.delete(url, headers=played.auth),  # again: gone
        client.get(f"{url}/export.csv"),
        client.get(f"{url}/events"),
        played.add_round(WORKED_EXAMPLE_ROUND),
        client.patch(url, json={"name": "x"}, headers=played.auth),
    ):
        body = assert_problem(gone, 410)
        assert body["type"].endswith("/gone") and body["detail"] == "This game was deleted by its scorekeeper."
    assert_problem(client.get(f"{API}/games/never-was"), 404)


def test_the_pages_of_a_deleted_game_say_so(client: TestClient, keeper_of, played):
    phone = keeper_of(played)
    assert client.delete(f"{API}/games/{played.id}", headers=played.auth).status_code == 204
    for path in (
        f"/g/{played.id}",
        f"/g/{played.id}?tv=1",
        f"/g/{played.id}/score",
        f"/g/{played.id}/edit/{played.key}",
    ):
        page = phone.get(path, follow_redirects=False)
        assert page.status_code == 410, path
        assert text_of(html(page).select_one("h1")) == "This game was deleted"
        assert html(page).select_one('main a[href="/"]').get_text() == "Start a new game"
    # An htmx request from a page that was open (a viewer's refresh, a keeper's tap) reloads it.
    fragment = phone.get(f"/g/{played.id}?since=2", headers={"HX-Request": "true"})
    assert fragment.status_code == 410 and fragment.headers["HX-Refresh"] == "true"


def test_the_scorekeeper_deletes_from_the_page_after_confirming(
    app: FastAPI, client: TestClient, keeper_of, played, make_game
):
    keep = make_game()
    phone = keeper_of(played)
    page = html(phone.get(f"/g/{played.id}/score"))
    link = page.select_one("#rules .delete-game a")
    assert link["href"] == f"/g/{played.id}/score?delete_game=1"
    confirm = html(phone.get(link["href"]))
    dialog = confirm.select_one("#confirm-delete-game[role=alertdialog]")
    assert "can't be undone" in text_of(dialog)
    assert confirm.select_one("#round-entry") is None  # the confirmation stands in for the round form
    form = dialog.select_one("form")
    assert form["action"] == f"/g/{played.id}/delete"
    data = {i["name"]: i["value"] for i in form.select("input[type=hidden]")}

    assert phone.post(form["action"], data=data | {"csrf": "forged"}).status_code == 403
    assert rows_of(app, played.id)["game"] == 1
    deleted = phone.post(form["action"], data=data, follow_redirects=False)
    assert deleted.status_code == 303 and deleted.headers["location"] == f"/g/{played.id}"
    assert f"bb_edit_{played.id}=" in deleted.headers["set-cookie"] and "Max-Age=0" in deleted.headers["set-cookie"]
    assert rows_of(app, played.id)["tombstone"] == 1
    assert phone.get(deleted.headers["location"]).status_code == 410
    assert client.get(f"{API}/games/{keep.id}").status_code == 200  # the other game is untouched


def test_a_stale_confirmation_deletes_nothing(app: FastAPI, keeper_of, played):
    phone = keeper_of(played)
    data = {"csrf": csrf_of(phone, played.id), "version": "1"}  # the game is at version 2
    answer = phone.post(f"/g/{played.id}/delete", data=data)
    assert answer.status_code == 409
    assert "it was not deleted" in text_of(html(answer).select_one("#game .form-error"))
    assert rows_of(app, played.id)["game"] == 1


def test_the_creations_replay_record_goes_with_the_game(app: FastAPI, client: TestClient):
    body = {"players": [{"name": "Ana"}, {"name": "Ben"}]}
    created = client.post(f"{API}/games", json=body, headers={"Idempotency-Key": "make-it-once"})
    game = created.json()

    def creation_records() -> int:
        with Session(app.state.engine) as session:
            return session.exec(
                select(func.count()).select_from(IdempotencyRecord).where(IdempotencyRecord.scope == "new-game")
            ).one()

    assert creation_records() == 1
    deleted = client.delete(f"{API}/games/{game['id']}", headers={"Authorization": f"Bearer {game['edit_key']}"})
    assert deleted.status_code == 204
    assert creation_records() == 0  # its players' names and sealed key are gone too


def test_deleting_a_game_finds_its_replay_records_by_index_and_reads_nobody_elses(app: FastAPI, client: TestClient):
    """A creation's record is scoped "new-game", not to its game; the game it made is stored beside it
    (`game_id`, indexed), so a deletion costs the same however many other games' records there are. It
    used to read, and unpack, the snapshot of every creation and import record in the database."""
    body = {"players": [{"name": "Ana"}, {"name": "Ben"}]}
    games = [client.post(f"{API}/games", json=body, headers={"Idempotency-Key": f"game-{n}"}).json() for n in range(8)]
    doomed = games[3]
    auth = {"Authorization": f"Bearer {doomed['edit_key']}"}
    saved = client.post(
        f"{API}/games/{doomed['id']}/rounds",
        json={"scores": [{"player_id": p["id"], "dutch": 5, "blitz": 0} for p in doomed["players"]]},
        headers=auth | {"Idempotency-Key": "its-round"},
    )
    assert saved.status_code == 201, saved.text

    with statements(app) as seen:
        assert client.delete(f"{API}/games/{doomed['id']}", headers=auth).status_code == 204
    touching_records = [statement for statement in seen if "idempotency_record" in statement]
    assert touching_records and all(statement.startswith("DELETE ") for statement in touching_records), seen
    with Session(app.state.engine) as session:
        left = session.exec(select(IdempotencyRecord.game_id, IdempotencyRecord.scope)).all()
    # Its creation's and its round's records went; every other game's creation record is there.
    assert sorted(left) == sorted((game["id"], "new-game") for game in games if game is not doomed)


def test_a_stream_whose_game_is_deleted_before_it_subscribes_ends_without_an_event(
    client: TestClient, make_game, monkeypatch
):
    from app.routes import events

    game = make_game()
    # There when the stream opens, gone by the time it has subscribed (the read after subscribing also
    # reads a running round's start).
    monkeypatch.setattr(events, "_current_version", lambda engine, game_id: 1)
    monkeypatch.setattr(events, "_current_state", lambda engine, game_id: None)
    with client.stream("GET", f"/g/{game.id}/events") as response:
        assert response.status_code == 200
        assert "".join(response.iter_text()) == ""  # ended at once: the reconnect is told 410
