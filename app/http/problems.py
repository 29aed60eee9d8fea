"""problem+json (RFC 9457): building answers, the titles per status, what the OpenAPI document
declares, and the handlers for errors raised outside the routes (validation, HTTP errors).

`title` and `detail` are in the request's language (app.i18n), `type`, `status` and `errors[].field`
never change with it. Titles are passed around in English, marked for the catalogs (N_), and
translated here where the answer is built; details arrive translated from where they were said.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app import i18n, validation
from app.answers import ProblemDetails
from app.errors import GameError, InvalidDocument, InvalidInput, KeyWrong, PilesDiffer, RoundSavedMeanwhile
from app.http.jsonanswer import JSONAnswer
from app.http.ratelimit import retry_after_header, wrong_key_wait
from app.i18n import N_, _, problem_text
from app.paths import is_api
from app.rules import scoring
from app.strictjson import BodyProblem

PROBLEM_TYPE_BASE = "https://blitzboard.invalid/problems/"
PROBLEM_JSON = "application/problem+json"


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    # The OpenAPI document stays English: TITLES as written, not translated.
    return {
        status: {"model": ProblemDetails, "content": {PROBLEM_JSON: {}}, "description": TITLES[status]}
        for status in statuses
    }


TITLES = {
    400: N_("Bad request"),
    401: N_("No edit key"),
    403: N_("Wrong edit key"),
    404: N_("Unknown game or round"),
    405: N_("Method not allowed"),
    409: N_("The game is over"),
    410: N_("The game was deleted"),
    412: N_("Stale If-Match"),
    413: N_("Body over the size limit"),
    415: N_("Unsupported media type"),
    422: N_("Invalid input"),
    429: N_("Too many requests"),
    503: N_("The database is busy or out of reach: try again after Retry-After seconds"),
}


def problem(
    status: int,
    detail: str,
    *,
    slug: str | None = None,
    title: str | None = None,
    errors: list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
    request_id: str | None = None,
    members: dict[str, Any] | None = None,
) -> JSONResponse:
    """A problem+json answer. `title`: English, marked with N_ (the status's own title by default),
    translated here; `detail` and the errors' messages: already in the request's language."""
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + (slug or str(status)),
        "title": _(title or TITLES.get(status, N_("Error"))),
        "status": status,
        "detail": detail,
    }
    if errors is not None:
        body["errors"] = errors
    if request_id is not None:
        body["request_id"] = request_id
    if members:  # a problem's own extension members (RFC 9457 §3.2)
        body.update(members)
    return JSONAnswer(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


RULE_FIELDS = frozenset(
    ("kind", "preset", *scoring.BOUNDS, "tie_break", "must_go_out", "end", "county", "thirty_and_a_half", "win")
)


def _field_of(problem_: scoring.Problem, items: str) -> str:
    """Where a rules-engine problem points in the request body: "players[1].name", "scores", ..."""
    if problem_.field in ("game_name", "table_name"):
        return "name"
    if problem_.field == "table_id":
        return "table_id"
    if problem_.field == "later_rounds":  # a change that would make a later round impossible
        return "rounds"
    if problem_.field == "late_lives":  # a latecomer's lives in 31 (the body's `lives`, not the rules')
        return "lives"
    if problem_.field in RULE_FIELDS:
        return f"rules.{problem_.field}"
    if problem_.field in ("caller", "knocker", "rules", "piles"):
        return problem_.field
    if problem_.index is not None:
        return f"{items}[{problem_.index}].{problem_.field}"
    if problem_.field in ("players", "name", "left", "starting_score", "called"):
        return problem_.field
    return items


def game_error_response(error: GameError, items: str = "body") -> JSONResponse:
    errors, members = None, None
    if isinstance(error, PilesDiffer):
        errors = [{"field": "piles", "message": error.detail}]
        members = {"piles": error.piles, "rows": error.rows}
    elif isinstance(error, InvalidInput):
        errors = [{"field": _field_of(p, items), "message": problem_text(p)} for p in error.problems]
    elif isinstance(error, InvalidDocument):
        errors = [{"field": field, "message": message} for field, message in error.errors]
    elif error.status == 422:
        errors = [{"field": "Idempotency-Key", "message": error.detail}]
    # A 401 must say how to authenticate (RFC 9110 §11.6.1).
    headers = {"WWW-Authenticate": 'Bearer realm="blitzboard"'} if error.status == 401 else None
    if isinstance(error, RoundSavedMeanwhile):  # the state to send the row again from, and its ETag
        members, headers = error.members(), {"ETag": f'"{error.version}"'}
    return problem(
        error.status, error.detail, slug=error.slug, title=error.title, errors=errors, headers=headers, members=members
    )


# What too_many() says, per limit: one whole sentence each (word order differs between languages).
TOO_MANY_NEW_GAMES = N_("Too many new games from this address: try again in {seconds} s.")
TOO_MANY_WRONG_KEYS = N_("Too many wrong edit keys from this address: try again in {seconds} s.")


def too_many(seconds: float, message: str) -> JSONResponse:
    """429 with Retry-After; `message`: TOO_MANY_NEW_GAMES or TOO_MANY_WRONG_KEYS (English, translated here)."""
    return problem(
        429,
        _(message).format(seconds=math.ceil(seconds)),
        slug="rate-limited",
        title=N_("Too many requests"),
        headers=retry_after_header(seconds),
    )


def _loc_to_field(loc: tuple[Any, ...]) -> str:
    parts = [p for p in loc if p not in ("body", "query", "path", "header")]
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or (loc[0] if loc else "body")


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


class MethodNotAllowed(StarletteHTTPException):
    """405 from a route that knows which methods its path takes (a literal path guarded against the
    templated routes that would match it too: app.routes.backup): its `Allow` is said as it is."""

    def __init__(self, allow: str) -> None:
        super().__init__(status_code=405)
        self.allow = allow


def _allowed_methods(request: Request) -> str | None:
    """Every method some route takes at this path (Starlette names only the first route's).

    Asked of the router itself, method by method, so routes in included routers count too.
    """
    routes = request.app.router.routes
    allowed = [m for m in _METHODS if any(r.matches({**request.scope, "method": m})[0] is Match.FULL for r in routes)]
    if "GET" in allowed and "HEAD" not in allowed:  # middleware.HeadAsGet answers HEAD wherever GET works
        allowed.insert(allowed.index("GET") + 1, "HEAD")
    return ", ".join(allowed) or None


def _unreadable_body(cause: BaseException) -> str:
    if isinstance(cause, UnicodeDecodeError):
        return _("The body is not valid JSON: it is not UTF-8 text.")
    if isinstance(cause, RecursionError):
        return _("The body is not valid JSON: it is nested too deeply.")
    return _("The body is not valid JSON: it could not be read.")


def _not_valid(errors: list[dict[str, str]]) -> JSONResponse:
    return problem(422, _("The request is not valid: see errors."), slug="invalid-input", errors=errors)


# The details Starlette and FastAPI give an HTTPException of their own (an unknown path, a method a
# path does not take, a body that could not be parsed): said in the request's language too.
_FRAMEWORK_DETAILS = {
    HTTPStatus.NOT_FOUND.phrase: N_("Not Found"),
    HTTPStatus.METHOD_NOT_ALLOWED.phrase: N_("Method Not Allowed"),
    HTTPStatus.BAD_REQUEST.phrase: N_("Bad Request"),
    "There was an error parsing the body": N_("There was an error parsing the body"),
}


def _http_detail(exc: StarletteHTTPException) -> str:
    if not isinstance(exc.detail, str):
        return _(TITLES.get(exc.status_code, N_("Error")))
    if exc.detail in _FRAMEWORK_DETAILS:
        return _(_FRAMEWORK_DETAILS[exc.detail])
    return exc.detail  # raised by our own code, which says it in the request's language


def _items_of(request: Request) -> str:
    """Where a rule's problem points in this request's body: the players of a new game, a round's
    scores, or the body."""
    path = request.url.path.rstrip("/")
    if request.method == "POST" and path == "/api/v1/games":
        return "players"
    if request.method == "POST" and path == "/api/v1/tables":
        return "people"
    return "scores" if "/rounds" in path else "body"


def game_problem(request: Request, error: GameError) -> JSONResponse:
    """The API's answer to a refused change; wrong edit keys count toward the client's limit."""
    if isinstance(error, KeyWrong) and (wait := wrong_key_wait(request)):
        return too_many(wait, TOO_MANY_WRONG_KEYS)
    return game_error_response(error, _items_of(request))


def install_problem_handlers(
    app: FastAPI,
    html_error: Callable[[Request, int, str], Response],
    html_refused: Callable[[Request, GameError], Response],
) -> None:
    """problem+json under /api, pages elsewhere: html_error(request, status, detail) for errors raised
    outside the routes, html_refused(request, error) for a change the use cases refused.

    The routes raise GameError and never catch it for its own sake: this is the one place that
    turns it into an answer.
    """

    @app.exception_handler(GameError)
    async def _refused(request: Request, exc: GameError):
        if is_api(request.url.path):
            return game_problem(request, exc)
        return html_refused(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        # pydantic says its messages in English: kept as they are in English, said in our own words
        # (app.validation) in every other language.
        english = i18n.current() == i18n.DEFAULT
        errors = [
            {"field": "body", "message": _("The body is not valid JSON.")}
            if e["type"] == "json_invalid"
            else {"field": _loc_to_field(tuple(e["loc"])), "message": e["msg"] if english else validation.message(e)}
            for e in exc.errors()
        ]
        if not is_api(request.url.path):
            return html_error(request, 422, "; ".join(f"{e['field']}: {e['message']}" for e in errors))
        return _not_valid(errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        detail = _http_detail(exc)
        headers = dict(getattr(exc, "headers", None) or {})
        if isinstance(exc, MethodNotAllowed):
            headers["Allow"] = exc.allow  # a route that says its own (a literal path's guard) is taken at its word
        elif exc.status_code == 405 and (allowed := _allowed_methods(request)):
            headers["Allow"] = allowed
        if not is_api(request.url.path):
            response = html_error(request, exc.status_code, detail)
            response.headers.update(headers)
            return response
        if exc.status_code == 400 and isinstance(exc.__cause__, BodyProblem):
            errors = [{"field": exc.__cause__.field, "message": exc.__cause__.message}]
            return _not_valid(errors)
        if exc.status_code == 400 and exc.__cause__ is not None:
            # FastAPI answers a body its JSON parser gave up on (not UTF-8, nested thousands deep, a
            # number of thousands of digits) with a bare 400; it is malformed JSON like any other: 422.
            errors = [{"field": "body", "message": _unreadable_body(exc.__cause__)}]
            return _not_valid(errors)
        return problem(exc.status_code, detail, headers=headers or None)
