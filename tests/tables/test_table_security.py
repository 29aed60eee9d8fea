"""What a table's key may and may not do for others (found in review): the pages that carry
a table's CSRF token or edit link are never compressed (BREACH), guessing a table's key through the
start page's form is limited like any wrong key, and a replayed import never brings back a deleted
game."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.security import csrf_token, table_cookie_name
from tests.helpers import API, WORKED_EXAMPLE_PLAYERS, assert_problem, limited_app

GZIP = {"Accept-Encoding": "gzip"}


def _table(client: TestClient) -> dict:
    made = client.post(f"{API}/tables", json={"name": "Millers " + "x" * 40, "people": [{"name": "Ana"}]})
    assert made.status_code == 201, made.text
    return made.json()


def test_a_table_keepers_pages_are_sent_uncompressed_and_everyone_elses_compressed(client: TestClient, app):
    table = _table(client)
    keeper = TestClient(app)
    assert keeper.get(f"/t/{table['id']}/edit/{table['edit_key']}", follow_redirects=False).status_code == 303
    assert keeper.cookies.get(table_cookie_name(table["id"]))
    for path in (f"/t/{table['id']}", f"/t/{table['id']}?share=1", f"/?table={table['id']}", "/"):
        page = keeper.get(path, headers=GZIP)
        assert page.status_code == 200, path
        assert "content-encoding" not in page.headers, path
    share = keeper.get(f"/t/{table['id']}?share=1")
    assert table["edit_key"] in share.text  # the very secret the rule is for
    assert keeper.get(f"/?table={table['id']}").headers["Cache-Control"] == "no-store"
    # A browser that holds no table's key gets the same pages compressed.
    watcher = TestClient(app)
    assert watcher.get(f"/t/{table['id']}", headers=GZIP).headers.get("content-encoding") == "gzip"


def test_guessing_a_tables_key_through_the_start_page_counts_as_wrong_keys(database_url: str):
    app = limited_app(database_url, wrong_keys_per_minute=3)
    try:
        with TestClient(app) as client:
            table = _table(client)
            guesser = TestClient(app)
            statuses = []
            for n in range(5):
                guess = f"guess{n}"
                guesser.cookies.set(table_cookie_name(table["id"]), guess)
                form = {"table_id": table["id"], "csrf": csrf_token(guess), "player_count": "2"}
                form |= {"player-0": "Ana", "player-1": "Ben", "action": "start"}
                statuses.append(guesser.post("/games", data=form).status_code)
            assert statuses == [403, 403, 403, 429, 429]
            assert client.get(f"{API}/tables/{table['id']}").json()["games_count"] == 0
    finally:
        app.state.engine.dispose()


def test_a_replayed_import_does_not_bring_back_a_deleted_game(client: TestClient, make_game):
    game = make_game(WORKED_EXAMPLE_PLAYERS)
    backup = client.get(f"{API}/games/{game.id}/export").json()
    key = {"Idempotency-Key": "import-once"}
    first = client.post(f"{API}/games/import", json=backup, headers=key)
    assert first.status_code == 201, first.text
    imported = first.json()
    deleted = client.delete(
        f"{API}/games/{imported['id']}", headers={"Authorization": f"Bearer {imported['edit_key']}"}
    )
    assert deleted.status_code == 204
    again = client.post(f"{API}/games/import", json=backup, headers=key)
    assert again.status_code == 201 and "Idempotent-Replayed" not in again.headers
    assert again.json()["id"] != imported["id"]


def test_a_replayed_table_import_whose_game_was_deleted_is_refused(client: TestClient):
    table = _table(client)
    auth = {"Authorization": f"Bearer {table['edit_key']}"}
    made = client.post(
        f"{API}/games", json={"players": [{"name": "Ana"}, {"name": "Ben"}], "table_id": table["id"]}, headers=auth
    )
    assert made.status_code == 201, made.text
    backup = client.get(f"{API}/tables/{table['id']}/export").json()
    key = {"Idempotency-Key": "table-once"}
    first = client.post(f"{API}/tables/import", json=backup, headers=key)
    assert first.status_code == 201, first.text
    [imported] = first.json()["game_keys"]
    gone = client.delete(f"{API}/games/{imported['id']}", headers={"Authorization": f"Bearer {imported['edit_key']}"})
    assert gone.status_code == 204
    assert_problem(client.post(f"{API}/tables/import", json=backup, headers=key), 422)
