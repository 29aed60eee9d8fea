"""Replay records: small, sealed with real cryptography, bound to who made the first request.

The attacks these tests repeat were shown against the first version, whose records kept a new game's
edit key XORed with a pad made only from the Idempotency-Key, next to a bare SHA-256 of that key:
(a) a database copy and a guessable Idempotency-Key gave the edit key offline; (b) one Idempotency-Key
used for a creation and a rotation gave old XOR new; (c) a leaked old key and a guessed rotation
Idempotency-Key fetched the new key for 48 hours.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, text
from sqlmodel import Session, select

from app import idempotency as replay_store
from app.config import Settings
from app.games import writes as use_cases
from app.games.views import load_view
from app.main import create_app
from app.migrations import upgrade
from app.models import Game, IdempotencyRecord
from app.sealing import SealBroken, Sealer, default_secret_file, load_secret
from tests.helpers import (
    API,
    SMALL_ROUND,
    WORKED_EXAMPLE_PLAYERS,
    GameHandle,
    assert_problem,
    claim,
    count_games,
    csrf_of,
    game_url,
    html,
    on_postgres,
    round_form,
    text_of,
)


def records(app: FastAPI) -> list[IdempotencyRecord]:
    with Session(app.state.engine) as session:
        return list(session.exec(select(IdempotencyRecord)))


def every_stored_value(app: FastAPI) -> list[bytes]:
    """Every value in every table, as bytes (what someone with a copy of the database has)."""
    values: list[bytes] = []
    with app.state.engine.connect() as connection:
        for table in ("game", "player", "round", "round_score", "idempotency_record"):
            for row in connection.execute(text(f"SELECT * FROM {table}")):
                for value in row:
                    if isinstance(value, bytes | memoryview):
                        values.append(bytes(value))
                    elif value is not None:
                        values.append(str(value).encode())
    return values


def later(monkeypatch: pytest.MonkeyPatch, delta: timedelta) -> None:
    real = replay_store.utcnow
    for module in (use_cases, replay_store):
        monkeypatch.setattr(module, "utcnow", lambda: real() + delta)


# --- the seal itself -----------------------------------------------------------------------------


def test_a_sealed_key_opens_only_with_the_same_secret_salt_and_scope():
    sealer = Sealer(os.urandom(32))
    sealed = sealer.seal("the edit key", salt="idem-1", scope=("create", "game-1"))
    assert sealer.open(sealed, salt="idem-1", scope=("create", "game-1")) == "the edit key"
    assert b"the edit key" not in sealed
    for salt, scope in [("idem-2", ("create", "game-1")), ("idem-1", ("rotate", "game-1")), ("idem-1", ("create",))]:
        with pytest.raises(SealBroken):
            sealer.open(sealed, salt=salt, scope=scope)
    with pytest.raises(SealBroken):
        Sealer(os.urandom(32)).open(sealed, salt="idem-1", scope=("create", "game-1"))
    for index in range(len(sealed)):  # any one byte changed
        tampered = bytearray(sealed)
        tampered[index] ^= 0x01
        with pytest.raises(SealBroken):
            sealer.open(bytes(tampered), salt="idem-1", scope=("create", "game-1"))
    with pytest.raises(SealBroken):
        sealer.open(b"", salt="idem-1", scope=("create", "game-1"))


def test_one_key_on_two_scopes_gives_unrelated_ciphertexts():
    sealer = Sealer(os.urandom(32))
    one = sealer.seal("A" * 32, salt="same-key", scope=("create", "g1"))
    two = sealer.seal("B" * 32, salt="same-key", scope=("rotate", "g1"))
    again = sealer.seal("A" * 32, salt="same-key", scope=("create", "g1"))
    assert one != again  # a fresh nonce every time
    # XOR of the two ciphertexts is not the XOR of the plaintexts (what a shared pad would give).
    xor = bytes(a ^ b for a, b in zip(one[13:45], two[13:45], strict=True))
    assert xor != bytes(a ^ b for a, b in zip(b"A" * 32, b"B" * 32, strict=True))


def test_macs_depend_on_the_secret_and_on_every_part():
    one, two = Sealer(b"1" * 32), Sealer(b"2" * 32)
    assert one.mac("write", "g", "k") != two.mac("write", "g", "k")
    assert one.mac("write", "g", "k") == one.mac("write", "g", "k")
    assert one.mac("ab", "c") != one.mac("a", "bc")
    assert one.mac("write", "g", "k") != hashlib.sha256(b"k").hexdigest()


# --- the server secret ---------------------------------------------------------------------------


def test_the_secret_file_is_made_once_beside_the_database_with_mode_0600(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'blitzboard.db'}"
    assert default_secret_file(url) == tmp_path / "blitzboard.db.secret"
    first = load_secret("", "", url)
    path = tmp_path / "blitzboard.db.secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_secret("", "", url) == first
    assert len(first) >= 32


def test_processes_starting_at_once_share_one_secret(tmp_path: Path):
    path = tmp_path / "shared.secret"
    results: list[bytes] = []
    threads = [
        threading.Thread(target=lambda: results.append(load_secret("", str(path), "sqlite://"))) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8 and len(set(results)) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["shared.secret"]  # no temporary files left


def test_the_secret_setting_wins_and_must_be_long(tmp_path: Path):
    assert load_secret("x" * 40, str(tmp_path / "unused"), "sqlite://") == b"x" * 40
    assert not (tmp_path / "unused").exists()
    with pytest.raises(ValueError, match="at least 32"):
        load_secret("short", "", "sqlite://")
    assert default_secret_file("sqlite://") is None  # in memory: a secret for this process only
    assert default_secret_file("postgresql://u@h/db") == Path("blitzboard.secret")


# --- what the database holds ---------------------------------------------------------------------


def test_the_database_holds_no_edit_key_and_no_idempotency_key(client: TestClient, app: FastAPI):
    created = client.post(
        f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS}, headers={"Idempotency-Key": "game-89916"}
    )
    assert created.status_code == 201
    game = GameHandle(client, created.json())
    rotated = client.post(game_url(game.id, "/key"), headers=game.auth | {"Idempotency-Key": "game-89916"})
    assert rotated.status_code == 200
    keys = [game.key, rotated.json()["edit_key"]]
    stored = b"\n".join(every_stored_value(app))
    for secret in [*keys, "game-89916", hashlib.sha256(b"game-89916").hexdigest()]:
        assert secret.encode() not in stored
    assert {r.operation for r in records(app)} == {"create", "rotate"}
    assert all(r.sealed_key and len(r.key) == 64 for r in records(app))


def test_a_database_copy_and_a_guessable_key_yield_no_edit_key(client: TestClient, app: FastAPI):
    """Attack (a): the Idempotency-Key is guessable, the database copied; the server secret is not."""
    created = client.post(
        f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS}, headers={"Idempotency-Key": "game-89916"}
    )
    edit_key = created.json()["edit_key"]
    [record] = records(app)
    attacker = Sealer(os.urandom(32))  # everything but the secret
    guesses = [f"game-{n}" for n in range(89900, 89930)]
    for guess in guesses:
        assert record.key != hashlib.sha256(guess.encode()).hexdigest()
        assert record.key not in {attacker.mac("create", "new-game", "testclient", guess)}
        with pytest.raises(SealBroken):
            attacker.open(
                record.sealed_key or b"",
                salt=guess,
                scope=replay_store.seal_scope("create", created.json()["id"], record.key),
            )
    # The old XOR attack: the sealed bytes XOR the pad from the guessed key.
    pad = hashlib.shake_256(b"blitzboard-edit-key\0game-89916").digest(len(record.sealed_key or b""))
    assert edit_key.encode() not in bytes(a ^ b for a, b in zip(record.sealed_key or b"", pad, strict=True))


def test_one_idempotency_key_for_a_creation_and_a_rotation_gives_nothing_to_xor(client: TestClient, app: FastAPI):
    """Attack (b): the same Idempotency-Key for a creation and a rotation gave old XOR new."""
    headers = {"Idempotency-Key": "same-for-both"}
    created = client.post(f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS}, headers=headers)
    game = GameHandle(client, created.json())
    rotated = client.post(game_url(game.id, "/key"), headers=game.auth | headers)
    old, new = game.key.encode(), rotated.json()["edit_key"].encode()
    create_record, rotate_record = sorted(records(app), key=lambda r: r.operation)
    one, two = create_record.sealed_key or b"", rotate_record.sealed_key or b""
    xor = bytes(a ^ b for a, b in zip(one, two, strict=False))
    assert bytes(a ^ b for a, b in zip(old, new, strict=True)) not in xor
    assert one[1:13] != two[1:13]  # distinct nonces


# --- replays bound to who asked ----------------------------------------------------------------


def test_a_leaked_old_key_cannot_fetch_the_new_key_once_the_game_moved_on(client: TestClient, app: FastAPI, make_game):
    """Attack (c): the scorekeeper rotates a leaked key and plays on; the leaker replays the rotation."""
    game = make_game(rules={"target": 1000})
    retry = {"Idempotency-Key": "rotate-1"}
    rotated = client.post(game_url(game.id, "/key"), headers=game.auth | retry)
    new_key = rotated.json()["edit_key"]
    assert client.post(game_url(game.id, "/key"), headers=game.auth | retry).json() == rotated.json()  # a lost answer
    new = GameHandle(client, game.body | {"edit_key": new_key})
    assert new.add_round(SMALL_ROUND).status_code == 201  # the scorekeeper plays on with the new key
    before = game.get()
    stolen = client.post(game_url(game.id, "/key"), headers=game.auth | retry)
    assert_problem(stolen, 403)
    assert new_key not in stolen.text
    assert game.get() == before


def test_a_rotation_replay_answers_only_for_minutes(client: TestClient, make_game, monkeypatch, settings: Settings):
    game = make_game()
    retry = {"Idempotency-Key": "rotate-2"}
    rotated = client.post(game_url(game.id, "/key"), headers=game.auth | retry)
    new_key = rotated.json()["edit_key"]
    later(monkeypatch, timedelta(minutes=settings.rotation_replay_minutes - 1))
    assert client.post(game_url(game.id, "/key"), headers=game.auth | retry).json()["edit_key"] == new_key
    later(monkeypatch, timedelta(minutes=settings.rotation_replay_minutes + 1))
    late = client.post(game_url(game.id, "/key"), headers=game.auth | retry)
    assert_problem(late, 403)
    assert new_key not in late.text


def test_a_creation_replay_answers_only_the_same_client(app: FastAPI, client: TestClient):
    body = {"players": WORKED_EXAMPLE_PLAYERS}
    headers = {"Idempotency-Key": "create-1"}
    first = client.post(f"{API}/games", json=body, headers=headers)
    assert client.post(f"{API}/games", json=body, headers=headers).json() == first.json()
    with TestClient(app, client=("203.0.113.9", 4000)) as other:
        theirs = other.post(f"{API}/games", json=body, headers=headers)
    assert theirs.status_code == 201
    assert theirs.headers.get("Idempotent-Replayed") is None
    assert theirs.json()["id"] != first.json()["id"]
    assert first.json()["edit_key"] not in theirs.text
    assert count_games(app) == 2


def _tamper(app: FastAPI, operation: str, change) -> None:
    with Session(app.state.engine) as session:
        record = session.exec(select(IdempotencyRecord).where(IdempotencyRecord.operation == operation)).one()
        change(record, session)
        session.add(record)
        session.commit()


def test_a_tampered_creation_record_is_refused_without_a_500(app: FastAPI, client: TestClient):
    body = {"players": WORKED_EXAMPLE_PLAYERS}
    headers = {"Idempotency-Key": "create-2"}
    first = client.post(f"{API}/games", json=body, headers=headers)

    def flip(record: IdempotencyRecord, _session: Session) -> None:
        sealed = bytearray(record.sealed_key or b"")
        sealed[-1] ^= 0x80
        record.sealed_key = bytes(sealed)

    _tamper(app, "create", flip)
    again = client.post(f"{API}/games", json=body, headers=headers)
    problem = assert_problem(again, 422)
    assert problem["type"].endswith("/idempotency-replay-unavailable")
    assert first.json()["edit_key"] not in again.text
    assert count_games(app) == 1


def test_a_sealed_key_moved_to_another_record_does_not_open(app: FastAPI, client: TestClient):
    body = {"players": WORKED_EXAMPLE_PLAYERS}
    one = client.post(f"{API}/games", json=body, headers={"Idempotency-Key": "one"}).json()
    client.post(f"{API}/games", json=body, headers={"Idempotency-Key": "two"})
    with Session(app.state.engine) as session:
        rows = {
            json.loads(__import__("zlib").decompress(r.snapshot))["id"]: r
            for r in session.exec(select(IdempotencyRecord))
        }
        mine = rows.pop(one["id"])
        [theirs] = rows.values()
        theirs.sealed_key = mine.sealed_key  # the other game's record now carries this game's sealed key
        session.add(theirs)
        session.commit()
    again = client.post(f"{API}/games", json=body, headers={"Idempotency-Key": "two"})
    assert_problem(again, 422)
    assert one["edit_key"] not in again.text


def test_a_tampered_rotation_record_is_no_replay(app: FastAPI, client: TestClient, make_game):
    game = make_game()
    retry = {"Idempotency-Key": "rotate-3"}
    rotated = client.post(game_url(game.id, "/key"), headers=game.auth | retry).json()
    _tamper(app, "rotate", lambda record, _s: setattr(record, "sealed_key", b"\x01" + b"\x00" * 60))
    again = client.post(game_url(game.id, "/key"), headers=game.auth | retry)
    assert_problem(again, 403)  # no replay, so the old key is checked, and it is no longer the key
    assert rotated["edit_key"] not in again.text


def test_a_new_secret_forgets_records_but_never_fails(database_url: str, tmp_path: Path):
    """A lost secret file: old records can't be found (their keys are MACs under the old secret)."""
    body = {"players": WORKED_EXAMPLE_PLAYERS}
    headers = {"Idempotency-Key": "across-restart"}
    counts = []
    for secret in ("a" * 40, "b" * 40):
        app = create_app(Settings(database_url=database_url, secret_key=secret, tune_gc=False, _env_file=None))
        upgrade(app.state.engine)
        with TestClient(app) as client:
            assert client.post(f"{API}/games", json=body, headers=headers).status_code == 201
        counts.append(count_games(app))
        app.state.engine.dispose()
    assert counts == [1, 2]


# --- what a record costs -------------------------------------------------------------------------


def stored_bytes(app: FastAPI) -> int:
    with app.state.engine.connect() as connection:
        row = connection.execute(
            text(
                "SELECT coalesce(sum(length(scope) + length(key) + length(request_mac) + length(operation)"
                " + length(snapshot) + coalesce(length(sealed_key), 0) + 8 + 8 + 8), 0) FROM idempotency_record"
            )
        ).one()
    return int(row[0])


@pytest.fixture
def played(make_game) -> GameHandle:
    """The worked example's players with a far target and one round played."""
    handle = make_game(rules={"target": 1000})
    assert handle.add_round(SMALL_ROUND).status_code == 201
    return handle


def fifty_corrections(client: TestClient, app: FastAPI, rounds: int) -> tuple[int, int, int]:
    """50 corrections of a game of `rounds` rounds, each with a fresh Idempotency-Key: the bytes the
    records store, the bytes sent (bodies and keys), and the bytes answered."""
    game_body: dict[str, Any] = {"players": WORKED_EXAMPLE_PLAYERS, "rules": {"target": 10_000}}
    game = GameHandle(client, client.post(f"{API}/games", json=game_body).json())
    for n in range(rounds):
        assert game.add_round([(n % 20, 0), (5, 3), (4, 6), (2, 9)]).status_code == 201
    before = stored_bytes(app)
    sent = answered = 0
    for n in range(50):
        body = json.dumps(game.scores([(n % 30, 0), (7, 2), (3, 5), (1, 10)])).encode()
        key = f"correction-{n:03d}"
        sent += len(body) + len(key)
        response = client.put(
            game_url(game.id, f"/rounds/{n % rounds + 1}"),
            content=body,
            headers=game.auth | {"Idempotency-Key": key, "Content-Type": "application/json"},
        )
        assert response.status_code == 200, response.text
        answered += len(response.content)
    return stored_bytes(app) - before, sent, answered


def test_a_write_s_record_stores_about_what_was_sent_whatever_the_game_s_length(client: TestClient, app: FastAPI):
    short = fifty_corrections(client, app, 1)
    long = fifty_corrections(client, app, 100)
    assert long[0] == short[0]  # the same bytes on a game of 1 round and of 100
    stored, sent, answered = long
    assert stored < 2 * sent, (stored, sent)  # the key and request as two HMACs, the scope, the version
    assert stored < answered / 100


def test_a_replay_while_nothing_else_changed_is_the_first_answer(client: TestClient, played: GameHandle):
    first = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "lost-answer"})
    again = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "lost-answer"})
    assert (again.status_code, again.json(), again.headers["Location"]) == (
        201,
        first.json(),
        first.headers["Location"],
    )
    assert again.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers
    assert again.headers["ETag"] == first.headers["ETag"]


def test_a_replay_after_the_round_was_deleted_answers_the_game_whole(client: TestClient, played: GameHandle):
    # Its minimal form needs the round it made, which is gone: the whole game, the preference not applied.
    headers = {"Idempotency-Key": "made-then-deleted", "Prefer": "return=minimal"}
    first = played.add_round(SMALL_ROUND, **headers)
    number = first.json()["round"]["number"]
    assert client.delete(game_url(played.id, f"/rounds/{number}"), headers=played.auth).status_code == 200
    retry = played.add_round(SMALL_ROUND, **headers)
    assert retry.status_code == 201 and retry.headers["Idempotent-Replayed"] == "true"
    assert "Preference-Applied" not in retry.headers and "Prefer" in retry.headers["Vary"]
    assert retry.json() == played.get()  # the game as it now stands, without the round
    assert "Location" not in retry.headers  # it is nowhere any more


def test_a_replay_names_its_own_round_after_an_earlier_one_was_deleted(client: TestClient, played: GameHandle):
    # Numbers move up when a round is deleted: the retry names its round where it is now, never the
    # round that took its old number.
    headers = {"Idempotency-Key": "second-round", "Prefer": "return=minimal"}
    first = played.add_round(SMALL_ROUND, **headers)
    assert first.json()["round"]["number"] == 2 and first.headers["Location"].endswith("/rounds/2")
    assert client.delete(game_url(played.id, "/rounds/1"), headers=played.auth).status_code == 200
    assert played.add_round([(4, 0), (2, 4), (1, 6), (0, 8)]).status_code == 201  # now round 2
    retry = played.add_round(SMALL_ROUND, **headers)
    assert retry.status_code == 201 and retry.headers["Location"].endswith("/rounds/1")
    mine = played.get()["rounds"][0]
    assert retry.json()["round"] == mine and retry.headers["Preference-Applied"] == "return=minimal"
    assert [s["dutch"] for s in mine["scores"]] == [dutch for dutch, _ in SMALL_ROUND]


def test_a_start_s_replay_after_the_game_ended_still_says_when_blitz_was(client: TestClient, make_game):
    game = make_game(rules={"target": 10})
    headers = game.auth | {"Idempotency-Key": "start-1"}
    first = client.post(game_url(game.id, "/start"), headers=headers)
    assert first.status_code == 200 and first.json()["blitz_at"] is not None
    assert game.add_round([(20, 0), (5, 3), (4, 6), (2, 9)]).status_code == 201  # decided: no round runs
    retry = client.post(game_url(game.id, "/start"), headers=headers)
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.json()["status"] == "finished" and retry.json()["round_started_at"] is None  # as it now stands
    assert retry.json()["blitz_at"] == first.json()["blitz_at"] == first.json()["round_started_at"]
    minimal = client.post(game_url(game.id, "/start"), headers=headers | {"Prefer": "return=minimal"})
    assert minimal.json()["blitz_at"] == first.json()["blitz_at"]


def test_a_record_made_before_references_still_replays_its_first_answer(
    client: TestClient, app: FastAPI, played: GameHandle
):
    # Records kept the whole game's inputs until references; those still in a database (48 hours at most
    # after an upgrade) answer as before: the first answer, even after the game moved on.
    first = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "before-the-upgrade"})
    with Session(app.state.engine) as session:
        game = session.get(Game, played.id)
        view = load_view(session, game)
        blob = replay_store.snapshot(game, view.players, [scores for _, scores in view.played()])
        session.execute(text("UPDATE idempotency_record SET snapshot = :blob"), {"blob": blob})
        session.commit()
    assert played.add_round(SMALL_ROUND).status_code == 201
    retry = played.add_round(SMALL_ROUND, **{"Idempotency-Key": "before-the-upgrade"})
    assert (retry.status_code, retry.json(), retry.headers["Location"]) == (
        201,
        first.json(),
        first.headers["Location"],
    )


# --- rounds per game ------------------------------------------------------------------------------


@pytest.fixture
def few_rounds_app(database_url: str) -> FastAPI:
    app = create_app(Settings(database_url=database_url, max_rounds_per_game=3, tune_gc=False, _env_file=None))
    upgrade(app.state.engine)
    yield app
    app.state.engine.dispose()


def test_a_game_holds_at_most_the_configured_rounds(few_rounds_app: FastAPI):
    with TestClient(few_rounds_app) as client:
        game = GameHandle(
            client,
            client.post(f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS, "rules": {"target": 1000}}).json(),
        )
        for _ in range(3):
            assert game.add_round(SMALL_ROUND).status_code == 201
        before = game.get()
        problem = assert_problem(game.add_round(SMALL_ROUND), 409)
        assert problem["type"].endswith("/too-many-rounds")
        assert "at most 3\u00a0rounds" in problem["detail"]
        assert game.get() == before
        # Correcting and deleting still work at the cap.
        assert (
            client.put(game_url(game.id, "/rounds/3"), json=game.scores(SMALL_ROUND), headers=game.auth).status_code
            == 200
        )
        assert client.delete(game_url(game.id, "/rounds/3"), headers=game.auth).status_code == 200
        assert game.add_round(SMALL_ROUND).status_code == 201
        # The scorekeeper's form says so beside the round, and keeps what was typed.
        claim(client, game.id, game.key)
        before = game.get()
        page = client.post(
            f"/g/{game.id}/rounds",
            data=round_form(game.player_ids, [(7, 0), (2, 4), (1, 6), (0, 8)], csrf_of(client, game.id)),
        )
        assert page.status_code == 409
        soup = html(page)
        assert "at most 3 rounds" in text_of(soup.select_one("#round-errors, .form-error, [role=alert]"))
        assert soup.select_one(f"input[name=dutch-{game.player_ids[0]}]")["value"] == "7"
        assert game.get() == before


# --- a lost database connection ------------------------------------------------------------------


def _lose_connection_once(monkeypatch: pytest.MonkeyPatch, times: int = 1) -> list[int]:
    from sqlalchemy.exc import OperationalError

    calls: list[int] = []
    real = use_cases.load_view

    def flaky(session, game):
        calls.append(1)
        if len(calls) <= times:
            raise OperationalError(
                "SELECT ...", {}, Exception("server closed the connection"), connection_invalidated=True
            )
        return real(session, game)

    monkeypatch.setattr(use_cases, "load_view", flaky)
    return calls


def test_a_write_that_loses_its_connection_before_commit_runs_once_more(client: TestClient, make_game, monkeypatch):
    game = make_game(rules={"target": 1000})
    calls = _lose_connection_once(monkeypatch)
    response = game.add_round(SMALL_ROUND, **{"Idempotency-Key": "flaky"})
    assert response.status_code == 201, response.text
    assert len(calls) == 2
    assert len(game.get()["rounds"]) == 1
    assert game.get()["version"] == 2


@pytest.mark.skipif(not on_postgres(), reason="kills a PostgreSQL backend; runs in the PostgreSQL pass")
def test_a_postgresql_backend_killed_mid_write_is_retried_on_a_new_connection(
    client: TestClient, app: FastAPI, make_game
):
    import psycopg

    game = make_game(rules={"target": 1000})
    engine = app.state.engine
    admin_url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    killed: list[int] = []

    def kill_before_the_scores(_conn, cursor, statement, *_args) -> None:
        if statement.startswith("INSERT INTO round_score") and not killed:
            killed.append(cursor.connection.info.backend_pid)
            with psycopg.connect(admin_url, autocommit=True) as admin:
                # Waits (up to 5 s) until the backend is gone, so this statement meets a dead connection.
                admin.execute("SELECT pg_terminate_backend(%s, 5000)", (killed[0],))

    event.listen(engine, "before_cursor_execute", kill_before_the_scores)
    try:
        response = game.add_round(SMALL_ROUND, **{"Idempotency-Key": "killed"})
    finally:
        event.remove(engine, "before_cursor_execute", kill_before_the_scores)
    assert killed, "the backend was not killed"
    assert response.status_code == 201, response.text
    assert len(game.get()["rounds"]) == 1
    assert game.add_round(SMALL_ROUND, **{"Idempotency-Key": "killed"}).json() == response.json()


def test_a_write_that_loses_its_connection_twice_is_a_503_and_changes_nothing(
    client: TestClient, make_game, monkeypatch
):
    game = make_game(rules={"target": 1000})
    before = game.get()
    calls = _lose_connection_once(monkeypatch, times=2)
    response = game.add_round(SMALL_ROUND, **{"Idempotency-Key": "very-flaky"})
    assert_problem(response, 503)
    assert int(response.headers["retry-after"]) >= 1
    assert len(calls) == 2  # retried once, not forever
    monkeypatch.undo()
    assert game.get() == before
    # The client's retry with the same key is then a first request, and lands once.
    assert game.add_round(SMALL_ROUND, **{"Idempotency-Key": "very-flaky"}).status_code == 201
    assert len(game.get()["rounds"]) == 1


def test_a_secret_file_that_cannot_be_written_stops_start_up_with_a_clear_message(tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(RuntimeError, match="BLITZBOARD_SECRET_KEY"):
        load_secret("", str(blocker / "blitzboard.secret"), "sqlite://")


def test_a_rematch_of_players_stored_before_todays_name_rules_is_a_page_not_a_500(
    client: TestClient, app: FastAPI, make_game
):
    from app.models import Player

    game = make_game()
    with Session(app.state.engine) as session:  # a name today's rules refuse, stored by an older version
        player = session.exec(select(Player).where(Player.game_id == game.id)).first()
        player.name = "\u200b"
        session.add(player)
        session.commit()
    claim(client, game.id, game.key)
    games_before = count_games(app)
    page = client.post(f"/g/{game.id}/rematch", data={"csrf": csrf_of(client, game.id)}, follow_redirects=False)
    assert page.status_code == 422
    assert "visible character" in text_of(html(page).select_one("main, body"))
    assert count_games(app) == games_before
