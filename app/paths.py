"""The paths that matter beyond their own route, declared once: which are the API's, which carry a
secret, which are a keeper's, which are event streams, which count as a save, which may write, which
pages the service worker may keep.

The middleware, the metrics, the stream front, the error handlers and the service worker (whose list
`/sw.js` is served with, app/routes/offline.py) read them from here; the routes declare the paths
themselves, and tests/project/test_paths.py checks every pattern against the app's routes, so a new route is
sorted correctly or the test says which one is not.
"""

from __future__ import annotations

import re

# The JSON API: problem+json errors, Accept-Language only, no form posts, the OpenAPI document.
API_PREFIX = "/api/"


def is_api(path: str) -> bool:
    return path.startswith(API_PREFIX)


# An edit link carries a key in its path, a handover link and a seat link their token: never in a log line. Matched in
# any case and with everything after it (the rest of the path: a request's path holds no query), so a
# link that arrives mangled (`/g/<id>/EDIT/<key>`, `/edit//<key>`, a decoded `%3F` before the key), a 404
# since routes match case and shape exactly, is not logged with its key either.
SECRET_IN_PATH = re.compile(r"(/(?:edit|take|seat)/)[\s\S]+", re.IGNORECASE)


def seat_link_path(game_id: str, token: str) -> str:
    """A game's seat link (app.games.seats): it carries its key, so SECRET_IN_PATH keeps it out of the logs."""
    return f"/g/{game_id}/seat/{token}"


# The pages and links of a game's keeper, a player's seat link and seat page, and a table's edit link: never compressed (a secret beside
# names others chose leaks through the compressed size).
KEEPER_PATH = re.compile(r"^/g/[^/]+/(score|edit/|take/|seat/|mine)|^/t/[^/]+/edit/|^/api/v1/games/[^/]+/seats")

# A table's page, and the start page's form for a game at a table, carry the table's CSRF token (and,
# with ?share=1, its edit link) when the browser holds the table's key cookie (app.security).
TABLE_KEEPER_PAGE = re.compile(r"^/(t/[^/]+/?)?$")

# A game's two event streams (the page's and the API's), with a game id as GameId allows it: the
# stream front answers them before the middleware (app.stream_front; others go to the route: 422).
STREAM_PATHS = ("/g/{game_id}/events", "/api/v1/games/{game_id}/events")
STREAM = re.compile(r"/(g|api/v1/games)/([A-Za-z0-9_-]{1,32})/events")

# A round saved, from the phone's form or the API: the metrics time these (method, route template).
SAVE_ROUTES = frozenset({("POST", "/api/v1/games/{game_id}/rounds"), ("POST", "/g/{game_id}/rounds")})

# The requests that may write to the database wait their turn on the event loop, not in the thread pool
# (app.http.writequeue): every request of a method that may change something, but these few: the
# language choice changes nothing stored (it sets a cookie), and the two imports have a bound of their
# own (app.http.ratelimit.ImportSlots) and spend seconds parsing and checking before they write, which
# must not hold a turn that saves are waiting for.
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
NOT_WRITES = frozenset({("POST", "/language"), ("POST", "/api/v1/tables/import"), ("POST", "/api/v1/games/import")})


def is_write(method: str, path: str) -> bool:
    return method in WRITE_METHODS and (method, path) not in NOT_WRITES


# The pages the service worker may keep a copy of (the start page, a view page, a scorekeeper's page),
# as patterns JavaScript reads the same way; each of those pages also says so itself with the
# `Blitzboard-Offline: keep` header (app.web.render.OFFLINE_COPY) when the copy would show no secret.
KEPT_PAGES = (r"^/$", r"^/g/[A-Za-z0-9_-]+$", r"^/g/[A-Za-z0-9_-]+/score$")
