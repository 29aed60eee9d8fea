"""The game pages: the scorekeeper's page and its form posts (round start, rounds, corrections, deletions,
a player's name or leave, a latecomer, house rules, rematch). The edit link and a new edit key are app.routes.handover's (who keeps score).

Routes raise: an unknown game, a refused key or a forged form goes up as a GameError, which the one
handler (app.http.problems, rendering app.web.render.refused_page) answers. What a form can fix (a rule
broken by the round typed, the game changed meanwhile) is caught here and shown beside the field.

Every form works as a plain post followed by a redirect (no JavaScript needed); with htmx the same
routes answer the `_game.html` fragment that the page itself includes. Over 400 lines (about 505): one
route per form of the scorekeeper's page, each a few lines of reading and answering, kept together as the
page is, since every one of them answers through `keeper_answer` and `_page_data` here and no route module
may import another. When it grows again, the players' forms (a name, a leave, a latecomer, a seat freed)
go to a module of their own once `keeper_answer` has moved into app.web.keeper.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from app.errors import (
    CantRevert,
    GameIsOver,
    GameNotFound,
    IdempotencyKeyReused,
    InvalidInput,
    KeyWrong,
    TooManyRounds,
    VersionMismatch,
)
from app.games.viewcache import cached_view
from app.games.views import GameView, game_table
from app.http.ratelimit import client_address
from app.i18n import _
from app.idempotency import Idempotency
from app.preconditions import none_match
from app.routes.deps import ChangeId, GameId, Games, GamesDep, PlayerId, RoundNumber
from app.rules import scoring
from app.schemas import GameCreate, GameUpdate, PlayerCreate, RoundIn, RulesCreate, RulesUpdate, SeatSettings
from app.security import (
    HANDED_OVER,
    STALE_KEY,
    cookie_key,
    edit_cookie_name,
    keeper_credential,
    key_matches,
    set_edit_cookie,
    table_cookie_key,
)
from app.tables.nights import night_lead
from app.tables.roster import RematchOf
from app.web.changes import SHOWN
from app.web.context import Done, GameData, Keeper
from app.web.entry import (
    RoundForm,
    RoundFormInvalid,
    parse_round,
    round_errors,
    round_form,
    typed_counts,
    unchanged_rounds,
)
from app.web.forms import (
    ALL_PARAMS,
    NOT_A_NUMBER,
    beside_the_fields,
    read_form,
    read_rules,
    rules_problem_text,
    whole_number,
)
from app.web.keeper import done_text, keeper_fragment, keeper_redirect, loaded_view, refilled
from app.web.render import (
    OFFLINE_COPY,
    error_page,
    fragment_etag,
    go,
    is_htmx,
    keeper_headers,
    templates,
    too_many_page,
)

router = APIRouter(include_in_schema=False)


@router.get("/g/{game_id}/score", response_class=HTMLResponse, name="keeper_page")
def keeper_page(
    request: Request,
    game_id: GameId,
    games: GamesDep,
    edit: int | None = None,
    delete: int | None = None,
    handover: Annotated[str | None, Query(max_length=10)] = None,
    delete_game: bool = False,
    saved: int | None = None,
    corrected: int | None = None,
    undone: int | None = None,
    reverted: int | None = None,
    taken: bool = False,
    seats: bool = False,
    since: Annotated[int | None, Query(ge=0)] = None,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> Response:
    """The scorekeeper's page, or its fragment for htmx. The page follows the game's event stream as
    the view page does (templates/game.html): its refresh sends the version it shows (`since`) and
    gets 204 while nothing is newer; when this browser's key stopped working meanwhile (the game was
    handed over, or a new edit link was made), it is sent to the view page, which says why. The
    fragment has an ETag (render.fragment_etag; 304 to it); the game comes from app.games.viewcache."""
    key = cookie_key(request, game_id).key
    version = None
    if since is not None and is_htmx(request):
        current = games.key_and_version(game_id)
        if current is not None and not key_matches(key, current[0]):
            url = request.app.url_path_for("view_page", game_id=game_id) + "?handed_over=1"
            return Response(status_code=204, headers={"HX-Redirect": url, "Vary": "HX-Request"} | keeper_headers())
        if current is not None and current[1] == since:
            return Response(status_code=204, headers={"Vary": "HX-Request"} | keeper_headers())
        version = current[1] if current is not None else None
    view = cached_view(games, game_id, version)
    if not key_matches(key, view.game.edit_key_hash):
        return _not_keeper(request, game_id, handed_over=key is not None)
    # No ETag with a handover link open: its token expires, so the same version is not the same answer.
    etag = fragment_etag(request, view, "keeper") if is_htmx(request) and not handover else None
    # Never a 304 while a round runs: the fragment carries the server's clock as it was rendered.
    if etag and view.game.round_started_at is None and none_match(request.headers.get("If-None-Match"), etag):
        return Response(status_code=304, headers={"ETag": etag, "Vary": "HX-Request"} | keeper_headers())
    rounds = len(view.round_ids)
    data = _page_data(request, games, view)
    if seats and not is_htmx(request) and not view.state.over:  # "Players enter their own": the seat link
        data = replace(data, seats_taken=frozenset(games.taken_seats(game_id)))
    form = RoundForm(number=edit) if edit and 1 <= edit <= rounds else None
    confirm = delete if delete and 1 <= delete <= rounds else None
    # After a tap without JavaScript (the redirect names the round or change): the confirmation htmx shows.
    done = None
    if not (form or confirm or delete_game):
        done = done_text(view, data.changes, saved=saved, corrected=corrected, undone=undone, reverted=reverted)
        form = refilled(data.changes, undone, rounds) if undone else None
    if taken and done is None and not (form or confirm or delete_game):
        done = Done(_("This phone keeps score now: it was handed over to you."))
    keeper = Keeper(
        form=form,
        confirm_delete=confirm,
        confirm_delete_game=delete_game and not confirm,
        handover={"1": "share", "move": "move"}.get(handover or ""),
        done=done,
    )
    # The page may be kept for offline use, unless it shows the edit link, a handover link or the seat link.
    offline = OFFLINE_COPY if handover is None and not seats and not is_htmx(request) else {}
    tagged = {"ETag": etag} if etag else {}
    return keeper_fragment(request, data, keeper, page=page, headers=offline | tagged)


def _page_data(request: Request, games: Games, view: GameView) -> GameData:
    """What the scorekeeper's page shows besides the game, read here from the use case: its latest
    changes, and its table (the whole page only: a live refresh of the fragment reads nothing more)."""
    table = None if is_htmx(request) else game_table(games.session, view.game)
    tonight = night_lead(games.session, view.game, view.state.over)  # a query only for a game over at a table
    # The rows sent from players' own phones for the round being played (app.games.seats): one small query.
    draft = games.draft_rows(view.game.id, len(view.round_ids) + 1) if not view.state.over else []
    return GameData(view, games.changes(view.game.id, limit=SHOWN), table, tonight, draft)


def keeper_answer(
    request: Request,
    games: Games,
    game_id: str,
    *,
    form: RoundForm | None = None,
    message: str | None = None,
    status: int = 200,
    rules_form: dict[str, Any] | None = None,
    players_form: dict[str, Any] | None = None,
    view: GameView | None = None,
    done: dict[str, int] | None = None,
    refused: tuple[int, str] | None = None,
    preserved: range | tuple[()] = (),
) -> Response:
    """After a keeper's post: redirect (no JavaScript), or the fresh fragment (htmx), rendered from
    `view` when the use case already has the game as it now stands. `done` names a round just saved,
    corrected or undone (its counts back in the form), or a change reverted, which the page confirms; `refused`: a revert refused, (change id, why), said beside
    that change; `preserved`: after a new round, the round cards the page already shows (left out)."""
    if status == 200 and form is None and message is None and not (rules_form or players_form) and not is_htmx(request):
        return keeper_redirect(request, game_id, done)
    view = view or games.get(game_id)
    data = _page_data(request, games, view)
    confirmed = done_text(view, data.changes, **done) if done else None
    if form is None and done and "undone" in done:  # the round just undone, its counts back in the form
        form = refilled(data.changes, done["undone"], len(view.round_ids))
    keeper = Keeper(
        form=form,
        message=message,
        rules_form=rules_form,
        players_form=players_form,
        done=confirmed,
        refused=refused,
        preserved=preserved,
    )
    return keeper_fragment(request, data, keeper, status=status)


def _not_keeper(request: Request, game_id: str, *, handed_over: bool) -> HTMLResponse:
    """A browser that does not keep score: `handed_over` when it holds a key that stopped working."""
    if is_htmx(request):  # a tap on the keeper's page after the key stopped working
        response = error_page(request, 403, _(STALE_KEY))
        response.headers.update(keeper_headers())
        return response
    context = {"game_id": game_id, "handed_over": handed_over, "notice": _(HANDED_OVER)}
    return templates.TemplateResponse(request, "not_keeper.html", context, status_code=403, headers=keeper_headers())


@router.post("/g/{game_id}/rounds", name="add_round_page")
async def add_round_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    return await _save_round(request, game_id, games, None)


@router.post("/g/{game_id}/rounds/{number}", name="replace_round_page")
async def replace_round_page(request: Request, game_id: GameId, number: RoundNumber, games: GamesDep) -> Response:
    return await _save_round(request, game_id, games, number)


async def _save_round(request: Request, game_id: str, games: Games, number: int | None) -> Response:
    """One load of the game: the use case loads it, reads the form against its players, checks and
    writes the round; the fragment is rendered from the game the write leaves (or, when refused,
    from the game as it was loaded)."""
    form = await read_form(request)
    credential = keeper_credential(request, game_id, form.get("csrf"))
    state = round_form(form, number)
    idempotency = Idempotency.of(state.request_id, "page round", number, typed_counts(form))
    version = form.get("version") or None

    def parse(view: GameView) -> RoundIn:
        return parse_round(state, view, form)

    try:
        if number is None:
            outcome = await run_in_threadpool(
                games.add_round, game_id, credential, parse, if_match=version, idempotency=idempotency
            )
        else:
            outcome = await run_in_threadpool(
                games.replace_round, game_id, number, credential, parse, if_match=version, idempotency=idempotency
            )
    except RoundFormInvalid as error:
        return keeper_answer(request, games, game_id, form=state, status=422, view=loaded_view(error))
    except InvalidInput as error:
        round_errors(state, error)
        return keeper_answer(request, games, game_id, form=state, status=422, view=loaded_view(error))
    except VersionMismatch:
        state.errors["round"] = [
            _("The game changed on another device while you typed. Check the scores below and save again.")
        ]
        if not state.values:  # refused before the form was read: show what was typed all the same
            state.values.update({k: v[:20] for k, v in typed_counts(form).items()})
        return keeper_answer(request, games, game_id, form=state, status=409)
    except (GameIsOver, TooManyRounds, GameNotFound, IdempotencyKeyReused) as error:
        # Said beside the round, with what was typed kept; a refused key goes to the one handler.
        state.errors["round"] = [error.detail]
        if not state.values:
            state.values.update({k: v[:20] for k, v in typed_counts(form).items()})
        return keeper_answer(request, games, game_id, form=state, status=error.status, view=loaded_view(error))
    shown = outcome.current  # None for a replay: the page shows the game as it stands now
    rounds = len(shown.round_ids) if shown else 0
    done = {"corrected": number} if number is not None else {"saved": rounds}
    unchanged = unchanged_rounds(request, outcome.version, rounds) if number is None and shown else ()
    return keeper_answer(request, games, game_id, view=shown, done=done, preserved=unchanged)


@router.post("/g/{game_id}/start", name="start_round_page")
async def start_round_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    """ "Start round": the countdown on every open page of the game (app.games.usecases.Games.start_round). No
    If-Match: starting is right whatever the page showed; a finished game says so beside the button."""
    form = await read_form(request)
    credential = keeper_credential(request, game_id, form.get("csrf"))
    try:
        outcome = await run_in_threadpool(games.start_round, game_id, credential)
    except GameIsOver as error:
        return keeper_answer(request, games, game_id, message=error.detail, status=409)
    return keeper_answer(request, games, game_id, view=outcome.current)


@router.post("/g/{game_id}/rounds/{number}/delete", name="delete_round_page")
async def delete_round_page(request: Request, game_id: GameId, number: RoundNumber, games: GamesDep) -> Response:
    form = await read_form(request)
    credential = keeper_credential(request, game_id, form.get("csrf"))
    try:
        outcome = await run_in_threadpool(
            games.delete_round, game_id, number, credential, if_match=form.get("version") or None
        )
    except VersionMismatch:
        return keeper_answer(
            request,
            games,
            game_id,
            message=_("The game changed on another device; nothing was deleted."),
            status=409,
        )
    # The last round's counts come back in the new round's form, read from the deletion's log entry
    # (app.web.keeper.refilled): an Undo is most often one digit wrong, fixed and saved again.
    last = number == len(outcome.view.round_ids) + 1
    return keeper_answer(request, games, game_id, view=outcome.current, done={"undone": number} if last else None)


@router.post("/g/{game_id}/changes/{change_id}/revert", name="revert_change_page")
async def revert_change_page(request: Request, game_id: GameId, change_id: ChangeId, games: GamesDep) -> Response:
    """One tap undoes a logged change (app.games.changes); a revert that can't be done says why beside it."""
    form = await read_form(request)
    credential = keeper_credential(request, game_id, form.get("csrf"))
    try:
        outcome = await run_in_threadpool(
            games.revert_change, game_id, change_id, credential, if_match=form.get("version") or None
        )
    except VersionMismatch:
        refused = (change_id, _("The game changed on another device; nothing was reverted. Check it and try again."))
        return keeper_answer(request, games, game_id, refused=refused, status=409)
    except (CantRevert, InvalidInput, TooManyRounds) as error:
        return keeper_answer(request, games, game_id, refused=(change_id, error.detail), status=error.status)
    return keeper_answer(request, games, game_id, view=outcome.current, done={"reverted": change_id})


@router.post("/g/{game_id}/delete", name="delete_game_page")
async def delete_game_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    """Delete the game (after the confirmation), then show its view link, which now says it is gone."""
    form = await read_form(request)
    credential = keeper_credential(request, game_id, form.get("csrf"))
    try:
        await run_in_threadpool(games.delete_game, game_id, credential, if_match=form.get("version") or None)
    except VersionMismatch:
        return keeper_answer(
            request, games, game_id, message=_("The game changed on another device; it was not deleted."), status=409
        )
    response = go(request, request.app.url_path_for("view_page", game_id=game_id))
    response.delete_cookie(edit_cookie_name(game_id), path="/")
    return response


@router.post("/g/{game_id}/players/{player_id}", name="rename_player_page")
async def rename_player_page(request: Request, game_id: GameId, player_id: PlayerId, games: GamesDep) -> Response:
    """A player renamed (a typo fixed), or gone or back (the form's `left` button: 1 or 0); a refusal comes back
    beside the player's field, the name as typed."""
    form = await read_form(request)
    typed = form.get("name", "")
    left = {"1": True, "0": False}.get(form.get("left", ""))
    credential = keeper_credential(request, game_id, form.get("csrf"))
    version = form.get("version") or None
    try:
        if left is None:
            outcome = await run_in_threadpool(
                games.rename_player, game_id, player_id, credential, typed[:1000], if_match=version
            )
        else:
            outcome = await run_in_threadpool(
                partial(games.update_player, game_id, player_id, credential, left=left, if_match=version)
            )
    except (InvalidInput, VersionMismatch, GameIsOver) as error:
        why = (
            error.detail
            if not isinstance(error, VersionMismatch)
            else _("The game changed on another device: save again.")
        )
        refused = {"player_id": player_id, "name": typed, "error": why}
        status = error.status if not isinstance(error, VersionMismatch) else 409
        return keeper_answer(request, games, game_id, players_form=refused, status=status)
    return keeper_answer(request, games, game_id, view=outcome.current)


@router.post("/g/{game_id}/players", name="add_player_page")
async def add_player_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    """A latecomer: a name and their starting score (in 31 their lives); a refusal comes back beside its field,
    both values as typed."""
    form = await read_form(request)
    typed = {"name": form.get("name", "")[:1000], "start": form.get("start", "").strip()[:40]}
    credential = keeper_credential(request, game_id, form.get("csrf"))
    lives = games.get(game_id).rules.kind == scoring.Kind.LIVES
    start = whole_number(typed["start"]) if typed["start"] else None
    if typed["start"] and start is None:
        # Not _(NOT_A_NUMBER["start"]): Babel before 2.19 extracts the subscript's "start" as a message.
        not_a_number = NOT_A_NUMBER["start"]
        why = _("Lives must be a whole number.") if lives else _(not_a_number)
        refused = {"join": True, **typed, "error": why, "field": "start"}
        return keeper_answer(request, games, game_id, players_form=refused, status=422)
    try:
        outcome = await run_in_threadpool(
            partial(
                games.add_player,
                game_id,
                credential,
                typed["name"],
                None if lives else start,
                start if lives else None,
                if_match=form.get("version") or None,
            )
        )
    except (InvalidInput, VersionMismatch, GameIsOver) as error:
        if isinstance(error, VersionMismatch):
            why, field, status = _("The game changed on another device: save again."), "name", 409
        else:
            problems = getattr(error, "problems", None) or []
            field = "name" if not problems or problems[0].field == "name" else "start"
            why, status = error.detail, error.status
        refused = {"join": True, **typed, "error": why, "field": field}
        return keeper_answer(request, games, game_id, players_form=refused, status=status)
    return keeper_answer(request, games, game_id, view=outcome.current)


@router.post("/g/{game_id}/seats/{player_id}/free", name="free_seat_page")
async def free_seat_page(request: Request, game_id: GameId, player_id: PlayerId, games: GamesDep) -> Response:
    """A player's seat freed (a lost phone, another phone for them): its key stops working."""
    form = await read_form(request)
    credential = keeper_credential(request, game_id, form.get("csrf"))
    await run_in_threadpool(games.free_seat, game_id, player_id, credential)
    return go(request, request.app.url_path_for("keeper_page", game_id=game_id) + "?seats=1#seats")


@router.post("/g/{game_id}/seats", name="seat_settings_page")
async def seat_settings_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    """The two seat settings, as the boxes are ticked: the round saves by itself once every row is in, and
    the view page offers the seat link."""
    form = await read_form(request)
    credential = keeper_credential(request, game_id, form.get("csrf"))
    settings = SeatSettings(save_round=form.get("save_round") == "1", on_view=form.get("on_view") == "1")
    await run_in_threadpool(games.update, game_id, credential, GameUpdate.model_construct(seats=settings))
    return go(request, request.app.url_path_for("keeper_page", game_id=game_id) + "?seats=1#seats")


@router.post("/g/{game_id}/rules", name="rules_page")
async def rules_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    """The game's name and the parameters of its kind (the form shows only those). A parameter the form
    does not send is left as it is; one sent empty is refused, since the form shows every value."""
    form = await read_form(request)
    typed = read_rules(form, ALL_PARAMS, required=True)
    values = typed.typed | {"game_name": form.get("game_name", "")}
    credential = keeper_credential(request, game_id, form.get("csrf"))
    if typed.unreadable:  # what could not be read; the use case judges the rest once it can be
        view = games.get(game_id)
        errors = beside_the_fields(typed.messages(view.rules.preset), view.rules)
        return _rules_refused(request, games, view, values, errors, 422)
    # Built without pydantic's range checks (model_construct): the use case checks, with the messages.
    update = GameUpdate.model_construct(
        name=form.get("game_name", "")[:1000], rules=RulesUpdate.model_construct(**typed.params)
    )
    try:
        await run_in_threadpool(games.update, game_id, credential, update, if_match=form.get("version") or None)
    except InvalidInput as error:
        view = games.get(game_id)
        errors: dict[str, list[str]] = {}
        for problem in error.problems:
            field = "game_name" if problem.field == "name" else problem.field
            errors.setdefault(field, []).append(rules_problem_text(problem, view.rules.preset))
        return _rules_refused(request, games, view, values, beside_the_fields(errors, view.rules), 422)
    except VersionMismatch:
        errors = {"rules": [_("The game changed on another device: save again.")]}
        return _rules_refused(request, games, games.get(game_id), values, errors, 409)
    return keeper_answer(request, games, game_id)


def _rules_refused(
    request: Request, games: Games, view: GameView, values: dict[str, str], errors: dict[str, list[str]], status: int
) -> Response:
    """The rules form back open, with what was typed and the messages (templates/_rules_form.html)."""
    rules_form = {"values": values, "errors": errors}
    return keeper_answer(request, games, view.game.id, rules_form=rules_form, status=status, view=view)


@router.post("/g/{game_id}/rematch", name="rematch_page")
async def rematch_page(request: Request, game_id: GameId, games: GamesDep) -> Response:
    """A new game with the same players (from zero) and the same house rules."""
    form = await read_form(request)
    key = keeper_credential(request, game_id, form.get("csrf"))
    view = games.get(game_id)
    if not key_matches(key.key, view.game.edit_key_hash):
        raise KeyWrong(_("That is not this game's edit key."))
    rules = view.rules
    # As stored, unchecked (model_construct): the use case judges a game kept under older limits.
    table_id = view.game.table_id  # a game at a table plays its rematch there (None: one of its own, as ever)
    data = GameCreate.model_construct(
        name=view.game.name,
        players=[PlayerCreate.model_construct(name=p.name, starting_score=0) for p in view.players],
        rules=RulesCreate.model_construct(**scoring.public_rules(rules)),
        table_id=table_id,
    )
    at_table: dict[str, Any] = {}
    if table_id:  # this game's key starts it there when this browser doesn't hold the table's (app.tables.usecases)
        at_table = {"table_credential": table_cookie_key(request, table_id), "rematch_of": RematchOf(game_id, key)}
    limit, client = request.app.state.limits.games, client_address(request)
    if wait := limit.reserve(client):
        return too_many_page(request, wait)
    try:
        outcome = await run_in_threadpool(games.create, data, **at_table)
    except InvalidInput as error:
        # Names stored before today's rules (for example only invisible characters) can't start a
        # new game as they are: say which, rather than fail.
        limit.release(client)
        detail = _("This game's players can't start a rematch as they are: {problems}").format(problems=error.detail)
        return error_page(request, 422, detail)
    except BaseException:
        limit.release(client)
        raise
    new_id = outcome.game_id
    response = go(request, request.app.url_path_for("keeper_page", game_id=new_id))
    set_edit_cookie(request, response, new_id, outcome.edit_key)
    return response
