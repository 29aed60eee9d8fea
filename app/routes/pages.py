"""HTML pages and HTMX fragments, over the same use cases as the API.

Every form works as a plain form post followed by a redirect (no JavaScript needed); with htmx the
same routes answer with the `_game.html` fragment that the page itself includes, so the page and the
swap always render the same markup. `render()` is the one place that picks page or fragment.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context

from app import scoring
from app.assets import asset_url
from app.chart import build_chart
from app.config import ROOT
from app.errors import GameError, GameNotFound, InvalidInput, KeyWrong, VersionMismatch
from app.games import Games
from app.idempotency import Idempotency
from app.models import GameCreate, GameUpdate, PlayerCreate, RoundIn, RulesCreate, RulesUpdate, ScoreIn
from app.ratelimit import client_address, retry_after_header
from app.routes.deps import GameId, GamesDep, RoundNumber
from app.security import (
    EDIT_COOKIE_PREFIX,
    Credential,
    cookie_key,
    csrf_matches,
    csrf_token,
    edit_cookie_name,
    key_matches,
)
from app.urls import absolute_url, urls_for
from app.views import GameView, load_views

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=ROOT / "templates")


@pass_context
def _url_path_for(context: dict[str, Any], name: str, /, **path_params: Any) -> str:
    """Links and form actions as paths, not absolute URLs built from the Host header: behind a proxy
    that terminates TLS (or sends another Host) an absolute http:// action would be refused by the
    CSP's form-action 'self' or point somewhere else. Shared links that must be absolute (view, edit,
    QR codes) go through absolute_url(), which honours BLITZBOARD_PUBLIC_URL."""
    return context["request"].url_for(name, **path_params).path


templates.env.globals["url_for"] = _url_path_for
templates.env.globals["asset"] = asset_url

HTMX = "htmx-2.0.11.min.js"  # pinned, vendored from the npm registry's htmx.org package
MAX_YOUR_GAMES = 20


FormDict = dict[str, str]


# --- rendering --------------------------------------------------------------------------------


def is_htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


def render(
    request: Request,
    page: str,
    context: dict[str, Any],
    *,
    fragment: str | None = None,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    """The whole page, or only its fragment when htmx asks (the page includes the same fragment)."""
    name = fragment if fragment and is_htmx(request) else page
    response = templates.TemplateResponse(
        request, name, {"htmx_file": HTMX} | context, status_code=status, headers=headers
    )
    response.headers["Vary"] = "HX-Request"
    return response


def error_page(request: Request, status: int, detail: str) -> HTMLResponse:
    return templates.TemplateResponse(
        request, "error.html", {"status": status, "detail": detail, "htmx_file": HTMX}, status_code=status
    )


def go(request: Request, url: str) -> Response:
    """After a successful form post: a 303 redirect, or for htmx an HX-Redirect."""
    if is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": url})
    return RedirectResponse(url, status_code=303)


def keeper_headers() -> dict[str, str]:
    # Pages that carry an edit right: never sent on as a Referer, never cached by a shared cache.
    return {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


@dataclass
class RoundForm:
    """The round entry form's state: what was typed, and what is wrong with it."""

    number: int | None = None  # None: a new round; n: correcting round n
    values: dict[str, str] = field(default_factory=dict)  # "dutch-<player id>" / "blitz-<player id>"
    errors: dict[str, list[str]] = field(default_factory=dict)  # field name or "round" -> messages
    request_id: str = field(default_factory=lambda: secrets.token_urlsafe(12))


def _banner(view: GameView) -> dict[str, Any] | None:
    state = view.state
    names = view.player_names()
    if state.over:
        total = state.totals[state.winners[0]]
        return {
            "kind": "won" if len(state.winners) == 1 else "shared",
            "names": scoring.join_names(names[w] for w in state.winners),
            "total": total,
        }
    if state.tie_break_due:
        return {
            "kind": "tie",
            "names": scoring.join_names(names[w] for w in state.leaders),
            "total": state.totals[state.leaders[0]],
        }
    return None


def game_context(
    request: Request,
    view: GameView,
    *,
    keeper: bool,
    form: RoundForm | None = None,
    confirm_delete: int | None = None,
    handover: bool = False,
    message: str | None = None,
    rules_form: dict[str, Any] | None = None,
    tv: bool = False,
) -> dict[str, Any]:
    state = view.state
    colour = {p.id: i for i, p in enumerate(view.players)}
    seats = [scoring.Player(p.id, p.name, p.starting_score) for p in view.players]
    edit_key = cookie_key(request, view.game.id).key if keeper else None
    view_url = absolute_url(request, request.app.url_path_for("view_page", game_id=view.game.id))
    edit_url = urls_for(request)(view.game.id, edit_key)["edit"] if keeper and handover and edit_key else None
    if form is None and not state.over:
        form = RoundForm()
    if form is not None and form.number is not None and not form.values:
        scores = state.rounds[form.number - 1].scores
        for score in scores:
            form.values[f"dutch-{score.player_id}"] = str(score.dutch)
            form.values[f"blitz-{score.player_id}"] = str(score.blitz)
    preview: dict[int, int | None] = {}
    if form is not None:
        for p in view.players:
            try:
                score = scoring.Score(
                    p.id, int(form.values.get(f"dutch-{p.id}", "")), int(form.values.get(f"blitz-{p.id}", ""))
                )
                preview[p.id] = scoring.round_points(score, state.rules)
            except ValueError:
                preview[p.id] = None
    return {
        "game": view.game,
        "view": view,
        "state": state,
        "rules": state.rules,
        "players": view.players,
        "colour": colour,
        "names": view.player_names(),
        "banner": _banner(view),
        "chart": build_chart(seats, state),
        "keeper": keeper,
        "form": form if keeper else None,
        "preview": preview,
        "confirm_delete": confirm_delete,
        "handover": handover,
        "message": message,
        "rules_form": rules_form,
        "csrf": csrf_token(edit_key) if edit_key else "",
        "view_url": view_url,
        "edit_url": edit_url,
        "qr": _qr(view_url),
        "edit_qr": _qr(edit_url) if edit_url else None,
        "tv": tv,
        "live_url": request.app.url_path_for("game_events", game_id=view.game.id),
        "fragment_url": request.app.url_path_for("view_page", game_id=view.game.id),
    }


def _qr(url: str) -> str:
    import segno  # imported here: only pages that show a QR code pay for it

    # A viewBox instead of a fixed size: the CSS box (.qr svg) then scales the whole code into it,
    # however long the link (a longer link means more modules, which a fixed size would crop).
    return segno.make(url, error="m").svg_inline(scale=4, omitsize=True)


# --- guards -----------------------------------------------------------------------------------


def _same_origin(request: Request) -> bool:
    """A post that the browser says came from another site is refused outright.

    Sec-Fetch-Site decides where the browser sends it (all current browsers do). Origin is not
    enough alone: under the keeper pages' Referrer-Policy: no-referrer, a plain form post (no
    JavaScript) carries `Origin: null` even from our own page, so a null or missing Origin refuses
    nothing by itself. The CSRF token, which another site can't compute, is required either way.
    """
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return True
    return urlsplit(origin).netloc == request.headers.get("host", "")


class FormRefused(KeyWrong):
    """A keeper's post refused before the use case runs (no cookie, no CSRF token, another site)."""


# The use case's own "wrong key" is said for API clients; in a browser it means the cookie's key was
# replaced (a new edit link was made on another phone).
STALE_KEY = (
    "This browser's edit key doesn't work any more: a new edit link was made for this game. "
    "Ask the scorekeeper for it, or watch the game."
)


def keeper_credential(request: Request, game_id: str, csrf: str | None) -> Credential:
    """The edit key from this browser's cookie, for a state-changing form post.

    Refuses a post without the form's CSRF token or from another site (a forged cross-site form);
    whether the key is right is then checked by the use case, in its transaction.
    """
    credential = cookie_key(request, game_id)
    if not credential.key:
        raise FormRefused("This browser doesn't keep score of this game: open its edit link first.")
    if not _same_origin(request) or not csrf_matches(csrf, credential.key):
        raise FormRefused("This form is out of date or came from another site: reload the page and try again.")
    return credential


def set_edit_cookie(request: Request, response: Response, game_id: str, edit_key: str) -> None:
    response.set_cookie(
        edit_cookie_name(game_id),
        edit_key,
        max_age=request.app.state.settings.edit_cookie_days * 86400,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


# --- start page -------------------------------------------------------------------------------


def _your_games(request: Request, games: Games) -> tuple[list[dict[str, Any]], list[str]]:
    """The games this browser keeps score of (from its edit cookies), newest first, and stale cookies."""
    keys = {
        name[len(EDIT_COOKIE_PREFIX) :]: value
        for name, value in request.cookies.items()
        if name.startswith(EDIT_COOKIE_PREFIX)
    }
    found = {g.id: g for g in games.existing(list(keys)[:200])}
    stale = [gid for gid, key in keys.items() if gid not in found or not key_matches(key, found[gid].edit_key_hash)]
    mine = sorted((g for g in found.values() if g.id not in stale), key=lambda g: g.updated_at, reverse=True)
    rows = []
    for view in load_views(games.session, mine[:MAX_YOUR_GAMES]):
        game = view.game
        rows.append(
            {
                "id": game.id,
                "title": game.name or scoring.join_names(p.name for p in view.players),
                "players": scoring.join_names(p.name for p in view.players),
                "rounds": len(view.round_ids),
                "status": "finished" if view.state.over else "playing",
                "url": request.app.url_path_for("keeper_page", game_id=game.id),
            }
        )
    return rows, stale


def _new_game_form(values: FormDict | None = None, players: int = 2) -> dict[str, Any]:
    values = values or {}
    return {
        "values": values,
        "players": players,
        "errors": {},
        "rules_open": any(values.get(k) for k in ("target", "dutch_points", "blitz_points"))
        or values.get("tie_break") == "shared",
    }


@router.get("/", response_class=HTMLResponse, name="start_page")
def start_page(request: Request, games: GamesDep) -> HTMLResponse:
    rows, stale = _your_games(request, games)
    response = render(request, "start.html", {"new": _new_game_form(), "your_games": rows})
    for game_id in stale:
        response.delete_cookie(edit_cookie_name(game_id), path="/")
    return response


def _form_int(form: FormDict, name: str, default: int, label: str, errors: dict[str, list[str]]) -> int:
    raw = form.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw.replace("−", "-"))
    except ValueError:
        errors.setdefault(name, []).append(f"{label} must be a whole number.")
        return default


async def _form(request: Request) -> FormDict:
    data = await request.form()
    return {k: v for k, v in data.items() if isinstance(v, str)}


@router.post("/games", name="create_game_page")
async def create_game_page(request: Request, games: GamesDep) -> Response:
    if not _same_origin(request):  # another site's page can't start games in this browser
        return error_page(request, 403, "This form came from another site: start your game on this one.")
    form = await _form(request)
    count = max(scoring.MIN_PLAYERS, min(scoring.MAX_PLAYERS, _safe_int(form.get("player_count"), 2)))
    action = form.get("action", "start")
    names = [form.get(f"player-{i}", "") for i in range(count)]
    starts = [form.get(f"start-{i}", "") for i in range(count)]

    if action == "add" and count < scoring.MAX_PLAYERS:
        names.append("")
        starts.append("")
    elif action.startswith("remove-") and count > scoring.MIN_PLAYERS:
        drop = _safe_int(action.removeprefix("remove-"), -1)
        if 0 <= drop < count:
            del names[drop], starts[drop]
    if action != "start":
        return _new_game_response(request, games, names, starts, form, {})
    limit, client = request.app.state.limits.games, client_address(request)
    if wait := limit.reserve(client):  # given back below unless a game is made
        message = f"Too many new games from this network: try again in {math.ceil(wait)} s."
        response = _new_game_response(request, games, names, starts, form, {"form": [message]}, status=429)
        response.headers.update(retry_after_header(wait))
        return response
    created = False
    try:
        response, created = _start_game(request, games, form, names, starts)
        return response
    finally:
        if not created:
            limit.release(client)


def _start_game(
    request: Request, games: Games, form: FormDict, names: list[str], starts: list[str]
) -> tuple[Response, bool]:
    """Create the game from the start page's form: the answer, and whether a game was made."""
    errors: dict[str, list[str]] = {}
    players = []
    for i, (name, start) in enumerate(zip(names, starts, strict=True)):
        score = _form_int({"s": start}, "s", 0, "A starting score", errors)
        if "s" in errors:
            errors[f"start-{i}"] = errors.pop("s")
        players.append(PlayerCreate(name=name[:1000], starting_score=_clamp_start(score, i, errors)))
    rules_values = {}
    for key, label, default in (
        ("target", "The target", 75),
        ("dutch_points", "Points per Dutch card", 1),
        ("blitz_points", "Points per Blitz card", -2),
    ):
        rules_values[key] = _form_int(form, key, default, label, errors)
    tie_break = form.get("tie_break", "play_on")
    if tie_break not in ("play_on", "shared"):
        tie_break = "play_on"
    problems = scoring.validate_rules(scoring.Rules(**rules_values))
    for problem in problems:
        errors.setdefault(problem.field, []).append(problem.message)
    if errors:
        return _new_game_response(request, games, names, starts, form, errors, status=422), False
    data = GameCreate(
        name=form.get("game_name", "")[:1000],
        players=players,
        rules=RulesCreate(**rules_values, tie_break=tie_break),
    )
    try:
        outcome = games.create(data, urls_for(request))
    except InvalidInput as error:
        for problem in error.problems:
            key = {"name": f"player-{problem.index}", "starting_score": f"start-{problem.index}"}.get(
                problem.field, problem.field
            )
            errors.setdefault(key, []).append(problem.message)
        return _new_game_response(request, games, names, starts, form, errors, status=422), False
    game_id = outcome.body["id"]
    response = go(request, request.app.url_path_for("keeper_page", game_id=game_id))
    set_edit_cookie(request, response, game_id, outcome.body["edit_key"])
    return response, True


def _safe_int(raw: str | None, default: int) -> int:
    try:
        return int(raw or "")
    except ValueError:
        return default


def _clamp_start(score: int, index: int, errors: dict[str, list[str]]) -> int:
    low, high = scoring.STARTING_SCORE_RANGE
    if not low <= score <= high:
        errors.setdefault(f"start-{index}", []).append(f"A starting score must be between {low} and {high}.")
        return 0
    return score


def _new_game_response(
    request: Request,
    games: Games,
    names: list[str],
    starts: list[str],
    form: FormDict,
    errors: dict[str, list[str]],
    status: int = 200,
) -> HTMLResponse:
    values = {k: form.get(k, "") for k in ("game_name", "target", "dutch_points", "blitz_points", "tie_break")}
    values |= {f"player-{i}": n for i, n in enumerate(names)}
    values |= {f"start-{i}": s for i, s in enumerate(starts)}
    new = _new_game_form(values, players=len(names))
    new["errors"] = errors
    new["starts_open"] = any(s.strip() for s in starts) or any(k.startswith("start-") for k in errors)
    new["rules_open"] = new["rules_open"] or any(k in errors for k in ("target", "dutch_points", "blitz_points"))
    rows, _ = _your_games(request, games)
    return render(
        request,
        "start.html",
        {"new": new, "your_games": rows},
        fragment="_new_game_form.html",
        status=status,
    )


# --- the game pages -----------------------------------------------------------------------------


@router.get("/g/{game_id}", response_class=HTMLResponse, name="view_page")
def view_page(request: Request, game_id: GameId, games: GamesDep, tv: bool = False) -> HTMLResponse:
    try:
        view = games.get(game_id)
    except GameNotFound as error:
        return error_page(request, 404, error.detail)
    context = game_context(request, view, keeper=False, tv=tv)
    return render(request, "game.html", context, fragment="_game.html")


@router.get("/g/{game_id}/score", response_class=HTMLResponse, name="keeper_page")
def keeper_page(
    request: Request,
    game_id: GameId,
    games: GamesDep,
    edit: int | None = None,
    delete: int | None = None,
    handover: bool = False,
) -> HTMLResponse:
    try:
        view = games.get(game_id)
    except GameNotFound as error:
        return error_page(request, 404, error.detail)
    if not key_matches(cookie_key(request, game_id).key, view.game.edit_key_hash):
        return _not_keeper(request, game_id)
    rounds = len(view.round_ids)
    form = RoundForm(number=edit) if edit and 1 <= edit <= rounds else None
    confirm = delete if delete and 1 <= delete <= rounds else None
    context = game_context(request, view, keeper=True, form=form, confirm_delete=confirm, handover=handover)
    return render(request, "game.html", context, fragment="_game.html", headers=keeper_headers())


def _not_keeper(request: Request, game_id: str) -> HTMLResponse:
    return templates.TemplateResponse(
        request,
        "not_keeper.html",
        {"game_id": game_id, "htmx_file": HTMX},
        status_code=403,
        headers=keeper_headers(),
    )


@router.get("/g/{game_id}/edit/{edit_key}", name="claim_edit_link")
def claim_edit_link(request: Request, game_id: GameId, edit_key: str, games: GamesDep) -> Response:
    """The edit link: remember the key in an HttpOnly cookie, then leave the URL that carries it."""
    key_hash = games.key_hash(game_id)
    if key_hash is None:
        return error_page(request, 404, f"There is no game {game_id!r}.")
    if not key_matches(edit_key, key_hash):
        if wait := request.app.state.limits.wrong_keys.hit(client_address(request)):
            return too_many_page(request, wait)
        response = error_page(request, 403, "This edit link is not valid any more: ask the scorekeeper for a new one.")
        response.headers.update(keeper_headers())
        return response
    response = RedirectResponse(request.app.url_path_for("keeper_page", game_id=game_id), status_code=303)
    response.headers.update(keeper_headers())
    set_edit_cookie(request, response, game_id, edit_key)
    return response


def _parse_round(view: GameView, form: FormDict, number: int | None) -> tuple[RoundForm, RoundIn | None]:
    state = RoundForm(number=number, request_id=form.get("request_id") or secrets.token_urlsafe(12))
    scores = []
    for player in view.players:
        counts = {}
        for kind, label in (("dutch", "Dutch cards"), ("blitz", "Blitz cards left")):
            name = f"{kind}-{player.id}"
            raw = form.get(name, "").strip()
            state.values[name] = raw[:20]
            if not raw:
                state.errors.setdefault(name, []).append(f"Enter {player.name}'s {label.lower()}.")
                continue
            try:
                counts[kind] = int(raw)
            except ValueError:
                state.errors.setdefault(name, []).append(f"{player.name}: {label} must be a whole number.")
        if len(counts) == 2:
            scores.append(
                ScoreIn(player_id=player.id, dutch=_bounded(counts["dutch"]), blitz=_bounded(counts["blitz"]))
            )
    if state.errors:
        return state, None
    return state, RoundIn(scores=scores)


def _bounded(value: int) -> int:
    return max(-1_000_000, min(1_000_000, value))


def _round_errors(state: RoundForm, error: InvalidInput) -> None:
    for problem in error.problems:
        key = (
            f"{problem.field}-{problem.player_id}"
            if problem.field in ("dutch", "blitz") and problem.player_id
            else "round"
        )
        state.errors.setdefault(key, []).append(problem.message)


def _keeper_answer(
    request: Request,
    games: Games,
    game_id: str,
    *,
    form: RoundForm | None = None,
    message: str | None = None,
    status: int = 200,
    rules_form: dict[str, Any] | None = None,
) -> Response:
    """After a keeper's post: redirect (no JavaScript), or the fresh fragment (htmx)."""
    if status == 200 and form is None and message is None and rules_form is None and not is_htmx(request):
        return RedirectResponse(request.app.url_path_for("keeper_page", game_id=game_id), status_code=303)
    view = games.get(game_id)
    context = game_context(request, view, keeper=True, form=form, message=message, rules_form=rules_form)
    return render(request, "game.html", context, fragment="_game.html", status=status, headers=keeper_headers())


def too_many_page(request: Request, seconds: float) -> HTMLResponse:
    response = error_page(request, 429, f"Too many tries from this network: try again in {math.ceil(seconds)} s.")
    response.headers.update(retry_after_header(seconds) | keeper_headers())
    return response


def _refused(request: Request, game_id: str, error: GameError) -> Response:
    if isinstance(error, KeyWrong) and (wait := request.app.state.limits.wrong_keys.hit(client_address(request))):
        return too_many_page(request, wait)
    if isinstance(error, KeyWrong):
        response = error_page(request, 403, error.detail if isinstance(error, FormRefused) else STALE_KEY)
        response.headers.update(keeper_headers())
        return response
    return error_page(request, error.status, error.detail)


@router.post("/g/{game_id}/rounds", name="add_round_page")
async def add_round_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    return await _save_round(request, game_id, games, None)


@router.post("/g/{game_id}/rounds/{number}", name="replace_round_page")
async def replace_round_page(request: Request, game_id: GameId, number: RoundNumber, games: GamesDep) -> Response:
    return await _save_round(request, game_id, games, number)


async def _save_round(request: Request, game_id: str, games: Games, number: int | None) -> Response:
    form = await _form(request)
    try:
        credential = keeper_credential(request, game_id, form.get("csrf"))
        view = games.get(game_id)
    except GameError as error:
        return _refused(request, game_id, error)
    state, data = _parse_round(view, form, number)
    if data is None:
        return _keeper_answer(request, games, game_id, form=state, status=422)
    idempotency = Idempotency.of(state.request_id, "page round", number, data.model_dump(mode="json"))
    version = form.get("version") or None
    try:
        if number is None:
            games.add_round(game_id, credential, data, if_match=version, idempotency=idempotency)
        else:
            games.replace_round(game_id, number, credential, data, if_match=version, idempotency=idempotency)
    except InvalidInput as error:
        _round_errors(state, error)
        return _keeper_answer(request, games, game_id, form=state, status=422)
    except VersionMismatch:
        state.errors["round"] = [
            "The game changed on another device while you typed. Check the scores below and save again."
        ]
        return _keeper_answer(request, games, game_id, form=state, status=409)
    except GameError as error:
        if error.status in (401, 403):
            return _refused(request, game_id, error)
        state.errors["round"] = [error.detail]
        return _keeper_answer(request, games, game_id, form=state, status=error.status)
    return _keeper_answer(request, games, game_id)


@router.post("/g/{game_id}/rounds/{number}/delete", name="delete_round_page")
async def delete_round_page(request: Request, game_id: GameId, number: RoundNumber, games: GamesDep) -> Response:
    form = await _form(request)
    try:
        credential = keeper_credential(request, game_id, form.get("csrf"))
        games.delete_round(game_id, number, credential, if_match=form.get("version") or None)
    except VersionMismatch:
        return _keeper_answer(
            request,
            games,
            game_id,
            message="The game changed on another device; nothing was deleted.",
            status=409,
        )
    except GameError as error:
        return _refused(request, game_id, error)
    return _keeper_answer(request, games, game_id)


@router.post("/g/{game_id}/rules", name="rules_page")
async def rules_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    form = await _form(request)
    errors: dict[str, list[str]] = {}
    values = {}
    for key, label in (
        ("target", "The target"),
        ("dutch_points", "Points per Dutch card"),
        ("blitz_points", "Points per Blitz card"),
    ):
        values[key] = _form_int(form, key, 0, label, errors)
        if not form.get(key, "").strip():
            errors.setdefault(key, []).append(f"{label} can't be empty.")
    tie_break = form.get("tie_break") if form.get("tie_break") in ("play_on", "shared") else "play_on"
    typed = {k: form.get(k, "") for k in ("target", "dutch_points", "blitz_points", "game_name")} | {
        "tie_break": tie_break
    }
    try:
        credential = keeper_credential(request, game_id, form.get("csrf"))
    except GameError as error:
        return _refused(request, game_id, error)
    if not errors:
        for problem in scoring.validate_rules(scoring.Rules(**values)):
            errors.setdefault(problem.field, []).append(problem.message)
    if errors:
        return _keeper_answer(request, games, game_id, rules_form={"values": typed, "errors": errors}, status=422)
    update = GameUpdate(name=form.get("game_name", "")[:1000], rules=RulesUpdate(**values, tie_break=tie_break))
    try:
        games.update(game_id, credential, update, if_match=form.get("version") or None)
    except InvalidInput as error:
        for problem in error.problems:
            errors.setdefault("game_name" if problem.field == "name" else problem.field, []).append(problem.message)
        return _keeper_answer(request, games, game_id, rules_form={"values": typed, "errors": errors}, status=422)
    except VersionMismatch:
        return _keeper_answer(
            request,
            games,
            game_id,
            rules_form={
                "values": typed,
                "errors": {"rules": ["The game changed on another device: save again."]},
            },
            status=409,
        )
    except GameError as error:
        return _refused(request, game_id, error)
    return _keeper_answer(request, games, game_id)


@router.post("/g/{game_id}/rematch", name="rematch_page")
async def rematch_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    """A new game with the same players (from zero) and the same house rules."""
    form = await _form(request)
    try:
        keeper_credential(request, game_id, form.get("csrf"))
        view = games.get(game_id)
    except GameError as error:
        return _refused(request, game_id, error)
    if not key_matches(cookie_key(request, game_id).key, view.game.edit_key_hash):
        return _refused(request, game_id, KeyWrong("That is not this game's edit key."))
    rules = view.rules
    data = GameCreate(
        name=view.game.name,
        players=[PlayerCreate(name=p.name) for p in view.players],
        rules=RulesCreate(
            target=rules.target,
            dutch_points=rules.dutch_points,
            blitz_points=rules.blitz_points,
            tie_break=rules.tie_break.value,
        ),
    )
    limit, client = request.app.state.limits.games, client_address(request)
    if wait := limit.reserve(client):
        return too_many_page(request, wait)
    try:
        outcome = games.create(data, urls_for(request))
    except InvalidInput as error:
        # Names stored before today's rules (for example only invisible characters) can't start a
        # new game as they are: say which, rather than fail.
        limit.release(client)
        return error_page(request, 422, f"This game's players can't start a rematch as they are: {error.detail}")
    except BaseException:
        limit.release(client)
        raise
    new_id = outcome.body["id"]
    response = go(request, request.app.url_path_for("keeper_page", game_id=new_id))
    set_edit_cookie(request, response, new_id, outcome.body["edit_key"])
    return response


@router.post("/g/{game_id}/key", name="rotate_key_page")
async def rotate_key_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    """New edit key: every old edit link, cookie and API key for this game stops working at once."""
    form = await _form(request)
    try:
        credential = keeper_credential(request, game_id, form.get("csrf"))
        new_key = games.rotate_key(game_id, credential, urls_for(request)).body["edit_key"]
    except GameError as error:
        return _refused(request, game_id, error)
    url = request.app.url_path_for("keeper_page", game_id=game_id) + "?handover=1"
    response = go(request, url)
    response.headers.update(keeper_headers())
    set_edit_cookie(request, response, game_id, new_key)
    return response
