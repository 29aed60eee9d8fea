"""/api/v1 seats and the round's draft: every player enters their own row, on their own phone
(app.games.seats). Thin: parse, call the use case, answer. The seat link and the seats are the
scorekeeper's (the edit key); a seat is taken with the seat link's key and answers its own seat key, which
sends that player's row and nothing else; anyone with the view link reads the draft, as the game.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.answers import DraftPublic, SeatsPublic, SeatTaken
from app.games.seats import Draft, RowIn
from app.games.views import maybe_timestamp, timestamp
from app.http.jsonanswer import JSONAnswer
from app.http.jsonbody import StrictJsonRoute
from app.http.problems import problem_responses
from app.http.ratelimit import client_address
from app.idempotency import Idempotency
from app.paths import seat_link_path
from app.routes.deps import (
    BearerDep,
    GameId,
    GamesDep,
    IdempotencyKey,
    IfMatch,
    PlayerId,
    RowBearerDep,
    operation_id,
)
from app.schemas import DraftRowIn, SeatClaim

router = APIRouter(
    prefix="/api/v1", tags=["games"], route_class=StrictJsonRoute, generate_unique_id_function=operation_id
)


@router.get(
    "/games/{game_id}/seats",
    response_model=SeatsPublic,
    responses=problem_responses(401, 403, 404, 410, 422),
    summary="The seat link and who took a seat",
    description="The scorekeeper's (the edit key): the game's seat link, which every player opens on their own "
    "phone to take their seat, and each player's seat, taken or free. The link works while the game's edit key "
    "stands (a new edit key, or a handover, ends it).",
)
def list_seats(game_id: GameId, request: Request, games: GamesDep, credential: BearerDep) -> JSONAnswer:
    seats = games.seats(game_id, credential)
    link = str(request.base_url).rstrip("/") + seat_link_path(game_id, seats.token)
    body = {
        "link": link,
        "link_key": seats.token,
        "seats": [
            {
                "player_id": s.player.id,
                "name": s.player.name,
                "taken": s.claimed_at is not None,
                "taken_at": maybe_timestamp(s.claimed_at),
            }
            for s in seats.seats
        ],
    }
    return JSONAnswer(body)


@router.post(
    "/games/{game_id}/seats/{player_id}",
    status_code=201,
    response_model=SeatTaken,
    responses=problem_responses(403, 404, 409, 410, 413, 422, 429),
    summary="Take a player's seat",
    description="With the seat link's key: this phone becomes the player's seat. Answers the seat key (shown only "
    "here). 403 for a link that is not the game's (or no longer); 409 when another phone holds the seat (the "
    "scorekeeper frees it) or the game is over; 422 for a player who left or is out. With an `Idempotency-Key`, "
    "a retry from the same address with the same link gets the same seat key again while it holds the seat (422 "
    "`idempotency-replay-unavailable` once the scorekeeper freed it).",
)
def claim_seat(
    request: Request,
    game_id: GameId,
    player_id: PlayerId,
    data: SeatClaim,
    games: GamesDep,
    idempotency_key: IdempotencyKey = None,
) -> JSONAnswer:
    # The record's binding: the caller's address and the link (app.games.seats.claim_seat).
    idempotency = Idempotency.of(idempotency_key, f"POST /seats/{player_id}")
    taken = games.claim_seat(game_id, player_id, data.link, idempotency, client_address(request))
    body = {
        "game_id": taken.game_id,
        "player_id": taken.player.id,
        "name": taken.player.name,
        "seat_key": taken.seat_key,
    }
    return JSONAnswer(body, status_code=201, headers=_replayed(taken.replayed))


@router.delete(
    "/games/{game_id}/seats/{player_id}",
    status_code=204,
    responses=problem_responses(401, 403, 404, 410, 422, 429),
    summary="Free a player's seat",
    description="The scorekeeper's: the seat's key stops working, and another phone can take the seat. Freeing a "
    "free seat changes nothing (204 too).",
)
def free_seat(game_id: GameId, player_id: PlayerId, games: GamesDep, credential: BearerDep) -> Response:
    games.free_seat(game_id, player_id, credential)
    return Response(status_code=204)


@router.put(
    "/games/{game_id}/draft/{player_id}",
    response_model=DraftPublic,
    responses=problem_responses(401, 403, 404, 409, 410, 412, 413, 422, 429),
    summary="Send a player's row of the round being played",
    description="From the player's seat (`Authorization: Bearer <seat key>`) or the scorekeeper (the edit key): "
    "the row's counts for the game's kind (`cards`: `dutch` and `blitz`; `lowest` and `lives`: `hand` and "
    "`called`), checked field by field as the round form checks them (422 beside the field); the round's own "
    "checks wait for the save. A row sent again replaces the player's earlier one. `round` must be the round "
    "being played: 409 (`round-saved`) once it was saved, never written over it; with `If-Match`, 412 when the "
    "game changed since that version. Not a round: no total, "
    "version or history moves. Answers the draft as it now stands, with the game's version as its `ETag`. With an "
    "`Idempotency-Key`, a retry with the same key and row changes nothing and answers the draft as it now stands.",
)
def send_row(
    game_id: GameId,
    player_id: PlayerId,
    data: DraftRowIn,
    games: GamesDep,
    credential: RowBearerDep,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> JSONAnswer:
    row = RowIn(data.round, data.dutch, data.blitz, data.hand, data.called)
    sent = data.model_dump(mode="json", exclude_none=True)
    idempotency = Idempotency.of(idempotency_key, f"PUT /draft/{player_id}", sent)  # the key: its binding
    draft = games.send_row(game_id, player_id, credential, row, if_match, idempotency)
    return JSONAnswer(draft_body(draft), headers={"ETag": f'"{draft.version}"'} | _replayed(draft.replayed))


def _replayed(replayed: bool) -> dict[str, str]:
    return {"Idempotent-Replayed": "true"} if replayed else {}


@router.get(
    "/games/{game_id}/draft",
    response_model=DraftPublic,
    responses=problem_responses(404, 410, 422),
    summary="The round being played, as far as it was sent",
    description="Each row sent for the round being played (from a seat or the scorekeeper), by player id. Empty "
    "once the round is saved: the next round's draft starts empty.",
)
def get_draft(game_id: GameId, games: GamesDep) -> JSONAnswer:
    return JSONAnswer(draft_body(games.draft(game_id)))


def draft_body(draft: Draft) -> dict[str, Any]:
    return {
        "game_id": draft.game_id,
        "round": draft.round_number,
        "saved_round": draft.saved,
        "rows": [
            {
                "player_id": r.player_id,
                "dutch": r.dutch,
                "blitz": r.blitz,
                "hand": r.points,
                "called": r.called,
                "by_seat": r.by_seat,
                "sent_at": timestamp(r.sent_at),
            }
            for r in draft.rows
        ],
    }
