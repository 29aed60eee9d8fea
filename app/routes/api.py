"""/api/v1: the JSON API. Thin: parse, call a use case in app.games, answer.

Errors are application/problem+json (RFC 9457) with type, title, status, detail, and for 422 an
`errors` list of {field, message}.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Header, Path, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app import scoring
from app.db import SessionDep
from app.games import GameError, Games, InvalidInput, KeyWrong, Outcome
from app.idempotency import Idempotency
from app.jsonbody import BodyProblem, StrictJsonRoute
from app.models import GameCreate, GameCreated, GamePublic, GameUpdate, ProblemDetails, RoundIn
from app.ratelimit import client_address, retry_after_header
from app.security import BearerDep

PROBLEM_TYPE_BASE = "https://blitzboard.invalid/problems/"
PROBLEM_JSON = "application/problem+json"


async def get_games(request: Request, session: SessionDep) -> Games:
    # async: building it does no I/O, and a sync dependency would cost a hop through the thread pool.
    return Games(session, request.app.state.broker, request.app.state.settings, request.app.state.sealer)


GamesDep = Annotated[Games, Depends(get_games)]
GameId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
RoundNumber = Annotated[int, Path(ge=1, le=100_000)]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=255,
        description="Send the same key to retry a write safely: the first answer comes back and nothing "
        "changes twice. Keys are kept for at least 24 hours, per game.",
    ),
]
IfMatch = Annotated[
    str | None,
    Header(alias="If-Match", max_length=100, description='The ETag (`"<version>"`) the change was based on.'),
]


def _problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {
        status: {"model": ProblemDetails, "content": {PROBLEM_JSON: {}}, "description": _TITLES[status]}
        for status in statuses
    }


_TITLES = {
    400: "Bad request",
    401: "No edit key",
    403: "Wrong edit key",
    404: "Unknown game or round",
    405: "Method not allowed",
    409: "The game is over",
    412: "Stale If-Match",
    413: "Body over the size limit",
    415: "Unsupported media type",
    422: "Invalid input",
    429: "Too many requests",
    503: "The database is busy or out of reach: try again after Retry-After seconds",
}

router = APIRouter(prefix="/api/v1", tags=["games"], route_class=StrictJsonRoute)


def declare_unavailable(app: FastAPI) -> None:
    """Every /api operation can meet database trouble (app.errors_http answers it 503): say so in the
    OpenAPI document, whichever module the route lives in."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            for path, operations in schema.get("paths", {}).items():
                if path.startswith("/api/"):
                    for operation in operations.values():
                        operation.setdefault("responses", {}).setdefault("503", _UNAVAILABLE)
        return app.openapi_schema or build()

    app.openapi = openapi  # type: ignore[method-assign]


_UNAVAILABLE = {
    "description": _TITLES[503],
    "headers": {"Retry-After": {"description": "Seconds to wait before trying again", "schema": {"type": "integer"}}},
    "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/ProblemDetails"}}},
}


def problem(
    status: int,
    detail: str,
    *,
    slug: str | None = None,
    title: str | None = None,
    errors: list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + (slug or str(status)),
        "title": title or _TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
    }
    if errors is not None:
        body["errors"] = errors
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _field_of(problem_: scoring.Problem, items: str) -> str:
    """Where a rules-engine problem points in the request body: "players[1].name", "scores", ..."""
    if problem_.field == "game_name":
        return "name"
    if problem_.field in ("target", "dutch_points", "blitz_points", "tie_break"):
        return f"rules.{problem_.field}"
    if problem_.index is not None:
        return f"{items}[{problem_.index}].{problem_.field}"
    if problem_.field in ("players", "name"):
        return problem_.field
    return items


def game_error_response(error: GameError, items: str = "body") -> JSONResponse:
    errors = None
    if isinstance(error, InvalidInput):
        errors = [{"field": _field_of(p, items), "message": p.message} for p in error.problems]
    elif error.status == 422:
        errors = [{"field": "Idempotency-Key", "message": error.detail}]
    # A 401 must say how to authenticate (RFC 9110 §11.6.1).
    headers = {"WWW-Authenticate": 'Bearer realm="blitzboard"'} if error.status == 401 else None
    return problem(error.status, error.detail, slug=error.slug, title=error.title, errors=errors, headers=headers)


def too_many(seconds: float, what: str) -> JSONResponse:
    return problem(
        429,
        f"Too many {what} from this address: try again in {math.ceil(seconds)} s.",
        slug="rate-limited",
        title="Too many requests",
        headers=retry_after_header(seconds),
    )


def refusal(error: GameError, request: Request, items: str = "body") -> JSONResponse:
    """The answer to a refused write; wrong edit keys count toward the client's limit."""
    if isinstance(error, KeyWrong) and (wait := request.app.state.limits.wrong_keys.hit(client_address(request))):
        return too_many(wait, "wrong edit keys")
    return game_error_response(error, items)


def _answer(outcome: Outcome, request: Request) -> JSONResponse:
    headers = {"ETag": f'"{outcome.version}"'}
    if outcome.status == 201 and "edit_key" in outcome.body:
        headers["Location"] = str(request.url_for("get_game", game_id=outcome.body["id"]))
    if outcome.replayed:
        headers["Idempotent-Replayed"] = "true"
    return JSONResponse(outcome.body, status_code=outcome.status, headers=headers)


def absolute_url(request: Request, path: str) -> str:
    """An absolute URL for a path of ours: on BLITZBOARD_PUBLIC_URL when set, else on the request's host."""
    public = request.app.state.settings.public_url.rstrip("/")
    return (public + path) if public else str(request.base_url).rstrip("/") + path


def urls_for(request: Request):
    def make(game_id: str, edit_key: str) -> dict[str, str]:
        app = request.app
        return {
            "view": absolute_url(request, app.url_path_for("view_page", game_id=game_id)),
            "edit": absolute_url(request, app.url_path_for("claim_edit_link", game_id=game_id, edit_key=edit_key)),
        }

    return make


@router.post(
    "/games",
    status_code=201,
    response_model=GameCreated,
    responses=_problem_responses(413, 422, 429),
    summary="Create a game",
    description="Answers the game with its secret `edit_key` (shown only here) and the view and edit links.",
)
def create_game(
    data: GameCreate, request: Request, games: GamesDep, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    limit, client = request.app.state.limits.games, client_address(request)
    # Reserved before creating (counted atomically, so a burst can't slip past), given back when
    # nothing was created.
    if wait := limit.reserve(client):
        return too_many(wait, "new games")
    idempotency = Idempotency.of(idempotency_key, "POST /games", data.model_dump(mode="json"))
    try:
        outcome = games.create(data, urls_for(request), idempotency, client=client)
    except GameError as error:
        limit.release(client)
        return game_error_response(error, items="players")
    except BaseException:
        limit.release(client)
        raise
    if outcome.replayed:  # a retry that changed nothing doesn't count
        limit.release(client)
    return _answer(outcome, request)


@router.get(
    "/games/{game_id}",
    response_model=GamePublic,
    responses=_problem_responses(404, 422),
    summary="Read a game",
    description='No key needed. The `ETag` header is `"<version>"`.',
)
def get_game(game_id: GameId, games: GamesDep) -> JSONResponse:
    try:
        view = games.get(game_id)
    except GameError as error:
        return game_error_response(error)
    return JSONResponse(view.public(), headers={"ETag": f'"{view.game.version}"'})


_WRITE_ERRORS = _problem_responses(401, 403, 404, 412, 413, 422, 429)


@router.patch(
    "/games/{game_id}",
    response_model=GamePublic,
    responses=_WRITE_ERRORS,
    summary="Rename a game or change its house rules",
    description="Totals, ranks and the winner are recomputed from every round under the new rules.",
)
def update_game(
    game_id: GameId,
    data: GameUpdate,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    idempotency = Idempotency.of(idempotency_key, "PATCH", data.model_dump(mode="json", exclude_unset=True))
    try:
        outcome = games.update(game_id, credential, data, if_match=if_match, idempotency=idempotency)
    except GameError as error:
        return refusal(error, request)
    return _answer(outcome, request)


@router.post(
    "/games/{game_id}/rounds",
    status_code=201,
    response_model=GamePublic,
    responses=_problem_responses(401, 403, 404, 409, 412, 413, 422, 429),
    summary="Add a round",
    description="One score per player: Dutch cards played and Blitz cards left. 409 once the game is over.",
)
def add_round(
    game_id: GameId,
    data: RoundIn,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    idempotency = Idempotency.of(idempotency_key, "POST /rounds", data.model_dump(mode="json"))
    try:
        outcome = games.add_round(game_id, credential, data, if_match=if_match, idempotency=idempotency)
    except GameError as error:
        return refusal(error, request, items="scores")
    return _answer(outcome, request)


@router.put(
    "/games/{game_id}/rounds/{number}",
    response_model=GamePublic,
    responses=_WRITE_ERRORS,
    summary="Correct a round",
)
def replace_round(
    game_id: GameId,
    number: RoundNumber,
    data: RoundIn,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    idempotency = Idempotency.of(idempotency_key, f"PUT /rounds/{number}", data.model_dump(mode="json"))
    try:
        outcome = games.replace_round(game_id, number, credential, data, if_match=if_match, idempotency=idempotency)
    except GameError as error:
        return refusal(error, request, items="scores")
    return _answer(outcome, request)


@router.delete(
    "/games/{game_id}/rounds/{number}",
    response_model=GamePublic,
    responses=_WRITE_ERRORS,
    summary="Delete a round",
    description="Later rounds move up a number.",
)
def delete_round(
    game_id: GameId,
    number: RoundNumber,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    idempotency = Idempotency.of(idempotency_key, f"DELETE /rounds/{number}")
    try:
        outcome = games.delete_round(game_id, number, credential, if_match=if_match, idempotency=idempotency)
    except GameError as error:
        return refusal(error, request)
    return _answer(outcome, request)


@router.post(
    "/games/{game_id}/key",
    response_model=GameCreated,
    responses=_WRITE_ERRORS,
    summary="Make a new edit key",
    description="The old key, and every edit link and browser cookie made from it, stop working at once. "
    "Answers the game with the new `edit_key` and `urls`. Send an Idempotency-Key: a retry with the same "
    "key (and the old edit key) gets the same answer, so a lost response does not lock you out; within "
    "10 minutes (a setting), and only while nothing else has changed the game.",
)
def rotate_key(
    game_id: GameId,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    # The replay record is bound to the old key by the use case: only its holder gets the new key again.
    idempotency = Idempotency.of(idempotency_key, "POST /key")
    try:
        outcome = games.rotate_key(game_id, credential, urls_for(request), if_match=if_match, idempotency=idempotency)
    except GameError as error:
        return refusal(error, request)
    return _answer(outcome, request)


# --- problem+json for errors raised outside the routes ------------------------------------------


def _loc_to_field(loc: tuple[Any, ...]) -> str:
    parts = [p for p in loc if p not in ("body", "query", "path", "header")]
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or (loc[0] if loc else "body")


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _allowed_methods(request: Request) -> str | None:
    """Every method some route takes at this path (Starlette names only the first route's).

    Asked of the router itself, method by method, so routes in included routers count too.
    """
    routes = request.app.router.routes
    allowed = [m for m in _METHODS if any(r.matches({**request.scope, "method": m})[0] is Match.FULL for r in routes)]
    return ", ".join(allowed) or None


def _unreadable_body(cause: BaseException) -> str:
    if isinstance(cause, UnicodeDecodeError):
        return "The body is not valid JSON: it is not UTF-8 text."
    if isinstance(cause, RecursionError):
        return "The body is not valid JSON: it is nested too deeply."
    return "The body is not valid JSON: it could not be read."


def install_problem_handlers(app: FastAPI, html_error) -> None:
    """problem+json under /api, the HTML error page (html_error(request, status, detail)) elsewhere."""

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errors = [
            {"field": "body", "message": "The body is not valid JSON."}
            if e["type"] == "json_invalid"
            else {"field": _loc_to_field(tuple(e["loc"])), "message": e["msg"]}
            for e in exc.errors()
        ]
        if not request.url.path.startswith("/api/"):
            return html_error(request, 422, "; ".join(f"{e['field']}: {e['message']}" for e in errors))
        return problem(422, "The request is not valid: see errors.", slug="invalid-input", errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        detail = exc.detail if isinstance(exc.detail, str) else _TITLES.get(exc.status_code, "Error")
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405 and (allowed := _allowed_methods(request)):
            headers["Allow"] = allowed
        if not request.url.path.startswith("/api/"):
            response = html_error(request, exc.status_code, detail)
            response.headers.update(headers)
            return response
        if exc.status_code == 400 and isinstance(exc.__cause__, BodyProblem):
            errors = [{"field": exc.__cause__.field, "message": exc.__cause__.message}]
            return problem(422, "The request is not valid: see errors.", slug="invalid-input", errors=errors)
        if exc.status_code == 400 and exc.__cause__ is not None:
            # FastAPI answers a body its JSON parser gave up on (not UTF-8, nested thousands deep, a
            # number of thousands of digits) with a bare 400; it is malformed JSON like any other: 422.
            errors = [{"field": "body", "message": _unreadable_body(exc.__cause__)}]
            return problem(422, "The request is not valid: see errors.", slug="invalid-input", errors=errors)
        return problem(exc.status_code, detail, headers=headers or None)
