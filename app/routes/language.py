"""The language switch on every page: a plain form post (no JavaScript needed) that remembers the
choice in a cookie for a year and goes back to the page it came from. No account: the cookie is the
whole preference, and a game's share link never carries one (app.i18n picks each reader's own)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app import i18n
from app.i18n import _
from app.security import same_origin
from app.web.forms import read_form
from app.web.render import error_page

router = APIRouter(include_in_schema=False)

YEAR = 365 * 24 * 3600


def _local_path(next_: str | None) -> str:
    """Only a path on this site: never "//elsewhere", a scheme, a backslash a browser reads as "/", or
    a space or control character a browser drops ("/\t/elsewhere" is "//elsewhere" to it); printable
    ASCII only, as our own paths are."""
    if (
        next_
        and len(next_) <= 2000
        and next_.startswith("/")
        and not next_.startswith("//")
        and all("!" <= ch <= "~" and ch != "\\" for ch in next_)
    ):
        return next_
    return "/"


@router.post("/language", name="set_language")
async def set_language(request: Request) -> Response:
    if not same_origin(request):
        return error_page(request, 403, _("This form was sent from another site; nothing was changed."))
    form = await read_form(request)
    lang = form.get("lang", "")
    if lang not in i18n.LANGUAGES:
        return error_page(request, 422, _("There is no language {lang}.").format(lang=lang[:20]))
    # A plain 303 even for htmx (the switch is a plain form): the browser loads the page anew.
    response = RedirectResponse(_local_path(form.get("next")), status_code=303)
    response.set_cookie(
        i18n.COOKIE,
        lang,
        max_age=YEAR,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )
    return response
