"""Rate limits on the pages: new games from the start page and rematches, and wrong edit links."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.migrations import upgrade

NEW_GAME = {"player_count": "2", "action": "start", "player-0": "Ana", "player-1": "Ben"}


@pytest.fixture
def strict_client(database_url: str) -> Iterator[TestClient]:
    settings = Settings(database_url=database_url, games_per_minute=2, wrong_keys_per_minute=2, _env_file=None)
    app = create_app(settings)
    upgrade(app.state.engine)
    with TestClient(app) as client:
        yield client
    app.state.engine.dispose()


def test_start_page_refuses_games_past_the_limit_and_keeps_the_typed_names(strict_client: TestClient):
    for _ in range(2):
        assert strict_client.post("/games", data=NEW_GAME, follow_redirects=False).status_code == 303
    refused = strict_client.post("/games", data=NEW_GAME, follow_redirects=False)
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 0
    page = BeautifulSoup(refused.text, "html.parser")
    assert "Too many new games" in page.select_one("#new-game .form-error").get_text()
    assert page.select_one("#player-0")["value"] == "Ana"
    assert page.select_one("#player-1")["value"] == "Ben"
    # Adding a player field is no new game: never limited.
    more = dict(NEW_GAME, action="add")
    assert strict_client.post("/games", data=more).status_code == 200


def test_rematch_counts_as_a_new_game(strict_client: TestClient):
    created = strict_client.post("/games", data=NEW_GAME, follow_redirects=False)
    score_url = created.headers["location"]
    page = BeautifulSoup(strict_client.get(score_url).text, "html.parser")
    csrf = page.select_one("input[name=csrf]")["value"]
    game_id = score_url.split("/")[2]
    assert strict_client.post(f"/g/{game_id}/rematch", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    refused = strict_client.post(f"/g/{game_id}/rematch", data={"csrf": csrf}, follow_redirects=False)
    assert refused.status_code == 429
    assert "Retry-After" in refused.headers


def test_wrong_edit_links_are_limited_but_the_right_one_still_works(strict_client: TestClient):
    created = strict_client.post("/api/v1/games", json={"players": [{"name": "Ana"}, {"name": "Ben"}]}).json()
    game_id = created["id"]
    statuses = [strict_client.get(f"/g/{game_id}/edit/wrong-{i}", follow_redirects=False).status_code for i in range(3)]
    assert statuses == [403, 403, 429]
    right = strict_client.get(f"/g/{game_id}/edit/{created['edit_key']}", follow_redirects=False)
    assert right.status_code == 303
    assert right.headers["location"] == f"/g/{game_id}/score"
