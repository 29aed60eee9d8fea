"""schemathesis over the app's own OpenAPI document: no 5xx, and no answer outside the documented schema.

Every operation gets at least 100 generated requests (valid and invalid bodies, path parameters and
headers), sent in-process to the ASGI app, and each answer goes through schemathesis' checks: no
server error, a documented status code, content type and headers, a body that matches the documented
schema, and invalid input refused. The quick tier (`scripts/test --quick`) sends 30 a operation
(BLITZBOARD_FUZZ_EXAMPLES sets the number).

A fuzzer on its own mostly meets "no such game" and "no key". So each operation's run starts with a
real game (four players, three rounds, a far target) and a real table (with a finished game, so it has
standings), and every request may be aimed at them: their ids
instead of the generated ones, round 1 instead of the generated number, a real edit key (or a wrong
one) in Authorization, and for rounds and new games a body that the rules accept. Which of these a
request gets is drawn by hypothesis, so it shrinks and replays like the rest of the case. A key
rotation that succeeds hands its new key on to the next requests. Each run must have reached the
success path at least once, or it proves little.

Left out: GET /api/v1/games/{game_id}/events, the Server-Sent Events stream. It never ends by itself
(it waits for the next change), so the fuzzer's requests to the real game would hang until their
timeout; the stream is tested in tests/http/test_live.py and tests/http/test_security.py instead.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig
from schemathesis.core import NOT_SET
from schemathesis.specs.openapi.checks import ignored_auth, positive_data_acceptance

from app.config import Settings
from app.main import create_app
from app.migrations import upgrade
from tests.helpers import WORKED_EXAMPLE_PLAYERS

EVENTS_PATH = "/api/v1/games/{game_id}/events"
EXAMPLES_PER_OPERATION = int(os.environ.get("BLITZBOARD_FUZZ_EXAMPLES") or 100)
ROUNDS = [[(3, 0), (2, 4), (1, 6), (0, 8)], [(0, 5), (6, 0), (2, 2), (1, 1)], [(5, 1), (4, 2), (0, 0), (7, 3)]]

# positive_data_acceptance expects every schema-valid request to succeed. Ours are refused, rightly,
# when the rules say no (422: a round with 41 Dutch cards, a game of one player, two players with one
# name) or when an If-Match is stale (412): things a JSON schema cannot express. Every other default
# check runs; not_a_server_error and response_schema_conformance are among them.
# ignored_auth (now that the edit key is declared as bearer auth) replays each request without the key
# through the transport the schema was loaded from, the app below whose database is never created,
# so it would see 503s; tests/api/test_openapi.py and tests/api/test_api.py check 401 and 403 themselves.
EXCLUDED_CHECKS = [positive_data_acceptance, ignored_auth]
# Invalid input may also be refused with 413: a generated body over the 64 KiB limit is turned away
# before anyone reads it (schemathesis' default list for negative_data_rejection lacks 413), and a game the
# fuzzer deleted answers 410.
REFUSALS = ["400", "401", "403", "404", "405", "406", "409", "410", "413", "415", "422", "428", "429", "5xx"]
# The request bodies' examples are checked in tests/api/test_openapi.py; schemathesis cannot mix them with
# @schema.given.
CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {"negative_data_rejection": {"expected-statuses": REFUSALS}},
        "phases": {"examples": {"enabled": False}},
    }
)


def _without_lifespan(app: FastAPI):
    """The app as schemathesis sees it: the fixture runs (and ends) the app's lifespan itself.

    Refusing the lifespan scope tells schemathesis that the app has none, so it does not start a
    second one that would stay open until the interpreter exits.
    """

    async def asgi(scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            raise RuntimeError("the test fixture runs this app's lifespan")
        await app(scope, receive, send)

    return asgi


def _load_schema():
    """The document the app serves at /openapi.json, fetched from an app whose database is never opened.

    Each operation's test then gets an app and a database of its own from the fixtures and sends its
    requests there, in-process (case.call(app=...)). (schemathesis.pytest.from_fixture would do the
    same, but it fails under pytest 9.2: it sets Function._nodeid, which pytest no longer has.)
    """
    unused = Path(tempfile.gettempdir()) / "blitzboard-openapi-only.db"  # never connected to, so never created
    app = create_app(Settings(database_url=f"sqlite:///{unused}", _env_file=None))
    try:
        return schemathesis.openapi.from_asgi("/openapi.json", _without_lifespan(app), config=CONFIG)
    finally:
        app.state.engine.dispose()


# The event stream is left out: see the module's docstring.
schema = _load_schema().exclude(path=EVENTS_PATH)


@pytest.fixture
def fuzz_app(database_url: str) -> Iterator[FastAPI]:
    # Limits high enough for the fuzzer's hundreds of requests; 429 is tested in tests/http/test_security.py.
    app = create_app(
        Settings(database_url=database_url, games_per_minute=1_000_000, wrong_keys_per_minute=1_000_000, _env_file=None)
    )
    upgrade(app.state.engine)
    with TestClient(app):  # the lifespan, for the whole run
        yield app
    app.state.engine.dispose()


@pytest.fixture
def real_game(fuzz_app: FastAPI) -> dict[str, Any]:
    """A game with three rounds and a far target, so that most valid writes to it succeed."""
    client = TestClient(fuzz_app)
    created = client.post("/api/v1/games", json={"players": WORKED_EXAMPLE_PLAYERS, "rules": {"target": 5000}})
    assert created.status_code == 201, created.text
    game = created.json()
    player_ids = [p["id"] for p in game["players"]]
    for counts in ROUNDS:
        added = client.post(
            f"/api/v1/games/{game['id']}/rounds",
            json=_round(player_ids, counts),
            headers={"Authorization": f"Bearer {game['edit_key']}"},
        )
        assert added.status_code == 201, added.text
    renamed = client.patch(
        f"/api/v1/games/{game['id']}", json={"name": "Fuzzed"}, headers={"Authorization": f"Bearer {game['edit_key']}"}
    )
    assert renamed.status_code == 200, renamed.text  # a change to revert
    real = {"id": game["id"], "key": game["edit_key"], "player_ids": player_ids} | _real_table(client)
    seats = client.get(f"/api/v1/games/{game['id']}/seats", headers={"Authorization": f"Bearer {game['edit_key']}"})
    real["seat_link"] = seats.json()["link_key"]  # what a phone takes a seat with
    # Backups that import (a generated document almost never passes the rules' checks).
    real["backups"] = {
        "/api/v1/games/import": client.get(f"/api/v1/games/{game['id']}/export").json(),
        "/api/v1/tables/import": client.get(f"/api/v1/tables/{real['table_id']}/export").json(),
    }
    return real


def _real_table(client: TestClient) -> dict[str, Any]:
    """A table with a finished game (so it has standings) and a person who played none (one to rename
    or remove)."""
    people = [{"name": "Ana"}, {"name": "Ben"}, {"name": "Zed"}]
    table = client.post("/api/v1/tables", json={"name": "Fuzz club", "people": people}).json()
    table_key = {"Authorization": f"Bearer {table['edit_key']}"}
    at_table = {"players": people[:2], "table_id": table["id"], "rules": {"target": 1}}
    game = client.post("/api/v1/games", json=at_table, headers=table_key).json()
    ids = [p["id"] for p in game["players"]]
    won = client.post(
        f"/api/v1/games/{game['id']}/rounds",
        json=_round(ids, [(5, 0), (1, 3)]),
        headers={"Authorization": f"Bearer {game['edit_key']}"},
    )
    assert won.json()["status"] == "finished", won.text
    zed = next(p["id"] for p in table["people"] if p["name"] == "Zed")
    return {"table_id": table["id"], "table_key": table["edit_key"], "person_id": zed}


def _revertable(app: FastAPI, game_id: str) -> int:
    """The newest change of the game that can be reverted now (there is always one: a revert can be reverted)."""
    changes = TestClient(app).get(f"/api/v1/games/{game_id}/changes").json()
    return next(change["id"] for change in changes if change["revertable"])


TAKES_NOTHING = ("GET /api/v1/presets",)
# The operations whose body names something: a game, a table, a person at it (new or renamed), a player
# (renamed, or a latecomer).
RENAMES = (
    "/api/v1/games/{game_id}",
    "/api/v1/tables/{table_id}",
    "/api/v1/tables/{table_id}/people",
    "/api/v1/tables/{table_id}/people/{person_id}",
    "/api/v1/games/{game_id}/players/{player_id}",
    "/api/v1/games/{game_id}/players",  # a latecomer
)


@pytest.fixture
def statuses(request: pytest.FixtureRequest) -> Iterator[list[int]]:
    """The status of every answer in one operation's run; at the end, the success path must be among them."""
    seen: list[int] = []
    failed_before = request.session.testsfailed
    yield seen
    if request.session.testsfailed > failed_before:
        return  # the run stopped at a failure, which says all there is to say
    # An operation that takes nothing (no parameters, no body) has one request to send, sent a few times.
    wanted = 1 if request.node.name.endswith(tuple(f"[{op}]" for op in TAKES_NOTHING)) else EXAMPLES_PER_OPERATION
    assert len(seen) >= wanted, f"only {len(seen)} requests were sent"
    assert any(200 <= status < 300 for status in seen), f"the run never reached the success path: {sorted(set(seen))}"


def _round(player_ids: list[int], counts: list[tuple[int, int]]) -> dict[str, Any]:
    return {
        "scores": [
            {"player_id": pid, "dutch": dutch, "blitz": blitz}
            for pid, (dutch, blitz) in zip(player_ids, counts, strict=True)
        ]
    }


def _aim(case, data: st.DataObject, game: dict[str, Any]) -> None:
    """Point some of the generated requests at the real game, with its key and bodies the rules accept.

    A third go out as generated; a third go to the real game with some of the rest drawn; a third go
    to the real game with everything it takes to succeed (real key, round 1, a body the rules accept,
    no If-Match), keeping whatever else was generated (Idempotency-Key, a new game's name and rules).
    """
    # "everything right" first: Hypothesis starts from the simplest draw, so each operation's run begins on
    # its success path rather than leaving it to chance (two runs in a hundred or so missed it).
    aim = data.draw(st.sampled_from(["everything right", "the real game", "as generated"]), label="aim")
    if aim == "as generated":
        return
    full = aim == "everything right"
    # Containers are replaced, never changed in place: schemathesis notices an assignment and re-judges
    # whether the case is still invalid (for its negative_data_rejection check).
    path_parameters = dict(case.path_parameters)
    if "game_id" in path_parameters:
        path_parameters["game_id"] = game["id"]
    if "table_id" in path_parameters:
        path_parameters["table_id"] = game["table_id"]
    if "person_id" in path_parameters and (full or data.draw(st.booleans(), label="a person who played no game")):
        path_parameters["person_id"] = game["person_id"]
    if "player_id" in path_parameters and (full or data.draw(st.booleans(), label="a player of the game")):
        path_parameters["player_id"] = data.draw(st.sampled_from(game["player_ids"]), label="player")
    if "number" in path_parameters and (full or data.draw(st.booleans(), label="round 1")):
        path_parameters["number"] = 1
    if "change_id" in path_parameters and (full or data.draw(st.booleans(), label="a revertable change")):
        path_parameters["change_id"] = game["change"]
    case.path_parameters = path_parameters
    headers = case.headers.copy()
    key = "real" if full else data.draw(st.sampled_from(["generated", "real", "wrong"]), label="edit key")
    if key == "real":
        headers["Authorization"] = f"Bearer {game['table_key' if '{table_id}' in case.path else 'key']}"
    elif key == "wrong":
        headers["Authorization"] = "Bearer " + "x" * 32
    if full:
        headers.pop("If-Match", None)
    case.headers = headers
    if case.body is NOT_SET or not (full or data.draw(st.booleans(), label="a body the rules accept")):
        return
    # Whatever was generated (a negative case's list or string too) gives way to a body the rules accept.
    generated = case.body if isinstance(case.body, dict) else {}
    if "/rounds" in case.path:
        case.body = _round(game["player_ids"], data.draw(st.sampled_from(ROUNDS), label="round"))
    elif case.path == "/api/v1/games":
        body = {k: v for k, v in generated.items() if k != "table_id"}
        case.body = body | {"players": [{"name": "Ana"}, {"name": "Ben", "starting_score": -3}]}
    elif case.path == "/api/v1/tables":
        case.body = {"name": "Fuzz"}
    elif case.path in RENAMES:
        case.body = {"name": "P" + str(data.draw(st.integers(0, 10**9), label="name"))}
    elif case.path in game["backups"]:
        case.body = game["backups"][case.path]
    elif case.path == "/api/v1/games/{game_id}/seats/{player_id}":
        case.body = {"link": game["seat_link"]}
    elif case.path == "/api/v1/games/{game_id}/draft/{player_id}":
        case.body = {"round": len(ROUNDS) + 1, "dutch": 3, "blitz": data.draw(st.sampled_from([0, 2]), label="blitz")}


@schema.parametrize()
@schema.given(data=st.data())
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_every_operation_answers_within_its_documented_schema(
    case, data: st.DataObject, fuzz_app: FastAPI, real_game: dict[str, Any], statuses: list[int]
):
    if "change_id" in case.path_parameters:
        real_game["change"] = _revertable(fuzz_app, real_game["id"])
    _aim(case, data, real_game)
    response = case.call(app=_without_lifespan(fuzz_app))
    statuses.append(response.status_code)
    case.validate_response(response, excluded_checks=EXCLUDED_CHECKS)
    if case.method == "POST" and case.path.endswith("/key") and response.status_code == 200:
        # The old key stopped working.
        real_game["table_key" if "{table_id}" in case.path else "key"] = response.json()["edit_key"]
