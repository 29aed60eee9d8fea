"""The interactive API docs (app/routes/docs.py) are pages of this site: their scripts and styles are
the files pinned in static/vendor/, started without inline script, under a policy that names no other
host. tests/browser/test_browser_docs.py shows them working in Chromium with no internet."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.helpers import GameHandle, claim, html

VERSIONED = re.compile(r"/static/[\w./-]+\?v=[0-9a-f]{12}")
# A CSP source that names no host: a keyword or hash in quotes, or the data: scheme.
NO_HOST = re.compile(r"'[\w+/=-]+'|data:")
DOCS_FILES = ("swagger-ui", "redoc", "docs.js")


def files_of(page: BeautifulSoup) -> list[str]:
    """The URL of every script, style sheet and icon a page loads."""
    return [tag.get("src") or tag.get("href") for tag in page.select("script, link[rel=stylesheet], link[rel=icon]")]


@pytest.mark.parametrize(
    ("path", "viewer"),
    [("/docs", "vendor/swagger-ui-5.35.0.min.js"), ("/redoc", "vendor/redoc-3.0.1.min.js")],
)
def test_the_docs_load_only_this_sites_pinned_files_and_run_no_inline_script(
    client: TestClient, path: str, viewer: str
):
    response = client.get(path)
    assert response.status_code == 200
    page = html(response)
    files = files_of(page)
    assert all(VERSIONED.fullmatch(url or "") for url in files), files  # content-hash URLs, cached a year
    assert any(url.startswith(f"/static/{viewer}?") for url in files), files
    for url in files:
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable", url
    assert [script for script in page.select("script") if not script.get("src")] == []
    assert [tag.name for tag in page.select("style, [style]")] == []
    handlers = [(tag.name, name) for tag in page.find_all(True) for name in tag.attrs if name.lower().startswith("on")]
    assert handlers == []

    policy = dict(part.strip().split(maxsplit=1) for part in response.headers["Content-Security-Policy"].split(";"))
    assert policy["script-src"] == "'self'"
    hosts = [source for sources in policy.values() for source in sources.split() if not NO_HOST.fullmatch(source)]
    assert hosts == []


def test_each_viewer_finds_the_openapi_document_in_its_page(client: TestClient):
    swagger = html(client.get("/docs")).select_one("#swagger-ui")
    assert swagger is not None and swagger["data-openapi-url"] == "/openapi.json"
    redoc = html(client.get("/redoc")).select_one("redoc")
    assert redoc is not None and redoc["spec-url"] == "/openapi.json"
    assert redoc["disable-telemetry"] == "true"  # ReDoc 3 would report to Redocly otherwise
    assert client.get("/openapi.json").status_code == 200


def test_the_docs_files_load_only_on_the_docs_pages(client: TestClient, make_game):
    game: GameHandle = make_game()
    claim(client, game.id, game.key)  # the scorekeeper's page too
    for url in ("/", f"/g/{game.id}", f"/g/{game.id}?tv=1", f"/g/{game.id}/score"):
        files = files_of(html(client.get(url)))
        assert not [f for f in files if any(name in f for name in DOCS_FILES)], (url, files)


def test_fastapis_cdn_docs_and_oauth_redirect_are_gone(client: TestClient):
    for path in ("/docs", "/redoc"):
        page = html(client.get(path))
        assert not [url for url in files_of(page) if "cdn" in url or url.startswith(("http:", "https:", "//"))]
    assert client.get("/docs/oauth2-redirect").status_code == 404
    assert "/docs" not in client.get("/openapi.json").json()["paths"]
