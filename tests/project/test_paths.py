"""The paths declared once in app/paths.py, checked against the app's own routes: each pattern picks
exactly the routes it means, so a new route is sorted by the middleware, the metrics, the stream
front and the service worker as its kind says, or a test here names it."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from app.paths import (
    KEEPER_PATH,
    KEPT_PAGES,
    SAVE_ROUTES,
    SECRET_IN_PATH,
    STREAM,
    STREAM_PATHS,
    TABLE_KEEPER_PAGE,
    is_api,
)
from app.web.render import OFFLINE_COPY

# A value for each path parameter, as a real link would carry it.
SAMPLES = {
    "game_id": "Xb3kP9",
    "table_id": "T4bLe7",
    "person_id": "3",
    "number": "2",
    "change_id": "5",
    "player_id": "4",
}
SECRETS = {"edit_key": "k" * 32, "token": "t" * 40}


@pytest.fixture(scope="module")
def routes() -> list[tuple[str, str, str, bool]]:
    """Every route of the app: (method, path template, name, in the OpenAPI document)."""
    app: FastAPI = create_app(Settings(database_url="sqlite:////nonexistent/never-opened.db", _env_file=None))
    found = []
    for route in app.router.routes:
        contexts = route.effective_route_contexts() if hasattr(route, "effective_route_contexts") else []
        for context in contexts:
            for method in sorted(context.methods or ()):
                found.append((method, context.path, context.name, bool(context.include_in_schema)))
    assert len(found) > 50  # the walk really found the routes
    return found


def concrete(template: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: {**SAMPLES, **SECRETS}[m.group(1)], template)


# Routes that only answer 405 at a literal path, so that a templated route doesn't take it (app.routes.backup):
# not operations, so not in the document, whose paths list only the methods that are.
METHOD_GUARDS = {"only_post_imports"}


def test_the_api_is_what_the_openapi_document_lists(routes):
    for method, template, name, documented in routes:
        if name in METHOD_GUARDS:
            assert is_api(concrete(template)) and not documented, (method, template, name)
            continue
        assert is_api(concrete(template)) is documented, (method, template, name)


def test_a_secret_in_a_path_is_exactly_an_edit_key_or_a_handover_token(routes):
    for method, template, name, _ in routes:
        carries = any(f"{{{secret}}}" in template for secret in SECRETS)
        assert bool(SECRET_IN_PATH.search(concrete(template))) is carries, (method, template, name)
        if carries:  # and redacting it leaves nothing of it
            redacted = SECRET_IN_PATH.sub(r"\1[redacted]", concrete(template))
            assert not any(value in redacted for value in SECRETS.values()), redacted


def test_the_keepers_paths_are_the_keepers_page_and_the_links_that_carry_a_key(routes):
    keepers = {"keeper_page", "claim_edit_link", "take_over", "take_over_page", "claim_table_link"}
    keepers |= {"seat_link_page", "take_seat", "seat_page", "send_row_page"}  # a seat link, and a seat's page
    keepers |= {"list_seats"}  # the API's answer with the seat link
    for method, template, name, _ in routes:
        if method == "GET":
            assert bool(KEEPER_PATH.search(concrete(template))) is (name in keepers), (method, template, name)


def test_the_table_keepers_pages_are_the_table_page_and_the_start_page(routes):
    for method, template, name, _ in routes:
        if method == "GET":
            expected = name in {"table_page", "start_page"}
            assert bool(TABLE_KEEPER_PAGE.match(concrete(template))) is expected, (method, template, name)


def test_the_streams_are_the_two_event_routes(routes):
    streams = {template for method, template, name, _ in routes if name == "game_events" and method == "GET"}
    assert streams == set(STREAM_PATHS)
    for method, template, name, _ in routes:
        assert bool(STREAM.fullmatch(concrete(template))) is (template in STREAM_PATHS), (method, template, name)


def test_the_saves_are_routes_that_add_a_round(routes):
    adding = {(method, template) for method, template, name, _ in routes if name in {"add_round", "add_round_page"}}
    assert adding == SAVE_ROUTES


def test_the_kept_pages_are_the_pages_that_say_they_may_be_kept(routes, client, make_game):
    game = make_game()
    kept = {
        name
        for method, template, name, _ in routes
        if method == "GET" and any(re.search(pattern, concrete(template)) for pattern in KEPT_PAGES)
    }
    assert kept == {"start_page", "view_page", "keeper_page"}
    # Each of them says so itself when it shows no secret (a keeper's page without its share box).
    client.cookies.set(f"bb_edit_{game.id}", game.key)
    for path in ("/", f"/g/{game.id}", f"/g/{game.id}/score"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers.get("Blitzboard-Offline") == OFFLINE_COPY["Blitzboard-Offline"], path
        assert any(re.search(pattern, path) for pattern in KEPT_PAGES), path
