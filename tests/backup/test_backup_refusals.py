"""A backup that can't be imported: every refusal is a problem naming what is wrong by
its JSON path in the document, and writes nothing (every table's rows counted before and after)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import Session, SQLModel, select

from app.backup.answers import MAX_IMPORT_GAMES
from app.rules import scoring
from app.tables.usecases import MAX_PEOPLE
from tests.helpers import API, MAX_BODY, OPEN, assert_problem, limited_app

JSON = {"Content-Type": "application/json"}
T0 = "2026-11-27T20:00:00Z"


def rules(preset: str, **params: Any) -> dict[str, Any]:
    return scoring.public_rules(scoring.with_params(scoring.PRESETS[preset], params))


def cards(*counts: tuple[int, int]) -> dict[str, Any]:
    return {"created_at": T0, "started_at": None, "duration_s": None,
            "scores": [{"player": i, "dutch": d, "blitz": b} for i, (d, b) in enumerate(counts)]}  # fmt: skip


def hands(*shown: tuple[int, int, bool]) -> dict[str, Any]:
    """(player, hand, called) for each player in the round."""
    return {"created_at": T0, "started_at": None, "duration_s": None,
            "scores": [{"player": p, "hand": h, "called": c} for p, h, c in shown]}  # fmt: skip


def seated(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "starting_score": 0, "person": ["Ana", "Ben", "Cy"].index(n)} for n in names]


def valid_table() -> dict[str, Any]:
    """A table of Ana, Ben and Cy: Dutch Blitz (one round), Dutch (one called round), 31 with one life
    (Ana out after round 2, Ben on the county after round 3; Ben and Cy still in)."""
    return {
        "format": "blitzboard-table", "format_version": 1, "id": "old", "name": "The Millers",
        "created_at": T0, "updated_at": T0,
        "people": [{"name": n, "created_at": T0} for n in ("Ana", "Ben", "Cy")],
        "games": [
            {"name": "Friday", "created_at": T0, "updated_at": T0, "rules": rules("dutch_blitz"),
             "players": seated("Ana", "Ben", "Cy"), "rounds": [cards((3, 0), (2, 4), (1, 6))]},
            {"name": "", "created_at": T0, "updated_at": T0, "rules": rules("dutch"),
             "players": seated("Ana", "Ben"), "rounds": [hands((0, 3, True), (1, 9, False))]},
            {"name": "", "created_at": T0, "updated_at": T0, "rules": rules("thirty_one", lives=1),
             "players": seated("Ana", "Ben", "Cy"),
             "rounds": [hands((0, 10, False), (1, 20, False), (2, 25, False)),
                        hands((0, 5, False), (1, 20, False), (2, 25, False)),
                        hands((1, 10, False), (2, 20, False))]},
        ],
    }  # fmt: skip


def valid_game() -> dict[str, Any]:
    game = valid_table()["games"][0]
    for player in game["players"]:
        del player["person"]
    return {"format": "blitzboard-game", "format_version": 1, "id": "old"} | game


def counts(app) -> dict[str, int]:
    with Session(app.state.engine) as session:
        return {
            name: session.exec(select(func.count()).select_from(table)).one()
            for name, table in SQLModel.metadata.tables.items()
        }


def body(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode()


def refused(client: TestClient, app, what: str, content: bytes, status: int = 422, **headers: str) -> dict[str, Any]:
    before = counts(app)
    problem = assert_problem(client.post(f"{API}/{what}/import", content=content, headers=JSON | headers), status)
    assert counts(app) == before, "a refused import wrote something"
    return problem


def test_the_valid_documents_import(client: TestClient):
    for what, document in (("tables", valid_table()), ("games", valid_game())):
        made = client.post(f"{API}/{what}/import", content=body(document), headers=JSON)
        assert made.status_code == 201, made.text


def change(path: str, value: Any) -> Callable[[dict], None]:
    """Set (or, with DELETE, remove) what a JSON path names."""

    def apply(document: dict) -> None:
        parts = [int(p) if p.isdigit() else p for p in path.replace("[", ".").replace("]", "").split(".")]
        *parents, last = parts
        node = document
        for part in parents:
            node = node[part]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value

    return apply


DELETE = object()


def _out_after_the_end(document: dict) -> None:
    rounds = document["games"][2]["rounds"]
    rounds.append(hands((1, 5, False), (2, 20, False)))  # Ben loses his county life: Cy alone is in
    rounds.append(hands((2, 7, False)))


def _player_twice(document: dict) -> None:
    document["games"][0]["rounds"][0]["scores"][2]["player"] = 1


def _out_player_plays(document: dict) -> None:
    document["games"][2]["rounds"][2]["scores"].append({"player": 0, "hand": 3, "called": True})


def _one_player(document: dict) -> None:
    game = document["games"][0]
    game["players"], game["rounds"] = game["players"][:1], []


def _ten_rounds_of_trouble(document: dict) -> None:  # more problems than one answer lists
    document["people"] = [{"name": " ", "created_at": T0} for _ in range(150)]
    document["games"] = []


TABLE_REFUSALS = [
    # (what is wrong, the change, the path named, words of the message)
    ("format of a game", change("format", "blitzboard-game"), "format", "games/import"),
    ("format unknown", change("format", "csv"), "format", "blitzboard-table"),
    ("format missing", change("format", DELETE), "format", "blitzboard-table"),
    ("version unknown", change("format_version", 2), "format_version", "version 2"),
    ("version as text", change("format_version", "1"), "format_version", "integer"),
    ("version missing", change("format_version", DELETE), "format_version", "required"),
    ("field missing", change("games[0].rounds[0].created_at", DELETE), "games[0].rounds[0].created_at", "required"),
    ("number as text", change("games[0].players[1].starting_score", "5"), "games[0].players[1].starting_score", "integer"),
    ("count as true", change("games[0].rounds[0].scores[0].dutch", True), "games[0].rounds[0].scores[0].dutch", "integer"),
    ("field unknown", change("games[0].rounds[0].note", "x"), "games[0].rounds[0].note", "Extra"),
    ("not a moment", change("games[0].created_at", "yesterday"), "games[0].created_at", "date"),
    ("moment without a zone", change("people[1].created_at", "2026-11-27T20:00:00"), "people[1].created_at", "timezone"),
    ("round too long", change("games[0].rounds[0].duration_s", 30_000), "games[0].rounds[0].duration_s", "21600"),
    ("list as object", change("games[0].rounds", {}), "games[0].rounds", "list"),
    ("nobody at 0 Blitz cards", change("games[0].rounds[0].scores[0].blitz", 1), "games[0].rounds[0].scores", "Nobody called Blitz"),
    ("Blitz cards over the pile", change("games[0].rounds[0].scores[1].blitz", 11), "games[0].rounds[0].scores[1].blitz", "between 0 and 10"),
    ("over the deck", change("games[0].rounds[0].scores[1].dutch", 39), "games[0].rounds[0].scores[1].dutch", "only 40"),
    ("a player missing", change("games[0].rounds[0].scores", [{"player": 0, "dutch": 1, "blitz": 0}, {"player": 1, "dutch": 1, "blitz": 1}]), "games[0].rounds[0].scores", "Cy is missing"),
    ("a player not in the game", change("games[0].rounds[0].scores[2].player", 5), "games[0].rounds[0].scores[2].player", "no player 5"),
    ("a player twice", _player_twice, "games[0].rounds[0].scores[1].player", "more than once"),
    ("a hand in Dutch Blitz", change("games[0].rounds[0].scores[0].hand", 3), "games[0].rounds[0].scores[0].hand", "not part of a round"),
    ("a caller in Dutch Blitz", change("games[0].rounds[0].scores[0].called", False), "games[0].rounds[0].scores[0].called", "not part of a round"),
    ("cards in Dutch", change("games[1].rounds[0].scores[0].dutch", 3), "games[1].rounds[0].scores[0].dutch", "not part of a round"),
    ("no hand in Dutch", change("games[1].rounds[0].scores[1].hand", DELETE), "games[1].rounds[0].scores[1].hand", "required"),
    ("two callers", change("games[1].rounds[0].scores[1].called", True), "games[1].rounds[0].scores", "Only one player"),
    ("a hand over 31", change("games[2].rounds[0].scores[0].hand", 32), "games[2].rounds[0].scores[0].hand", "between 0 and 31"),
    ("an out player plays", _out_player_plays, "games[2].rounds[2].scores[2].player", "Ana is out"),
    ("a player still in missing", change("games[2].rounds[2].scores", [{"player": 1, "hand": 3}]), "games[2].rounds[2].scores", "Cy is missing"),
    ("a round after the end", _out_after_the_end, "games[2].rounds[4]", "only Cy was still in"),
    ("a starting score in 31", change("games[2].players[0].starting_score", 5), "games[2].players[0].starting_score", "31"),
    ("one player", _one_player, "games[0].players", "2\u00a0to 8\u00a0players"),
    ("same person twice", change("games[0].players[2]", {"name": "Ana", "starting_score": 0, "person": 0}), "games[0].players[2].name", "Two players are called Ana"),
    ("a player not their person", change("games[0].players[1].name", "Bob"), "games[0].players[1].name", "this one is Ben, not Bob"),
    ("no such person", change("games[0].players[2].person", 7), "games[0].players[2].person", "no person 7"),
    ("a name clash at the table", change("people[1].name", " ana"), "people[1].name", "already called Ana"),
    ("a blank name", change("people[0].name", "\u200b"), "people[0].name", "visible"),
    ("a table without a name", change("name", " "), "name", "Give the table a name"),
    ("a game's name too long", change("games[0].name", "x" * 81), "games[0].name", "80"),
    ("a rule missing", change("games[0].rules.target", DELETE), "games[0].rules.target", "required"),
    ("a rule of another game", change("games[1].rules.dutch_points", 1), "games[1].rules.dutch_points", "not a rule"),
    ("a preset of another kind", change("games[1].rules.preset", "nerts"), "games[1].rules.preset", "not a game of the kind"),
    ("a target out of bounds", change("games[0].rules.target", 0), "games[0].rules.target", "greater than or equal to 1"),
    ("a pile over the deck", change("games[0].rules.pile_size", 41), "games[0].rules.pile_size", "bigger than the deck"),
    ("too many people", change("people", [{"name": f"P{i}", "created_at": T0} for i in range(MAX_PEOPLE + 1)]), "people", str(MAX_PEOPLE)),
    ("piles under 0", change("games[0].rounds[0].piles", -1), "games[0].rounds[0].piles", "between 0 and 120"),
    ("piles over every deck", change("games[0].rounds[0].piles", 121), "games[0].rounds[0].piles", "between 0 and 120"),
    ("piles as text", change("games[0].rounds[0].piles", "6"), "games[0].rounds[0].piles", "integer"),
    ("piles in Dutch", change("games[1].rounds[0].piles", 3), "games[1].rounds[0].piles", "not part of a round"),
    ("a seat setting as text", change("games[0].seats", {"save_round": "yes"}), "games[0].seats.save_round", "boolean"),
    ("a seat setting unknown", change("games[0].seats", {"on_phone": True}), "games[0].seats.on_phone", "Extra"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("mutate", "field", "words"), [p[1:] for p in TABLE_REFUSALS], ids=[p[0] for p in TABLE_REFUSALS]
)
def test_a_wrong_table_is_refused_naming_where_and_nothing_is_written(client: TestClient, app, mutate, field, words):
    document = valid_table()
    mutate(document)
    problem = refused(client, app, "tables", body(document))
    assert problem["type"].endswith("/invalid-input")
    messages = [e["message"] for e in problem["errors"] if e["field"] == field]
    assert messages, problem["errors"]
    assert any(words in m for m in messages), messages


UNREADABLE = [
    ("not JSON", b'{"format": "blitzboard-table",', "body", "not valid JSON"),
    ("not UTF-8", b'{"name": "\xff"}', "body", "UTF-8"),
    ("not an object", b"[1, 2]", "body", "object"),
    ("nested too deeply", b"[" * 100_000 + b"]" * 100_000, "body", "JSON"),
    ("a key twice", b'{"format": "blitzboard-table", "format": "blitzboard-table"}', "format", "more than once"),
    ("a lone surrogate", b'{"format": "blitzboard-table", "name": "\\ud800"}', "name", "surrogate"),
]  # fmt: skip


@pytest.mark.parametrize(("content", "field", "words"), [p[1:] for p in UNREADABLE], ids=[p[0] for p in UNREADABLE])
def test_a_document_that_is_not_one_is_refused(client: TestClient, app, content, field, words):
    problem = refused(client, app, "tables", content)
    assert [e["field"] for e in problem["errors"]] == [field]
    assert words in problem["errors"][0]["message"]


GAME_REFUSALS = [
    ("a table's backup", lambda d: d.update(format="blitzboard-table"), "format", "tables/import"),
    ("a person in a game of its own", change("players[0].person", 0), "players[0].person", "Extra"),
    ("nobody at 0 Blitz cards", change("rounds[0].scores[0].blitz", 2), "rounds[0].scores", "Nobody called Blitz"),
    ("a name twice", change("players[1].name", "ANA"), "players[1].name", "Two players are called ANA"),
    ("a people list", change("people", []), "people", "Extra"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("mutate", "field", "words"), [p[1:] for p in GAME_REFUSALS], ids=[p[0] for p in GAME_REFUSALS]
)
def test_a_wrong_game_is_refused_naming_where_and_nothing_is_written(client: TestClient, app, mutate, field, words):
    document = valid_game()
    mutate(document)
    problem = refused(client, app, "games", body(document))
    assert any(e["field"] == field and words in e["message"] for e in problem["errors"]), problem["errors"]


def test_at_most_a_hundred_problems_are_listed(client: TestClient, app):
    document = valid_table()
    _ten_rounds_of_trouble(document)
    problem = refused(client, app, "tables", body(document))
    assert len(problem["errors"]) == 100
    assert [e["field"] for e in problem["errors"]][:2] == ["people[0].name", "people[1].name"]


def test_too_many_games(client: TestClient, app):
    document = valid_table()
    game = {**document["games"][0], "rounds": []}
    document["games"] = [game] * (MAX_IMPORT_GAMES + 1)
    problem = refused(client, app, "tables", json.dumps(document, separators=(",", ":")).encode())
    assert [e["field"] for e in problem["errors"]] == ["games"] and "5000" in problem["errors"][0]["message"]


def test_more_rounds_than_a_game_may_hold(database_url: str):
    app = limited_app(database_url, max_rounds_per_game=2)
    with TestClient(app) as client:
        document = valid_table()
        problem = refused(client, app, "tables", body(document))
        assert problem["errors"] == [
            {"field": "games[2].rounds", "message": "A game can hold at most 2\u00a0rounds; this one has 3."}
        ]
        game = valid_game()
        game["rounds"] *= 3
        assert refused(client, app, "games", body(game))["errors"][0]["field"] == "rounds"
    app.state.engine.dispose()


def test_problems_are_said_in_the_readers_language(client: TestClient, app, pseudo: str):
    document = valid_table()
    document["games"][0]["players"][1]["starting_score"] = "5"
    problem = refused(client, app, "tables", body(document), **{"Accept-Language": pseudo})
    assert problem["detail"].startswith(OPEN) and problem["errors"][0]["message"].startswith(OPEN)
    document = valid_table()
    document["games"][0]["rounds"][0]["scores"][0]["blitz"] = 1
    problem = refused(client, app, "tables", body(document), **{"Accept-Language": pseudo})
    assert problem["errors"][0]["message"].startswith(OPEN)


def test_only_json_is_taken(client: TestClient, app):
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        problem = refused(client, app, "tables", body(valid_table()), 415, **{"Content-Type": content_type})
        assert "application/json" in problem["detail"]
    made = client.post(
        f"{API}/games/import", content=body(valid_game()), headers={"Content-Type": "application/json; charset=utf-8"}
    )
    assert made.status_code == 201, made.text


# --- the size of a backup ---------------------------------------------------------------------------


def padded(document: dict[str, Any], size: int) -> bytes:
    data = body(document)
    return data + b" " * (size - len(data))


@pytest.mark.parametrize("how", ["content-length", "chunked"])
def test_a_backup_over_the_import_limit_is_413_and_writes_nothing(database_url: str, how: str):
    limit = 80_000
    app = limited_app(database_url, max_import_bytes=limit)
    with TestClient(app) as client:
        for what, document in (("tables", valid_table()), ("games", valid_game())):
            data = padded(document, limit + 1)
            content = data if how == "content-length" else (data[i : i + 4096] for i in range(0, len(data), 4096))
            before = counts(app)
            answer = client.post(f"{API}/{what}/import", content=content, headers=JSON)
            assert str(limit) in assert_problem(answer, 413)["detail"]
            assert counts(app) == before
            exactly = client.post(f"{API}/{what}/import", content=padded(document, limit), headers=JSON)
            assert exactly.status_code == 201, exactly.text
    app.state.engine.dispose()


def test_the_import_limit_is_only_the_imports(client: TestClient, app):
    big = MAX_BODY * 2  # over every other body's limit, well under the import's 8 MiB
    for what, document in (("tables", valid_table()), ("games", valid_game())):
        made = client.post(f"{API}/{what}/import", content=padded(document, big), headers=JSON)
        assert made.status_code == 201, made.text
    game = {"players": [{"name": "Ana"}, {"name": "Ben"}]}
    for method, url in (("POST", f"{API}/games"), ("POST", f"{API}/tables"), ("PATCH", f"{API}/tables/import")):
        data = body(game) + b" " * big
        assert client.request(method, url, content=data, headers=JSON).status_code == 413, url
    assert client.post(f"{API}/games/import/", content=padded(valid_game(), big), headers=JSON).status_code == 413


def test_a_document_as_large_as_the_default_limit_imports(client: TestClient):
    document = copy.deepcopy(valid_table())
    assert (
        client.post(f"{API}/tables/import", content=padded(document, 8 * 1024 * 1024), headers=JSON).status_code == 201
    )


# --- imports within bounds: refused early, counted by their games, a few at a time ---------------------


def test_an_import_must_say_it_is_json(client: TestClient, app):
    """A cross-site page can post a body without a Content-Type (a Blob) or as text/plain without asking
    first (a CORS "simple request"): neither may import."""
    for headers in ({}, {"Content-Type": "text/plain"}, {"Content-Type": "text/plain; charset=utf-8"}):
        for what, document in (("tables", valid_table()), ("games", valid_game())):
            before = counts(app)
            answer = client.post(f"{API}/{what}/import", content=body(document), headers=headers)
            assert "application/json" in assert_problem(answer, 415)["detail"], headers
            assert counts(app) == before


@pytest.fixture
def no_full_check(monkeypatch):
    """Fails the test if the document is read into its models (the expensive part of the check)."""
    from app.backup import check

    def ran(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the full check ran")

    monkeypatch.setattr(check, "shaped", ran)


def test_too_many_games_is_refused_before_the_full_check(client: TestClient, app, no_full_check):
    document = valid_table()
    document["games"] = [{}] * (MAX_IMPORT_GAMES + 1)  # no game need be read to know it is too many
    problem = refused(client, app, "tables", body(document))
    assert [e["field"] for e in problem["errors"]] == ["games"]
    assert str(MAX_IMPORT_GAMES) in problem["errors"][0]["message"]


def test_too_many_rounds_is_refused_before_the_full_check(database_url: str, monkeypatch):
    app = limited_app(database_url, max_rounds_per_game=2)
    with TestClient(app) as client:
        document = valid_table()
        document["games"][1]["rounds"] = [{}] * 3
        document["games"][2]["name"] = 7  # a problem the full check would find: not looked for
        monkeypatch.setattr("app.backup.check.shaped", lambda *a, **k: pytest.fail("the full check ran"))
        problem = refused(client, app, "tables", body(document))
        assert problem["errors"] == [
            {"field": "games[1].rounds", "message": "A game can hold at most 2\u00a0rounds; this one has 3."},
            {"field": "games[2].rounds", "message": "A game can hold at most 2\u00a0rounds; this one has 3."},
        ]
        game = valid_game()
        game["rounds"] = [{}] * 3
        assert refused(client, app, "games", body(game))["errors"][0]["field"] == "rounds"
    app.state.engine.dispose()


def test_a_backup_over_the_size_limit_is_never_parsed(database_url: str, monkeypatch):
    app = limited_app(database_url, max_import_bytes=80_000)
    with TestClient(app) as client:
        monkeypatch.setattr("app.backup.outline.parse", lambda *a, **k: pytest.fail("the document was parsed"))
        for what, document in (("tables", valid_table()), ("games", valid_game())):
            assert_problem(client.post(f"{API}/{what}/import", content=padded(document, 80_001), headers=JSON), 413)
    app.state.engine.dispose()


def test_every_imported_game_counts_against_the_import_limit(database_url: str, monkeypatch):
    """A table of 3 games takes 3 of the address's games a minute; one that can't have them is a 429
    with Retry-After, refused before the full check, and takes nothing."""
    app = limited_app(database_url, import_games_per_minute=4)
    with TestClient(app) as client:
        assert client.post(f"{API}/tables/import", content=body(valid_table()), headers=JSON).status_code == 201
        with monkeypatch.context() as patched:
            patched.setattr("app.backup.check.shaped", lambda *a, **k: pytest.fail("the full check ran"))
            problem = refused(client, app, "tables", body(valid_table()), 429)
        assert problem["type"].endswith("/rate-limited") and "3\u00a0games" in problem["detail"]
        answer = client.post(f"{API}/tables/import", content=body(valid_table()), headers=JSON)
        assert 1 <= int(answer.headers["Retry-After"]) <= 60
        assert client.post(f"{API}/games/import", content=body(valid_game()), headers=JSON).status_code == 201
        assert_problem(client.post(f"{API}/games/import", content=body(valid_game()), headers=JSON), 429)
    app.state.engine.dispose()


def test_a_table_larger_than_a_minutes_games_imports_once_then_waits(database_url: str):
    """A backup of more games than a minute allows is taken whole when the address's budget is full, and
    the address then waits until it has paid for it (at the limit's pace)."""
    app = limited_app(database_url, import_games_per_minute=2)
    with TestClient(app) as client:
        assert client.post(f"{API}/tables/import", content=body(valid_table()), headers=JSON).status_code == 201
        answer = client.post(f"{API}/games/import", content=body(valid_game()), headers=JSON)
        assert_problem(answer, 429)
        assert 55 <= int(answer.headers["Retry-After"]) <= 60  # 3 games at 2 a minute: 90 s owed, 1 more needs 60
    app.state.engine.dispose()


def test_a_refused_document_counts_its_games_a_replay_does_not(database_url: str):
    app = limited_app(database_url, import_games_per_minute=9)  # 3 tables of 3 games a minute
    with TestClient(app) as client:
        wrong = valid_table()
        wrong["games"][0]["rounds"][0]["scores"][0]["blitz"] = 1
        refused(client, app, "tables", body(wrong))  # 3 games read and checked: counted
        key = {"Idempotency-Key": "restore-1"}
        assert client.post(f"{API}/tables/import", content=body(valid_table()), headers=JSON | key).status_code == 201
        again = client.post(f"{API}/tables/import", content=body(valid_table()), headers=JSON | key)
        assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"  # given back
        assert client.post(f"{API}/tables/import", content=body(valid_table()), headers=JSON).status_code == 201
        assert_problem(client.post(f"{API}/games/import", content=body(valid_game()), headers=JSON), 429)
    app.state.engine.dispose()


def test_imports_beyond_the_ones_running_get_503_with_retry_after(database_url: str):
    app = limited_app(database_url, max_concurrent_imports=1, import_wait_seconds=0)
    with TestClient(app) as client:
        assert app.state.limits.imports.take_now()  # an import running
        problem = refused(client, app, "games", body(valid_game()), 503)
        assert problem["type"].endswith("/imports-busy")
        answer = client.post(f"{API}/games/import", content=body(valid_game()), headers=JSON)
        assert int(answer.headers["Retry-After"]) >= 1
        assert app.state.limits.games.used("testclient") == 0  # a busy server took no slot
        app.state.limits.imports.release()
        assert client.post(f"{API}/games/import", content=body(valid_game()), headers=JSON).status_code == 201
        assert app.state.limits.imports.running == 0
    app.state.engine.dispose()


def test_an_import_waits_for_a_slot_that_frees():
    import anyio

    from app.http.ratelimit import ImportSlots

    async def scenario() -> bool:
        slots = ImportSlots(1)
        assert slots.take_now()
        got: list[bool] = []

        async def second() -> None:
            got.append(await slots.take(wait_seconds=600))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(second)
            while slots.waiting == 0:
                await anyio.sleep(0)
            slots.release()
        return got == [True] and slots.running == 1

    assert anyio.run(scenario)


def test_the_import_budget_refills_at_its_pace():
    from app.http.ratelimit import GameBudget

    now = [0.0]
    budget = GameBudget(per_minute=60, clock=lambda: now[0])
    assert budget.take("a", 60) is None  # a full minute's worth at once
    assert budget.take("a", 1) == pytest.approx(1.0)  # then one a second
    assert budget.take("b", 1) is None  # per address
    now[0] = 30.0
    assert budget.take("a", 30) is None
    assert budget.take("a", 200) == pytest.approx(60.0)  # bigger than the budget: only once it is full
    now[0] = 89.0
    assert budget.take("a", 200) == pytest.approx(1.0)
    now[0] = 90.0
    assert budget.take("a", 200) is None
    assert budget.take("a", 1) == pytest.approx(200.0 + 1 - 60)
    budget.give_back("a", 200)
    assert budget.take("a", 1) is None
