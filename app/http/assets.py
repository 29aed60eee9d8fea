"""Static files with cache-busting URLs: /static/app.css?v=<content hash>.

A URL that names the content's hash can be cached for a year (`immutable`), so a phone's repeat
visit downloads nothing but the page; a plain URL (no v=) is revalidated every time.

Our own stylesheet and scripts (static/*.css, static/*.js; the vendored files come minified) are
kept readable, commented, in the repository and served minified (rcssmin, rjsmin), made once per
process: a phone downloads about 4 KiB less (gzip) on its first visit.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

import rcssmin
import rjsmin
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from app.config import ROOT

STATIC = ROOT / "static"


MINIFIERS = {".css": rcssmin.cssmin, ".js": rjsmin.jsmin}
MEDIA_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


# Our own files, known at start-up: a request for any other path never reaches the cache below.
OWN = frozenset(file.name for file in STATIC.iterdir() if file.is_file() and file.suffix in MINIFIERS)


def minified(path: str) -> bytes | None:
    """The served bytes of one of our own top-level .css / .js files, minified; None for any other file."""
    return _minify(path) if path in OWN else None


@lru_cache(maxsize=len(OWN) or 1)
def _minify(path: str) -> bytes:
    file = STATIC / path
    return MINIFIERS[file.suffix](file.read_text(encoding="utf-8")).encode()


@lru_cache(maxsize=64)
def _version(path: str) -> str:
    served = minified(path)
    return hashlib.sha256(served if served is not None else (STATIC / path).read_bytes()).hexdigest()[:12]


CODE = Path(__file__).resolve().parents[1]  # the whole app package, every wing: its Python renders the pages too


def tree_hash(folders: list[Path]) -> str:
    digest = hashlib.sha256()
    for folder in folders:
        for file in sorted(folder.rglob("*")):
            if file.is_file() and "__pycache__" not in file.parts:
                digest.update(file.relative_to(folder).as_posix().encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:12]


@lru_cache(maxsize=1)
def build() -> str:
    """A hash of the templates, the static files, the catalogs and the app's own Python, taken once per process:
    part of a page's ETag, so that a page a browser keeps is not taken as current under a deployment
    that renders it otherwise."""
    return tree_hash([ROOT / "templates", STATIC, CODE, ROOT / "locales"])


def asset_url(path: str) -> str:
    return f"/static/{path}?v={_version(path)}"


@lru_cache(maxsize=4)
def data_url(path: str) -> str:
    """A small SVG of ours as a data: URL (the CSP's img-src allows data:): the pages' icon, which a
    first visit otherwise fetched on its own, 0.9 KiB of which its answer's headers, for 0.3 of SVG."""
    svg = (STATIC / path).read_text(encoding="utf-8").strip().replace('"', "'")  # XML takes either quote
    return "data:image/svg+xml," + quote(svg, safe=" /:='.,-")  # "#" (a colour) would end the URL


class CachedStaticFiles(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        served = minified(path) if scope["method"] in ("GET", "HEAD") else None
        if served is not None:
            etag = f'"{_version(path)}"'
            asked = dict(scope["headers"]).get(b"if-none-match", b"").decode("latin-1")
            same = etag in [tag.strip().removeprefix("W/") for tag in asked.split(",")]
            response = Response(
                b"" if same else served,
                status_code=304 if same else 200,
                media_type=None if same else MEDIA_TYPES[Path(path).suffix],
                headers={"ETag": etag},
            )
        else:
            response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            versioned = b"v=" in scope.get("query_string", b"")
            response.headers["Cache-Control"] = (
                "public, max-age=31536000, immutable" if versioned else "public, max-age=0, must-revalidate"
            )
        return response


def static_files(directory: Path = STATIC) -> CachedStaticFiles:
    return CachedStaticFiles(directory=directory)
