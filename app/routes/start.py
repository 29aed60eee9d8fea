"""The start page: the new-game form and "Your games" (the games this browser keeps score of)."""

from __future__ import annotations

import math
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app import scoring
from app.errors import (
    InvalidInput,
)
from app.games import Games, new_game
from app.i18n import _, join_names, pgettext
from app.ratelimit import client_address, retry_after_header
from app.routes.deps import GamesDep
from app.schemas import GameCreate, PlayerCreate, RulesCreate
from app.security import (
    EDIT_COOKIE_PREFIX,
    edit_cookie_name,
    key_matches,
    same_origin,
    set_edit_cookie,
)
from app.urls import urls_for
from app.views import load_views
from app.web.forms import (
    NOT_A_NUMBER,
    FormDict,
    TypedRules,
    changed_rules,
    form_int,
    new_game_form,
    read_form,
    read_rules,
    rules_problem_text,
    safe_int,
)
from app.web.render import error_page, go, is_htmx, render

router = APIRouter(include_in_schema=False)

MAX_YOUR_GAMES = 20


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
                "title": game.name or join_names(p.name for p in view.players),
                "players": join_names(p.name for p in view.players),
                "rounds": len(view.round_ids),
                # Shown as it is: in the reader's language.
                "status": pgettext("game status", "finished")
                if view.state.over
                else pgettext("game status", "playing"),
                "url": request.app.url_path_for("keeper_page", game_id=game.id),
            }
        )
    return rows, stale


@router.get("/", response_class=HTMLResponse, name="start_page")
def start_page(request: Request, games: GamesDep) -> HTMLResponse:
    rows, stale = _your_games(request, games)
    response = render(request, "start.html", {"new": new_game_form(), "your_games": rows})
    for game_id in stale:
        response.delete_cookie(edit_cookie_name(game_id), path="/")
    return response


@router.post("/games", name="create_game_page")
async def create_game_page(request: Request, games: GamesDep) -> Response:
    if not same_origin(request):  # another site's page can't start games in this browser
        return error_page(request, 403, _("This form came from another site: start your game on this one."))
    form = await read_form(request)
    count = max(scoring.MIN_PLAYERS, min(scoring.MAX_PLAYERS, safe_int(form.get("player_count"), 2)))
    # A game picked on the form: htmx posts it on the radio's change and names that field (no hx-vals,
    # an attribute that can carry more than a name); without JavaScript, "Show its rules" says it.
    picked = is_htmx(request) and request.headers.get("HX-Trigger-Name") == "preset"
    action = form.get("action", "preset" if picked else "start")
    names = [form.get(f"player-{i}", "") for i in range(count)]
    starts = [form.get(f"start-{i}", "") for i in range(count)]
    typed = _Typed(form, names, starts)

    if action == "add" and count < scoring.MAX_PLAYERS:
        names.append("")
        starts.append("")
    elif action.startswith("remove-") and count > scoring.MIN_PLAYERS:
        drop = safe_int(action.removeprefix("remove-"), -1)
        if 0 <= drop < count:
            del names[drop], starts[drop]
    if action != "start":
        focus = f"player-{len(names) - 1}" if action == "add" else None  # the field just added
        # "preset": another game picked (or its rules asked for): its fields, with its rules shown.
        return _new_game_response(request, games, typed, {}, focus=focus, show_rules=action == "preset")
    limit, client = request.app.state.limits.games, client_address(request)
    if wait := limit.reserve(client):  # given back below unless a game is made
        message = _("Too many new games from this network: try again in {seconds} s.").format(seconds=math.ceil(wait))
        response = _new_game_response(request, games, typed, {"form": [message]}, status=429)
        response.headers.update(retry_after_header(wait))
        return response
    created = False
    try:
        response, created = _start_game(request, games, typed)
        return response
    finally:
        if not created:
            limit.release(client)


class _Typed:
    """The start page's form as posted: the game picked, the players' names and starting scores (lists
    that "+ Add player" and "✕" change), and the rules fields, which belong to the game they were shown
    for (`shown_preset`): picking another game brings its own."""

    def __init__(self, form: FormDict, names: list[str], starts: list[str]):
        self.form, self.names, self.starts = form, names, starts
        preset = form.get("preset", "")
        self.preset = preset if preset in scoring.PRESETS else scoring.DEFAULT_PRESET
        shown = form.get("shown_preset", "")
        # A form without it (an older page, a script) showed the fields of the game it names.
        self.shown = shown if shown in scoring.PRESETS else self.preset
        self.kind = scoring.PRESETS[self.preset].kind
        self.rules = read_rules(form, scoring.PARAMS[self.kind]) if self.shown == self.preset else TypedRules()

    @property
    def switched(self) -> bool:
        return self.shown != self.preset


def _start_game(request: Request, games: Games, typed: _Typed) -> tuple[Response, bool]:
    """Create the game from the start page's form: the answer, and whether a game was made.

    The form only reads what was typed; the use case's one check of a new game (games.new_game)
    judges it, and its problems are put beside their fields."""
    form, preset = typed.form, typed.preset
    if typed.switched and changed_rules(form, typed.shown):
        # Another game was picked without JavaScript after house rules were typed for the one shown:
        # they were not meant for this one. Its own rules come back to check.
        message = _("You picked another game: check its rules below, then start the game.")
        return _new_game_response(request, games, typed, {"form": [message]}, status=422, show_rules=True), False
    errors: dict[str, list[str]] = {}
    players = []
    for i, (name, start) in enumerate(zip(typed.names, typed.starts, strict=True)):
        score = form_int({"s": start}, "s", 0, NOT_A_NUMBER["start"], errors)
        if "s" in errors:
            errors[f"start-{i}"] = errors.pop("s")
        players.append(PlayerCreate.model_construct(name=name[:1000], starting_score=score))
    errors |= typed.rules.messages(preset)
    # Built without pydantic's range checks (model_construct): the use case checks, with the messages.
    data = GameCreate.model_construct(
        name=form.get("game_name", "")[:1000],
        players=players,
        rules=RulesCreate.model_construct(preset=preset, **typed.rules.params),
    )
    try:
        if errors:  # something could not be read: make nothing, and say what else is wrong too
            new_game(data)
        else:
            outcome = games.create(data, urls_for(request))
    except InvalidInput as error:
        for problem in error.problems:
            key = {"name": f"player-{problem.index}", "starting_score": f"start-{problem.index}"}.get(
                problem.field, problem.field
            )
            errors.setdefault(key, []).append(rules_problem_text(problem, preset))
    if errors:
        return _new_game_response(request, games, typed, errors, status=422), False
    game_id = outcome.body["id"]
    response = go(request, request.app.url_path_for("keeper_page", game_id=game_id))
    set_edit_cookie(request, response, game_id, outcome.body["edit_key"])
    return response, True


def _new_game_response(
    request: Request,
    games: Games,
    typed: _Typed,
    errors: dict[str, list[str]],
    status: int = 200,
    focus: str | None = None,
    show_rules: bool = False,
) -> HTMLResponse:
    values = {"game_name": typed.form.get("game_name", "")} | typed.rules.typed
    values |= {f"player-{i}": n for i, n in enumerate(typed.names)}
    values |= {f"start-{i}": s for i, s in enumerate(typed.starts)}
    new = new_game_form(typed.preset, values, len(typed.names), errors, show_rules=show_rules) | {"focus": focus}
    # htmx swaps only the form: "Your games" (a query per click on "+ Add player") is for the whole page.
    rows = [] if is_htmx(request) else _your_games(request, games)[0]
    return render(
        request,
        "start.html",
        {"new": new, "your_games": rows},
        fragment="_new_game_form.html",
        status=status,
    )
