"""Who keeps score: the edit link (its key into this browser's cookie), a new edit key ("Make a new edit
link"), and the handover: the one-time handover link's page on the new scorekeeper's phone
(app.games.handover).

Opening the link only asks: taking over is a POST from that page ("Keep score on this phone"), so a
messenger's link preview or a browser's prefetch can't use the link up or take the rights to nowhere.
The POST gives this browser a new edit key in its cookie, the old key stops working, and the old
keeper's page, told by the version event, turns into the view page (routes.game_pages.keeper_page).
"""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.errors import HandoverRefused
from app.games.handover import handover_problem
from app.http.ratelimit import wrong_key_wait
from app.i18n import _
from app.idempotency import Idempotency
from app.routes.deps import GameId, GamesDep
from app.security import FORM_REFUSED, FormRefused, keeper_credential, key_matches, same_origin, set_edit_cookie
from app.web.forms import read_form
from app.web.render import error_page, go, keeper_headers, templates, too_many_page

router = APIRouter(include_in_schema=False)

Token = Annotated[str, Path(min_length=1, max_length=100)]


def _refused(request: Request, detail: str) -> Response:
    if wait := wrong_key_wait(request):
        return too_many_page(request, wait)
    response = error_page(request, 403, detail)
    response.headers.update(keeper_headers())
    return response


@router.get("/g/{game_id}/take/{token}", name="take_over_page")
def take_over_page(request: Request, game_id: GameId, token: Token, games: GamesDep) -> Response:
    """Opened on the new phone: what taking over means, and the button that does it."""
    game = games.get(game_id).game  # no such game: 404 (410 when deleted)
    if problem := handover_problem(request.app.state.sealer, game_id, game.edit_key_hash, token):
        return _refused(request, problem)
    context = {"game_id": game_id, "token": token, "name": game.name, "request_id": secrets.token_urlsafe(12)}
    return templates.TemplateResponse(request, "take_over.html", context, headers=keeper_headers())


@router.post("/g/{game_id}/take/{token}", name="take_over")
async def take_over(request: Request, game_id: GameId, token: Token, games: GamesDep) -> Response:
    """This browser keeps score from now on; every other phone's edit key stops working."""
    form = await read_form(request)
    if not same_origin(request):
        raise FormRefused(_(FORM_REFUSED))
    idempotency = Idempotency.of(form.get("request_id", "")[:100], "take over", game_id, token)
    try:
        outcome = await run_in_threadpool(games.take_over, game_id, token, idempotency=idempotency)
    except HandoverRefused as error:
        return _refused(request, error.detail)
    url = request.app.url_path_for("keeper_page", game_id=game_id) + "?taken=1"
    response = RedirectResponse(url, status_code=303)
    response.headers.update(keeper_headers())
    set_edit_cookie(request, response, game_id, outcome.edit_key)
    return response


@router.get("/g/{game_id}/edit/{edit_key}", name="claim_edit_link")
def claim_edit_link(request: Request, game_id: GameId, edit_key: str, games: GamesDep) -> Response:
    """The edit link: remember the key in an HttpOnly cookie, then leave the URL that carries it."""
    key_hash = games.key_hash(game_id)
    if key_hash is None:
        raise games.missing(game_id)
    if not key_matches(edit_key, key_hash):
        return _refused(request, _("This edit link is not valid any more: ask the scorekeeper for a new one."))
    response = RedirectResponse(request.app.url_path_for("keeper_page", game_id=game_id), status_code=303)
    response.headers.update(keeper_headers())
    set_edit_cookie(request, response, game_id, edit_key)
    return response


@router.post("/g/{game_id}/key", name="rotate_key_page")
async def rotate_key_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    """New edit key: every old edit link, cookie and API key for this game stops working at once."""
    form = await read_form(request)
    credential = keeper_credential(request, game_id, form.get("csrf"))
    new_key = (await run_in_threadpool(games.rotate_key, game_id, credential)).edit_key
    url = request.app.url_path_for("keeper_page", game_id=game_id) + "?handover=1"
    response = go(request, url)
    response.headers.update(keeper_headers())
    set_edit_cookie(request, response, game_id, new_key)
    return response
