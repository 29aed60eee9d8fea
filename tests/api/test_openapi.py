"""The OpenAPI document a client generator can use: bearer auth declared, problems as
application/problem+json, real bounds, descriptions and examples, response headers, stable operationIds;
and a client generated from it (openapi-python-client) plays docs/api.md's worked example."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.schemas import RoundIn
from tests.servers import migrated, running_server

OPERATIONS = {
    ("get", "/api/v1/presets"): "list_presets",
    ("post", "/api/v1/games"): "create_game",
    ("get", "/api/v1/games/{game_id}"): "get_game",
    ("patch", "/api/v1/games/{game_id}"): "update_game",
    ("delete", "/api/v1/games/{game_id}"): "delete_game",
    ("post", "/api/v1/games/{game_id}/rounds"): "add_round",
    ("patch", "/api/v1/games/{game_id}/players/{player_id}"): "rename_player",
    ("post", "/api/v1/games/{game_id}/players"): "add_player",
    ("put", "/api/v1/games/{game_id}/rounds/{number}"): "replace_round",
    ("delete", "/api/v1/games/{game_id}/rounds/{number}"): "delete_round",
    ("post", "/api/v1/games/{game_id}/key"): "rotate_key",
    ("get", "/api/v1/games/{game_id}/changes"): "game_changes",
    ("post", "/api/v1/games/{game_id}/changes/{change_id}/revert"): "revert_change",
    ("post", "/api/v1/games/{game_id}/start"): "start_round",
    ("get", "/api/v1/games/{game_id}/events"): "game_events",
    ("get", "/api/v1/games/{game_id}/export.csv"): "export_csv",
    ("post", "/api/v1/tables"): "create_table",
    ("get", "/api/v1/tables/{table_id}"): "get_table",
    ("patch", "/api/v1/tables/{table_id}"): "update_table",
    ("post", "/api/v1/tables/{table_id}/key"): "rotate_table_key",
    ("post", "/api/v1/tables/{table_id}/people"): "add_person",
    ("patch", "/api/v1/tables/{table_id}/people/{person_id}"): "rename_person",
    ("delete", "/api/v1/tables/{table_id}/people/{person_id}"): "remove_person",
    ("get", "/api/v1/tables/{table_id}/stats"): "table_stats",
    ("get", "/api/v1/tables/{table_id}/head-to-head"): "table_head_to_head",
    ("get", "/api/v1/tables/{table_id}/stats.csv"): "table_stats_csv",
    ("get", "/api/v1/tables/{table_id}/export"): "export_table",
    ("post", "/api/v1/tables/import"): "import_table",
    ("get", "/api/v1/games/{game_id}/export"): "export_game",
    ("post", "/api/v1/games/import"): "import_game",
    ("get", "/api/v1/games/{game_id}/seats"): "list_seats",
    ("post", "/api/v1/games/{game_id}/seats/{player_id}"): "claim_seat",
    ("delete", "/api/v1/games/{game_id}/seats/{player_id}"): "free_seat",
    ("put", "/api/v1/games/{game_id}/draft/{player_id}"): "send_row",
    ("get", "/api/v1/games/{game_id}/draft"): "get_draft",
}
# Operations that take a table's key (a game's creation only with `table_id`).
NEEDS_THE_TABLE_KEY = {
    "create_game",
    "update_table",
    "rotate_table_key",
    "add_person",
    "rename_person",
    "remove_person",
}
NEEDS_THE_KEY = {
    "update_game",
    "delete_game",
    "add_round",
    "replace_round",
    "delete_round",
    "rotate_key",
    "revert_change",
    "start_round",
    "rename_player",
    "add_player",
    "list_seats",
    "free_seat",
}


@pytest.fixture
def document(client: TestClient) -> dict[str, Any]:
    return client.get("/openapi.json").json()


def operations(document: dict[str, Any]):
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_operation_ids_are_stable_names(document):
    assert {(m, p): op["operationId"] for m, p, op in operations(document)} == OPERATIONS


def test_the_edit_key_is_declared_as_bearer_auth_on_the_writes(document):
    assert document["components"]["securitySchemes"]["editKey"] == {
        "type": "http",
        "scheme": "bearer",
        "description": document["components"]["securitySchemes"]["editKey"]["description"],
    }
    for _, _, operation in operations(document):
        expected = [{"editKey": []}] if operation["operationId"] in NEEDS_THE_KEY else None
        if operation["operationId"] == "send_row":  # the player's seat key, or the game's edit key
            expected = [{"seatKey": []}, {"editKey": []}]
        if operation["operationId"] in NEEDS_THE_TABLE_KEY:
            # A game's creation needs the table's key only with `table_id`: its security is optional.
            expected = [{}, {"tableKey": []}] if operation["operationId"] == "create_game" else [{"tableKey": []}]
        assert operation.get("security") == expected, operation["operationId"]
        if expected and operation["operationId"] != "create_game":
            assert "WWW-Authenticate" in operation["responses"]["401"]["headers"]


def test_behaviour_is_unchanged_401_without_a_key_and_403_with_a_wrong_one(client: TestClient, make_game):
    game = make_game()
    url = f"/api/v1/games/{game.id}"
    missing = client.patch(url, json={"name": "x"})
    assert missing.status_code == 401 and missing.headers["WWW-Authenticate"] == 'Bearer realm="blitzboard"'
    assert client.patch(url, json={"name": "x"}, headers={"Authorization": "Bearer nope"}).status_code == 403
    assert client.patch(url, json={"name": "x"}, headers={"Authorization": "Basic abc"}).status_code == 401
    assert client.patch(url, json={"name": "x"}, headers=game.auth).status_code == 200


def test_every_error_answer_is_problem_json_only_and_headers_are_declared(document):
    for method, path, operation in operations(document):
        for status, response in operation["responses"].items():
            content = response.get("content", {})
            if status[0] in "45":
                assert list(content) == ["application/problem+json"], (path, status)
                assert resolve(document, content["application/problem+json"]["schema"])["title"] == "ProblemDetails"
            if status in ("429", "503"):
                assert "Retry-After" in response["headers"], (path, status)
            if status[0] == "2" and "application/json" in content:
                assert "ETag" in response["headers"], (path, status)
        if method == "get" and "ETag" in operation["responses"]["200"].get("headers", {}):
            assert "304" in operation["responses"]
    assert "Location" in document["paths"]["/api/v1/games"]["post"]["responses"]["201"]["headers"]


def test_request_bodies_have_an_example_and_every_field_a_description_and_real_bounds(document):
    bodies = 0
    for _, path, operation in operations(document):
        if "requestBody" not in operation:
            continue
        bodies += 1
        schema = resolve(document, operation["requestBody"]["content"]["application/json"]["schema"])
        assert schema.get("examples"), path
    # a game's create, update, add and correct; a table's create, update, add and rename; the two imports
    assert bodies == 14
    for name in (
        "GameCreate",
        "SeatClaim",
        "DraftRowIn",
        "PlayerIn",
        "GameUpdate",
        "PlayerCreate",
        "RulesCreate",
        "RulesUpdate",
        "RoundIn",
        "ScoreIn",
        "TableCreate",
        "TableUpdate",
        "PersonIn",
        "TableBackup",
        "GameBackup",
        "TableGameBackup",
        "PersonBackup",
        "PlayerBackup",
        "TablePlayerBackup",
        "RoundBackup",
        "ScoreBackup",
        "RulesBackup",
        "GameKey",
    ):
        for field, spec in document["components"]["schemas"][name]["properties"].items():
            assert spec.get("description"), (name, field)
    score = document["components"]["schemas"]["ScoreIn"]["properties"]
    # The widest any game's house rules allow (Nerts, say, takes 52 and 13): the document never refuses
    # a round a game takes; each game's own limits are its preset's (GET /api/v1/presets).
    assert (score["dutch"]["minimum"], score["dutch"]["maximum"]) == (0, 208)
    assert (score["blitz"]["minimum"], score["blitz"]["maximum"]) == (0, 52)
    players = document["components"]["schemas"]["GameCreate"]["properties"]["players"]
    assert (players["minItems"], players["maxItems"]) == (2, 8)


def test_a_card_count_outside_the_declared_range_is_refused_with_the_rules_message(client: TestClient, make_game):
    game = make_game()
    scores = [{"player_id": pid, "dutch": 0, "blitz": 0} for pid in game.player_ids]
    scores[1]["blitz"] = 11
    refused = client.post(f"/api/v1/games/{game.id}/rounds", json={"scores": scores}, headers=game.auth)
    assert refused.status_code == 422
    assert refused.headers["content-type"] == "application/problem+json"


# --- a generated client ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, document_text: str):
    where = tmp_path_factory.mktemp("client")
    (where / "openapi.json").write_text(document_text)
    tool = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent))
    assert tool, "openapi-python-client is a test dependency"
    env = os.environ | {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    made = subprocess.run(
        [tool, "generate", "--path", "openapi.json", "--meta", "none", "--output-path", "blitzboard_client"],
        cwd=where, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    assert "Warning" not in made.stdout + made.stderr, made.stdout + made.stderr  # nothing it had to skip
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module("blitzboard_client")
    finally:
        sys.path.remove(str(where))
        for name in [m for m in sys.modules if m.split(".")[0] == "blitzboard_client"]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def document_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    from app.config import Settings
    from app.main import create_app

    database = tmp_path_factory.mktemp("doc") / "doc.db"
    app = create_app(Settings(database_url=f"sqlite:///{database}", _env_file=None, tune_gc=False))
    return json.dumps(app.openapi())


@pytest.mark.release
def test_a_generated_client_plays_the_api_docs_worked_example(generated, tmp_path: Path):
    from blitzboard_client import AuthenticatedClient, Client
    from blitzboard_client.api.games import add_round, create_game, delete_round, get_game, replace_round
    from blitzboard_client.models import GameCreate, PlayerCreate, ProblemDetails, RoundIn, RulesCreate, ScoreIn
    from blitzboard_client.models.rules_create_tie_break import RulesCreateTieBreak

    database = migrated(f"sqlite:///{tmp_path / 'client.db'}")
    with ExitStack() as stack:
        server = stack.enter_context(running_server(database, tmp_path / "server.log"))
        anyone = stack.enter_context(Client(base_url=server.url))
        body = GameCreate(
            name="Friday",
            players=[PlayerCreate(name=n, starting_score=s) for n, s in (("Ana", 58), ("Ben", 70), ("Cy", 30), ("Dee", 20))],
            rules=RulesCreate(target=75, dutch_points=1, blitz_points=-2, tie_break=RulesCreateTieBreak.PLAY_ON),
        )  # fmt: skip
        created = create_game.sync_detailed(client=anyone, body=body, idempotency_key="readme-create")
        assert created.status_code == 201 and created.headers["Location"].endswith(f"/api/v1/games/{created.parsed.id}")
        game = created.parsed
        keeper = stack.enter_context(AuthenticatedClient(base_url=server.url, token=game.edit_key))
        ids = [p.id for p in game.players]

        def round_of(counts: list[tuple[int, int]]) -> RoundIn:
            return RoundIn(
                scores=[ScoreIn(player_id=i, dutch=d, blitz=b) for i, (d, b) in zip(ids, counts, strict=True)]
            )

        worked = [(22, 0), (14, 3), (11, 5), (9, 7)]
        saved = add_round.sync(game.id, client=keeper, body=round_of(worked), if_match='"1"', idempotency_key="r1")
        assert [p.total for p in saved.players] == [80, 78, 31, 15]
        assert (saved.status.value, saved.winners) == ("finished", [ids[0]])

        corrected = replace_round.sync(game.id, 1, client=keeper, body=round_of([(22, 0), (14, 2), (11, 5), (9, 7)]))
        assert [p.total for p in corrected.players] == [80, 80, 31, 15]
        emptied = delete_round.sync(game.id, 1, client=keeper)
        assert emptied.rounds == [] and emptied.status.value == "playing"

        refused = add_round.sync(game.id, client=anyone, body=round_of(worked))  # no key
        assert isinstance(refused, ProblemDetails) and refused.status == 401
        read = get_game.sync_detailed(game.id, client=anyone)
        assert read.status_code == 200 and read.headers["ETag"] == f'"{read.parsed.version}"'


def test_the_request_examples_are_accepted_by_the_api(document, client: TestClient):
    def example(path: str, method: str) -> dict[str, Any]:
        operation = document["paths"][path][method]
        return resolve(document, operation["requestBody"]["content"]["application/json"]["schema"])["examples"][0]

    # Player ids count across games (and across tests on PostgreSQL): the round's example is played with
    # a fresh two-player game's ids in place of its 1 and 2, and is valid as it stands.
    round_example = example("/api/v1/games/{game_id}/rounds", "post")
    RoundIn.model_validate(round_example)
    two = client.post("/api/v1/games", json={"players": [{"name": "Ana"}, {"name": "Ben"}]}).json()
    for score, player in zip(round_example["scores"], two["players"], strict=True):
        score["player_id"] = player["id"]
    added = client.post(
        f"/api/v1/games/{two['id']}/rounds", json=round_example, headers={"Authorization": f"Bearer {two['edit_key']}"}
    )
    assert added.status_code == 201, added.text
    created = client.post("/api/v1/games", json=example("/api/v1/games", "post"))
    assert created.status_code == 201, created.text
    game = created.json()
    auth = {"Authorization": f"Bearer {game['edit_key']}"}
    changed = client.patch(
        f"/api/v1/games/{game['id']}", json=example("/api/v1/games/{game_id}", "patch"), headers=auth
    )
    assert changed.status_code == 200, changed.text
    for path in ("/api/v1/tables/import", "/api/v1/games/import"):  # a backup of each kind
        imported = client.post(path, json=example(path, "post"))
        assert imported.status_code == 201, imported.text
