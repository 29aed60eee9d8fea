"""The scorekeeper's save from the phone form loads the game once: the use case loads it, reads the form
against its players, writes the round, and the fragment is rendered from what the write left. While the
view cache (app.games.viewcache) holds the game's version, the save reads only the game's row."""

from __future__ import annotations

import itertools

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.helpers import GameHandle, reads_of, round_form, statements

ROUND = [(3, 0), (2, 4), (1, 6), (0, 8)]
NOBODY_CALLED_BLITZ = [(3, 1), (2, 4), (1, 6), (0, 8)]


@pytest.fixture
def game(make_game) -> GameHandle:
    return make_game(rules={"target": 1000})


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain-form"])
def test_a_save_from_the_phone_form_loads_the_game_once(
    app: FastAPI, keeper: TestClient, game: GameHandle, csrf: str, htmx: bool
):
    headers = {"HX-Request": "true"} if htmx else {}
    app.state.views.clear()  # cold: the save loads the game itself
    with statements(app) as seen:
        response = keeper.post(
            f"/g/{game.id}/rounds",
            data=round_form(game.player_ids, ROUND, csrf),
            headers=headers,
            follow_redirects=False,
        )
    assert response.status_code == (200 if htmx else 303), response.text
    assert (reads_of(seen, "game"), reads_of(seen, "player"), reads_of(seen, "round")) == (1, 1, 1), seen
    assert len(game.get()["rounds"]) == 1
    if htmx:  # the fragment shows the round just saved, rendered from the write's own result
        fragment = BeautifulSoup(response.text, "html.parser")
        assert fragment.select_one("#game") is not None
        assert "+3" in fragment.get_text(" ")


def test_a_save_while_the_game_is_cached_reads_only_its_row_and_one_not_cached_loads_it(
    app: FastAPI, keeper: TestClient, game: GameHandle, csrf: str
):
    typed = round_form(game.player_ids, ROUND, csrf)
    # The page the phone shows put this version in the cache; the save takes its players and rounds.
    with statements(app) as seen:
        first = keeper.post(f"/g/{game.id}/rounds", data=typed, headers={"HX-Request": "true"})
    assert first.status_code == 200, first.text
    assert (reads_of(seen, "game"), reads_of(seen, "player"), reads_of(seen, "round")) == (1, 0, 0), seen
    # The next save finds the version the first one left in the cache, and both rounds count.
    with statements(app) as seen:
        second = keeper.post(f"/g/{game.id}/rounds", data=typed, headers={"HX-Request": "true"})
    assert second.status_code == 200, second.text
    assert (reads_of(seen, "player"), reads_of(seen, "round")) == (0, 0), seen
    # A change the cache never saw (another process's save) moves the version on: that version is not
    # cached, so the next save loads the game from the database and counts every round.
    api = TestClient(app)
    assert api.post(f"/api/v1/games/{game.id}/rounds", json=game.scores(ROUND), headers=game.auth).status_code == 201
    app.state.views.clear()
    with statements(app) as seen:
        third = keeper.post(f"/g/{game.id}/rounds", data=typed, headers={"HX-Request": "true"})
    assert third.status_code == 200, third.text
    assert (reads_of(seen, "player"), reads_of(seen, "round")) == (1, 1), seen
    totals = [r["scores"][0]["total"] for r in game.get()["rounds"]]
    assert [later - earlier for earlier, later in itertools.pairwise(totals)] == [3, 3, 3]


def test_a_refused_round_is_shown_from_the_same_single_load(
    app: FastAPI, keeper: TestClient, game: GameHandle, csrf: str
):
    app.state.views.clear()  # cold: the save loads the game itself
    with statements(app) as seen:
        response = keeper.post(
            f"/g/{game.id}/rounds",
            data=round_form(game.player_ids, NOBODY_CALLED_BLITZ, csrf),
            headers={"HX-Request": "true"},
        )
    assert response.status_code == 422
    assert (reads_of(seen, "game"), reads_of(seen, "player")) == (1, 1), seen
    page = BeautifulSoup(response.text, "html.parser")
    assert "Blitz" in page.get_text(" ")  # the rule's message, beside the round
    assert page.select_one(f'input[name="dutch-{game.player_ids[0]}"]')["value"] == "3"  # what was typed, kept
    assert game.get()["rounds"] == []


def test_a_form_that_cannot_be_read_keeps_what_was_typed(app: FastAPI, keeper: TestClient, game: GameHandle, csrf: str):
    data = round_form(game.player_ids, ROUND, csrf) | {f"dutch-{game.player_ids[1]}": "two"}
    app.state.views.clear()  # cold: the save loads the game itself
    with statements(app) as seen:
        response = keeper.post(f"/g/{game.id}/rounds", data=data, headers={"HX-Request": "true"})
    assert response.status_code == 422
    assert (reads_of(seen, "game"), reads_of(seen, "player")) == (1, 1), seen
    page = BeautifulSoup(response.text, "html.parser")
    assert page.select_one(f'input[name="dutch-{game.player_ids[1]}"]')["value"] == "two"
    assert "whole number" in page.get_text(" ")
    assert game.get()["rounds"] == []


def test_a_viewer_refresh_renders_no_qr_code_and_the_whole_page_does(client: TestClient, make_game, monkeypatch):
    from app.web import share

    made: list[str] = []
    real = share.qr_code
    monkeypatch.setattr(share, "qr_code", lambda url: made.append(url) or real(url))
    game = make_game()
    fragment = client.get(f"/g/{game.id}", headers={"HX-Request": "true"})
    assert fragment.status_code == 200 and made == []
    assert BeautifulSoup(fragment.text, "html.parser").select_one(".qr") is None
    page = client.get(f"/g/{game.id}")
    assert len(made) == 1
    assert BeautifulSoup(page.text, "html.parser").select_one(".qr svg") is not None


def test_adding_a_player_field_with_htmx_does_not_load_your_games(app: FastAPI, keeper: TestClient, game: GameHandle):
    # This browser keeps score of a game, so "Your games" has a row.
    data = {"player_count": "2", "player-0": "Ana", "player-1": "Ben", "action": "add"}
    with statements(app) as seen:
        fragment = keeper.post("/games", data=data, headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    assert reads_of(seen, "game") == 0, seen
    assert len(BeautifulSoup(fragment.text, "html.parser").select('input[name^="player-"]')) == 3
    with statements(app) as seen:
        page = keeper.post("/games", data=data)  # without JavaScript the whole page comes back, list included
    assert reads_of(seen, "game") >= 1
    assert game.id in page.text


def test_target_and_swap_are_declared_once_on_the_game_and_inherited(
    app: FastAPI, keeper: TestClient, game: GameHandle, csrf: str
):
    keeper.post(f"/g/{game.id}/rounds", data=round_form(game.player_ids, ROUND, csrf))
    for url in (f"/g/{game.id}/score", f"/g/{game.id}/score?edit=1", f"/g/{game.id}/score?delete=1"):
        page = BeautifulSoup(keeper.get(url).text, "html.parser")
        container = page.select_one("#game")
        assert (container["hx-target"], container["hx-swap"]) == ("this", "outerHTML")
        requests = container.select("[hx-get], [hx-post]")
        assert requests, url  # the history's Edit / Delete, the round form, the rules form...
        assert container.select("[hx-target], [hx-swap]") == [], url  # ...all inherit from #game


# --- a live page's refresh, and error answers for htmx ------------------------------------------------


def test_a_live_refresh_that_is_up_to_date_gets_204_without_loading_the_game(
    app: FastAPI, client: TestClient, make_game
):
    game = make_game()
    htmx = {"HX-Request": "true"}
    version = game.get()["version"]
    with statements(app) as seen:
        same = client.get(f"/g/{game.id}?since={version}", headers=htmx)
    assert (same.status_code, same.text) == (204, "")
    assert (reads_of(seen, "player"), reads_of(seen, "round")) == (0, 0), seen  # the version alone was read
    game.add_round(ROUND)
    newer = client.get(f"/g/{game.id}?since={version}", headers=htmx)
    assert newer.status_code == 200
    fragment = BeautifulSoup(newer.text, "html.parser")
    assert fragment.select_one("#game")["data-version"] == str(version + 1)
    assert fragment.select_one("#since")["value"] == str(version + 1)  # the next refresh sends this one
    # Without htmx (a reload, a bookmark with the parameter) the page is whole, whatever since says.
    assert client.get(f"/g/{game.id}?since={version + 1}").status_code == 200
    assert client.get("/g/no-such-game?since=1", headers=htmx).status_code == 404
    assert client.get(f"/g/{game.id}?since=-1", headers=htmx).status_code == 422


def test_an_error_answer_to_htmx_names_its_place_and_carries_only_the_message(
    keeper: TestClient, game: GameHandle, csrf: str
):
    htmx = {"HX-Request": "true"}
    rotated = game.client.post(f"/api/v1/games/{game.id}/key", headers=game.auth)  # a new edit key elsewhere...
    assert rotated.status_code == 200, rotated.text
    refused = keeper.post(f"/g/{game.id}/rounds", data=round_form(game.player_ids, ROUND, csrf), headers=htmx)
    assert refused.status_code == 403
    assert (refused.headers["HX-Retarget"], refused.headers["HX-Reswap"]) == ("#request-error", "innerHTML")
    fragment = BeautifulSoup(refused.text, "html.parser")
    assert fragment.select("html, body, #game, form") == []
    assert "doesn't work any more" in fragment.select_one("p.problem").get_text()
    # ...while the same refusal without htmx is the whole error page, and so is any other error.
    plain = keeper.post(f"/g/{game.id}/rounds", data=round_form(game.player_ids, ROUND, csrf))
    assert plain.status_code == 403 and "HX-Retarget" not in plain.headers
    assert BeautifulSoup(plain.text, "html.parser").select_one("main .error-detail") is not None
    missing = keeper.get("/g/no-such-game", headers=htmx)
    assert missing.status_code == 404 and missing.headers["HX-Retarget"] == "#request-error"
    assert (
        BeautifulSoup(missing.text, "html.parser").select_one("p.problem").get_text()
        == "There is no game “no-such-game”."
    )
    # A tap on the old keeper page after the key was rotated: the message, not the "You can watch" page.
    stale = keeper.get(f"/g/{game.id}/score?edit=1", headers=htmx)
    assert stale.status_code == 403 and stale.headers["HX-Retarget"] == "#request-error"
    assert "doesn't work any more" in BeautifulSoup(stale.text, "html.parser").select_one("p.problem").get_text()
    assert game.get()["rounds"] == []


def test_a_form_back_with_its_messages_names_its_own_element(
    keeper: TestClient, game: GameHandle, csrf: str, client: TestClient
):
    htmx = {"HX-Request": "true"}
    refused = keeper.post(
        f"/g/{game.id}/rounds", data=round_form(game.player_ids, NOBODY_CALLED_BLITZ, csrf), headers=htmx
    )
    assert refused.status_code == 422
    assert [refused.headers[h] for h in ("HX-Retarget", "HX-Reswap", "HX-Reselect")] == ["#game", "outerHTML", "#game"]
    started = client.post("/games", data={"player_count": "2", "player-0": "Ana", "player-1": ""}, headers=htmx)
    assert started.status_code == 422
    assert [started.headers[h] for h in ("HX-Retarget", "HX-Reselect")] == ["#new-game", "#new-game"]
    assert BeautifulSoup(started.text, "html.parser").select_one("form#new-game .field-error") is not None
    # A success names no place: it goes where the element's hx-target says.
    saved = keeper.post(f"/g/{game.id}/rounds", data=round_form(game.player_ids, ROUND, csrf), headers=htmx)
    assert saved.status_code == 200 and "HX-Retarget" not in saved.headers


def test_the_apps_plain_error_pages_carry_their_message_as_problem(
    app: FastAPI, keeper: TestClient, game: GameHandle, csrf: str
):
    # Answers made before any route runs (a body over the limit) are plain pages; htmx keeps their
    # .problem (the htmx-config meta), so a too-long form still says why.
    too_big = keeper.post(
        f"/g/{game.id}/rounds",
        data=round_form(game.player_ids, ROUND, csrf) | {"x": "y" * 100_000},
        headers={"HX-Request": "true"},
    )
    assert too_big.status_code == 413
    assert "A form can send at most" in BeautifulSoup(too_big.text, "html.parser").select_one(".problem").get_text()


def test_every_page_has_the_empty_request_error_slot(client: TestClient, make_game):
    game = make_game()
    for url in ("/", f"/g/{game.id}", f"/g/{game.id}?tv=1", "/g/no-such-game"):
        slot = BeautifulSoup(client.get(url).text, "html.parser").select("#request-error")
        assert len(slot) == 1 and slot[0]["role"] == "alert" and slot[0].get_text() == "", url


def test_a_save_is_confirmed_with_undo_and_a_correction_that_changed_nothing_without(
    keeper: TestClient, game: GameHandle, csrf: str
):
    htmx = {"HX-Request": "true"}
    before = BeautifulSoup(keeper.get(f"/g/{game.id}/score?saved=0").text, "html.parser")
    assert before.select("#done") == []  # no rounds yet: "round 0" was never saved
    saved = BeautifulSoup(
        keeper.post(f"/g/{game.id}/rounds", data=round_form(game.player_ids, ROUND, csrf), headers=htmx).text,
        "html.parser",
    )
    done = saved.select_one("#done[role=status]")
    assert done.select_one("p").get_text() == "Round 1 saved."
    undo = done.select_one("form")
    assert undo["action"] == f"/g/{game.id}/rounds/1/delete"
    assert undo.select_one("input[name=version]")["value"] == str(game.get()["version"])
    corrected = keeper.post(
        f"/g/{game.id}/rounds/1", data=round_form(game.player_ids, ROUND, csrf), follow_redirects=False
    )
    assert corrected.headers["location"] == f"/g/{game.id}/score?corrected=1#game"
    page = BeautifulSoup(keeper.get(corrected.headers["location"]).text, "html.parser")
    assert page.select_one("#done p").get_text() == "Round 1 corrected."
    assert page.select_one("#done form") is None  # the same counts again: nothing logged, nothing to undo
    # A stale or made-up confirmation in the address says nothing.
    for query in ("?saved=7", "?saved=0", "?corrected=9"):
        assert BeautifulSoup(keeper.get(f"/g/{game.id}/score{query}").text, "html.parser").select("#done") == []


def test_a_last_name_field_left_empty_is_no_player_but_one_between_names_is_a_mistake(client: TestClient):
    # Enter on a filled last name makes one more field (app.js); Start with it still empty plays without it.
    made = client.post(
        "/games",
        data={"player_count": "3", "player-0": "Ana", "player-1": "Ben", "player-2": " ", "action": "start"},
        follow_redirects=False,
    )
    assert made.status_code == 303, made.text
    game_id = made.headers["Location"].split("/")[2]
    assert [p["name"] for p in client.get(f"/api/v1/games/{game_id}").json()["players"]] == ["Ana", "Ben"]
    refused = client.post(
        "/games", data={"player_count": "3", "player-0": "Ana", "player-1": "", "player-2": "Cy", "action": "start"}
    )
    assert refused.status_code == 422
    form = BeautifulSoup(refused.text, "html.parser").select_one("form#new-game")
    assert form is not None and form.select_one("#player-1-error") is not None
    assert form.select_one("#player-2")["value"] == "Cy"  # what was typed stays
