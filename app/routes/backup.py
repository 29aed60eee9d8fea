"""/api/v1 backups: a table's or a game's whole data as one JSON document, and a new table or
game made from one. Thin: read, call a use case in app.backup.usecases, answer; refusals are answered by the one
handler in app.http.problems.

The imports read their body themselves (the use case checks the document whole, naming each problem by
its JSON path), under a body limit of their own (Settings.max_import_bytes, kept by
app.http.middleware.BodyLimit for exactly these paths) instead of every other body's 64 KiB.

An import is let in step by step, each step before the dearer one after it (docs/security.md, "Limits"):
its size (413, by the body limit before any route runs); JSON only (415: a page of another site can post
text/plain or a body with no type without asking); one new game for the creation limit (429); one of the
process's import slots, waited for on the event loop (503 after Settings.import_wait_seconds); the
document parsed and counted (`Backups.read_*`: a 422 for too many games or rounds before any model is
built); its games taken from the address's import budget (429); only then the full check and the write,
in the thread pool. The imports are not in the writes' queue (app.http.writequeue): their slots are
their bound, and the seconds they parse must not hold a turn saves wait for.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from app.answers import GameCreated
from app.backup.answers import GameBackup, TableBackup, TableImported
from app.backup.outline import Draft
from app.errors import GameError, UnsupportedMediaType
from app.http.jsonanswer import JSONAnswer
from app.http.problems import TOO_MANY_NEW_GAMES, MethodNotAllowed, problem, problem_responses, too_many
from app.http.ratelimit import client_address, retry_after_header
from app.i18n import N_, _, fill, ngettext
from app.idempotency import Idempotency
from app.minimal import GameCreatedMinimal, Shape, TableImportedMinimal, answer, game_body, table_body
from app.minimal import game as whole_game
from app.minimal import table as whole_table
from app.preconditions import none_match
from app.routes.deps import BackupsDep, GameId, IdempotencyKey, IfNoneMatch, PreferMinimal, TableId, operation_id
from app.tables.roster import table_etag

router = APIRouter(prefix="/api/v1", generate_unique_id_function=operation_id)

TABLE_IMPORT_PATH = "/api/v1/tables/import"
GAME_IMPORT_PATH = "/api/v1/games/import"
IMPORT_PATHS = (TABLE_IMPORT_PATH, GAME_IMPORT_PATH)

_IMPORT_TEXT = (
    "The document is checked whole before anything is written: its format and version, every field's type, "
    "names, rules, and every round against the rounds before it, as a game checks a new round. Any problem is "
    "a 422 whose `errors[].field` is the JSON path of what is wrong (`games[3].rounds[12].scores[1].blitz`; the "
    "first 100 problems), and nothing is imported. A body over the import limit (8 MiB unless "
    "`BLITZBOARD_MAX_IMPORT_BYTES` says otherwise) is a 413, a body that is not `application/json` a 415. "
    "Everything gets new ids and new keys; timestamps are the document's. Counts as a new game for the rate "
    "limit, refused or not, and each game it holds counts against the address's imported games a minute "
    "(`BLITZBOARD_IMPORT_GAMES_PER_MINUTE`, 600): 429 with `Retry-After` when they don't fit. A few imports run "
    "at once per server process; one more waits a few seconds, then gets 503 with `Retry-After`. An "
    "`Idempotency-Key` retry (same client, same body) gets the first answer again, keys included."
)

# The answer to an import that finds every slot taken: about what a large table's import takes.
IMPORTS_BUSY_RETRY_SECONDS = 5


def _json_media(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


async def backup_body(request: Request) -> bytes:
    """The document as sent; JSON only, said so: a page of another site can post a form, text/plain or
    a body of no type at all without asking first (a CORS simple request), never application/json."""
    content_type = request.headers.get("content-type")
    if not content_type or not _json_media(content_type):
        raise UnsupportedMediaType(_("Send the backup as JSON (Content-Type: application/json)."))
    return await request.body()


BackupBody = Annotated[bytes, Depends(backup_body)]


def _takes(model: type) -> dict[str, Any]:
    """The request body for the OpenAPI document: the export's own model (read by the use case, not FastAPI)."""
    schema = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


def _document(document: dict[str, Any], filename: str, if_none_match: str | None) -> Response:
    # The same data is always the same bytes (app.backup.usecases), so a digest of them is a strong ETag.
    body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    if none_match(if_none_match, etag):
        return Response(status_code=304, headers={"ETag": etag})
    disposition = f'attachment; filename="{filename}"'
    return Response(body, media_type="application/json", headers={"ETag": etag, "Content-Disposition": disposition})


def _created(body: dict[str, Any], location: str, etag: str, replayed: bool, minimal: bool, shape: Shape) -> JSONAnswer:
    """The import's answer: whole, or with `Prefer: return=minimal` cut to `shape`, its keys kept (app.minimal)."""
    headers = {"ETag": etag, "Location": location}
    if replayed:
        headers["Idempotent-Replayed"] = "true"
    return answer(body, 201, headers, minimal, shape)


@router.get(
    "/tables/{table_id}/export",
    tags=["tables"],
    response_model=TableBackup,
    responses=problem_responses(404, 422),
    summary="Export a table (a backup)",
    description="No key needed. The whole table as one JSON document: its roster and every game played at it, "
    "with rules, players, rounds as entered and their times (the correction log and Idempotency-Key records "
    "are not in it). No ids or keys but the table's own `id`: players are their place in a game, people their "
    "place in the roster. `POST /tables/import` makes a new table of it; exported again, that table's document "
    "is the same bytes but for its `id`. The `ETag` is a digest of the document.",
)
def export_table(table_id: TableId, backups: BackupsDep, if_none_match: IfNoneMatch = None) -> Response:
    return _document(backups.export_table(table_id), f"blitzboard-table-{table_id}.json", if_none_match)


# The import paths are literal, and OpenAPI matches a literal path before a templated one: `/games/import`
# is not the game "import" of `/games/{game_id}`. Starlette takes the first route that matches in full, so
# every other method at these paths is answered here, before the templated routes (this router is
# included first, app.main): 405 with `Allow: POST`, as the document says (schemathesis ST205).
_NOT_IMPORTS = ["GET", "PUT", "PATCH", "DELETE"]


@router.api_route("/tables/import", methods=_NOT_IMPORTS, include_in_schema=False)
@router.api_route("/games/import", methods=_NOT_IMPORTS, include_in_schema=False)
def only_post_imports() -> Response:
    raise MethodNotAllowed("POST")


@router.post(
    "/tables/import",
    tags=["tables"],
    status_code=201,
    response_model=TableImported | TableImportedMinimal,
    responses=problem_responses(413, 415, 422, 429, 503),
    openapi_extra=_takes(TableBackup),
    summary="Import a table (from a backup)",
    description="A new table from `GET /tables/{id}/export`'s document. Answers it as `POST /tables` does (its "
    "secret `edit_key`, shown only here, and its links) with `game_keys`: each imported game's new id and its "
    "own edit key, in the document's order. " + _IMPORT_TEXT,
)
async def import_table(
    request: Request,
    body: BackupBody,
    backups: BackupsDep,
    minimal: PreferMinimal,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    def write(draft: Draft) -> Written:
        idempotency = Idempotency.of(idempotency_key, "POST /tables/import", hashlib.sha256(body).hexdigest())
        outcome = backups.import_table(draft, idempotency, client=client_address(request))
        location = str(request.url_for("get_table", table_id=outcome.table_id))
        # A table's ETag, as GET /tables/{id} answers it.
        answered = table_body(request, outcome)
        etag = table_etag(outcome.table)
        return _created(answered, location, etag, outcome.replayed, minimal, whole_table), outcome.replayed

    return await _import(request, lambda: backups.read_table(body), write)


@router.get(
    "/games/{game_id}/export",
    tags=["games"],
    response_model=GameBackup,
    responses=problem_responses(404, 410, 422),
    summary="Export a game (a backup)",
    description="No key needed. The whole game as one JSON document: name, rules, players, rounds as entered "
    "and their times (not the correction log). A game at a table exports as a game of its own. "
    "`POST /games/import` makes a new game of it; exported again, it is the same bytes but for its `id`. "
    "The `ETag` is a digest of the document.",
)
def export_game(game_id: GameId, backups: BackupsDep, if_none_match: IfNoneMatch = None) -> Response:
    return _document(backups.export_game(game_id), f"blitzboard-game-{game_id}.json", if_none_match)


@router.post(
    "/games/import",
    tags=["games"],
    status_code=201,
    response_model=GameCreated | GameCreatedMinimal,
    responses=problem_responses(413, 415, 422, 429, 503),
    openapi_extra=_takes(GameBackup),
    summary="Import a game (from a backup)",
    description="A new game of its own from `GET /games/{id}/export`'s document. Answers as `POST /games` does: "
    "the game, its secret `edit_key` (shown only here) and its links. " + _IMPORT_TEXT,
)
async def import_game(
    request: Request,
    body: BackupBody,
    backups: BackupsDep,
    minimal: PreferMinimal,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    def write(draft: Draft) -> Written:
        idempotency = Idempotency.of(idempotency_key, "POST /games/import", hashlib.sha256(body).hexdigest())
        outcome = backups.import_game(draft, idempotency, client=client_address(request))
        location = str(request.url_for("get_game", game_id=outcome.game_id))
        answered = game_body(request, outcome)
        etag = f'"{outcome.version}"'
        return _created(answered, location, etag, outcome.replayed, minimal, whole_game), outcome.replayed

    return await _import(request, lambda: backups.read_game(body), write)


# --- letting an import in ---------------------------------------------------------------------------------

# What the import answers, and whether it was given again from an Idempotency-Key's record (which made nothing).
Written = tuple[Response, bool]


async def _import(request: Request, read: Callable[[], Draft], write: Callable[[Draft], Written]) -> Response:
    """The import let in step by step (the module's docstring), the dear parts in the thread pool."""
    limits, client = request.app.state.limits, client_address(request)
    if wait := limits.games.reserve(client):
        return too_many(wait, TOO_MANY_NEW_GAMES)
    if not await limits.imports.take():
        limits.games.release(client)  # nothing was read: it costs nothing
        return _imports_busy()
    taken = 0
    try:
        # Refused once read (GameError): it counts, unlike a refused new game, as reading a whole
        # table's document is the work the limit is for; so do the games of one refused by the full check.
        draft = await run_in_threadpool(read)
        if wait := limits.imported_games.take(client, draft.games):
            return _too_many_games(wait, draft.games, limits.imported_games.per_minute)
        taken = draft.games
        answer, replayed = await run_in_threadpool(write, draft)
    except GameError:
        raise
    except BaseException:  # failed: nothing made, nothing taken
        limits.games.release(client)
        limits.imported_games.give_back(client, taken)
        raise
    finally:
        limits.imports.release()
    if replayed:
        limits.games.release(client)
        limits.imported_games.give_back(client, taken)
    return answer


def _too_many_games(seconds: float, games: int, limit: int) -> Response:
    detail = fill(
        ngettext(
            "This backup holds {count} game, and this address may import {limit} games a minute: try again in {seconds} s.",
            "This backup holds {count} games, and this address may import {limit} games a minute: try again in {seconds} s.",
            games,
        ),
        count=games,
        limit=limit,
        seconds=math.ceil(seconds),
    )
    return problem(429, detail, slug="rate-limited", title=N_("Too many requests"), headers=retry_after_header(seconds))


def _imports_busy() -> Response:
    seconds = IMPORTS_BUSY_RETRY_SECONDS
    detail = fill(
        ngettext(
            "The server is busy with other imports: try again in {seconds} second.",
            "The server is busy with other imports: try again in {seconds} seconds.",
            seconds,
        ),
        seconds=seconds,
    )
    return problem(
        503, detail, slug="imports-busy", title=N_("Too many imports at once"), headers=retry_after_header(seconds)
    )
