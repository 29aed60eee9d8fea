"""The start page: the new-game form (at a table too: `/?table={id}` offers its roster to tick, the people of
its last game ticked), "Your games" and
"Your tables" (what this browser keeps, from its cookies), and the "New table" form."""

from __future__ import annotations

import math
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from app.errors import InvalidInput, KeyMissing, KeyWrong
from app.games.game_rules import new_game
from app.games.views import load_views
from app.http.ratelimit import client_address, retry_after_header, wrong_key_wait
from app.i18n import _, join_names, pgettext, problem_text
from app.routes.deps import Games, GamesDep, TableQuery, TablesDep
from app.rules import scoring
from app.schemas import GameCreate, PersonIn, PlayerCreate, RulesCreate, TableCreate
from app.security import (
    EDIT_COOKIE_PREFIX,
    NOT_AT_TABLE,
    STALE_TABLE_KEY,
    FormRefused,
    edit_cookie_name,
    key_matches,
    same_origin,
    set_edit_cookie,
    set_table_cookie,
    table_cookie_name,
    table_keeper_credential,
)
from app.tables.nights import last_players
from app.tables.roster import MAX_PEOPLE, missing_table
from app.web.forms import (
    FLAGS,
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
from app.web.render import OFFLINE_COPY, error_page, go, is_htmx, keeper_headers, render, too_many_page
from app.web.tables import new_table_form, table_binding, your_tables

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
def start_page(
    request: Request,
    games: GamesDep,
    table: TableQuery = None,
    after: Annotated[str | None, Query(max_length=32)] = None,
) -> HTMLResponse:
    """The start page; `table`: its new-game form starts the game at that table ("New game at this
    table"), for the browser that holds the table's key (any other is told why, and starts its own).
    `after`: a game of that table to play again with changes ("Rematch with other players" on its
    banner): its people ticked and its game and house rules filled in, instead of the last game's people.
    An id that is no game of the table is ignored."""
    rows, stale = _your_games(request, games)
    tables, stale_tables = your_tables(request, games.session)
    new = new_game_form()
    if table:
        binding = table_binding(request, games.session, table)
        if binding is None:
            raise missing_table(table)
        if binding["keeper"]:
            # The last game's people ticked: a table night's next game is one tap (a new table: nobody).
            preset, rules = scoring.DEFAULT_PRESET, {}
            followed = [g for g in games.existing([after]) if g.table_id == binding["id"]] if after else []
            if followed:
                view = load_views(games.session, followed)[0]
                again = {p.person_id for p in view.players}
                preset, rules = view.rules.preset, _rules_as_typed(view.rules)
            else:
                again = last_players(games.session, binding["id"])
            ticked = {p["field"]: "1" for p in binding["people"] if p["id"] in again}
            new = new_game_form(preset, ticked | rules, players=1, table=binding)
        else:
            new["errors"] = {"form": [_(NOT_AT_TABLE)]}
    context = {"new": new, "new_table": new_table_form(), "your_games": rows, "your_tables": tables}
    response = render(request, "start.html", context)
    if table:  # the form carries the table's CSRF token: not cached, not sent on as a referrer
        response.headers.update(keeper_headers())
    else:
        response.headers.update(OFFLINE_COPY)
    for game_id in stale:
        response.delete_cookie(edit_cookie_name(game_id), path="/")
    for table_id in stale_tables:
        response.delete_cookie(table_cookie_name(table_id), path="/")
    return response


def _rules_as_typed(rules: scoring.Rules) -> dict[str, str]:
    """A game's house rules as the start page's fields hold them (app.web.forms.read_rules reads them back)."""
    stored = scoring.public_rules(rules)
    return {
        name: ("1" if stored[name] else "") if name in FLAGS else str(stored[name])
        for name in scoring.PARAMS[rules.kind]
        if name in stored
    }


@router.post("/games", name="create_game_page")
async def create_game_page(request: Request, games: GamesDep) -> Response:
    if not same_origin(request):  # another site's page can't start games in this browser
        return error_page(request, 403, _("This form came from another site: start your game on this one."))
    form = await read_form(request)
    # At a table (the form's hidden table_id): its roster is ticked, and the name fields are for newcomers.
    table_id = form.get("table_id", "")[:32]
    binding = table_binding(request, games.session, table_id) if table_id else None
    low = 1 if binding else scoring.MIN_PLAYERS
    count = max(low, min(scoring.MAX_PLAYERS, safe_int(form.get("player_count"), low)))
    # A game picked on the form: htmx posts it on the radio's change and names that field (no hx-vals,
    # an attribute that can carry more than a name); without JavaScript, "Show its rules" says it.
    picked = is_htmx(request) and request.headers.get("HX-Trigger-Name") == "preset"
    action = form.get("action", "preset" if picked else "start")
    names = [form.get(f"player-{i}", "") for i in range(count)]
    starts = [form.get(f"start-{i}", "") for i in range(count)]
    if action == "start":  # a last field left empty (one more asked for by Enter, then none typed) is no player
        while len(names) > low and not names[-1].strip() and not starts[-1].strip():
            del names[-1], starts[-1]
    typed = _Typed(form, names, starts, binding)

    if action == "add" and count < scoring.MAX_PLAYERS:
        names.append("")
        starts.append("")
    elif action.startswith("remove-") and count > low:
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
        response, created = await _start_game(request, games, typed)
        return response
    finally:
        if not created:
            limit.release(client)


class _Typed:
    """The start page's form as posted: the game picked, the players' names and starting scores (lists
    that "+ Add player" and "✕" change), and the rules fields, which belong to the game they were shown
    for (`shown_preset`): picking another game brings its own."""

    def __init__(self, form: FormDict, names: list[str], starts: list[str], table: dict[str, Any] | None = None):
        self.form, self.names, self.starts = form, names, starts
        self.table = table  # the table it is started at (app.web.tables.table_binding), its roster to tick
        self.table_id = form.get("table_id", "")[:32]
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

    def entries(self) -> list[tuple[str, str, str, str]]:
        """The players as typed, in their seats: (name field, starting score field, name, starting score).
        At a table: the people ticked, in the roster's order, then each name field filled in (an empty
        one is no newcomer); elsewhere every name field, empty or not."""
        numbered = [
            (f"player-{i}", f"start-{i}", n, s) for i, (n, s) in enumerate(zip(self.names, self.starts, strict=True))
        ]
        if self.table is None:
            return numbered
        ticked = [(p["field"], p["start"], p["name"], self.form.get(p["start"], "")) for p in self.ticked()]
        return ticked + [entry for entry in numbered if entry[2].strip() or entry[3].strip()]

    def ticked(self) -> list[dict[str, Any]]:
        return [p for p in (self.table or {}).get("people", []) if self.form.get(p["field"])]


async def _start_game(request: Request, games: Games, typed: _Typed) -> tuple[Response, bool]:
    """Create the game from the start page's form: the answer, and whether a game was made.

    The form only reads what was typed; the use case's one check of a new game (games.new_game)
    judges it, and its problems are put beside their fields. At a table, the post needs this browser's
    key to it (its cookie) and the form's CSRF token; the use case then checks the key."""
    form, preset = typed.form, typed.preset
    if typed.switched and changed_rules(form, typed.shown):
        # Another game was picked without JavaScript after house rules were typed for the one shown:
        # they were not meant for this one. Its own rules come back to check.
        message = _("You picked another game: check its rules below, then start the game.")
        return _new_game_response(request, games, typed, {"form": [message]}, status=422, show_rules=True), False
    if typed.table_id and typed.table is None:  # the table is gone (or the id was never one)
        message = problem_text(scoring.Problem("table_unknown", field="table_id"))
        return _new_game_response(request, games, typed, {"form": [message]}, status=422), False
    credential = None
    if typed.table is not None:
        try:
            credential = table_keeper_credential(request, typed.table["id"], form.get("csrf"))
        except FormRefused as error:
            return _new_game_response(request, games, typed, {"form": [error.detail]}, status=403), False
    errors: dict[str, list[str]] = {}
    players = []
    entries = typed.entries()
    for _name_field, start_field, name, start in entries:
        score = form_int({"s": start}, "s", 0, NOT_A_NUMBER["start"], errors)
        if "s" in errors:
            errors[start_field] = errors.pop("s")
        players.append(PlayerCreate.model_construct(name=name[:1000], starting_score=score))
    errors |= typed.rules.messages(preset)
    # Built without pydantic's range checks (model_construct): the use case checks, with the messages.
    data = GameCreate.model_construct(
        name=form.get("game_name", "")[:1000],
        players=players,
        rules=RulesCreate.model_construct(preset=preset, **typed.rules.params),
        table_id=typed.table["id"] if typed.table else None,
    )
    try:
        if errors:  # something could not be read: make nothing, and say what else is wrong too
            new_game(data)
        else:
            outcome = await run_in_threadpool(games.create, data, table_credential=credential)
    except InvalidInput as error:
        for problem in error.problems:
            fields = entries[problem.index] if problem.index is not None and problem.index < len(entries) else None
            key = {"name": fields[0], "starting_score": fields[1]}.get(problem.field) if fields else None
            key = key or {"table_id": "form"}.get(problem.field, problem.field)
            errors.setdefault(key, []).append(rules_problem_text(problem, preset))
    except (KeyWrong, KeyMissing):  # the table's key was replaced since this browser got it
        # Counted as a wrong key, as everywhere a key is checked: guesses are limited here too.
        if wait := wrong_key_wait(request):
            return too_many_page(request, wait), False
        return _new_game_response(request, games, typed, {"form": [_(STALE_TABLE_KEY)]}, status=403), False
    if errors:
        return _new_game_response(request, games, typed, errors, status=422), False
    game_id = outcome.game_id
    response = go(request, request.app.url_path_for("keeper_page", game_id=game_id))
    set_edit_cookie(request, response, game_id, outcome.edit_key)
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
    if typed.table is not None:  # the people ticked and their starting scores, as typed
        values |= {p["field"]: "1" for p in typed.ticked()}
        values |= {p["start"]: typed.form.get(p["start"], "")[:20] for p in typed.table["people"]}
    new = new_game_form(typed.preset, values, len(typed.names), errors, show_rules=show_rules, table=typed.table)
    return _page(request, games, new | {"focus": focus}, status=status, fragment="_new_game_form.html")


def _page(
    request: Request,
    games: Games,
    new: dict[str, Any],
    *,
    new_table: dict[str, Any] | None = None,
    status: int = 200,
    fragment: str,
) -> HTMLResponse:
    """The start page with a form back from its post (htmx swaps only that form: "Your games" and
    "Your tables" are for the whole page, not a query per click on "+ Add player")."""
    whole = not is_htmx(request)
    context = {
        "new": new,
        "new_table": new_table or new_table_form(),
        "your_games": _your_games(request, games)[0] if whole else [],
        "your_tables": your_tables(request, games.session)[0] if whole else [],
    }
    return render(request, "start.html", context, fragment=fragment, status=status)


# --- a new table ------------------------------------------------------------------------------------


@router.post("/tables", name="create_table_page")
async def create_table_page(request: Request, games: GamesDep, tables: TablesDep) -> Response:
    """ "New table": its name and, one per line, the people to start its roster with. This browser keeps
    the new table's key (a cookie, as a game's) and goes to its page. Counted with the new games, as the
    API's `POST /tables` is."""
    if not same_origin(request):
        return error_page(request, 403, _("This form came from another site: start your game on this one."))
    form = await read_form(request)
    values = {"table_name": form.get("table_name", "")[:1000], "people": form.get("people", "")[:20_000]}
    # One name per line; blank lines are skipped, and a message names the line as the field numbers it.
    numbered = [(number, line) for number, line in enumerate(values["people"].splitlines(), 1) if line.strip()]
    lines = [line for _number, line in numbered]

    def refused(errors: dict[str, list[str]], status: int) -> HTMLResponse:
        return _page(request, games, new_game_form(), new_table=new_table_form(values, errors), status=status,
                     fragment="_new_table_form.html")  # fmt: skip

    if len(lines) > MAX_PEOPLE:
        return refused(
            {"people": [problem_text(scoring.Problem("roster_full", "people", params={"max": MAX_PEOPLE}))]}, 422
        )
    limit, client = request.app.state.limits.games, client_address(request)
    if wait := limit.reserve(client):
        message = _("Too many new games from this network: try again in {seconds} s.").format(seconds=math.ceil(wait))
        response = refused({"form": [message]}, 429)
        response.headers.update(retry_after_header(wait))
        return response
    data = TableCreate.model_construct(
        name=values["table_name"], people=[PersonIn.model_construct(name=line[:1000]) for line in lines]
    )
    try:
        outcome = await run_in_threadpool(tables.create, data)
    except InvalidInput as error:
        limit.release(client)
        errors: dict[str, list[str]] = {}
        for problem in error.problems:
            if problem.field == "table_name":
                errors.setdefault("table_name", []).append(problem_text(problem))
            else:  # a person's name: which line
                number = numbered[problem.index or 0][0]
                line = _("Line {number}: {problem}").format(number=number, problem=problem_text(problem))
                errors.setdefault("people", []).append(line)
        return refused(errors, 422)
    except BaseException:
        limit.release(client)
        raise
    table_id = outcome.table_id
    response = go(request, request.app.url_path_for("table_page", table_id=table_id))
    set_table_cookie(request, response, table_id, outcome.edit_key)
    return response
