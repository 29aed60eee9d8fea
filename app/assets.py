"""Static files with cache-busting URLs: /static/app.css?v=<content hash>.

A URL that names the content's hash can be cached for a year (`immutable`), so a phone's repeat
visit downloads nothing but the page; a plain URL (no v=) is revalidated every time.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from app.config import ROOT

STATIC = ROOT / "static"


@lru_cache(maxsize=64)
def _version(path: str) -> str:
    return hashlib.sha256((STATIC / path).read_bytes()).hexdigest()[:12]


@lru_cache(maxsize=1)
def build() -> str:
    """A hash of every template and static file: part of a page's ETag, so that a page cached by a
    browser is never taken as current under a deployment that would render it otherwise."""
    digest = hashlib.sha256()
    for folder in (ROOT / "templates", STATIC):
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                digest.update(file.relative_to(ROOT).as_posix().encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:12]


def asset_url(path: str) -> str:
    return f"/static/{path}?v={_version(path)}"


class CachedStaticFiles(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            versioned = b"v=" in scope.get("query_string", b"")
            response.headers["Cache-Control"] = (
                "public, max-age=31536000, immutable" if versioned else "public, max-age=0, must-revalidate"
            )
        return response


def static_files(directory: Path = STATIC) -> CachedStaticFiles:
    return CachedStaticFiles(directory=directory)
