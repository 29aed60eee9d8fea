"""What a phone downloads: compressed public answers, cacheable versioned static files."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.helpers import WORKED_EXAMPLE_ROUND, GameHandle

GZIP = {"Accept-Encoding": "gzip"}


def test_pages_reference_static_files_by_content_hash(client: TestClient):
    page = BeautifulSoup(client.get("/").text, "html.parser")
    urls = [tag.get("href") or tag.get("src") for tag in page.select("link[rel=stylesheet], script")]
    assert len(urls) == 4  # the stylesheet, htmx, app.js and the start page's start.js
    assert all(re.fullmatch(r"/static/[\w./-]+\?v=[0-9a-f]{12}", url) for url in urls), urls


def test_the_pages_icon_is_in_the_page_not_a_request_of_its_own(client: TestClient):
    # A first visit fetched it alone: 0.9 KiB on the wire (mostly headers) for 0.3 KiB of SVG.
    from urllib.parse import unquote

    from app.config import ROOT

    icon = BeautifulSoup(client.get("/").text, "html.parser").select_one("link[rel=icon]")
    assert icon is not None and icon["type"] == "image/svg+xml"
    scheme, _, svg = icon["href"].partition(",")
    assert scheme == "data:image/svg+xml" and "#" not in svg  # a "#" would end the URL there
    shipped = (ROOT / "static" / "icon.svg").read_text().strip()
    assert unquote(svg) == shipped.replace('"', "'")


def test_vendored_scripts_are_pinned_with_their_licence_and_every_page_script_exists(client: TestClient, make_game):
    from app.config import ROOT

    vendor = ROOT / "static" / "vendor"
    scripts = sorted(path.name for path in vendor.glob("*.js"))
    assert scripts == [
        "htmx-2.0.11.min.js",  # htmx.org: dist/htmx.min.js
        "htmx-ext-sse-2.2.4.min.js",  # htmx-ext-sse: dist/sse.min.js
        "redoc-3.0.1.min.js",  # redoc: bundles/redoc.standalone.js (/redoc)
        "swagger-ui-5.35.0.min.js",  # swagger-ui-dist: swagger-ui-bundle.js (/docs)
    ]
    assert sorted(path.name for path in vendor.glob("*.css")) == ["swagger-ui-5.35.0.min.css"]  # swagger-ui.css
    for path in vendor.iterdir():
        # The version in every name, and the package's licence beside every file.
        release = re.fullmatch(r"([a-z-]+-\d+\.\d+\.\d+)\.(min\.js|min\.css|LICENSE)", path.name)
        assert release, path.name
        assert (vendor / f"{release[1]}.LICENSE").read_text().strip(), path.name
    assert (vendor / "htmx-ext-sse-2.2.4.min.js").read_text().startswith('(function(){var g;htmx.defineExtension("sse"')
    assert "Version: 3.0.1" in (vendor / "redoc-3.0.1.min.js").read_text()[:300]
    assert '"5.35.0"' in (vendor / "swagger-ui-5.35.0.min.js").read_text()
    game: GameHandle = make_game()
    for url in ("/", f"/g/{game.id}", f"/g/{game.id}?tv=1", "/docs", "/redoc"):
        page = BeautifulSoup(client.get(url).text, "html.parser")
        for script in page.select("script[src]"):
            assert client.get(script["src"]).status_code == 200, (url, script["src"])


def test_versioned_static_files_are_cached_for_a_year_plain_ones_revalidate(client: TestClient):
    page = BeautifulSoup(client.get("/").text, "html.parser")
    css = page.select_one("link[rel=stylesheet]")["href"]
    versioned = client.get(css)
    assert versioned.status_code == 200
    assert versioned.headers["cache-control"] == "public, max-age=31536000, immutable"
    plain = client.get(css.split("?")[0])
    assert plain.headers["cache-control"] == "public, max-age=0, must-revalidate"
    assert plain.content == versioned.content


def test_public_answers_are_gzipped(client: TestClient, make_game):
    game: GameHandle = make_game()
    assert game.add_round(WORKED_EXAMPLE_ROUND).status_code == 201  # JSON big enough to be worth it
    for url in (f"/g/{game.id}", "/", f"/api/v1/games/{game.id}", "/static/vendor/htmx-2.0.11.min.js"):
        answer = client.get(url, headers=GZIP)
        assert answer.status_code == 200, url
        assert answer.headers.get("content-encoding") == "gzip", url


def test_answers_that_can_carry_an_edit_right_are_never_compressed(client: TestClient, make_game):
    """Compressing a secret beside attacker-chosen text leaks it through the size (BREACH)."""
    game: GameHandle = make_game()
    claimed = client.get(f"/g/{game.id}/edit/{game.key}", headers=GZIP, follow_redirects=False)
    assert claimed.status_code == 303 and "content-encoding" not in claimed.headers
    keeper = client.get(f"/g/{game.id}/score?handover=1", headers=GZIP)
    assert keeper.status_code == 200 and game.key in keeper.text
    assert "content-encoding" not in keeper.headers
    created = client.post("/api/v1/games", json={"players": [{"name": "A"}, {"name": "B"}]}, headers=GZIP)
    assert created.status_code == 201 and "content-encoding" not in created.headers


def test_our_own_css_and_js_are_served_minified_and_revalidate(client: TestClient):
    from app.config import ROOT

    page = BeautifulSoup(client.get("/").text, "html.parser")
    for url, source in (
        (page.select_one("link[rel=stylesheet]")["href"], "app.css"),
        (page.select_one("script[src*='app.js']")["src"], "app.js"),
    ):
        served = client.get(url)
        assert served.status_code == 200
        text = (ROOT / "static" / source).read_text()
        assert len(served.content) < 0.8 * len(text.encode()), source  # the comments and spaces gone
        assert "/*" not in served.text and "// " not in served.text.split("\n")[0], source
        assert served.headers["content-type"].startswith("text/css" if source.endswith("css") else "text/javascript")
        assert served.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert url.endswith("?v=" + served.headers["etag"].strip('"'))  # the URL names what is served
        again = client.get(url, headers={"If-None-Match": served.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        assert client.head(url).status_code == 200
    assert (
        client.get("/static/vendor/htmx-2.0.11.min.js").content
        == (ROOT / "static" / "vendor" / "htmx-2.0.11.min.js").read_bytes()
    )  # vendored files are served as they are
