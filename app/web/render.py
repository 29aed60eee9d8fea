"""Rendering pages: the templates, page or fragment (one helper reads HX-Request), redirects after a
post, the error page, and the page for a refused request."""

from __future__ import annotations

import hashlib
import math
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context

from app import i18n
from app.config import ROOT
from app.errors import (
    GameError,
    KeyWrong,
)
from app.http.assets import asset_url, build, data_url
from app.http.ratelimit import retry_after_header, wrong_key_wait
from app.i18n import _
from app.security import (
    STALE_KEY,
    FormRefused,
)

templates = Jinja2Templates(directory=ROOT / "templates")
i18n.install(templates.env)


@pass_context
def _url_path_for(context: dict[str, Any], name: str, /, **path_params: Any) -> str:
    """Links and form actions as paths, not absolute URLs built from the Host header: behind a proxy
    that terminates TLS (or sends another Host) an absolute http:// action would be refused by the
    CSP's form-action 'self' or point somewhere else. Shared links that must be absolute (view, edit,
    QR codes) go through absolute_url(), which honours BLITZBOARD_PUBLIC_URL."""
    return context["request"].url_for(name, **path_params).path


templates.env.globals["url_for"] = _url_path_for
templates.env.globals["asset"] = asset_url
templates.env.globals["data_url"] = data_url

# Pinned, vendored from the npm registry's htmx.org and htmx-ext-sse packages.
HTMX = "htmx-2.0.11.min.js"
HTMX_SSE = "htmx-ext-sse-2.2.4.min.js"
templates.env.globals["htmx_file"] = HTMX
templates.env.globals["sse_file"] = HTMX_SSE

# Where htmx puts an error answer: the page's #request-error, never over the game or the form...
REQUEST_ERROR = {"HX-Retarget": "#request-error", "HX-Reswap": "innerHTML"}
# ...unless it is a fragment with the form's messages: then the fragment's own element.
FRAGMENT_ROOTS = {
    "_game.html": "#game",
    "_new_game_form.html": "#new-game",
    "_new_table_form.html": "#new-table",
    "_seat.html": "#seat",
    "_table.html": "#table",
}


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
    """The whole page, or only its fragment when htmx asks (the page includes the same fragment).

    A fragment answered with an error status (a form back with its messages: 409, 422, 429) names its
    own place, as every error answer to htmx does: the htmx-config meta sends 4xx/5xx answers that do
    not (a proxy's page) to #request-error."""
    name = fragment if fragment and is_htmx(request) else page
    if name == fragment and status >= 400:
        root = FRAGMENT_ROOTS[fragment]
        headers = (headers or {}) | {"HX-Retarget": root, "HX-Reswap": "outerHTML", "HX-Reselect": root}
    response = templates.TemplateResponse(request, name, context, status_code=status, headers=headers)
    response.headers["Vary"] = "HX-Request"
    return response


def fragment_etag(request: Request, view: Any, kind: str) -> str:
    """A game page's htmx fragment's ETag: the game's version, the page's kind ("keeper"), what the
    query asks it to show (the history's page, a correction open, a confirmation; `since` only picks
    204 or not), the language and the deployment. Weak: the same meaning, not the same bytes."""
    shown = sorted((k, v) for k, v in request.query_params.multi_items() if k != "since")
    query = hashlib.sha256(urlencode(shown).encode()).hexdigest()[:8]
    return f'W/"{view.game.version}.{kind}.fragment.{i18n.current()}.{build()}.{query}"'


def error_page(request: Request, status: int, detail: str, title: str | None = None) -> HTMLResponse:
    """The error page; for htmx, only the message, aimed at the page's #request-error by HX-Retarget
    and HX-Reswap, so what was on screen (a half-typed round) stays as it was.

    `detail` (and `title`, a refused change's: "The game is over") in the request's language; the
    template has both (`title` None when there is none)."""
    htmx = is_htmx(request)
    headers = REQUEST_ERROR if htmx else None
    if htmx and status == 410:  # the game was deleted: the page reloads and says so, live updates end
        headers = {"HX-Refresh": "true"}
    response = templates.TemplateResponse(
        request,
        "_problem.html" if htmx else "error.html",
        {"status": status, "detail": detail, "title": title},
        status_code=status,
        headers=headers,
    )
    response.headers["Vary"] = "HX-Request"
    return response


def go(request: Request, url: str) -> Response:
    """After a successful form post: a 303 redirect, or for htmx an HX-Redirect."""
    if is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": url})
    return RedirectResponse(url, status_code=303)


# The header by which a page says the service worker may keep a copy of it for offline use (static/sw.js,
# app/routes/offline.py): the start page, a game's view page, the scorekeeper's page without its share or
# handover box. Never on an answer that shows an edit key or a handover link.
OFFLINE_COPY = {"Blitzboard-Offline": "keep"}


def keeper_headers() -> dict[str, str]:
    # Pages that carry an edit right: never sent on as a Referer, never cached by a shared cache.
    return {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


def too_many_page(request: Request, seconds: float) -> HTMLResponse:
    detail = _("Too many tries from this network: try again in {seconds} s.").format(seconds=math.ceil(seconds))
    response = error_page(request, 429, detail, _("Too many requests"))
    response.headers.update(retry_after_header(seconds) | keeper_headers())
    return response


def refused_page(request: Request, error: GameError) -> Response:
    if isinstance(error, KeyWrong) and (wait := wrong_key_wait(request)):
        return too_many_page(request, wait)
    if isinstance(error, KeyWrong):
        detail = error.detail if isinstance(error, FormRefused) else _(STALE_KEY)
        response = error_page(request, 403, detail, _(error.title))
        response.headers.update(keeper_headers())
        return response
    return error_page(request, error.status, error.detail, _(error.title))
