"""Tables through the API: a table and its key, its roster, games at it, and the results its
standings are built from (game_result, rewritten with every change to a game)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.games.views import load_view
from app.models import GameResult
from tests.helpers import API, GameHandle, assert_problem, round_body

TABLES = f"{API}/tables"


class TableHandle:
    def __init__(self, client: TestClient, body: dict[str, Any]):
        self.client = client
        self.body = body
        self.id: str = body["id"]
        self.key: str = body["edit_key"]

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def get(self) -> dict[str, Any]:
        response = self.client.get(f"{TABLES}/{self.id}")
        assert response.status_code == 200, response.text
        return response.json()

    def person(self, name: str) -> dict[str, Any]:
        return next(p for p in self.get()["people"] if p["name"] == name)

    def game(self, names: list[str], rules: dict[str, Any] | None = None) -> GameHandle:
        body: dict[str, Any] = {"players": [{"name": n} for n in names], "table_id": self.id}
        if rules:
            body["rules"] = rules
        response = self.client.post(f"{API}/games", json=body, headers=self.auth)
        assert response.status_code == 201, response.text
        return GameHandle(self.client, response.json())


@pytest.fixture
def make_table(client: TestClient):
    def make(name: str = "The Millers", people: list[str] = ()) -> TableHandle:
        response = client.post(TABLES, json={"name": name, "people": [{"name": p} for p in people]})
        assert response.status_code == 201, response.text
        return TableHandle(client, response.json())

    return make


def results(app, game_id: str) -> list[tuple[int, int, int, bool, bool]]:
    """(person, total, place, won, shared) of each result row of the game, by person."""
    with Session(app.state.engine) as session:
        rows = session.exec(select(GameResult).where(GameResult.game_id == game_id)).all()
        return sorted((r.person_id, r.total, r.place, r.won, r.shared) for r in rows)


# --- a table and its key ---------------------------------------------------------------------------


def test_a_new_table_answers_its_key_once_and_links_and_reads_without_one(client: TestClient, make_table):
    table = make_table("  The Millers ", ["Ana", "Ben"])
    body = table.body
    assert body["name"] == "The Millers" and body["version"] == 1
    assert [p["name"] for p in body["people"]] == ["Ana", "Ben"]
    assert all(p["games"] == 0 for p in body["people"])
    assert body["games_count"] == 0 and body["games"] == []
    assert body["urls"]["view"].endswith(f"/t/{table.id}")
    assert body["urls"]["edit"].endswith(f"/t/{table.id}/edit/{table.key}")
    read = client.get(f"{TABLES}/{table.id}")
    etag = read.headers["ETag"]
    assert etag.startswith('"1.')
    assert "edit_key" not in read.json() and "urls" not in read.json()
    assert client.get(f"{TABLES}/{table.id}", headers={"If-None-Match": etag}).status_code == 304
    assert client.get(f"{TABLES}/{table.id}", headers={"If-None-Match": '"1"'}).status_code == 200
    assert_problem(client.get(f"{TABLES}/nope"), 404)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x" * 81}, "name"),
        ({"name": "T", "people": [{"name": "Ana"}, {"name": " ANA"}]}, "people[1].name"),
        ({"name": "T", "people": [{"name": ""}]}, "people[0].name"),
        ({"name": "T", "people": [{"name": "a\u202eb"}]}, "people[0].name"),
        ({"name": "T", "extra": 1}, "extra"),
        ({"name": 5}, "name"),
    ],
)
def test_a_table_that_cant_be_is_refused_naming_the_field(client: TestClient, body, field):
    problem = assert_problem(client.post(TABLES, json=body), 422)
    assert field in [e["field"] for e in problem["errors"]]


def test_changing_a_table_needs_its_key_and_the_current_version(client: TestClient, make_table):
    table = make_table()
    url = f"{TABLES}/{table.id}"
    assert_problem(client.patch(url, json={"name": "New"}), 401)
    assert_problem(client.patch(url, json={"name": "New"}, headers={"Authorization": "Bearer nope"}), 403)
    assert_problem(client.patch(url, json={"name": "New"}, headers=table.auth | {"If-Match": '"7"'}), 412)
    renamed = client.patch(url, json={"name": "New"}, headers=table.auth | {"If-Match": '"1"'})
    assert renamed.status_code == 200 and renamed.json()["name"] == "New"
    assert renamed.headers["ETag"].startswith('"2.')
    # The ETag the answer gave is good as If-Match (its version part counts), and a stale one is not.
    again = client.patch(url, json={"name": "Newer"}, headers=table.auth | {"If-Match": renamed.headers["ETag"]})
    assert again.status_code == 200
    assert_problem(
        client.patch(url, json={"name": "x"}, headers=table.auth | {"If-Match": renamed.headers["ETag"]}), 412
    )
    assert table.get()["name"] == "Newer"


def test_a_new_key_retires_the_old_one_and_a_retry_gets_it_again(client: TestClient, make_table):
    table = make_table()
    url = f"{TABLES}/{table.id}/key"
    first = client.post(url, headers=table.auth | {"Idempotency-Key": "k1"})
    assert first.status_code == 200
    again = client.post(url, headers=table.auth | {"Idempotency-Key": "k1"})
    assert again.json()["edit_key"] == first.json()["edit_key"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert_problem(client.patch(f"{TABLES}/{table.id}", json={"name": "x"}, headers=table.auth), 403)
    new = {"Authorization": f"Bearer {first.json()['edit_key']}"}
    assert client.patch(f"{TABLES}/{table.id}", json={"name": "x"}, headers=new).status_code == 200


def test_a_retried_creation_gives_the_same_table_and_key(client: TestClient):
    body = {"name": "T", "people": [{"name": "Ana"}]}
    first = client.post(TABLES, json=body, headers={"Idempotency-Key": "same"})
    again = client.post(TABLES, json=body, headers={"Idempotency-Key": "same"})
    assert (again.status_code, again.json()) == (201, first.json())
    other = client.post(TABLES, json={"name": "U"}, headers={"Idempotency-Key": "same"})
    assert_problem(other, 422)


# --- the roster ------------------------------------------------------------------------------------


def test_people_join_are_renamed_and_leave_and_names_are_unique_ignoring_case(client: TestClient, make_table):
    table = make_table(people=["Ana"])
    people = f"{TABLES}/{table.id}/people"
    added = client.post(people, json={"name": "Ben"}, headers=table.auth)
    assert added.status_code == 201 and [p["name"] for p in added.json()["people"]] == ["Ana", "Ben"]
    clash = assert_problem(client.post(people, json={"name": " ana "}, headers=table.auth), 422)
    assert clash["errors"][0]["field"] == "name" and "Ana" in clash["errors"][0]["message"]
    ben = table.person("Ben")
    assert_problem(client.patch(f"{people}/{ben['id']}", json={"name": "ANA"}, headers=table.auth), 422)
    # A change of case of one's own name is a rename, not a clash.
    assert client.patch(f"{people}/{ben['id']}", json={"name": "BEN"}, headers=table.auth).status_code == 200
    assert client.delete(f"{people}/{ben['id']}", headers=table.auth).status_code == 200
    assert [p["name"] for p in table.get()["people"]] == ["Ana"]
    assert_problem(client.delete(f"{people}/{ben['id']}", headers=table.auth), 404)
    assert_problem(client.post(people, json={"name": "Cy"}), 401)


def test_a_person_of_another_table_is_not_found_here(client: TestClient, make_table):
    mine, theirs = make_table(people=["Ana"]), make_table(people=["Zed"])
    zed = theirs.person("Zed")
    assert_problem(client.patch(f"{TABLES}/{mine.id}/people/{zed['id']}", json={"name": "Z"}, headers=mine.auth), 404)
    assert_problem(client.delete(f"{TABLES}/{mine.id}/people/{zed['id']}", headers=mine.auth), 404)


# --- games at a table ------------------------------------------------------------------------------


def test_a_game_at_a_table_takes_its_people_and_newcomers_join_the_roster(client: TestClient, make_table):
    table = make_table(people=["Ana", "Ben"])
    game = table.game(["ben", "Ana", "Cy"])
    players = game.body["players"]
    assert [p["name"] for p in players] == ["Ben", "Ana", "Cy"]  # the roster's spelling
    roster = {p["name"]: p for p in table.get()["people"]}
    assert [p["person_id"] for p in players] == [roster["Ben"]["id"], roster["Ana"]["id"], roster["Cy"]["id"]]
    assert game.body["table_id"] == table.id
    after = table.get()
    assert after["version"] == 2 and after["games_count"] == 1
    assert after["games"][0] | {"created_at": None} == {
        "id": game.id,
        "name": "",
        "kind": "cards",
        "preset": "dutch_blitz",
        "created_at": None,
        "status": "playing",
        "winners": [],
    }
    assert all(p["games"] == 1 for p in after["people"])


def test_a_game_at_a_table_needs_the_tables_key(client: TestClient, make_table):
    table = make_table()
    body = {"players": [{"name": "Ana"}, {"name": "Ben"}], "table_id": table.id}
    assert_problem(client.post(f"{API}/games", json=body), 401)
    assert_problem(client.post(f"{API}/games", json=body, headers={"Authorization": "Bearer nope"}), 403)
    unknown = assert_problem(client.post(f"{API}/games", json=body | {"table_id": "nope"}, headers=table.auth), 422)
    assert unknown["errors"][0]["field"] == "table_id"
    assert table.get()["people"] == [] and table.get()["version"] == 1


def test_a_game_of_its_own_is_as_before(client: TestClient, make_game):
    game = make_game()
    assert game.body["table_id"] is None
    assert all(p["person_id"] is None for p in game.body["players"])


def test_renaming_a_person_renames_their_player_in_every_game(client: TestClient, make_table):
    table = make_table()
    first, second = table.game(["Ana", "Ben"]), table.game(["Ben", "Cy"])
    ben = table.person("Ben")
    before = [first.get()["version"], second.get()["version"]]
    renamed = client.patch(f"{TABLES}/{table.id}/people/{ben['id']}", json={"name": "Benjamin"}, headers=table.auth)
    assert renamed.status_code == 200
    assert [p["name"] for p in first.get()["players"]] == ["Ana", "Benjamin"]
    assert [p["name"] for p in second.get()["players"]] == ["Benjamin", "Cy"]
    # The games changed: their versions moved on, so their viewers refresh.
    assert [first.get()["version"], second.get()["version"]] == [v + 1 for v in before]
    assert_problem(client.delete(f"{TABLES}/{table.id}/people/{ben['id']}", headers=table.auth), 409)


def test_a_rename_that_loses_its_connection_before_commit_runs_once_more_and_counts_once(
    client: TestClient, make_table, monkeypatch: pytest.MonkeyPatch
):
    # A table's writes share the games' skeleton (app.db.write_transaction), its retry included: the
    # second run starts afresh, so the games it renames move on by one version, not two.
    from sqlalchemy.exc import OperationalError

    from app.tables import usecases

    table = make_table()
    game = table.game(["Ana", "Ben"])
    ben, before = table.person("Ben"), game.get()["version"]
    real, calls = usecases.public_table, []

    def flaky(session, card_table):
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError(
                "SELECT ...", {}, Exception("server closed the connection"), connection_invalidated=True
            )
        return real(session, card_table)

    monkeypatch.setattr(usecases, "public_table", flaky)
    published: list[tuple[str, int]] = []
    real_publish = usecases.Broker.publish

    def heard(broker, game_id: str, version: int, *more) -> None:
        published.append((game_id, version))
        real_publish(broker, game_id, version, *more)

    monkeypatch.setattr(usecases.Broker, "publish", heard)
    renamed = client.patch(f"{TABLES}/{table.id}/people/{ben['id']}", json={"name": "Benjamin"}, headers=table.auth)
    assert renamed.status_code == 200, renamed.text
    assert len(calls) == 2
    assert game.get()["version"] == before + 1
    assert published == [(game.id, before + 1)]  # its viewers hear of it once
    assert [p["name"] for p in game.get()["players"]] == ["Ana", "Benjamin"]
    assert renamed.json()["version"] == table.get()["version"]


def test_a_finished_game_records_each_persons_result_and_a_change_rewrites_it(app, client: TestClient, make_table):
    table = make_table()
    game = table.game(["Ana", "Ben", "Cy"], rules={"target": 20})
    ana, ben, cy = (table.person(n)["id"] for n in ("Ana", "Ben", "Cy"))
    assert game.add_round([(10, 0), (5, 2), (3, 4)]).status_code == 201
    assert results(app, game.id) == []  # not over yet
    assert game.add_round([(12, 0), (4, 3), (2, 5)]).status_code == 201
    assert results(app, game.id) == [(ana, 22, 1, True, False), (ben, -1, 2, False, False), (cy, -13, 3, False, False)]
    listed = table.get()["games"][0]
    assert (listed["status"], listed["winners"]) == ("finished", [ana])
    # A correction that makes Ben the winner, then a deletion that reopens the game.
    fixed = client.put(
        f"{API}/games/{game.id}/rounds/2",
        json=round_body(game.player_ids, [(2, 3), (20, 0), (2, 5)]),
        headers=game.auth,
    )
    assert fixed.status_code == 200, fixed.text
    assert results(app, game.id) == [(ana, 6, 2, False, False), (ben, 21, 1, True, False), (cy, -13, 3, False, False)]
    assert client.delete(f"{API}/games/{game.id}/rounds/2", headers=game.auth).status_code == 200
    assert results(app, game.id) == []
    assert table.get()["games"][0]["status"] == "playing"


def test_a_shared_win_is_recorded_as_shared(app, make_table):
    table = make_table()
    game = table.game(["Ana", "Ben"], rules={"target": 10, "tie_break": "shared"})
    ana, ben = (table.person(n)["id"] for n in ("Ana", "Ben"))
    assert game.add_round([(10, 0), (10, 0)]).status_code == 201
    assert results(app, game.id) == [(ana, 10, 1, True, True), (ben, 10, 1, True, True)]


def test_results_are_what_scoring_the_game_gives(app, make_table):
    """The stored rows are derived: scoring the stored rounds again gives the same."""
    table = make_table()
    game = table.game(["Ana", "Ben", "Cy"], rules={"preset": "dutch", "target": 30})
    body = {"scores": [{"player_id": p, "hand": h} for p, h in zip(game.player_ids, (0, 12, 25), strict=True)]}
    client = game.client
    for _ in range(3):
        answer = client.post(
            f"{API}/games/{game.id}/rounds", json=body | {"caller": game.player_ids[0]}, headers=game.auth
        )
        if answer.json()["status"] == "finished":
            break
    with Session(app.state.engine) as session:
        from app.models import Game

        view = load_view(session, session.get(Game, game.id))
        assert view.state.over
        stored = {r.player_id: (r.total, r.won) for r in session.exec(select(GameResult))}
        assert stored == {s.player.id: (s.total, s.player.id in view.state.winners) for s in view.state.standings}


def test_deleting_a_game_at_a_table_takes_its_results_and_frees_nobody_else(client: TestClient, app, make_table):
    table = make_table()
    game = table.game(["Ana", "Ben"], rules={"target": 5})
    assert game.add_round([(5, 0), (1, 2)]).status_code == 201
    assert len(results(app, game.id)) == 2
    assert client.delete(f"{API}/games/{game.id}", headers=game.auth).status_code == 204
    assert results(app, game.id) == []
    after = table.get()
    assert after["games_count"] == 0 and all(p["games"] == 0 for p in after["people"])
    ana = table.person("Ana")
    assert client.delete(f"{TABLES}/{table.id}/people/{ana['id']}", headers=table.auth).status_code == 200


def test_the_tables_etag_moves_when_a_game_at_it_finishes(client: TestClient, make_table):
    """A game's rounds never touch the table's row (nor its version), but the answer lists the game's
    status and winners: a cached copy must not be confirmed once they changed."""
    table = make_table()
    game = table.game(["Ana", "Ben"], rules={"target": 5})
    before = client.get(f"{TABLES}/{table.id}")
    assert game.add_round([(5, 0), (1, 2)]).status_code == 201
    after = client.get(f"{TABLES}/{table.id}", headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200 and after.json()["games"][0]["status"] == "finished"
    assert after.json()["version"] == before.json()["version"]


def test_reverting_a_rounds_deletion_keeps_when_the_game_finished(app, client: TestClient, make_table):
    """The round comes back with the moment it was saved, so the game's standings stay in their period."""
    from datetime import UTC, datetime

    from app.models import Round

    table = make_table()
    game = table.game(["Ana", "Ben"], rules={"target": 10})
    assert game.add_round([(3, 0), (1, 2)]).status_code == 201
    assert game.add_round([(8, 0), (1, 2)]).status_code == 201
    january = datetime(2026, 1, 5, 20, 0, tzinfo=UTC)
    with Session(app.state.engine) as session:
        for round_ in session.exec(select(Round).where(Round.game_id == game.id)):
            round_.created_at = january
            session.add(round_)
        session.commit()
    assert (
        client.put(
            f"{API}/games/{game.id}/rounds/2", json=round_body(game.player_ids, [(9, 0), (1, 2)]), headers=game.auth
        ).status_code
        == 200
    )  # a correction rewrites the results: finished in January
    assert client.delete(f"{API}/games/{game.id}/rounds/1", headers=game.auth).status_code == 200
    deletion = client.get(f"{API}/games/{game.id}/changes").json()[0]
    assert client.post(f"{API}/games/{game.id}/changes/{deletion['id']}/revert", headers=game.auth).status_code == 200
    with Session(app.state.engine) as session:
        finished = {r.finished_at.replace(tzinfo=UTC) for r in session.exec(select(GameResult))}
    assert finished == {january}
