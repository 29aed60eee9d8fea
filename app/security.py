"""Edit keys (capability links), the "may edit" credential, CSRF tokens and security headers.

Whoever holds a game's edit key may change it; everyone else may only read. The key is 192 random
bits from `secrets`, shown once, stored only as its SHA-256 (a fast hash is enough for a key with
that much entropy: there is nothing to brute-force), and compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import Response

from app.errors import KeyWrong
from app.i18n import N_, _

EDIT_KEY_BYTES = 24  # 192 bits
GAME_ID_BYTES = 12  # 96 bits: unguessable, not sequential
EDIT_COOKIE_PREFIX = "bb_edit_"
TABLE_COOKIE_PREFIX = "bb_table_"  # a table's edit key, beside the games' own
SEAT_COOKIE_PREFIX = "bb_seat_"  # a player's seat key in a game (app.games.seats)


def new_game_id() -> str:
    return secrets.token_urlsafe(GAME_ID_BYTES)


def new_edit_key() -> str:
    return secrets.token_urlsafe(EDIT_KEY_BYTES)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def key_matches(key: str | None, key_hash: str) -> bool:
    if not key:
        return False
    return hmac.compare_digest(hash_key(key), key_hash)


def csrf_token(edit_key: str) -> str:
    """The token the scorekeeper's forms carry, derived from the edit key in the browser's cookie.

    A cross-site page can neither read the cookie nor compute this, and rotating the key changes it.
    """
    return hmac.new(edit_key.encode("utf-8", "surrogatepass"), b"blitzboard-csrf", hashlib.sha256).hexdigest()[:32]


def csrf_matches(token: str | None, edit_key: str | None) -> bool:
    if not token or not edit_key:
        return False
    return hmac.compare_digest(token.encode("utf-8", "surrogatepass"), csrf_token(edit_key).encode())


def edit_cookie_name(game_id: str) -> str:
    return EDIT_COOKIE_PREFIX + game_id


@dataclass(frozen=True, slots=True)
class Credential:
    """The edit key a request presents (not yet checked against the game)."""

    key: str | None


def cookie_key(request: Request, game_id: str) -> Credential:
    return Credential(request.cookies.get(edit_cookie_name(game_id)))


def table_cookie_name(table_id: str) -> str:
    return TABLE_COOKIE_PREFIX + table_id


def table_cookie_key(request: Request, table_id: str) -> Credential:
    return Credential(request.cookies.get(table_cookie_name(table_id)))


def content_security_policy(extra: dict[str, str] | None = None) -> str:
    """The policy of every answer: this site's own files only, no inline script or style, no eval.

    `extra` adds sources to a directive; only ReDoc's page (below) asks for any.
    """
    directives = {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": "'self'",
        "img-src": "'self' data:",
        "connect-src": "'self'",
        "font-src": "'self'",
        "object-src": "'none'",
        "base-uri": "'none'",
        "form-action": "'self'",
        "frame-ancestors": "'none'",
    }
    for name, sources in (extra or {}).items():
        directives[name] = f"{directives[name]} {sources}"
    return "; ".join(f"{name} {sources}" for name, sources in directives.items())


# The SHA-256 of the empty string: lets a script add an EMPTY <style> element, never one with text in it.
EMPTY_STYLE = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"


def redoc_content_security_policy() -> str:
    """The policy of /redoc (app/routes/docs.py): the app's, plus what ReDoc 3 needs, measured in Chromium
    (tests/browser/test_browser_docs.py). Swagger UI on /docs needs nothing more than the app's policy.

    - style-src EMPTY_STYLE: ReDoc styles itself with styled-components, which adds empty <style> elements
      and fills them through the CSSOM (insertRule, which the CSP does not govern). Refused, ReDoc throws
      (styled-components error 17) and the page stays blank. The hash admits only empty elements, so no
      'unsafe-inline': markup someone slipped into the page still cannot style it.
    - font-src data:: ReDoc's global styles declare an icon font as a data: URL; refused, every load logs
      a console error.

    Not granted, although ReDoc asks: 'unsafe-eval' (it only probes `Function()` to decide whether its
    search may run in a worker, and searches in the page when refused) and cdn.redoc.ly (the Redocly logo
    beside "API docs by" in the sidebar, which hides itself when refused). The browser reports both as
    CSP violations; nothing on the page breaks, and nothing leaves the site.
    """
    return content_security_policy({"style-src": EMPTY_STYLE, "font-src": "data:"})


# --- the scorekeeper's form posts: origin, CSRF, the edit cookie ------------------------------


def same_origin(request: Request) -> bool:
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
# replaced (the game was handed over to another phone, or a new edit link was made). English, marked
# for the catalogs: translated (_()) where a page says it.
STALE_KEY = N_(
    "This browser's edit key doesn't work any more: scorekeeping was handed over to another phone, "
    "or a new edit link was made for this game. Ask the scorekeeper for it, or watch the game."
)
# What a page that kept score says once its key stopped working (the view page, the keeper page).
HANDED_OVER = N_("Scorekeeping was handed over to another phone; this page now only shows the game.")
# A table's: a post whose cookie holds a key the table no longer has (a new table link was made on
# another phone), and the start page asked for a game at a table whose key this browser doesn't hold.
STALE_TABLE_KEY = N_(
    "This browser's key to the table doesn't work any more: a new edit link was made for it. "
    "Ask whoever keeps the table for it."
)
NOT_AT_TABLE = N_(
    "This browser doesn't keep this table, so it can't start games at it: open the table's edit link "
    "first, or start a game of your own below."
)
# A keeper's form that is stale or forged (keeper_credential, and the handover page's post).
FORM_REFUSED = N_("This form is out of date or came from another site: reload the page and try again.")


def seat_cookie_name(game_id: str) -> str:
    return SEAT_COOKIE_PREFIX + game_id


def seat_cookie_key(request: Request, game_id: str) -> Credential:
    return Credential(request.cookies.get(seat_cookie_name(game_id)))


def set_seat_cookie(request: Request, response: Response, game_id: str, seat_key: str) -> None:
    """A player's seat key, kept like an edit key: HttpOnly, SameSite=Lax."""
    _set_key_cookie(request, response, seat_cookie_name(game_id), seat_key)


def seat_credential(request: Request, game_id: str, csrf: str | None) -> Credential:
    """The seat key from this browser's cookie, for the seat page's form (its CSRF token, same origin)."""
    credential = seat_cookie_key(request, game_id)
    if not credential.key:
        raise FormRefused(_("This phone has no seat in this game: open the game's seat link first."))
    if not same_origin(request) or not csrf_matches(csrf, credential.key):
        raise FormRefused(_(FORM_REFUSED))
    return credential


def keeper_credential(request: Request, game_id: str, csrf: str | None) -> Credential:
    """The edit key from this browser's cookie, for a state-changing form post.

    Refuses a post without the form's CSRF token or from another site (a forged cross-site form);
    whether the key is right is then checked by the use case, in its transaction.
    """
    credential = cookie_key(request, game_id)
    if not credential.key:
        raise FormRefused(_("This browser doesn't keep score of this game: open its edit link first."))
    if not same_origin(request) or not csrf_matches(csrf, credential.key):
        raise FormRefused(_(FORM_REFUSED))
    return credential


def table_keeper_credential(request: Request, table_id: str, csrf: str | None) -> Credential:
    """The table's edit key from this browser's cookie, for a form post that changes the table or starts
    a game at it: refused as a game's keeper post is (no cookie, no CSRF token, another site); whether
    the key is right is then checked by the use case."""
    credential = table_cookie_key(request, table_id)
    if not credential.key:
        raise FormRefused(_("This browser doesn't keep this table: open the table's edit link first."))
    if not same_origin(request) or not csrf_matches(csrf, credential.key):
        raise FormRefused(_(FORM_REFUSED))
    return credential


def set_edit_cookie(request: Request, response: Response, game_id: str, edit_key: str) -> None:
    _set_key_cookie(request, response, edit_cookie_name(game_id), edit_key)


def set_table_cookie(request: Request, response: Response, table_id: str, edit_key: str) -> None:
    """A table's key, kept like a game's: HttpOnly, SameSite=Lax, as long as the games' cookies."""
    _set_key_cookie(request, response, table_cookie_name(table_id), edit_key)


def _set_key_cookie(request: Request, response: Response, name: str, edit_key: str) -> None:
    response.set_cookie(
        name,
        edit_key,
        max_age=request.app.state.settings.edit_cookie_days * 86400,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
