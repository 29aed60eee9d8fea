"""Backups you can hold: a table or a game exported as one JSON document, imported as
a new one (new ids, new keys) and exported again gives the same bytes but for the top-level id; the
imported games answer as the originals did and the imported table's standings rows are the originals'.
The refusals (each naming its JSON path, each writing nothing) are in tests/backup/test_backup_refusals.py.

Past 400 lines because the round trips share one table played through the API (the `played` fixture,
every kind and fate of game), which is most of this module's length and would otherwise be copied."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, select

from app.backup.answers import GameBackup, TableBackup
from app.models import GameResult, Person, as_utc
from app.rules import scoring
from tests.helpers import API, assert_problem, limited_app

JSON = {"Content-Type": "application/json"}


# --- a table played through the API ----------------------------------------------------------------


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def new_table(client: TestClient, name: str, people: list[str]) -> dict[str, Any]:
    made = client.post(f"{API}/tables", json={"name": name, "people": [{"name": n} for n in people]})
    assert made.status_code == 201, made.text
    return made.json()


def new_game(client: TestClient, table: dict[str, Any] | None, players: list[Any], rules: dict[str, Any], name=""):
    body: dict[str, Any] = {
        "name": name,
        "players": [p if isinstance(p, dict) else {"name": p} for p in players],
        "rules": rules,
    }
    headers = {}
    if table is not None:
        body["table_id"] = table["id"]
        headers = bearer(table["edit_key"])
    made = client.post(f"{API}/games", json=body, headers=headers)
    assert made.status_code == 201, made.text
    return made.json()


def play(client: TestClient, game: dict[str, Any], *rounds: dict[str, Any]) -> dict[str, Any]:
    """Each round as {seat: score} plus "caller"/"knocker" (a seat) and the round's time, if any."""
    ids = [p["id"] for p in game["players"]]
    answer = game
    for spec in rounds:
        spec = dict(spec)
        body: dict[str, Any] = {"scores": []}
        for field in ("caller", "knocker"):
            if field in spec:
                body[field] = ids[spec.pop(field)]
        for field in ("started_at", "duration_s"):
            if field in spec:
                body[field] = spec.pop(field)
        for seat, score in spec.items():
            entry = {"player_id": ids[seat]}
            entry |= {"dutch": score[0], "blitz": score[1]} if isinstance(score, tuple) else {"hand": score}
            body["scores"].append(entry)
        saved = client.post(f"{API}/games/{game['id']}/rounds", json=body, headers=bearer(game["edit_key"]))
        assert saved.status_code == 201, saved.text
        answer = saved.json()
    return answer


@pytest.fixture
def played(client: TestClient) -> dict[str, Any]:
    """A table with six games of every kind and fate, in the order they were created."""
    table = new_table(client, "The Millers", ["Ana", "Ben", "Cy", "Dee", "Eve", "Flo"])  # Flo never plays
    games = []
    # Dutch Blitz with starting scores and a timed round, won by Ana.
    blitz = new_game(
        client, table, [{"name": "ana", "starting_score": 58}, {"name": "Ben", "starting_score": 70}, "Cy", "Dee"],
        {"preset": "dutch_blitz"}, name="Friday",
    )  # fmt: skip
    play(
        client, blitz,
        {0: (3, 0), 1: (2, 4), 2: (1, 6), 3: (0, 8), "started_at": "2026-11-27T20:05:02.250+01:00", "duration_s": 271},
        {0: (22, 0), 1: (14, 3), 2: (11, 5), 3: (9, 7)},
    )  # fmt: skip
    games.append(blitz)
    # Nerts, won by Ana; its second round corrected (the correction log is not exported).
    nerts = new_game(client, table, ["Ana", "Ben", "Gus"], {"preset": "nerts"})
    play(client, nerts, {0: (40, 0), 1: (20, 5), 2: (10, 13)}, {0: (40, 0), 1: (20, 5), 2: (10, 13)})
    ids = [p["id"] for p in nerts["players"]]
    counts = [(39, 0), (21, 4), (9, 12)]
    fixed = {"scores": [{"player_id": i, "dutch": d, "blitz": b} for i, (d, b) in zip(ids, counts, strict=True)]}
    corrected = client.put(f"{API}/games/{nerts['id']}/rounds/2", json=fixed, headers=bearer(nerts["edit_key"]))
    assert corrected.status_code == 200, corrected.text
    play(client, nerts, {0: (40, 0), 1: (20, 5), 2: (10, 13)})
    games.append(nerts)
    # Dutch with callers: a caller with the lowest hand, one without (a penalty), a round nobody called.
    dutch = new_game(client, table, ["Ana", "Ben", "Cy"], {"preset": "dutch", "target": 100})
    play(client, dutch, {0: 3, 1: 10, 2: 20, "caller": 0}, {0: 5, 1: 2, 2: 30, "caller": 0}, {0: 50, 1: 40, 2: 60})
    games.append(dutch)
    # 31 with one life and the county: Ana out after two losses, Ben knocks himself out, Cy wins.
    thirty_one = new_game(client, table, ["Ana", "Ben", "Cy"], {"preset": "thirty_one", "lives": 1})
    play(
        client, thirty_one,
        {0: 10, 1: 20, 2: 25}, {0: 5, 1: 20, 2: 25}, {1: 10, 2: 20, "knocker": 2}, {1: 12, 2: 15, "knocker": 1},
    )  # fmt: skip
    games.append(thirty_one)
    # A shared win.
    shared = new_game(client, table, ["Dee", "Eve"], {"tie_break": "shared", "target": 10})
    assert play(client, shared, {0: (10, 0), 1: (10, 0)})["winners"] == [p["id"] for p in shared["players"]]
    games.append(shared)
    # Unfinished, under a person renamed since (their players carry the new name).
    open_game = new_game(client, table, ["Eve", "Ana"], {"preset": "dutch_blitz_100"})
    play(client, open_game, {0: (5, 0), 1: (3, 2)})
    games.append(open_game)
    eve = next(p for p in client.get(f"{API}/tables/{table['id']}").json()["people"] if p["name"] == "Eve")
    renamed = client.patch(
        f"{API}/tables/{table['id']}/people/{eve['id']}", json={"name": "Evie"}, headers=bearer(table["edit_key"])
    )
    assert renamed.status_code == 200, renamed.text
    return {"table": table, "games": games}


# --- comparing ---------------------------------------------------------------------------------------


def export(client: TestClient, what: str, thing_id: str) -> bytes:
    answer = client.get(f"{API}/{what}/{thing_id}/export")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/json"
    return answer.content


def import_(client: TestClient, what: str, document: bytes, **headers: str):
    return client.post(f"{API}/{what}/import", content=document, headers=JSON | headers)


def without_id(document: bytes) -> tuple[str, bytes]:
    """The document's top-level id, and its bytes with that id blanked (it is the first thing in it)."""
    thing_id = json.loads(document)["id"]
    prefix = document[: document.index(b'"id":')]
    return thing_id, document.replace(prefix + f'"id":"{thing_id}"'.encode(), prefix + b'"id":""', 1)


def as_seats(game: dict[str, Any]) -> dict[str, Any]:
    """A game's answer without what an import renews (ids, version, table, people): players by seat."""
    seat = {p["id"]: i for i, p in enumerate(game["players"])}
    out = json.loads(json.dumps(game))
    for field in ("id", "version", "table_id"):
        out.pop(field)
    out["winners"] = [seat[i] for i in game["winners"]]
    out["leaders"] = [seat[i] for i in game["leaders"]]
    for player in out["players"]:
        player["id"] = seat[player.pop("id")]
        player.pop("person_id")
    for round_ in out["rounds"]:
        for score in round_["scores"]:
            score["player_id"] = seat[score["player_id"]]
        for field in ("caller", "knocker", "penalty"):
            if round_.get(field) is not None:
                round_[field] = seat[round_[field]]
    return out


def results(app, table_id: str, game_ids: list[str]) -> list[tuple]:
    """The table's game_result rows, with games by their place in `game_ids` and people by name."""
    with Session(app.state.engine) as session:
        names = {p.id: p.name for p in session.exec(select(Person).where(Person.table_id == table_id))}
        rows = session.exec(select(GameResult).where(GameResult.table_id == table_id)).all()
        return sorted(
            (
                game_ids.index(r.game_id), names[r.person_id], r.kind, r.preset, as_utc(r.finished_at),
                r.rounds, r.total, r.place, r.won, r.shared,
            )
            for r in rows
        )  # fmt: skip


# --- a table ---------------------------------------------------------------------------------------


def test_a_table_round_trips_byte_for_byte_apart_from_its_id(client: TestClient, app, played):
    table = played["table"]
    first = export(client, "tables", table["id"])
    document = TableBackup.model_validate_json(first)  # the documented shape
    assert [g.name for g in document.games] == ["Friday", "", "", "", "", ""]
    assert [p.name for p in document.people] == ["Ana", "Ben", "Cy", "Dee", "Evie", "Flo", "Gus"]
    for game in played["games"]:  # no ids or keys but the table's own
        assert game["id"].encode() not in first and game["edit_key"].encode() not in first
    assert table["edit_key"].encode() not in first and b"person_id" not in first and b"player_id" not in first

    imported = import_(client, "tables", first)
    assert imported.status_code == 201, imported.text
    answer = imported.json()
    assert answer["id"] != table["id"] and answer["edit_key"] != table["edit_key"] and answer["version"] == 1
    assert imported.headers["Location"].endswith(f"{API}/tables/{answer['id']}")
    assert answer["urls"]["edit"].endswith(f"/t/{answer['id']}/edit/{answer['edit_key']}")
    second = export(client, "tables", answer["id"])
    assert without_id(second)[1] == without_id(first)[1]
    assert without_id(second)[0] == answer["id"]

    # As GET /tables/{id} answers it, and every game with a key of its own.
    read = client.get(f"{API}/tables/{answer['id']}").json()
    assert {k: v for k, v in answer.items() if k not in ("edit_key", "urls", "game_keys")} == read
    assert [p["name"] for p in read["people"]] == [p.name for p in document.people]
    original = client.get(f"{API}/tables/{table['id']}").json()
    assert [p["games"] for p in read["people"]] == [p["games"] for p in original["people"]]
    keys = answer["game_keys"]
    assert len(keys) == 6 and len({k["edit_key"] for k in keys}) == 6
    assert {k["id"] for k in keys}.isdisjoint(g["id"] for g in played["games"])


def test_an_import_that_loses_its_connection_before_commit_runs_once_more_whole(
    client: TestClient, played, monkeypatch: pytest.MonkeyPatch
):
    # The imports share the writes' skeleton (app.db.write_transaction) and its retry: the first run wrote
    # every row and lost its connection before COMMIT; the second writes them again, once.
    from sqlalchemy.exc import OperationalError

    from app.backup import usecases

    first = export(client, "tables", played["table"]["id"])
    real, calls = usecases.public_table, []

    def flaky(session, table):
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError(
                "SELECT ...", {}, Exception("server closed the connection"), connection_invalidated=True
            )
        return real(session, table)

    monkeypatch.setattr(usecases, "public_table", flaky)
    imported = import_(client, "tables", first)
    assert imported.status_code == 201, imported.text
    assert len(calls) == 2
    answer = imported.json()
    assert without_id(export(client, "tables", answer["id"]))[1] == without_id(first)[1]
    for key in answer["game_keys"]:  # every game there once, with the key the answer gave
        game = client.get(f"{API}/games/{key['id']}")
        assert game.status_code == 200
        assert (
            client.patch(f"{API}/games/{key['id']}", json={"name": "Mine"}, headers=bearer(key["edit_key"])).status_code
            == 200
        )


def test_imported_games_answer_as_the_originals_and_their_keys_work(client: TestClient, played):
    first = export(client, "tables", played["table"]["id"])
    answer = import_(client, "tables", first).json()
    people = {p["id"]: p["name"] for p in answer["people"]}
    for original, key in zip(played["games"], answer["game_keys"], strict=True):
        before = client.get(f"{API}/games/{original['id']}").json()
        after = client.get(f"{API}/games/{key['id']}").json()
        assert as_seats(after) == as_seats(before), original["name"]
        assert after["table_id"] == answer["id"] and after["version"] == 1
        assert [people[p["person_id"]] for p in after["players"]] == [p["name"] for p in before["players"]]
        renamed = client.patch(f"{API}/games/{key['id']}", json={"name": "Mine"}, headers=bearer(key["edit_key"]))
        assert renamed.status_code == 200, renamed.text
    # The unfinished game plays on under its own key; the table's key changes the table.
    last = answer["game_keys"][-1]
    game = client.get(f"{API}/games/{last['id']}").json() | {"edit_key": last["edit_key"]}
    assert play(client, game, {0: (40, 0), 1: (0, 10)})["status"] == "playing"
    assert client.patch(
        f"{API}/tables/{answer['id']}", json={"name": "Copy"}, headers=bearer(answer["edit_key"])
    ).status_code == 200  # fmt: skip


def test_the_imported_tables_standings_rows_are_the_originals(client: TestClient, app, played):
    table_id = played["table"]["id"]
    answer = import_(client, "tables", export(client, "tables", table_id)).json()
    before = results(app, table_id, [g["id"] for g in played["games"]])
    after = results(app, answer["id"], [k["id"] for k in answer["game_keys"]])
    assert after == before
    assert len(before) == 4 + 3 + 3 + 3 + 2  # every finished game's players; not the open game's
    assert [row[1] for row in before if row[8]] == ["Ana", "Ana", "Ben", "Cy", "Dee", "Evie"]  # the winners


def test_an_empty_table_round_trips(client: TestClient):
    table = new_table(client, "Nobody yet", [])
    first = export(client, "tables", table["id"])
    assert json.loads(first)["people"] == [] and json.loads(first)["games"] == []
    answer = import_(client, "tables", first).json()
    assert without_id(export(client, "tables", answer["id"]))[1] == without_id(first)[1]
    assert answer["game_keys"] == []


def test_games_created_at_the_same_moment_keep_their_order(client: TestClient, played):
    document = json.loads(export(client, "tables", played["table"]["id"]))
    for game in document["games"]:
        game["created_at"] = "2026-11-27T20:00:00Z"
    names = ["A", "B", "C", "D", "E", "F"]
    for game, name in zip(document["games"], names, strict=True):
        game["name"] = name
    body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
    answer = import_(client, "tables", body).json()
    again = export(client, "tables", answer["id"])
    assert [g["name"] for g in json.loads(again)["games"]] == names
    assert without_id(again)[1] == without_id(body)[1]


# --- a game ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(6), ids=["blitz", "nerts", "dutch", "thirty_one", "shared", "open"])
def test_a_game_round_trips_byte_for_byte_and_answers_as_the_original(client: TestClient, played, index):
    original = played["games"][index]
    first = export(client, "games", original["id"])
    GameBackup.model_validate_json(first)
    assert b"person" not in first and original["edit_key"].encode() not in first
    imported = import_(client, "games", first)
    assert imported.status_code == 201, imported.text
    answer = imported.json()
    assert imported.headers["Location"].endswith(f"{API}/games/{answer['id']}")
    assert answer["urls"]["edit"].endswith(answer["edit_key"]) and answer["table_id"] is None
    assert {p["person_id"] for p in answer["players"]} == {None}  # a game of its own
    second = export(client, "games", answer["id"])
    assert without_id(second) == (answer["id"], without_id(first)[1])
    after = client.get(f"{API}/games/{answer['id']}").json()
    assert {k: v for k, v in answer.items() if k not in ("edit_key", "urls")} == after
    assert as_seats(after) == as_seats(client.get(f"{API}/games/{original['id']}").json())


def test_an_export_has_an_etag_and_a_file_name_and_needs_no_key(client: TestClient, played):
    game = played["games"][0]
    first = client.get(f"{API}/games/{game['id']}/export")
    assert first.headers["content-disposition"] == f'attachment; filename="blitzboard-game-{game["id"]}.json"'
    again = client.get(f"{API}/games/{game['id']}/export", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.headers["ETag"] == first.headers["ETag"]
    table = client.get(f"{API}/tables/{played['table']['id']}/export")
    ids = [p["id"] for p in played["games"][-1]["players"]]
    client.post(
        f"{API}/games/{played['games'][-1]['id']}/rounds",
        json={"scores": [{"player_id": ids[0], "dutch": 1, "blitz": 0}, {"player_id": ids[1], "dutch": 1, "blitz": 1}]},
        headers=bearer(played["games"][-1]["edit_key"]),
    )  # a round in one of its games changes the table's document, not the table's version
    changed = client.get(
        f"{API}/tables/{played['table']['id']}/export", headers={"If-None-Match": table.headers["ETag"]}
    )
    assert changed.status_code == 200 and changed.headers["ETag"] != table.headers["ETag"]


def test_exporting_what_is_not_there(client: TestClient, played):
    assert_problem(client.get(f"{API}/tables/nope/export"), 404)
    assert_problem(client.get(f"{API}/games/nope/export"), 404)
    game = played["games"][-1]
    assert client.delete(f"{API}/games/{game['id']}", headers=bearer(game["edit_key"])).status_code == 204
    assert_problem(client.get(f"{API}/games/{game['id']}/export"), 410)


# --- Idempotency-Key ---------------------------------------------------------------------------------


@pytest.mark.parametrize("what", ["tables", "games"])
def test_an_import_retried_with_its_idempotency_key_gets_the_first_answer_keys_and_all(
    client: TestClient, app, played, what
):
    thing = played["table"]["id"] if what == "tables" else played["games"][3]["id"]
    document = export(client, what, thing)
    before = client.get(f"{API}/{what}/{thing}").json()
    first = import_(client, what, document, **{"Idempotency-Key": "backup-1"})
    again = import_(client, what, document, **{"Idempotency-Key": "backup-1"})
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Location"] == first.headers["Location"]
    assert "Idempotent-Replayed" not in first.headers
    if what == "tables":  # one table was made, and one copy of each game
        with Session(app.state.engine) as session:
            assert len(session.exec(select(Person).where(Person.name == "Flo")).all()) == 2
    other = document.replace(before["name"].encode(), b"Other", 1) if before["name"] else document + b" "
    reused = import_(client, what, other, **{"Idempotency-Key": "backup-1"})
    assert assert_problem(reused, 422)["errors"][0]["field"] == "Idempotency-Key"


def test_an_import_counts_as_a_new_game_for_the_rate_limit_refused_or_not(database_url: str):
    app = limited_app(database_url, games_per_minute=3)
    with TestClient(app) as client:
        made = client.post(f"{API}/games", json={"players": [{"name": "Ana"}, {"name": "Ben"}]}).json()
        document = export(client, "games", made["id"])
        assert import_(client, "games", document).status_code == 201
        assert_problem(import_(client, "tables", document), 422)  # read and checked: it counts too
        refused = import_(client, "games", document)
        assert_problem(refused, 429)
        assert "Retry-After" in refused.headers
    app.state.engine.dispose()


# --- a property: any valid game round-trips exactly ------------------------------------------------

START = datetime(2026, 1, 1, tzinfo=UTC)


def moment(offset: int) -> str:
    """A moment as an export writes it (microseconds only when there are some)."""
    return (START + timedelta(microseconds=offset)).isoformat().replace("+00:00", "Z")


@st.composite
def games(draw) -> dict[str, Any]:
    preset = draw(st.sampled_from(list(scoring.PRESETS)))
    rules = scoring.PRESETS[preset]
    if rules.kind == scoring.Kind.LIVES:
        rules = scoring.with_params(rules, {"lives": draw(st.integers(1, 3)), "county": draw(st.booleans())})
    elif rules.kind == scoring.Kind.CARDS:
        rules = scoring.with_params(
            rules, {"target": draw(st.integers(1, 500)), "tie_break": draw(st.sampled_from(["play_on", "shared"]))}
        )
    count = draw(st.integers(2, 5))
    names = draw(
        st.lists(
            st.sampled_from(["Ana", "Ben", "Cy", "Dee", "Éva", "Ζωή", "李", "Bob"]),
            min_size=count,
            max_size=count,
            unique=True,
        )
    )
    lives = rules.kind == scoring.Kind.LIVES
    starts = [0 if lives else draw(st.integers(-100, 100)) for _ in names]
    players = [scoring.Player(i, n, s) for i, (n, s) in enumerate(zip(names, starts, strict=True))]
    clock = draw(st.integers(0, 10**12))
    rounds: list[dict[str, Any]] = []
    played: list[list[scoring.Score]] = []
    for _ in range(draw(st.integers(0, 8))):
        state = scoring.score_game(players, rules, played)
        playing = state.playing(players)
        if len(playing) < 2:
            break
        if rules.kind == scoring.Kind.CARDS:
            scores = []
            for p in players:
                blitz = draw(st.integers(0, rules.pile_size))
                scores.append(scoring.Score(p.id, draw(st.integers(0, rules.deck_size - blitz)), blitz))
            if rules.must_go_out and not any(s.blitz == 0 for s in scores):
                out = draw(st.integers(0, len(scores) - 1))  # somebody went out
                scores[out] = scoring.Score(scores[out].player_id, scores[out].dutch, 0)
            entered = [{"player": s.player_id, "dutch": s.dutch, "blitz": s.blitz} for s in scores]
        else:
            high = scoring.THIRTY_ONE if lives else scoring.HAND_RANGE[1]
            caller = draw(st.sampled_from([None, *[p.id for p in playing]]))
            scores = [scoring.Score(p.id, None, None, draw(st.integers(0, high)), p.id == caller) for p in playing]
            entered = [{"player": s.player_id, "hand": s.hand, "called": s.called} for s in scores]
        assert not scoring.validate_round(players, scores, rules, scoring.caller_of(scores), state)
        played.append(scores)
        clock += draw(st.integers(1, 10**9))
        timed = draw(st.booleans())
        entry = {
            "created_at": moment(clock),
            "started_at": moment(clock - 10**6) if timed else None,
            "duration_s": draw(st.integers(0, 21600)) if timed and draw(st.booleans()) else None,
        }
        if rules.kind == scoring.Kind.CARDS:  # the centre piles as counted, whatever the rows say (saved anyway)
            entry["piles"] = draw(st.none() | st.integers(0, len(scores) * rules.deck_size))
        rounds.append(entry | {"scores": entered})
    return {
        "format": "blitzboard-game",
        "format_version": 1,
        "id": "",
        "name": draw(st.sampled_from(["", "Friday", "Пятница"])),
        "created_at": moment(0),
        "updated_at": moment(clock),
        "rules": scoring.public_rules(rules),
        "players": [{"name": p.name, "starting_score": p.starting_score} for p in players],
        "rounds": rounds,
        "seats": {"save_round": draw(st.booleans()), "on_view": draw(st.booleans())},
    }


@pytest.fixture
def unlimited(database_url: str):
    """A client whose imports the rate limit never stops (a property test makes many)."""
    app = limited_app(database_url, games_per_minute=1_000_000)
    with TestClient(app) as client:
        yield client
    app.state.engine.dispose()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=games())
def test_any_valid_game_round_trips_exactly(unlimited: TestClient, document: dict[str, Any]):
    body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
    imported = import_(unlimited, "games", body)
    assert imported.status_code == 201, imported.text
    assert without_id(export(unlimited, "games", imported.json()["id"]))[1] == body


# --- a player who left -------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["dutch_blitz", "dutch", "thirty_one"])
def test_a_game_with_a_leaver_round_trips_and_its_replay_answers_the_same(client: TestClient, make_game, preset):
    """The leaver's rounds stay theirs and they are in no later round, in the import and in a retried import."""
    game = make_game(
        players=[{"name": n} for n in ("Ana", "Ben", "Cy")],
        rules={"preset": preset} | ({} if preset == "thirty_one" else {"target": 1000}),
    )
    ana, ben, cy = game.player_ids

    def round_of(ids: list[int]) -> dict[str, Any]:
        if preset == "dutch_blitz":
            return {"scores": [{"player_id": pid, "dutch": 5, "blitz": 0 if pid == ben else 3} for pid in ids]}
        return {"scores": [{"player_id": pid, "hand": 20 + pid % 7} for pid in ids]}

    rounds = f"{API}/games/{game.id}/rounds"
    assert client.post(rounds, json=round_of([ana, ben, cy]), headers=game.auth).status_code == 201
    left = client.patch(f"{API}/games/{game.id}/players/{cy}", json={"left": True}, headers=game.auth)
    assert left.status_code == 200, left.text
    assert client.post(rounds, json=round_of([ana, ben]), headers=game.auth).status_code == 201
    first = export(client, "games", game.id)
    assert json.loads(first)["players"][2]["left_after_round"] == 1
    imported = import_(client, "games", first, **{"Idempotency-Key": "leaver"})
    assert imported.status_code == 201, imported.text
    again = import_(client, "games", first, **{"Idempotency-Key": "leaver"})
    assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true"
    copy = imported.json()
    assert as_seats(client.get(f"{API}/games/{copy['id']}").json()) == as_seats(game.get())
    assert as_seats(again.json() | {"edit_key": None}) == as_seats(copy | {"edit_key": None})
    assert without_id(export(client, "games", copy["id"]))[1] == without_id(first)[1]


@pytest.mark.parametrize("preset", ["dutch_blitz", "dutch", "thirty_one"])
def test_a_game_with_a_latecomer_round_trips_and_its_replay_answers_the_same(client: TestClient, make_game, preset):
    """The latecomer is in no round before they came and in every one after, with their starting score (31: the
    lives they came with), in the import and in a retried import."""
    game = make_game(
        players=[{"name": n} for n in ("Ana", "Ben")],
        rules={"preset": preset} | ({} if preset == "thirty_one" else {"target": 1000}),
    )

    def round_of(ids: list[int]) -> dict[str, Any]:
        if preset == "dutch_blitz":
            return {"scores": [{"player_id": pid, "dutch": 5, "blitz": 0 if pid == ids[0] else 3} for pid in ids]}
        return {"scores": [{"player_id": pid, "hand": 20 + pid % 7} for pid in ids]}

    rounds = f"{API}/games/{game.id}/rounds"
    assert client.post(rounds, json=round_of(game.player_ids), headers=game.auth).status_code == 201
    came = client.post(f"{API}/games/{game.id}/players", json={"name": "Cy"}, headers=game.auth)
    assert came.status_code == 201, came.text
    cy = came.json()["players"][2]["id"]
    assert client.post(rounds, json=round_of([*game.player_ids, cy]), headers=game.auth).status_code == 201
    first = export(client, "games", game.id)
    assert json.loads(first)["players"][2]["joined_after_round"] == 1
    imported = import_(client, "games", first, **{"Idempotency-Key": "latecomer"})
    assert imported.status_code == 201, imported.text
    again = import_(client, "games", first, **{"Idempotency-Key": "latecomer"})
    assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true"
    copy = imported.json()
    assert as_seats(client.get(f"{API}/games/{copy['id']}").json()) == as_seats(game.get())
    assert as_seats(again.json() | {"edit_key": None}) == as_seats(copy | {"edit_key": None})
    assert without_id(export(client, "games", copy["id"]))[1] == without_id(first)[1]


@pytest.mark.parametrize(
    ("joined", "left", "field"),
    [(2, None, "joined_after_round"), (1, 0, "left_after_round"), (0, None, "rounds")],
)
def test_a_latecomer_the_rounds_contradict_is_refused(client: TestClient, make_game, joined, left, field):
    # After more rounds than the game has; gone before they came; or (joined 0) missing from round 1.
    game = make_game(players=[{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}], rules={"target": 1000})
    assert game.add_round([(3, 0), (2, 4), (1, 6)]).status_code == 201
    document = json.loads(export(client, "games", game.id))
    document["players"].append({"name": "Dee", "starting_score": 0, "joined_after_round": joined})
    if left is not None:
        document["players"][3]["left_after_round"] = left
    body = assert_problem(import_(client, "games", json.dumps(document).encode()), 422)
    assert any(field in e["field"] for e in body["errors"]), body


def test_a_latecomer_who_left_before_playing_round_trips(client: TestClient, make_game):
    # Dee came after round 1 and left before round 2: she sat in no round, and her game still imports.
    game = make_game(players=[{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}], rules={"target": 1000})
    assert game.add_round([(3, 0), (2, 4), (1, 6)]).status_code == 201
    dee = client.post(f"{API}/games/{game.id}/players", json={"name": "Dee"}, headers=game.auth).json()["players"][3]
    left = client.patch(f"{API}/games/{game.id}/players/{dee['id']}", json={"left": True}, headers=game.auth)
    assert left.status_code == 200, left.text
    imported = import_(client, "games", export(client, "games", game.id))
    assert imported.status_code == 201, imported.text
    assert as_seats(client.get(f"{API}/games/{imported.json()['id']}").json()) == as_seats(game.get())


def test_a_leaver_after_more_rounds_than_the_game_has_is_refused(client: TestClient, make_game):
    game = make_game(players=[{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}])
    document = json.loads(export(client, "games", game.id))
    document["players"][2]["left_after_round"] = 1
    body = assert_problem(import_(client, "games", json.dumps(document).encode()), 422)
    assert any(e["field"].endswith("players[2].left_after_round") for e in body["errors"]), body


@pytest.mark.parametrize("left", [[0, 1, 2], [1, 2]])
def test_a_backup_where_fewer_than_two_players_stay_is_refused(client: TestClient, make_game, left: list[int]):
    # A live game refuses the leave that would keep fewer than two in; a backup can't bring one either
    # (everyone gone answered a later round with a 500, one alone played by themselves).
    game = make_game(players=[{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}])
    document = json.loads(export(client, "games", game.id))
    for seat in left:
        document["players"][seat]["left_after_round"] = 0
    body = assert_problem(import_(client, "games", json.dumps(document).encode()), 422)
    assert any(e["field"].endswith("players") and "At least 2" in e["message"] for e in body["errors"]), body
