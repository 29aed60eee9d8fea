"""Installable and offline: the web app manifest, the service worker, and the page it shows
for a page never opened on this phone.

- `/manifest.webmanifest`: name, icons (maskable ones too), colours for light and dark, standalone; its
  description in the visitor's language, which `lang` and `dir` name (chosen as a page's is, so it
  varies with Accept-Language and the switch's cookie, which the page's link sends with
  `crossorigin="use-credentials"`: a browser fetches a manifest without cookies otherwise).
- `/sw.js`: static/sw.js with, on a first line, the deployment's build hash and the versioned URLs of
  the app shell. A new deployment changes that line, so the browser installs the new worker, which
  fills a new cache and deletes the old one (static/sw.js says how). Served from the root so its scope
  is the whole site; `no-cache` so the browser checks it on every visit.
- `/offline`: what the worker answers for a page it has no copy of when there is no connection.

Which pages the worker may keep a copy of is said by the server, page by page: `OFFLINE_COPY` on the
answer (app/web/render.py: the start page, a game's view page, a scorekeeper's page without the share or handover box).
A page that shows an edit key or a handover link never carries it, and the worker keeps nothing else.
"""

from __future__ import annotations

import json
from functools import lru_cache

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from app import i18n
from app.http.assets import asset_url, build, minified
from app.i18n import _
from app.paths import KEPT_PAGES
from app.web.render import HTMX, HTMX_SSE, OFFLINE_COPY, render

router = APIRouter(include_in_schema=False)

# The page colours of static/app.css, light and dark.
LIGHT = {"theme_color": "#b3261e", "background_color": "#f6f4ef"}
DARK = {"theme_color": "#1f1e1c", "background_color": "#141312"}

ICONS = [
    ("icons/icon-192.png", "192x192", "any"),
    ("icons/icon-512.png", "512x512", "any"),
    ("icons/maskable-192.png", "192x192", "maskable"),
    ("icons/maskable-512.png", "512x512", "maskable"),
]

# What every page needs (and the TV its stylesheet), fetched when the worker installs: the pages keep
# working offline with them.
# Not the PNG icons: only installing uses them (about 24 KiB a first visit would fetch for nothing).
SHELL = [
    "app.css",
    "tv.css",
    "app.js",
    "entry.js",
    "rounds.js",
    "start.js",
    f"vendor/{HTMX}",
    f"vendor/{HTMX_SSE}",
    "icon.svg",
]


@lru_cache(maxsize=8)
def manifest(lang: str) -> dict[str, object]:
    """The manifest in a language (the request's: `_()` reads it, `lang` only keys the cache)."""
    return {
        "name": "Blitzboard",
        "short_name": "Blitzboard",
        "description": _("Score keeper for Dutch Blitz and the card games played beside it."),
        "lang": lang,
        "dir": "ltr",  # English, Russian and German
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        **LIGHT,
        # Chromium's dark variant of the colours (the page follows prefers-color-scheme too).
        "user_preferences": {"color_scheme": {"dark": DARK}},
        "icons": [
            {"src": asset_url(path), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for path, sizes, purpose in ICONS
        ]
        + [{"src": asset_url("icon.svg"), "sizes": "any", "type": "image/svg+xml", "purpose": "any"}],
    }


@router.get("/manifest.webmanifest", name="manifest")
def web_manifest() -> Response:
    lang = i18n.current()
    return JSONResponse(
        manifest(lang),
        media_type="application/manifest+json",
        # One copy per language (the Languages middleware adds Vary and Content-Language).
        headers={"Cache-Control": "public, max-age=0, must-revalidate", "ETag": f'"{build()}-{lang}"'},
    )


def worker_script() -> str:
    """static/sw.js behind the line that names this deployment, its shell and the pages it may keep
    (app.paths.KEPT_PAGES)."""
    shell = [asset_url(path) for path in SHELL] + ["/offline"]
    head = f"var BUILD = {json.dumps(build())}, SHELL = {json.dumps(shell)}, KEPT = {json.dumps(KEPT_PAGES)};\n"
    return head + (minified("sw.js") or b"").decode()


@router.get("/sw.js", name="service_worker")
def service_worker() -> Response:
    return Response(
        worker_script(),
        media_type="text/javascript; charset=utf-8",
        headers={"Cache-Control": "no-cache", "ETag": f'"{build()}"'},
    )


@router.get("/offline", response_class=HTMLResponse, name="offline_page")
def offline_page(request: Request) -> Response:
    """Shown by the service worker for a page it has no copy of, when there is no connection."""
    response = render(request, "offline.html", {})
    response.headers.update(OFFLINE_COPY)
    return response
