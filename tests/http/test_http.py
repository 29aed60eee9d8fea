"""HTTP done right: HEAD wherever GET works, and If-None-Match answered with 304 for the game JSON and
the view page (a browser's reload, or a viewer's poll, costs a version read and no rendering)."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.helpers import WORKED_EXAMPLE_ROUND, GameHandle, reads_of, statements

API = "/api/v1"
SAME_HEADERS = ("content-type", "content-length", "etag", "cache-control", "content-security-policy", "allow")


def paths(game: GameHandle) -> list[str]:
    return [
        "/",
        "/healthz",
        "/readyz",
        "/static/app.css",
        "/openapi.json",
        "/docs",
        f"/g/{game.id}",
        f"/g/{game.id}?tv=1",
        f"{API}/games/{game.id}",
        f"{API}/games/{game.id}/export.csv",
        f"{API}/games/nope",
        "/g/nope",
        "/nothing-here",
    ]


def test_head_answers_as_get_would_without_a_body(client: TestClient, make_game):
    game = make_game()
    for path in paths(game):
        got, head = client.get(path), client.head(path)
        assert head.status_code == got.status_code, path
        assert head.content == b"", path
        for name in SAME_HEADERS:
            assert head.headers.get(name) == got.headers.get(name), (path, name)


def test_head_on_an_event_stream_sends_its_headers_and_gives_the_slot_back(app: FastAPI, client: TestClient, make_game):
    game = make_game()
    head = client.head(f"/g/{game.id}/events")
    assert head.status_code == 200
    assert head.headers["content-type"].startswith("text/event-stream")
    assert head.content == b""
    assert app.state.streams.open == 0


def test_a_405_names_head_beside_get_and_head_where_get_is_not_allowed_is_405(client: TestClient, make_game):
    game = make_game()
    refused = client.put(f"/g/{game.id}")
    assert refused.status_code == 405
    assert [m.strip() for m in refused.headers["Allow"].split(",")] == ["GET", "HEAD"]
    head = client.head(f"{API}/games/{game.id}/rounds")  # only POST there
    assert head.status_code == 405 and head.headers["Allow"] == "POST"


def test_the_game_json_answers_304_while_its_version_is_current(app: FastAPI, client: TestClient, make_game):
    game = make_game()
    first = client.get(f"{API}/games/{game.id}")
    etag = first.headers["ETag"]
    assert etag == f'"{first.json()["version"]}"'
    for sent in (etag, f"W/{etag}", f'"nope", {etag}', "*"):
        with statements(app) as seen:
            again = client.get(f"{API}/games/{game.id}", headers={"If-None-Match": sent})
        assert (again.status_code, again.content, again.headers["ETag"]) == (304, b"", etag), sent
        assert (reads_of(seen, "player"), reads_of(seen, "round")) == (0, 0), seen  # only the version read
    assert client.get(f"{API}/games/{game.id}", headers={"If-None-Match": '"999"'}).status_code == 200
    game.add_round(WORKED_EXAMPLE_ROUND)
    changed = client.get(f"{API}/games/{game.id}", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert client.get(f"{API}/games/nope", headers={"If-None-Match": "*"}).status_code == 404


def test_the_view_page_and_its_fragment_answer_304_while_nothing_changed(app: FastAPI, client: TestClient, make_game):
    game = make_game()
    htmx = {"HX-Request": "true"}
    page = client.get(f"/g/{game.id}")
    fragment = client.get(f"/g/{game.id}", headers=htmx)
    tv = client.get(f"/g/{game.id}?tv=1")
    tags = {page.headers["ETag"], fragment.headers["ETag"], tv.headers["ETag"]}
    assert len(tags) == 3 and all(tag.startswith('W/"') for tag in tags)  # a variant each
    assert page.headers["Cache-Control"] == "no-cache" and "HX-Request" in page.headers["Vary"]
    for url, headers, answer in ((f"/g/{game.id}", {}, page), (f"/g/{game.id}", htmx, fragment)):
        with statements(app) as seen:
            again = client.get(url, headers=headers | {"If-None-Match": answer.headers["ETag"]})
        assert (again.status_code, again.content) == (304, b"")
        assert again.headers["ETag"] == answer.headers["ETag"]
        assert "Content-Security-Policy" in again.headers  # still inside the security headers
        assert (reads_of(seen, "player"), reads_of(seen, "round")) == (0, 0), seen
    # The page's tag does not stand for the fragment, nor the other way round.
    assert client.get(f"/g/{game.id}", headers={"If-None-Match": fragment.headers["ETag"]}).status_code == 200
    game.add_round(WORKED_EXAMPLE_ROUND)
    assert client.get(f"/g/{game.id}", headers={"If-None-Match": page.headers["ETag"]}).status_code == 200


def test_a_new_deployment_changes_the_view_pages_etag(client: TestClient, make_game, monkeypatch):
    from app.routes import view_pages

    game = make_game()
    before = client.get(f"/g/{game.id}").headers["ETag"]
    monkeypatch.setattr(view_pages, "build", lambda: "another-build")
    after = client.get(f"/g/{game.id}", headers={"If-None-Match": before})
    assert after.status_code == 200 and after.headers["ETag"] != before


def test_the_build_hash_follows_templates_static_files_and_code(tmp_path):
    from app.http.assets import tree_hash

    (tmp_path / "templates").mkdir()
    (tmp_path / "code").mkdir()
    (tmp_path / "templates" / "page.html").write_text("<p>one</p>")
    (tmp_path / "code" / "view.py").write_text("X = 1\n")
    folders = [tmp_path / "templates", tmp_path / "code"]
    first = tree_hash(folders)
    (tmp_path / "code" / "view.py").write_text("X = 2\n")  # a deployment that changed only Python
    second = tree_hash(folders)
    (tmp_path / "code" / "__pycache__").mkdir()
    (tmp_path / "code" / "__pycache__" / "view.pyc").write_bytes(b"\0")  # not part of what renders
    assert first != second == tree_hash(folders)


def test_the_build_hash_reads_the_whole_app_package():
    """Every wing's Python (a view model in app/web, a route, a use case) renders pages, not only the
    module that takes the hash."""
    import app
    from app.http.assets import CODE

    assert Path(app.__file__).resolve().parent == CODE
    assert {"web", "routes", "games", "http"} <= {p.name for p in CODE.iterdir() if p.is_dir()}


def test_the_view_pages_etag_changes_with_the_address_its_share_links_show(database_url: str, make_game):
    from app.config import Settings
    from app.main import create_app

    game = make_game()
    tags = []
    for public_url in ("", "http://192.168.1.23:8000"):
        settings = Settings(database_url=database_url, public_url=public_url, _env_file=None, tune_gc=False)
        with TestClient(create_app(settings)) as other:
            tags.append(other.get(f"/g/{game.id}").headers["ETag"])
            again = other.get(f"/g/{game.id}", headers={"If-None-Match": tags[0]})
            assert again.status_code == (304 if public_url == "" else 200)  # the old QR code is not current
    assert tags[0] != tags[1]


def test_a_plain_view_page_load_reads_the_game_once(app: FastAPI, client: TestClient, make_game):
    game = make_game()
    with statements(app) as seen:
        assert client.get(f"/g/{game.id}").status_code == 200
    assert reads_of(seen, "game") == 1, seen


def test_every_documented_path_answers_a_method_it_does_not_take_with_405_and_the_documents_allow(
    client: TestClient,
):
    """What schemathesis checks (ST205), for every path of the OpenAPI document and every method it does
    not list: 405, and `Allow` the document's methods for that path, plus HEAD wherever GET is (HeadAsGet
    answers it; FastAPI's document does not list HEAD). A literal path owns its URL even where a templated
    one would match it too (`/games/import` is not the game "import"), as OpenAPI's matching says."""
    document = client.get("/openapi.json").json()
    verbs = ("GET", "POST", "PUT", "PATCH", "DELETE")
    wrong = []
    for template, item in document["paths"].items():
        documented = {method.upper() for method in item if method.upper() in verbs}
        expected = documented | ({"HEAD"} if "GET" in documented else set())
        path = re.sub(r"\{[^}]+\}", "1", template)
        for method in sorted(set(verbs) - documented):
            answer = client.request(method, path)
            allowed = {m.strip() for m in answer.headers.get("Allow", "").split(",") if m.strip()}
            if answer.status_code != 405 or allowed != expected:
                wrong.append((method, template, answer.status_code, sorted(allowed)))
    assert wrong == []
