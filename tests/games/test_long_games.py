"""Long games as light as short ones: the history shows the latest rounds with the older
ones a plain link away (`?page=N`), the keeper's corrections of any round stay reachable, the game's
fragments answer 304 to an ETag that is still current, and the pages render from the per-process
cache of scored games."""

from __future__ import annotations

import json

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import inspect

from app.games import viewcache
from app.games.views import scored_view
from app.models import Game, Player
from app.web.context import HISTORY_ROUNDS
from tests.helpers import GameHandle, form_data, html, reads_of, statements

ROUND = [(3, 0), (2, 4), (1, 6), (0, 8)]
HTMX = {"HX-Request": "true"}


@pytest.fixture
def game(make_game) -> GameHandle:
    """A long game: 30 rounds, far from its target."""
    game = make_game(rules={"target": 10_000})
    for _ in range(30):
        assert game.add_round(ROUND).status_code == 201
    return game


def shown_rounds(page) -> list[int]:
    return [int(card["data-round"]) for card in page.select("#history .round-card[data-round]")]


def test_the_view_page_shows_the_latest_rounds_and_the_older_ones_a_plain_link_away(
    client: TestClient, game: GameHandle
):
    page = html(client.get(f"/g/{game.id}"))
    assert shown_rounds(page) == list(range(30, 30 - HISTORY_ROUNDS, -1))
    assert page.select("#history-page") == []  # the first page: the live refresh sends no page
    assert page.select_one("#history .round-card.start") is None
    nav = page.select_one("#history nav.history-pages")
    assert "Rounds 11–30 of 30" in nav.get_text(" ")
    older = nav.select_one("a[rel=next]")
    assert older["href"] == f"/g/{game.id}?page=2#history"
    assert not older.has_attr("hx-get")  # a plain link: no JavaScript needed
    assert nav.select("a[rel=prev], a[rel=first]") == []
    # The older page: the first ten rounds, a way back to the latest, and the refresh asks for it too.
    second = html(client.get(older["href"].split("#")[0]))
    assert shown_rounds(second) == list(range(10, 0, -1))
    assert second.select_one("#history-page")["value"] == "2"
    assert second.select_one("#live-refresh")["hx-include"] == "#since, #history-page"
    back = second.select_one("#history nav.history-pages a[rel=first]")
    assert back["href"] == f"/g/{game.id}#history"
    assert second.select("#history nav a[rel=next]") == []
    # A page past the last shows the last; the live refresh of page 2 keeps page 2.
    assert shown_rounds(html(client.get(f"/g/{game.id}?page=99"))) == list(range(10, 0, -1))
    fragment = html(client.get(f"/g/{game.id}?since=1&page=2", headers=HTMX))
    assert shown_rounds(fragment) == list(range(10, 0, -1))
    assert client.get(f"/g/{game.id}?page=0").status_code == 422


def test_a_short_game_has_no_pages(client: TestClient, make_game):
    game = make_game()
    game.add_round(ROUND)
    page = html(client.get(f"/g/{game.id}"))
    assert shown_rounds(page) == [1]
    assert page.select("nav.history-pages") == []


def test_the_tv_view_shows_no_history_and_ignores_a_page(client: TestClient, game: GameHandle):
    tv = client.get(f"/g/{game.id}?tv=1&page=2")
    assert tv.headers["ETag"] == client.get(f"/g/{game.id}?tv=1").headers["ETag"]
    assert html(tv).select("#history, #history-page") == []


def test_a_correction_of_round_1_of_a_30_round_game_is_reachable_and_works(keeper: TestClient, game):
    first = html(keeper.get(f"/g/{game.id}/score"))
    assert first.select(f'a[href^="/g/{game.id}/score?edit=1&"]') == []  # not on the latest page
    older = first.select_one("#history nav a[rel=next]")["href"].split("#")[0]
    assert older == f"/g/{game.id}/score?page=2"
    second = html(keeper.get(older))
    edit = second.select_one('#history .round-card[data-round="1"] .row-actions a[aria-label="Edit round 1"]')
    assert edit["href"] == edit["hx-get"] == f"/g/{game.id}/score?edit=1&page=2"
    delete = second.select_one('#history .round-card[data-round="1"] a[aria-label="Delete round 1"]')
    assert delete["href"] == f"/g/{game.id}/score?delete=1&page=2"
    # The correction form, with round 1 as it was, and the history still on its page (htmx too).
    for headers in ({}, HTMX):
        form_page = html(keeper.get(edit["href"], headers=headers))
        assert shown_rounds(form_page) == list(range(10, 0, -1))
        form = form_page.select_one("form#round-entry") or form_page.select_one("#game form[action$='/rounds/1']")
        assert form["action"] == f"/g/{game.id}/rounds/1"
    values = form_data(form)
    assert values[f"dutch-{game.player_ids[0]}"] == "3"
    values[f"dutch-{game.player_ids[0]}"] = "4"  # Ana had one more Dutch card
    saved = keeper.post(form["action"], data=values, follow_redirects=False)
    assert saved.status_code == 303, saved.text
    assert saved.headers["location"] == f"/g/{game.id}/score?corrected=1#game"
    first_round = game.get()["rounds"][0]["scores"][0]
    assert (first_round["dutch"], first_round["points"]) == (4, 4)


def test_a_fragment_answers_304_while_unchanged_and_200_with_a_new_etag_after_a_save(
    client: TestClient, keeper: TestClient, game: GameHandle
):
    for who, url in ((client, f"/g/{game.id}"), (keeper, f"/g/{game.id}/score")):
        first = who.get(f"{url}?since=1", headers=HTMX)
        assert first.status_code == 200
        etag = first.headers["ETag"]
        assert etag.startswith('W/"')
        again = who.get(f"{url}?since=1", headers=HTMX | {"If-None-Match": etag})
        assert (again.status_code, again.content, again.headers["ETag"]) == (304, b"", etag)
        # Another page of the history, or another language, is another tag.
        paged = who.get(f"{url}?since=1&page=2", headers=HTMX | {"If-None-Match": etag})
        assert paged.status_code == 200 and paged.headers["ETag"] != etag
        german = who.get(f"{url}?since=1", headers=HTMX | {"If-None-Match": etag, "Accept-Language": "de"})
        assert german.status_code == 200 and german.headers["ETag"] != etag
        game.add_round(ROUND)
        after = who.get(f"{url}?since=1", headers=HTMX | {"If-None-Match": etag})
        assert after.status_code == 200 and after.headers["ETag"] != etag
        assert html(after).select_one("#game")["data-version"] == str(game.get()["version"])


def test_a_keeper_fragment_is_never_304_while_a_round_runs(keeper: TestClient, game: GameHandle):
    url = f"/g/{game.id}/score?since=1"
    etag = keeper.get(url, headers=HTMX).headers["ETag"]
    assert keeper.get(url, headers=HTMX | {"If-None-Match": etag}).status_code == 304
    started = game.client.post(f"/api/v1/games/{game.id}/start", headers=game.auth)
    assert started.status_code == 200, started.text
    running = keeper.get(url, headers=HTMX)
    assert keeper.get(url, headers=HTMX | {"If-None-Match": running.headers["ETag"]}).status_code == 200


def test_htmx_never_swaps_a_304(client: TestClient, make_game):
    page = html(client.get(f"/g/{make_game().id}"))
    handling = json.loads(page.select_one('meta[name="htmx-config"]')["content"])["responseHandling"]
    first = next(rule for rule in handling if rule["code"] in ("304", "[23].."))
    assert first == {"code": "304", "swap": False}


def test_pages_render_from_the_cache_while_the_version_is_the_same(app: FastAPI, client: TestClient, game):
    app.state.views.clear()
    url = f"/g/{game.id}"
    with statements(app) as cold:
        assert client.get(url).status_code == 200
    assert (reads_of(cold, "game"), reads_of(cold, "player"), reads_of(cold, "round")) == (1, 1, 1), cold
    for headers in ({}, HTMX):
        with statements(app) as warm:
            assert client.get(url, headers=headers).status_code == 200
        assert (reads_of(warm, "game"), reads_of(warm, "player"), reads_of(warm, "round")) == (1, 0, 0), warm
    cached = app.state.views.get(game.id, game.get()["version"])
    assert cached is not None
    assert inspect(cached.game).session is None and all(inspect(p).session is None for p in cached.players)
    # A save moves the version on and leaves the game as it now stands in the cache (the save path
    # puts it there after COMMIT): the next page shows the round without loading the game again.
    game.add_round(ROUND)
    with statements(app) as after:
        page = html(client.get(url))
    assert (reads_of(after, "player"), reads_of(after, "round")) == (0, 0), after
    assert shown_rounds(page)[0] == 31
    # Emptied (a restart, another process): loaded and scored once again.
    app.state.views.clear()
    with statements(app) as cold_again:
        page = html(client.get(url))
    assert reads_of(cold_again, "round") == 1
    assert shown_rounds(page)[0] == 31


def test_the_cache_is_bounded_by_games_and_by_rounds():
    def view(game_id: str, version: int = 1, rounds: int = 0):
        game = Game(id=game_id, version=version, edit_key_hash="0" * 64)
        players = [Player(id=1, game_id=game_id, name="Ana", seat=0, starting_score=0)]
        from app.rules.scoring import Score

        played = [(n, [Score(1, 1, 0)]) for n in range(1, rounds + 1)]
        return scored_view(game, players, played)

    cache = viewcache.ViewCache(max_games=2, max_rounds=10)
    a, b, c = (cache.put(view(name)) for name in "abc")
    assert (cache.get("a", 1), cache.get("b", 1), cache.get("c", 1)) == (None, b, c)  # least recent out
    cache.put(view("b", version=2))  # a newer version replaces the older one
    assert cache.get("b", 1) is None and cache.get("b", 2) is not None and cache.get("c", 1) is c
    late = view("b", version=1)  # a slow reader's older version, put late: never replaces the newer
    assert cache.put(late).game.version == 1 and cache.get("b", 1) is None and cache.get("b", 2) is not None
    cache.put(view("d", rounds=10))
    assert len(cache) == 1 and cache.get("d", 1) is not None  # two games at most, and 10 + 1 rounds are over the budget
    too_long = view("e", rounds=11)
    assert cache.put(too_long) is too_long and cache.get("e", 1) is None  # longer than the whole budget
    # Derived data is made once per cached entry, and every time for a view that is not the cached one.
    kept = cache.get("d", 1)
    made: list[int] = []
    for _ in range(3):
        assert viewcache.derived(kept, "x", lambda: made.append(1) or "made") == "made"
    assert len(made) == 1
    viewcache.derived(view("d", rounds=10), "x", lambda: made.append(1))
    assert len(made) == 2
    assert a.game is not None


def test_a_keeper_fragment_with_a_handover_link_has_no_etag(keeper: TestClient, game: GameHandle):
    """The handover link's token expires: the same version is not the same answer."""
    plain = keeper.get(f"/g/{game.id}/score", headers=HTMX)
    assert plain.headers.get("ETag")
    moving = keeper.get(f"/g/{game.id}/score?handover=move", headers=HTMX)
    assert moving.status_code == 200 and "ETag" not in moving.headers
    again = keeper.get(f"/g/{game.id}/score?handover=move", headers=HTMX | {"If-None-Match": plain.headers["ETag"]})
    assert again.status_code == 200
