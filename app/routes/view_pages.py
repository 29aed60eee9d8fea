"""The view page (and its TV layout), which anyone with the view link opens: the whole page, or the
`_game.html` fragment a live page asks for after each version event, with an ETag and the 204 of a
refresh that is already current. The game itself comes from the per-process cache of scored games
(app.games.viewcache) while its version is there: a long game then costs what a short one does."""

from __future__ import annotations

import hashlib
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from app import i18n
from app.games.viewcache import cached_view
from app.games.views import game_table, version_start_and_table
from app.http.assets import build
from app.i18n import _
from app.preconditions import none_match
from app.routes.deps import GameId, GamesDep
from app.rules import scoring
from app.security import HANDED_OVER
from app.tables.nights import night_lead
from app.urls import absolute_url
from app.web.changes import SHOWN
from app.web.context import GameData, Viewer, game_page
from app.web.piles import check_piles
from app.web.render import OFFLINE_COPY, error_page, is_htmx, render

router = APIRouter(include_in_schema=False)


@router.get("/g/{game_id}", response_class=HTMLResponse, name="view_page")
def view_page(
    request: Request,
    game_id: GameId,
    games: GamesDep,
    tv: bool = False,
    handed_over: bool = False,
    since: Annotated[int | None, Query(ge=0)] = None,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> Response:
    """The view page, or its fragment for htmx, with an ETag: 304 while the game, the layout and the
    deployment are unchanged. A live page's refresh sends the version it shows (`since`): when the
    game is no newer, 204. Either way only the version is read, and nothing is rendered.

    `handed_over`: where a keeper page goes once its edit rights moved to another phone; the page
    says so above the game (part of the layout, so of the ETag too). `page`: the history's page
    (app.web.context.history_page; the TV view shows no history)."""
    page = 1 if tv else page
    layout = ("tv" if tv else "page") + (".handed-over" if handed_over else "") + (f".p{page}" if page > 1 else "")
    htmx = is_htmx(request)
    conditional = request.headers.get("If-None-Match")
    version = None
    # The version alone, and only when it can spare the rest (a plain load reads the game once).
    if (since is not None and htmx) or conditional:
        now = version_start_and_table(games.session, game_id)
        version, running, table_version = now if now is not None else (None, None, None)
        if version is not None and since is not None and htmx and version == since:
            return Response(status_code=204, headers={"Vary": "HX-Request"})
        # Never a 304 while a round runs: the page carries the server's clock as it was rendered
        # (data-server-now, for the round timer), which a kept copy would give wrong.
        if (
            version is not None
            and running is None
            and none_match(conditional, _view_etag(request, game_id, version, layout, htmx, table_version))
        ):
            headers = _view_headers(request, game_id, version, layout, htmx, table_version)
            return Response(status_code=304, headers=headers)
    view = cached_view(games, game_id, version)  # no such game: 404 (410 when deleted)
    # What the page shows besides the game, read here: its table (the whole page only: a live refresh
    # of the fragment reads nothing more) and its latest changes (the TV view shows none).
    table = None if htmx else game_table(games.session, view.game)
    changes = () if tv else games.changes(view.game.id, limit=SHOWN)
    viewer = Viewer(tv=tv, handed_over=i18n.gettext(HANDED_OVER) if handed_over else None)
    tonight = night_lead(games.session, view.game, view.state.over)  # a query only for a game over at a table
    page_model = game_page(request, GameData(view, changes, table, tonight), viewer, page=page)
    response = render(request, "game.html", page_model.context(), fragment="_game.html")
    table_version = table.version if table else None
    response.headers.update(_view_headers(request, game_id, view.game.version, layout, htmx, table_version))
    return response


def _view_etag(
    request: Request, game_id: str, version: int, layout: str, htmx: bool, table_version: int | None = None
) -> str:
    """The game's version, the layout, the language, the deployment, and the address its share links
    and QR code show (BLITZBOARD_PUBLIC_URL, or the request's own host and scheme); for a game at a
    table, the table's version too (the whole page names the table; the fragment doesn't)."""
    address = absolute_url(request, request.app.url_path_for("view_page", game_id=game_id))
    where = hashlib.sha256(address.encode()).hexdigest()[:8]
    table = f".t{table_version}" if table_version is not None and not htmx else ""
    return f'W/"{version}.{layout}{".fragment" if htmx else ""}.{i18n.current()}.{build()}.{where}{table}"'


def _view_headers(
    request: Request, game_id: str, version: int, layout: str, htmx: bool, table_version: int | None = None
) -> dict[str, str]:
    # no-cache: a browser keeps the page but asks each time, and a 304 answers while it is current.
    etag = _view_etag(request, game_id, version, layout, htmx, table_version)
    headers = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "HX-Request"}
    return headers if htmx else headers | OFFLINE_COPY  # the page, not the fragment: kept for offline


@router.get("/g/{game_id}/piles", response_class=HTMLResponse, name="pile_check_page")
def pile_check_page(
    request: Request, game_id: GameId, games: GamesDep, piles: Annotated[str, Query(max_length=100)] = ""
) -> Response:
    """ "Check the piles" from the view page (app.web.piles): its answer in the view page's Share box
    (htmx), or a page of its own (no JavaScript). Only while the game lets the table help (`seats_on_view`)
    and only in a game of cards; it reads, and changes nothing."""
    view = games.get(game_id)
    if not (view.game.seats_on_view and view.rules.kind == scoring.Kind.CARDS):
        return error_page(request, 404, _("This game offers no pile check: the scorekeeper checks the piles."))
    check = check_piles(view, games.draft(game_id, view).rows, piles)
    context = {"game": view.game, "check": check, "piles_url": request.url.path}
    return render(request, "piles.html", context, fragment="_pile_check.html", headers={"Cache-Control": "no-store"})
