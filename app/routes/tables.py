"""/api/v1/tables: a table, its roster and its people. Thin, like app.routes.api: parse, call
a use case in app.tables.usecases, answer; refusals are answered by the one handler in app.http.problems."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.answers import TableCreated, TablePublic
from app.http.jsonanswer import JSONAnswer
from app.http.jsonbody import StrictJsonRoute
from app.http.problems import TOO_MANY_NEW_GAMES, problem_responses, too_many
from app.http.ratelimit import client_address
from app.idempotency import Idempotency
from app.minimal import PersonMinimal, TableCreatedMinimal, TableMinimal, answer, newest_person, table_body
from app.minimal import table as whole_table
from app.preconditions import none_match
from app.routes.deps import (
    IdempotencyKey,
    IfMatch,
    IfNoneMatch,
    PersonId,
    PreferMinimal,
    TableBearerDep,
    TableId,
    TablesDep,
    operation_id,
)
from app.schemas import PersonIn, TableCreate, TableUpdate
from app.tables.outcome import TableOutcome
from app.tables.roster import table_etag

router = APIRouter(
    prefix="/api/v1", tags=["tables"], route_class=StrictJsonRoute, generate_unique_id_function=operation_id
)

_WRITE_ERRORS = problem_responses(401, 403, 404, 412, 413, 422, 429)


def _answer(outcome: TableOutcome, request: Request, minimal: bool, person_id: int | None = None) -> JSONAnswer:
    """The table whole, or with `Prefer: return=minimal` cut to its id, name and version (app.minimal),
    with the person added or renamed (`person_id`), and the new key when there is one."""
    headers = {"ETag": table_etag(outcome.table)}
    if outcome.created:  # the table, as v1 always answered (a person added too: the body names them)
        headers["Location"] = str(request.url_for("get_table", table_id=outcome.table_id))
    if outcome.replayed:
        headers["Idempotent-Replayed"] = "true"
    status = 201 if outcome.created else 200
    return answer(table_body(request, outcome), status, headers, minimal, lambda body: whole_table(body, person_id))


@router.post(
    "/tables",
    status_code=201,
    response_model=TableCreated | TableCreatedMinimal,
    responses=problem_responses(413, 422, 429),
    summary="Create a table",
    description="A table is the same people across many games: a roster, its standings and head-to-head. "
    "Answers the table with its secret `edit_key` (shown only here) and its links. Start a game at it with "
    "`table_id` on `POST /games` and the table's key.",
)
def create_table(
    data: TableCreate,
    request: Request,
    tables: TablesDep,
    minimal: PreferMinimal,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    # Counted with the new games: a table is as cheap to make, and as worth limiting.
    limit, client = request.app.state.limits.games, client_address(request)
    if wait := limit.reserve(client):
        return too_many(wait, TOO_MANY_NEW_GAMES)
    idempotency = Idempotency.of(idempotency_key, "POST /tables", data.model_dump(mode="json"))
    try:
        outcome = tables.create(data, idempotency, client=client)
    except BaseException:
        limit.release(client)
        raise
    if outcome.replayed:
        limit.release(client)
    return _answer(outcome, request, minimal)


@router.get(
    "/tables/{table_id}",
    response_model=TablePublic,
    responses=problem_responses(404, 422),
    summary="Read a table",
    description='No key needed. The `ETag` header is `"<version>.<digest>"`: send it as `If-None-Match` to get '
    "304 while nothing in the answer changed (a game at the table finishing changes it without moving the "
    "table's version), or as `If-Match` on a change to the table (its version part is compared).",
)
def get_table(table_id: TableId, tables: TablesDep, if_none_match: IfNoneMatch = None) -> Response:
    body = tables.get(table_id)
    etag = table_etag(body)
    if if_none_match and none_match(if_none_match, etag):
        return Response(status_code=304, headers={"ETag": etag})
    return JSONAnswer(body, headers={"ETag": etag})


@router.patch(
    "/tables/{table_id}",
    response_model=TablePublic | TableMinimal,
    responses=_WRITE_ERRORS,
    summary="Rename a table",
)
def update_table(
    table_id: TableId,
    data: TableUpdate,
    request: Request,
    tables: TablesDep,
    credential: TableBearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    idempotency = Idempotency.of(idempotency_key, "PATCH /table", data.model_dump(mode="json"))
    outcome = tables.update(table_id, credential, data, if_match=if_match, idempotency=idempotency)
    return _answer(outcome, request, minimal)


@router.post(
    "/tables/{table_id}/key",
    response_model=TableCreated | TableCreatedMinimal,
    responses=_WRITE_ERRORS,
    summary="Make a new table key",
    description="The old key, its edit link and browser cookies stop working at once. Answers the table with "
    "the new `edit_key` and `urls`. A retry with the same Idempotency-Key (and the old key) gets the same "
    "answer, within minutes and while nothing else changed the table. The games' own keys are unchanged.",
)
def rotate_table_key(
    table_id: TableId,
    request: Request,
    tables: TablesDep,
    credential: TableBearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    idempotency = Idempotency.of(idempotency_key, "POST /tables/key")
    outcome = tables.rotate_key(table_id, credential, if_match=if_match, idempotency=idempotency)
    return _answer(outcome, request, minimal)


@router.post(
    "/tables/{table_id}/people",
    status_code=201,
    response_model=TablePublic | PersonMinimal,
    responses=_WRITE_ERRORS,
    summary="Add a person to the roster",
    description="Answers the table. Names are unique at the table ignoring case (422 otherwise).",
)
def add_person(
    table_id: TableId,
    data: PersonIn,
    request: Request,
    tables: TablesDep,
    credential: TableBearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    idempotency = Idempotency.of(idempotency_key, "POST /people", data.model_dump(mode="json"))
    outcome = tables.add_person(table_id, credential, data, if_match=if_match, idempotency=idempotency)
    return _answer(outcome, request, minimal, newest_person(outcome.table))


@router.patch(
    "/tables/{table_id}/people/{person_id}",
    response_model=TablePublic | PersonMinimal,
    responses=_WRITE_ERRORS,
    summary="Rename a person",
    description="Renames them everywhere: their player in every game of the table takes the new name (those "
    "games' versions move on and their viewers update). Answers the table.",
)
def rename_person(
    table_id: TableId,
    person_id: PersonId,
    data: PersonIn,
    request: Request,
    tables: TablesDep,
    credential: TableBearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    idempotency = Idempotency.of(idempotency_key, f"PATCH /people/{person_id}", data.model_dump(mode="json"))
    outcome = tables.rename_person(table_id, person_id, credential, data, if_match=if_match, idempotency=idempotency)
    return _answer(outcome, request, minimal, person_id)


@router.delete(
    "/tables/{table_id}/people/{person_id}",
    response_model=TablePublic | TableMinimal,
    responses=problem_responses(401, 403, 404, 409, 412, 422, 429),
    summary="Remove a person from the roster",
    description="Only someone who has played no game at the table (409 `person-has-games` otherwise: their "
    "games name them). Answers the table.",
)
def remove_person(
    table_id: TableId,
    person_id: PersonId,
    request: Request,
    tables: TablesDep,
    credential: TableBearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    idempotency = Idempotency.of(idempotency_key, f"DELETE /people/{person_id}")
    outcome = tables.remove_person(table_id, person_id, credential, if_match=if_match, idempotency=idempotency)
    return _answer(outcome, request, minimal)
