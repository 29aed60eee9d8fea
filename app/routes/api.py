"""/api/v1: the JSON API. Thin: parse, call a use case in app.games.usecases, answer.

Routes raise; a refused change (app.errors.GameError) is answered by the one handler in
app.http.problems as application/problem+json (RFC 9457): type, title, status, detail, and for 422 an
`errors` list of {field, message}.

Past the ~400 lines the style sets (about 445), on purpose: one thin route per operation on a game (its
OpenAPI description beside it, which is most of its lines), which a client's author reads best in one file;
tables, backups, events, exports, and seats with the round's draft (app.routes.seats) have their own modules.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.answers import ChangePublic, GameCreated, GamePublic, PresetPublic, RoundStarted
from app.games.changes import public
from app.games.views import maybe_timestamp
from app.games.writes import Outcome
from app.http.jsonanswer import JSONAnswer
from app.http.jsonbody import StrictJsonRoute
from app.http.problems import TOO_MANY_NEW_GAMES, problem_responses, too_many
from app.http.ratelimit import client_address
from app.idempotency import Idempotency
from app.minimal import (
    GameCreatedMinimal,
    GameMinimal,
    RoundMinimal,
    RoundStartedMinimal,
    Shape,
    answer,
    game_body,
    saved_round,
    started,
)
from app.minimal import game as whole_game
from app.models import utcnow
from app.preconditions import none_match
from app.routes.deps import (
    BearerDep,
    ChangeId,
    GameId,
    GamesDep,
    IdempotencyKey,
    IfMatch,
    IfNoneMatch,
    PlayerId,
    PreferMinimal,
    RoundNumber,
    TableBearerDep,
    operation_id,
)
from app.rules.presets import describe
from app.rules.timing import COUNTDOWN_S
from app.schemas import GameCreate, GameUpdate, PlayerIn, PlayerUpdate, RoundIn

router = APIRouter(
    prefix="/api/v1", tags=["games"], route_class=StrictJsonRoute, generate_unique_id_function=operation_id
)


def _answer(
    outcome: Outcome,
    request: Request,
    minimal: bool,
    shape: Shape = whole_game,
    location: str | None = None,
    body: dict[str, Any] | None = None,
) -> JSONAnswer:
    """The write's answer: the whole game (201 when it made something new), or with `Prefer:
    return=minimal` the body cut to `shape` (app.minimal), a replay's too."""
    headers = {"ETag": f'"{outcome.version}"'}
    if outcome.created and outcome.edit_key is not None:  # a new game: where it is
        location = str(request.url_for("get_game", game_id=outcome.game_id))
    if location:
        headers["Location"] = location
    if outcome.replayed:
        headers["Idempotent-Replayed"] = "true"
    if body is None:
        body = game_body(request, outcome)
    return answer(body, 201 if outcome.created else 200, headers, minimal, shape)


@router.post(
    "/games",
    status_code=201,
    response_model=GameCreated | GameCreatedMinimal,
    responses=problem_responses(401, 403, 413, 422, 429),
    summary="Create a game",
    description="Answers the game with its secret `edit_key` (shown only here) and the view and edit links. "
    "At a table (`table_id`), send the table's key (`Authorization: Bearer <table key>`; 401 / 403 without "
    "it): the players are the roster's people of those names, and new names join the roster.",
)
def create_game(
    data: GameCreate,
    request: Request,
    games: GamesDep,
    table_key: TableBearerDep,
    minimal: PreferMinimal,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    limit, client = request.app.state.limits.games, client_address(request)
    # Reserved before creating (counted atomically, so a burst can't slip past), given back when
    # nothing was created.
    if wait := limit.reserve(client):
        return too_many(wait, TOO_MANY_NEW_GAMES)
    # table_id left out when none: a game of its own fingerprints as it always did.
    body = data.model_dump(mode="json", exclude={"table_id"} if data.table_id is None else None)
    idempotency = Idempotency.of(idempotency_key, "POST /games", body)
    try:
        outcome = games.create(data, idempotency, client=client, table_credential=table_key)
    except BaseException:  # refused (app.http.problems answers it) or failed: no game, no slot
        limit.release(client)
        raise
    if outcome.replayed:  # a retry that changed nothing doesn't count
        limit.release(client)
    return _answer(outcome, request, minimal)


_PRESETS = describe()  # fixed for the life of the process
# Its ETag: a digest of the list, so a client's copy stays good across restarts until the presets change.
_PRESETS_ETAG = '"presets-' + hashlib.sha256(json.dumps(_PRESETS, sort_keys=True).encode()).hexdigest()[:16] + '"'


@router.get(
    "/presets",
    response_model=list[PresetPublic],
    responses=problem_responses(422),
    summary="The games Blitzboard keeps",
    description="Every preset (`rules.preset`) with its rule family (`rules.kind`) and each parameter it "
    "takes in `rules`, filled in with the preset's value and the bounds a game may set it to, so a client "
    "can build its form. Dutch Blitz first.",
)
def list_presets(if_none_match: IfNoneMatch = None) -> Response:
    headers = {"Cache-Control": "public, max-age=3600", "ETag": _PRESETS_ETAG}
    if if_none_match and none_match(if_none_match, _PRESETS_ETAG):
        return Response(status_code=304, headers=headers)
    return JSONAnswer(_PRESETS, headers=headers)


@router.get(
    "/games/{game_id}",
    response_model=GamePublic,
    responses=problem_responses(404, 410, 422),
    summary="Read a game",
    description='No key needed. The `ETag` header is `"<version>"`; send it as `If-None-Match` to get 304 Not '
    "Modified (no body, nothing re-read but the version) while the game has not changed.",
)
def get_game(game_id: GameId, games: GamesDep, if_none_match: IfNoneMatch = None) -> Response:
    if if_none_match and (version := games.version(game_id)) is not None and none_match(if_none_match, f'"{version}"'):
        return Response(status_code=304, headers={"ETag": f'"{version}"'})
    view = games.get(game_id)
    return JSONAnswer(view.public(), headers={"ETag": f'"{view.game.version}"'})


_WRITE_ERRORS = problem_responses(401, 403, 404, 410, 412, 413, 422, 429)


@router.patch(
    "/games/{game_id}",
    response_model=GamePublic | GameMinimal,
    responses=_WRITE_ERRORS,
    summary="Rename a game or change its house rules",
    description="Totals, ranks and the winner are recomputed from every round under the new rules. The "
    "parameters are those of the game's kind; its kind and preset can't change, and a change that makes a "
    "round already played impossible (a pile smaller than the cards left in it, fewer lives in 31) is a 422.",
)
def update_game(
    game_id: GameId,
    data: GameUpdate,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    idempotency = Idempotency.of(idempotency_key, "PATCH", data.model_dump(mode="json", exclude_unset=True))
    outcome = games.update(game_id, credential, data, if_match=if_match, idempotency=idempotency)
    return _answer(outcome, request, minimal)


@router.patch(
    "/games/{game_id}/players/{player_id}",
    response_model=GamePublic | GameMinimal,
    responses=_WRITE_ERRORS,
    summary="Rename a player, or mark them as having left",
    description="`name`: a typo fixed during the game: the player keeps their id, seat, rounds and points. The new "
    "name is checked as a new game's are (422 beside `name`: blank, too long, or another player's). Logged in the "
    "game's changes (`kind` `rename`) and reverted by renaming back. At a table the player becomes the roster's "
    "person of the new name (ignoring case, with the roster's spelling; 422 for a name not on the roster); the "
    "person they were keeps their other games.\n\n"
    "`left: true`: the player has left the game: they keep the rounds they played, are in no new round (a score "
    "for them is refused) and are listed after the players still in (`left`, `left_after_round`); they can't win "
    "and their total ends nothing. 409 on a finished game; 422 beside `left` for a player out of a game of 31 or "
    "when fewer than two players would stay. `left: false`: they are back, only while no round was played since. "
    "Logged (`kind` `leave`) and reverted the same way.",
)
def rename_player(
    game_id: GameId,
    player_id: PlayerId,
    data: PlayerUpdate,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    # Without the fields left out: a rename alone keys its retries as it always did ({"name"}).
    sent = data.model_dump(mode="json", exclude_none=True)
    idempotency = Idempotency.of(idempotency_key, f"PATCH /players/{player_id}", sent)
    outcome = games.update_player(
        game_id, player_id, credential, data.name, data.left, if_match=if_match, idempotency=idempotency
    )
    return _answer(outcome, request, minimal)


@router.post(
    "/games/{game_id}/players",
    status_code=201,
    response_model=GamePublic | GameMinimal,
    responses=_WRITE_ERRORS,
    summary="Add a latecomer",
    description="A player who comes to a running game: the next seat, in every round from the next one (none "
    "before: `joined_after_round`), with the starting score the keeper gives (by default last place's total) or "
    "in 31 the lives. 409 on a finished game; 422 beside `name` for a name refused or another player's, at a table "
    "for a name not on the roster, or in a game of 8 players; beside `starting_score` or `lives` for a value out "
    "of range or not of the game's kind. Logged (`kind` `join`) and reverted, while they have played no round, "
    "by taking them out again.",
)
def add_player(
    game_id: GameId,
    data: PlayerIn,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    sent = data.model_dump(mode="json", exclude_none=True)
    idempotency = Idempotency.of(idempotency_key, "POST /players", sent)
    outcome = games.add_player(
        game_id, credential, data.name, data.starting_score, data.lives, if_match=if_match, idempotency=idempotency
    )
    return _answer(outcome, request, minimal)


@router.post(
    "/games/{game_id}/rounds",
    status_code=201,
    response_model=GamePublic | RoundMinimal,
    responses=problem_responses(401, 403, 404, 409, 410, 412, 413, 422, 429),
    summary="Add a round",
    description="One score per player: cards played and cards left in the pile (Dutch Blitz, Nerts, Ligretto), "
    "or each hand with the round's `caller` (Dutch) or `knocker` (31; only the players still in). 409 once the "
    "game is over.",
)
def add_round(
    game_id: GameId,
    data: RoundIn,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    # exclude_none: a round without a time fingerprints as it always did (a retry across an upgrade still matches).
    idempotency = Idempotency.of(idempotency_key, "POST /rounds", data.model_dump(mode="json", exclude_none=True))
    outcome = games.add_round(game_id, credential, data, if_match=if_match, idempotency=idempotency)
    # Where the new round is corrected or deleted: its number now (a replay's too, whatever was added or
    # deleted since); none once it was deleted, and then the whole game (app.minimal.NotThere).
    number = outcome.made.round_number(outcome.view.round_ids)
    where = str(request.url_for("replace_round", game_id=outcome.game_id, number=number)) if number else None
    return _answer(outcome, request, minimal, saved_round(number or 0), where)


@router.post(
    "/games/{game_id}/start",
    response_model=RoundStarted | RoundStartedMinimal,
    responses=problem_responses(401, 403, 404, 409, 410, 412, 422, 429),
    summary="Start a round (the start signal)",
    description=f'"Blitz!" in {COUNTDOWN_S} seconds on every open page of the game: every event stream gets a '
    "`start` event. Answers the game with `blitz_at` (its `round_started_at`; a retry's is still the start this "
    "request set, even after the round was saved or started again) and the server's clock "
    "`server_now`, from which a client works out its own clock's offset. The next round saved takes this "
    "start as its `started_at`, and the time to its save as its `duration_s`. Starting again before then "
    "restarts the countdown. 409 once the game is over.",
)
def start_round(
    game_id: GameId,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    idempotency = Idempotency.of(idempotency_key, "POST /start")
    outcome = games.start_round(game_id, credential, if_match=if_match, idempotency=idempotency)
    # blitz_at: the start this request set, even when a replay finds that round saved since; server_now as
    # it answers (a replay's too): the clock a client compares its own with.
    body = game_body(request, outcome)
    blitz_at = maybe_timestamp(outcome.made.started_at) or body["round_started_at"]
    body |= {"blitz_at": blitz_at, "server_now": _now()}
    return _answer(outcome, request, minimal, started, body=body)


def _now() -> str:
    return utcnow().isoformat(timespec="milliseconds").replace("+00:00", "Z")


@router.put(
    "/games/{game_id}/rounds/{number}",
    response_model=GamePublic | RoundMinimal,
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
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    idempotency = Idempotency.of(
        idempotency_key, f"PUT /rounds/{number}", data.model_dump(mode="json", exclude_none=True)
    )
    outcome = games.replace_round(game_id, number, credential, data, if_match=if_match, idempotency=idempotency)
    return _answer(outcome, request, minimal, saved_round(number))


@router.delete(
    "/games/{game_id}/rounds/{number}",
    response_model=GamePublic | GameMinimal,
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
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    idempotency = Idempotency.of(idempotency_key, f"DELETE /rounds/{number}")
    outcome = games.delete_round(game_id, number, credential, if_match=if_match, idempotency=idempotency)
    return _answer(outcome, request, minimal)


@router.get(
    "/games/{game_id}/changes",
    response_model=list[ChangePublic],
    responses=problem_responses(404, 410, 422),
    summary="Read the game's changes",
    description="The correction log, newest first: every correction or deletion of a past round, every "
    "restoration of a deleted round, and every change of the name or house rules, with the values before and "
    "after. New rounds are play, not changes. No key needed. History only: the game's totals never depend "
    'on it. The `ETag` is the game\'s (`"<version>"`): send it as `If-None-Match` to get 304 while nothing changed.',
)
def game_changes(game_id: GameId, games: GamesDep, if_none_match: IfNoneMatch = None) -> Response:
    if if_none_match and (version := games.version(game_id)) is not None and none_match(if_none_match, f'"{version}"'):
        return Response(status_code=304, headers={"ETag": f'"{version}"'})
    view = games.get(game_id)  # first: its version is never newer than the changes read after it
    changes = [public(change, view) for change in games.changes(game_id)]
    return JSONAnswer(changes, headers={"ETag": f'"{view.game.version}"'})


@router.post(
    "/games/{game_id}/changes/{change_id}/revert",
    response_model=GamePublic | GameMinimal,
    responses=problem_responses(401, 403, 404, 409, 410, 412, 413, 422, 429),
    summary="Revert a change",
    description="Puts back what the change replaced: a round's old cards, a deleted round in its place "
    "(later rounds move down a number), or the old settings. The revert is itself a change, in the log "
    "with `reverts` naming this one. 409 `cant-revert` when what the change touched has changed since "
    "(revert the later change first), or a deleted last round's place is gone (the table played on).",
)
def revert_change(
    game_id: GameId,
    change_id: ChangeId,
    request: Request,
    games: GamesDep,
    credential: BearerDep,
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    idempotency = Idempotency.of(idempotency_key, f"POST /changes/{change_id}/revert")
    outcome = games.revert_change(game_id, change_id, credential, if_match=if_match, idempotency=idempotency)
    return _answer(outcome, request, minimal)


@router.post(
    "/games/{game_id}/key",
    response_model=GameCreated | GameCreatedMinimal,
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
    minimal: PreferMinimal,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    # The replay record is bound to the old key by the use case: only its holder gets the new key again.
    idempotency = Idempotency.of(idempotency_key, "POST /key")
    outcome = games.rotate_key(game_id, credential, if_match=if_match, idempotency=idempotency)
    return _answer(outcome, request, minimal)


@router.delete(
    "/games/{game_id}",
    status_code=204,
    responses=problem_responses(401, 403, 404, 410, 412, 422, 429),
    summary="Delete a game",
    description="The game, its players, rounds and replay records are deleted for good; its links (and "
    "this URL) then answer 410 Gone. Every open event stream gets a last `version` event. Deleting again "
    "answers 410.",
)
def delete_game(game_id: GameId, games: GamesDep, credential: BearerDep, if_match: IfMatch = None) -> Response:
    games.delete_game(game_id, credential, if_match=if_match)
    return Response(status_code=204)
