"""The pages of a player's own phone (app.games.seats): the game's seat link, where a phone takes a player's
seat, and the seat's page, where the player sends their row of the round being played.

The seat link's page only asks ("Which player are you?"): taking a seat is a POST from it, so a messenger's
link preview can't take a seat. The POST puts the seat key in this browser's HttpOnly cookie and goes to
the seat's page, which works as a plain form (no JavaScript) and, with htmx, follows the game live: when
the round is saved, it moves on to the next round's empty row.
"""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.errors import GameIsOver, InvalidInput, RoundSavedMeanwhile, SeatKeyWrong, SeatLinkRefused, SeatTaken
from app.games.seatlink import seat_link_token
from app.games.seats import Draft, RowIn
from app.games.views import GameView, game_table
from app.http.ratelimit import wrong_key_wait
from app.i18n import _, join_names, number, problem_text
from app.models import Player
from app.routes.deps import GameId, Games, GamesDep
from app.rules import scoring
from app.security import (
    FORM_REFUSED,
    FormRefused,
    csrf_token,
    same_origin,
    seat_cookie_key,
    seat_credential,
    set_seat_cookie,
)
from app.web.entry import typed_hand
from app.web.forms import read_form, whole_number
from app.web.render import error_page, is_htmx, keeper_headers, render, templates, too_many_page
from app.web.wording import card_words

router = APIRouter(include_in_schema=False)

Token = Annotated[str, Path(min_length=1, max_length=100)]


def _link_refused(request: Request) -> Response:
    if wait := wrong_key_wait(request):  # counted as a wrong key, as a handover link's refusal is
        return too_many_page(request, wait)
    detail = _("This is not this game's seat link, or no longer: ask the scorekeeper for it.")
    response = error_page(request, 403, detail)
    response.headers.update(keeper_headers())
    return response


def _link_page(request: Request, view: GameView, token: str, taken: set[int], message: str | None = None,
               status: int = 200) -> Response:  # fmt: skip
    mine = request.app.url_path_for("seat_page", game_id=view.game.id)
    context = {
        "game": view.game,
        "token": token,
        "players": view.state.playing(view.players),
        "taken": taken,
        "message": message,
        "mine": mine if seat_cookie_key(request, view.game.id).key else None,
        "over": view.state.over,
    }
    return render(request, "seat_link.html", context, status=status, headers=keeper_headers())


@router.get("/g/{game_id}/seat/{token}", name="seat_link_page")
def seat_link_page(request: Request, game_id: GameId, token: Token, games: GamesDep) -> Response:
    """Opened on a player's phone: "Which player are you?", a button per player still in."""
    view = games.get(game_id)
    if not secrets.compare_digest(token.encode(), seat_link_token(request.app.state.sealer, view.game).encode()):
        return _link_refused(request)
    return _link_page(request, view, token, set(games.taken_seats(game_id)))


@router.post("/g/{game_id}/seat/{token}", name="take_seat")
async def take_seat(request: Request, game_id: GameId, token: Token, games: GamesDep) -> Response:
    """This phone becomes the player's seat: the seat key into its cookie, then the seat's page."""
    form = await read_form(request)
    if not same_origin(request):
        raise FormRefused(_(FORM_REFUSED))
    player_id = whole_number(form.get("player_id", "")) or 0
    try:
        taken = await run_in_threadpool(games.claim_seat, game_id, player_id, token)
    except SeatLinkRefused:
        return _link_refused(request)
    except (SeatTaken, GameIsOver, InvalidInput) as error:
        view = games.get(game_id)
        return _link_page(request, view, token, set(games.taken_seats(game_id)), error.detail, error.status)
    response = RedirectResponse(request.app.url_path_for("seat_page", game_id=game_id), status_code=303)
    response.headers.update(keeper_headers())
    set_seat_cookie(request, response, game_id, taken.seat_key)
    return response


@router.get("/g/{game_id}/mine", name="seat_page")
def seat_page(
    request: Request, game_id: GameId, games: GamesDep, waiting: bool = False, since: int | None = None
) -> Response:
    """The player's own row of the round being played (htmx asks for the fragment after each save, and
    for who is still to send, `waiting`, after each row sent). `since`: the version the live page shows;
    while the game is no newer, htmx gets a 204 and the row being typed stays."""
    view = games.get(game_id)
    if since is not None and since == view.game.version and is_htmx(request) and not waiting:
        return Response(status_code=204, headers={"Vary": "HX-Request"} | keeper_headers())
    player = games.seat_of(view, seat_cookie_key(request, game_id))
    if player is None:
        return _no_seat(request, game_id)
    return _seat_answer(
        request, games, view, player, games.draft(game_id, view), fragment="_seat_waiting.html" if waiting else None
    )


@router.post("/g/{game_id}/mine", name="send_row_page")
async def send_row_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    """The player's row sent; a refusal comes back beside its field with what was typed."""
    form = await read_form(request)
    credential = seat_credential(request, game_id, form.get("csrf"))
    view = games.get(game_id)
    player = games.seat_of(view, credential)
    if player is None:
        return _no_seat(request, game_id)
    typed = {name: form.get(name, "").strip()[:20] for name in ("dutch", "blitz", "hand")}
    typed["called"] = "1" if form.get("called") else ""
    numbers: dict[str, int | float | None] = {
        name: whole_number(typed[name]) if typed[name] else None for name in ("dutch", "blitz")
    }
    numbers["hand"] = _hand_typed(typed["hand"]) if typed["hand"] else None  # "30,5" too: the rules judge it
    half = view.rules.kind == scoring.Kind.LIVES and view.rules.thirty_and_a_half
    unreadable = {
        name: _("A hand must be a whole number, or 30½ for three of a kind.")
        if name == "hand" and half
        else _("A count must be a whole number.")
        for name in numbers
        if typed[name] and numbers[name] is None
    }
    if unreadable:
        return _seat_answer(request, games, view, player, games.draft(game_id, view), typed, unreadable, 422)
    row = RowIn(
        whole_number(form.get("round", "")) or 0,
        numbers["dutch"],
        numbers["blitz"],
        numbers["hand"],
        bool(typed["called"]),
    )
    try:
        draft = await run_in_threadpool(games.send_row, game_id, player.id, credential, row)
    except InvalidInput as error:
        shown = {"dutch", "blitz"} if view.rules.kind == scoring.Kind.CARDS else {"hand"}
        errors = {(p.field if p.field in shown else "form"): problem_text(p) for p in error.problems}
        return _seat_answer(request, games, view, player, games.draft(game_id, view), typed, errors, 422)
    except (RoundSavedMeanwhile, GameIsOver, SeatKeyWrong) as error:
        fresh = games.get(game_id)
        return _seat_answer(
            request, games, fresh, player, games.draft(game_id, fresh), None, {"form": error.detail}, error.status
        )
    return _seat_answer(request, games, games.get(game_id), player, draft, sent=True)


def _no_seat(request: Request, game_id: str) -> Response:
    detail = _("This phone has no seat in this game: open the game's seat link first.")
    response = error_page(request, 403, detail)
    response.headers.update(keeper_headers())
    return response


def _seat_answer(
    request: Request,
    games: Games,
    view: GameView,
    player: Player,
    draft: Draft,
    typed: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
    sent: bool = False,
    fragment: str | None = None,
) -> Response:
    state = view.state
    rows = {r.player_id: r for r in draft.rows}
    mine = rows.get(player.id)
    if typed is None:
        typed = {
            "dutch": "" if mine is None or mine.dutch is None else str(mine.dutch),
            "blitz": "" if mine is None or mine.blitz is None else str(mine.blitz),
            "hand": "" if mine is None or mine.points is None else number(mine.points),  # 30½: "30,5" in de
            "called": "1" if mine is not None and mine.called else "",
        }
    playing = state.playing(view.players)
    # A game at a table: the seat is a person of the table's, whose page there the seat links to.
    table = game_table(games.session, view.game) if view.game.table_id and player.person_id else None
    at_table = None
    if table is not None:
        person = request.app.url_path_for("person_page", table_id=table.id, person_id=player.person_id)
        at_table = {"name": table.name, "url": person}
    context = {
        "at_table": at_table,
        "game": view.game,
        "player": player,
        "kind": state.rules.kind.value,
        "words": card_words(state.rules.preset),
        "round_number": draft.round_number,
        "over": state.over,
        "out": player.id in state.out,
        "typed": typed,
        "errors": errors or {},
        "mine": mine,
        "sent": sent,
        "saved": draft.saved,  # the round this row completed, saved by itself (`seats_save_round`)
        "waiting": join_names(p.name for p in playing if p.id not in rows),
        "everyone_sent": all(p.id in rows for p in playing),
        "standings": state.standings,
        "csrf": csrf_token(seat_cookie_key(request, view.game.id).key or ""),
        "live_url": request.app.url_path_for("game_events", game_id=view.game.id),
        "half": state.rules.kind == scoring.Kind.LIVES and state.rules.thirty_and_a_half,
        "high": {"dutch": state.rules.deck_size, "blitz": state.rules.pile_size, "hand": scoring.HAND_RANGE[1]},
    }
    if fragment is not None:  # only who is still to send
        return templates.TemplateResponse(request, fragment, context, headers=keeper_headers())
    return render(request, "seat.html", context, fragment="_seat.html", status=status, headers=keeper_headers())


def _hand_typed(raw: str) -> int | float | None:
    """A hand as the round form reads it (app.web.entry.typed_hand: a whole number, or one with a half,
    "30,5"), or None when it is neither."""
    try:
        return typed_hand(raw)
    except ValueError:
        return None
