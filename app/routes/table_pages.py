"""The table pages: a table's page for anyone with its link (`/t/{id}`: its standings,
head-to-head and latest awards for the period in the query, app.web.periods), a person's page
(`/t/{id}/p/{person_id}`), its edit link (`/t/{id}/edit/{key}`, which leaves the key in an HttpOnly
cookie), and the forms of the browser that holds the table's key: rename the table, add, rename and
remove people, a new table link.

As the game pages: every form is a plain post followed by a redirect (no JavaScript needed), and with
htmx the same routes answer the `_table.html` fragment the page includes; what a form can fix (a name
refused, a person who has played) comes back beside the field with what was typed. A forged or stale
post is refused (403) before anything changes. New games at the table start on the start page
(`/?table={id}`, app.routes.start), and a rematch keeps its table (app.routes.game_pages).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.errors import InvalidInput, KeyMissing, KeyWrong, PersonHasGames
from app.http.ratelimit import wrong_key_wait
from app.i18n import _, problem_text
from app.models import utcnow
from app.routes.deps import PersonId, TableId, Tables, TablesDep
from app.schemas import PersonIn, TableUpdate
from app.security import (
    STALE_TABLE_KEY,
    Credential,
    key_matches,
    set_table_cookie,
    table_cookie_name,
    table_keeper_credential,
)
from app.tables.roster import missing_table
from app.web.forms import FormDict, read_form
from app.web.periods import read_period
from app.web.person import person_context
from app.web.render import error_page, go, is_htmx, keeper_headers, render, too_many_page
from app.web.tables import TableForm, table_context, table_period

router = APIRouter(include_in_schema=False)


@router.get("/t/{table_id}", response_class=HTMLResponse, name="table_page")
def table_page(request: Request, table_id: TableId, tables: TablesDep, share: bool = False) -> Response:
    """The table's page, or its fragment for htmx (`#table`: after a keeper's form, or a period picked,
    so the forms' actions keep the period too). `share`: the keeper's "Share editing" shows the edit
    link (as a game's ?handover=1 does). The period is in the query (app.web.periods); a `from` that
    is no date comes back beside its field (422)."""
    period = table_period(request, tables.session, table_id)
    context = table_context(request, tables.session, table_id, share=share, period=period)
    # The keeper's page carries the right to change the table (and with `share`, the key itself).
    headers = keeper_headers() if context["keeper"] else None
    status = 422 if period.error else 200
    return render(request, "table.html", context, fragment="_table.html", status=status, headers=headers)


@router.get("/t/{table_id}/p/{person_id}", response_class=HTMLResponse, name="person_page")
def person_page(request: Request, table_id: TableId, person_id: PersonId, tables: TablesDep) -> Response:
    """A person's page at the table: their figures, head-to-head, games and results over time, for the
    period in the query (as the table's page). Someone of another table is a 404 here."""
    period = read_period(request.query_params, utcnow())
    context = person_context(request, tables.session, table_id, person_id, period)
    return render(request, "person.html", context, status=422 if period.error else 200)


@router.get("/t/{table_id}/edit/{edit_key}", name="claim_table_link")
def claim_table_link(request: Request, table_id: TableId, edit_key: str, tables: TablesDep) -> Response:
    """The table's edit link: remember the key in an HttpOnly cookie, then leave the URL that carries it."""
    key_hash = tables.key_hash(table_id)
    if key_hash is None:
        raise missing_table(table_id)
    if not key_matches(edit_key, key_hash):
        if wait := wrong_key_wait(request):
            return too_many_page(request, wait)
        detail = _("This edit link is not valid any more: ask whoever keeps the table for a new one.")
        response = error_page(request, 403, detail)
        response.headers.update(keeper_headers())
        return response
    response = RedirectResponse(request.app.url_path_for("table_page", table_id=table_id), status_code=303)
    response.headers.update(keeper_headers())
    set_table_cookie(request, response, table_id, edit_key)
    return response


async def _posted(request: Request, table_id: str) -> tuple[FormDict, Credential]:
    """The form and this browser's key to the table (a forged or cookieless post is refused here)."""
    form = await read_form(request)
    return form, table_keeper_credential(request, table_id, form.get("csrf"))


def _answer(
    request: Request,
    tables: Tables,
    table_id: str,
    *,
    form: TableForm | None = None,
    status: int = 200,
) -> Response:
    """After a keeper's post: redirect (no JavaScript), or the fresh fragment (htmx); a form back with its
    messages either way."""
    if form is None and not is_htmx(request):
        # Back to the period the page showed (its forms post to it: app.web.tables.table_context).
        period = table_period(request, tables.session, table_id)
        page = request.app.url_path_for("table_page", table_id=table_id) + period.query
        return RedirectResponse(page, status_code=303)
    context = table_context(request, tables.session, table_id, form=form)
    return render(request, "table.html", context, fragment="_table.html", status=status, headers=keeper_headers())


def _stale_key(request: Request, table_id: str) -> Response:
    """The use case found this browser's key replaced: say so (counted as a wrong key), and forget it."""
    if wait := wrong_key_wait(request):
        return too_many_page(request, wait)
    response = error_page(request, 403, _(STALE_TABLE_KEY))
    response.headers.update(keeper_headers())
    response.delete_cookie(table_cookie_name(table_id), path="/")
    return response


def _refused(error: InvalidInput) -> list[str]:
    return [problem_text(problem) for problem in error.problems]


@router.post("/t/{table_id}/name", name="rename_table_page")
async def rename_table_page(request: Request, table_id: TableId, tables: TablesDep) -> Response:
    form, credential = await _posted(request, table_id)
    typed = form.get("table_name", "")[:1000]
    try:
        await run_in_threadpool(tables.update, table_id, credential, TableUpdate.model_construct(name=typed))
    except InvalidInput as error:
        refused = TableForm({"table_name": typed}, {"table_name": _refused(error)})
        return _answer(request, tables, table_id, form=refused, status=422)
    except (KeyWrong, KeyMissing):
        return _stale_key(request, table_id)
    return _answer(request, tables, table_id)


@router.post("/t/{table_id}/people", name="add_person_page")
async def add_person_page(request: Request, table_id: TableId, tables: TablesDep) -> Response:
    form, credential = await _posted(request, table_id)
    typed = form.get("name", "")[:1000]
    try:
        await run_in_threadpool(tables.add_person, table_id, credential, PersonIn.model_construct(name=typed))
    except InvalidInput as error:
        refused = TableForm({"person_name": typed}, {"person_name": _refused(error)})
        return _answer(request, tables, table_id, form=refused, status=422)
    except (KeyWrong, KeyMissing):
        return _stale_key(request, table_id)
    return _answer(request, tables, table_id)


@router.post("/t/{table_id}/people/{person_id}", name="rename_person_page")
async def rename_person_page(request: Request, table_id: TableId, person_id: PersonId, tables: TablesDep) -> Response:
    """Renames them everywhere: their player in every game of the table (app.tables.usecases.Tables.rename_person)."""
    form, credential = await _posted(request, table_id)
    typed = form.get("name", "")[:1000]
    field = f"person-{person_id}"
    try:
        await run_in_threadpool(
            tables.rename_person, table_id, person_id, credential, PersonIn.model_construct(name=typed)
        )
    except InvalidInput as error:
        refused = TableForm({field: typed}, {field: _refused(error)}, open=person_id)
        return _answer(request, tables, table_id, form=refused, status=422)
    except (KeyWrong, KeyMissing):
        return _stale_key(request, table_id)
    return _answer(request, tables, table_id)


@router.post("/t/{table_id}/people/{person_id}/remove", name="remove_person_page")
async def remove_person_page(request: Request, table_id: TableId, person_id: PersonId, tables: TablesDep) -> Response:
    """Only someone who has played no game here (the page offers it to no one else); a 409 says why."""
    _form, credential = await _posted(request, table_id)
    try:
        await run_in_threadpool(tables.remove_person, table_id, person_id, credential)
    except PersonHasGames as error:
        field = f"person-{person_id}"
        return _answer(
            request, tables, table_id, form=TableForm({}, {field: [error.detail]}, open=person_id), status=409
        )
    except (KeyWrong, KeyMissing):
        return _stale_key(request, table_id)
    return _answer(request, tables, table_id)


@router.post("/t/{table_id}/key", name="rotate_table_key_page")
async def rotate_table_key_page(request: Request, table_id: TableId, tables: TablesDep) -> Response:
    """A new table key: every old table link and cookie stops working at once (the games' own keys don't
    change). This browser keeps the new one, and the page shows the new link to share."""
    _form, credential = await _posted(request, table_id)
    try:
        outcome = await run_in_threadpool(tables.rotate_key, table_id, credential)
    except (KeyWrong, KeyMissing):
        return _stale_key(request, table_id)
    response = go(request, request.app.url_path_for("table_page", table_id=table_id) + "?share=1#handover")
    response.headers.update(keeper_headers())
    set_table_cookie(request, response, table_id, outcome.edit_key)
    return response
