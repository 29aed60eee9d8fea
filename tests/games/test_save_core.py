"""A game's writes go to the database as plain Core statements on the write's connection:
the ORM's unit of work never flushes in them, whatever they change (the game's row, rounds, scores,
the correction log, replay records, a table's results). Checked by the ORM's own `before_flush`
event, which fires whenever a flush has anything to write; and by what the writes left behind."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession

from tests.helpers import API, round_body
from tests.tables.test_tables import make_table, results  # noqa: F401 (a fixture)


@pytest.fixture
def flushes() -> Iterator[list[str]]:
    """What each ORM flush had to write, for as long as the test runs (empty: no flush wrote anything)."""
    seen: list[str] = []

    def note(session: OrmSession, _context, _instances) -> None:
        changed = [*session.new, *session.dirty, *session.deleted]
        seen.append(", ".join(sorted(type(thing).__name__ for thing in changed)))

    event.listen(OrmSession, "before_flush", note)
    yield seen
    event.remove(OrmSession, "before_flush", note)


def once() -> dict[str, str]:
    return {"Idempotency-Key": uuid.uuid4().hex}


def test_every_kind_of_write_to_a_game_goes_without_an_orm_flush(app, client: TestClient, make_table, flushes):  # noqa: F811
    table = make_table()
    game = table.game(["Ana", "Ben"], rules={"target": 20})
    flushes.clear()  # a creation may flush: it is not a save
    url = f"{API}/games/{game.id}"
    ids = game.player_ids

    def ok(response, status: int = 200) -> dict:
        """The write's answer, which must be the game as a fresh load of it from the database shows it
        (the GET loads it; the write may have started from the view cache)."""
        assert response.status_code == status, response.text
        answer = response.json()
        if "version" in answer and response.request.method != "GET":
            fresh = client.get(url).json()
            assert {name: answer.get(name) for name in fresh} == fresh  # (a start adds its timing fields)
        return answer

    ok(client.post(f"{url}/start", headers=game.auth | once()))
    ok(client.post(f"{url}/rounds", json=round_body(ids, [(10, 0), (5, 2)]), headers=game.auth | once()), 201)
    ok(client.patch(url, json={"name": "Friday", "rules": {"target": 15}}, headers=game.auth | once()))
    ok(client.post(f"{url}/rounds", json=round_body(ids, [(9, 0), (1, 0)]), headers=game.auth | once()), 201)
    finished = ok(client.get(url))
    assert finished["status"] == "finished"
    assert len(results(app, game.id)) == 2  # the table's results, written by the save that ended it
    ok(client.put(f"{url}/rounds/2", json=round_body(ids, [(2, 0), (1, 0)]), headers=game.auth | once()))
    assert results(app, game.id) == []  # reopened by the correction
    ok(client.delete(f"{url}/rounds/1", headers=game.auth | once()))
    changes = ok(client.get(f"{url}/changes"))
    assert [c["kind"] for c in changes] == ["deletion", "correction", "rules"]
    ok(client.post(f"{url}/changes/{changes[0]['id']}/revert", headers=game.auth | once()))  # round 1 back
    ok(client.post(f"{url}/changes/{changes[1]['id']}/revert", headers=game.auth | once()))  # round 2 as it was
    now = ok(client.get(url))
    assert [r["scores"][0]["dutch"] for r in now["rounds"]] == [10, 9]
    assert (now["name"], now["rules"]["target"], now["status"]) == ("Friday", 15, "finished")
    assert len(results(app, game.id)) == 2
    rotated = ok(client.post(f"{url}/key", headers=game.auth | once()))
    assert client.get(url).json()["version"] == rotated["version"]

    assert flushes == []


def test_a_replayed_and_a_refused_write_flush_nothing_either(client: TestClient, make_game, flushes):
    game = make_game()
    flushes.clear()
    url = f"{API}/games/{game.id}/rounds"
    body = round_body(game.player_ids, [(3, 0)] + [(3, 1)] * (len(game.player_ids) - 1))
    key = once()
    first = client.post(url, json=body, headers=game.auth | key)
    again = client.post(url, json=body, headers=game.auth | key)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    stale = client.post(url, json=body, headers=game.auth | {"If-Match": '"1"'})
    assert stale.status_code == 412
    assert client.get(f"{API}/games/{game.id}").json()["version"] == first.json()["version"]
    assert flushes == []


def test_a_save_that_starts_from_the_cache_leaves_the_cached_view_as_it_was(
    app: FastAPI, client: TestClient, make_game
):
    """A save takes the players, rounds and times of the version it locked from the view cache, and
    changes its own copies: the entry that readers share stays the game at that version."""
    game = make_game()
    url = f"{API}/games/{game.id}"
    ids = game.player_ids
    timed = round_body(ids, [(3, 0)] + [(1, 1)] * (len(ids) - 1)) | {"duration_s": 90}
    assert client.post(f"{url}/rounds", json=timed, headers=game.auth).status_code == 201
    for change in (
        lambda: client.post(f"{url}/rounds", json=timed, headers=game.auth),  # a new timed round
        lambda: client.put(f"{url}/rounds/1", json=timed | {"duration_s": 120}, headers=game.auth),  # a new time
        lambda: client.delete(f"{url}/rounds/1", headers=game.auth),
    ):
        version = client.get(url).json()["version"]
        kept = app.state.views.get(game.id, version)
        assert kept is not None  # the save before put it there: this one starts from it
        seen = (list(kept.round_ids), dict(kept.times), kept.state, kept.players, kept.game.version)
        response = change()
        assert response.status_code in (200, 201), response.text
        assert response.json()["version"] == version + 1
        assert (list(kept.round_ids), dict(kept.times), kept.state, kept.players, kept.game.version) == seen
    final = client.get(url).json()
    assert [r["duration_s"] for r in final["rounds"]] == [90]
