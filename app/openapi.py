"""The OpenAPI document as client generators want it, finished in one place after FastAPI builds it:
every /api answer that can be a problem is `application/problem+json` only, every operation declares
the 503 that database trouble gives, and the headers clients act on are declared (ETag, Location,
Retry-After, Idempotent-Replayed, and on the writes that take `Prefer` Preference-Applied and Vary),
with the 304 that If-None-Match gets."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from app.http.problems import PROBLEM_JSON, TITLES
from app.paths import is_api

_ETAG = {
    "description": 'The game\'s version, `"<version>"`: send it as `If-Match` with a change, or as '
    "`If-None-Match` to read again only when it changed.",
    "schema": {"type": "string", "examples": ['"3"']},
}
_LOCATION = {
    "description": "Where the new game (or table) is read (GET).",
    "schema": {"type": "string", "format": "uri"},
}
# The other answers that make something: where it is changed from now on (it has no GET of its own).
_LOCATIONS = {
    "/api/v1/games/{game_id}/rounds": "The new round's URL, where it is corrected (PUT) or deleted (DELETE). "
    "Rounds are numbered by their order, so the URL names this round only while the game is at the answer's "
    "version: send `If-Match` with the answer's ETag when you use it.",
    "/api/v1/tables/{table_id}/people": "The table (the person added is in the body).",
}
_PREFERENCE_APPLIED = {
    "description": "`return=minimal` when the request's `Prefer: return=minimal` was honoured: the body is the "
    "minimal answer (the `…Minimal` schema).",
    "schema": {"type": "string", "enum": ["return=minimal"]},
}
_VARY = {
    "description": "Names `Prefer` (the body depends on it) and `Accept-Language`.",
    "schema": {"type": "string"},
}
_RETRY_AFTER = {"description": "Seconds to wait before trying again.", "schema": {"type": "integer"}}
_REPLAYED = {
    "description": "`true` when this answers again an earlier request with the same Idempotency-Key "
    "(nothing changed again).",
    "schema": {"type": "string", "enum": ["true"]},
}
_PRESETS_ETAG = {
    "description": "A digest of the presets: send it as `If-None-Match` to get 304 while they are unchanged.",
    "schema": {"type": "string"},
}
_DIGEST_ETAG = {
    "description": "A digest of the answer: send it as `If-None-Match` to get 304 while it is unchanged.",
    "schema": {"type": "string"},
}
# Answers whose ETag is a digest of the answer (a table's standings change with its games' rounds,
# which don't move the table's version), whatever their media type.
_DIGEST_PATHS = ("/stats", "/stats.csv", "/head-to-head", "/export")
_TABLE_ETAG = {
    "description": 'The table\'s version and a digest of the answer, `"<version>.<digest>"`: send it as '
    "`If-None-Match` to read again only when the answer changed (a game at the table finishing changes it), "
    "or as `If-Match` with a change to the table (its version part is compared).",
    "schema": {"type": "string", "examples": ['"3.5f1c0a9e4d2b7c68"']},
}
_PROBLEM_SCHEMA = {"$ref": "#/components/schemas/ProblemDetails"}
UNAVAILABLE = {
    "description": TITLES[503],
    "headers": {"Retry-After": _RETRY_AFTER},
    "content": {PROBLEM_JSON: {"schema": _PROBLEM_SCHEMA}},
}


def finish(schema: dict[str, Any]) -> dict[str, Any]:
    for path, operations in schema.get("paths", {}).items():
        if not is_api(path):
            continue
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            responses.setdefault("503", UNAVAILABLE)
            for status, response in responses.items():
                content = response.get("content", {})
                if PROBLEM_JSON in content:  # FastAPI adds application/json for the model as well
                    content.pop("application/json", None)
                    content[PROBLEM_JSON].setdefault("schema", _PROBLEM_SCHEMA)
                headers = response.setdefault("headers", {})
                if status == "401":
                    headers.setdefault(
                        "WWW-Authenticate", {"description": '`Bearer realm="blitzboard"`', "schema": {"type": "string"}}
                    )
                if status in ("429", "503"):
                    headers.setdefault("Retry-After", _RETRY_AFTER)
                if status.startswith("2") and path.startswith("/api/v1/") and path.endswith(_DIGEST_PATHS):
                    headers["ETag"] = _DIGEST_ETAG
                elif status.startswith("2") and "application/json" in content:
                    headers["ETag"] = _PRESETS_ETAG if path == "/api/v1/presets" else _ETAG
                    if path.startswith("/api/v1/tables"):  # every answer of the table itself
                        headers["ETag"] = _TABLE_ETAG
                    if method != "get":
                        headers["Idempotent-Replayed"] = _REPLAYED
                if status == "201" and path.startswith("/api/v1/"):
                    where = _LOCATIONS.get(path)
                    headers["Location"] = {**_LOCATION, "description": where} if where else _LOCATION
                if status.startswith("2") and _takes_prefer(operation):
                    headers["Preference-Applied"] = _PREFERENCE_APPLIED
                    headers["Vary"] = _VARY
                if not headers:
                    del response["headers"]
            if path == "/api/v1/games" and method == "post" and operation.get("security"):
                # The table's key is asked for only with `table_id`: a game of its own needs none.
                operation["security"] = [{}, *operation["security"]]
            etag = responses.get("200", {}).get("headers", {}).get("ETag")
            if method == "get" and etag:
                responses.setdefault(
                    "304", {"description": "Not modified: the If-None-Match ETag is current", "headers": {"ETag": etag}}
                )
    return schema


def _takes_prefer(operation: dict[str, Any]) -> bool:
    return any(p.get("in") == "header" and p.get("name") == "Prefer" for p in operation.get("parameters", []))


def finish_openapi(app: FastAPI) -> None:
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = finish(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
