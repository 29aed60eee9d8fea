"""Undo that keeps the scorekeeper's work (templates/_game.html's #done, app.web.keeper.done_text): Undo of
the last round brings its counts back in the new round's form, with Redo; a correction's confirmation has
an Undo that reverts it; a revert from the change log says what it did. Without JavaScript (a post, then
the redirect's page) and with htmx (the fragment), the same."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.helpers import GameHandle, form_data, html, round_form, text_of

FIRST = [(3, 0), (2, 4), (1, 6), (0, 8)]
SECOND = [(5, 0), (4, 2), (3, 3), (2, 5)]
HTMX = {"HX-Request": "true"}


@pytest.fixture
def game(make_game) -> GameHandle:
    game = make_game(rules={"target": 1000})
    for counts in (FIRST, SECOND):
        assert game.add_round(counts).status_code == 201
    return game


def counts_in(page: BeautifulSoup, game: GameHandle) -> list[tuple[str, str]]:
    entry = page.select_one("#round-entry form")
    return [
        (entry.select_one(f"input[name=dutch-{pid}]")["value"], entry.select_one(f"input[name=blitz-{pid}]")["value"])
        for pid in game.player_ids
    ]


def post_form(keeper: TestClient, form, htmx: bool):
    """Submit a form of the page as the phone would: a plain post (then the redirect's page) or htmx."""
    if htmx:
        return keeper.post(form["hx-post"], data=form_data(form), headers=HTMX)
    return keeper.post(form["action"], data=form_data(form))


def cards(game: GameHandle, number: int) -> list[tuple[int, int]]:
    scores = game.get()["rounds"][number - 1]["scores"]
    return [(s["dutch"], s["blitz"]) for s in scores]


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_undo_of_the_last_round_puts_its_counts_back_in_the_form(
    keeper: TestClient, game: GameHandle, csrf: str, htmx: bool
):
    saved = keeper.post(
        f"/g/{game.id}/rounds", data=round_form(game.player_ids, [(6, 0), (4, 2), (3, 3), (2, 5)], csrf)
    )
    undo = html(saved).select_one("#done form")
    assert text_of(undo.select_one("button")) == "Undo"
    answer = post_form(keeper, undo, htmx)
    assert answer.status_code == 200, answer.text
    if not htmx:  # the redirect names the round; the page reads its counts from the deletion's log entry
        assert answer.history[0].status_code == 303
        assert answer.history[0].headers["location"] == f"/g/{game.id}/score?undone=3#game"
    page = html(answer)
    assert text_of(page.select_one("#done[role=status] p")) == "Round 3 undone."
    assert text_of(page.select_one("#round-entry h2")) == "Round 3"
    assert counts_in(page, game) == [("6", "0"), ("4", "2"), ("3", "3"), ("2", "5")]
    assert len(game.get()["rounds"]) == 2
    # One digit fixed, and Save: the round is back as it should have been.
    entry = page.select_one("#round-entry form")
    fixed = form_data(entry) | {f"dutch-{game.player_ids[0]}": "7"}
    again = keeper.post(entry["action"], data=fixed, headers=HTMX if htmx else {})
    assert again.status_code == 200, again.text
    assert text_of(html(again).select_one("#done p")) == "Round 3 saved."
    assert cards(game, 3) == [(7, 0), (4, 2), (3, 3), (2, 5)]


def test_redo_after_undo_puts_the_round_back_as_it_was(keeper: TestClient, game: GameHandle, csrf: str):
    page = html(keeper.get(f"/g/{game.id}/score?saved=2"))
    undone = html(post_form(keeper, page.select_one("#done form"), htmx=False))
    redo = undone.select_one("#done form")
    assert text_of(redo.select_one("button")) == "Redo"
    again = post_form(keeper, redo, htmx=False)
    assert again.history[0].headers["location"].startswith(f"/g/{game.id}/score?reverted=")
    assert text_of(html(again).select_one("#done p")) == "Round 2 restored."
    assert cards(game, 2) == SECOND
    # The new round's form is empty again: round 2 is back.
    assert counts_in(html(again), game) == [("", "")] * 4


def test_an_old_or_made_up_undone_address_fills_nothing(keeper: TestClient, game: GameHandle):
    for query in ("?undone=2", "?undone=3", "?undone=0", "?undone=99"):
        page = html(keeper.get(f"/g/{game.id}/score{query}"))
        assert page.select("#done") == [], query
        assert counts_in(page, game) == [("", "")] * 4, query
    # Undone, then played on: the address of the Undo's page fills the form no more.
    undo = html(keeper.get(f"/g/{game.id}/score?saved=2")).select_one("#done form")
    assert post_form(keeper, undo, htmx=False).status_code == 200
    assert game.add_round(SECOND).status_code == 201
    page = html(keeper.get(f"/g/{game.id}/score?undone=2"))
    assert page.select("#done") == [] and counts_in(page, game) == [("", "")] * 4


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_a_correction_is_confirmed_with_an_undo_that_reverts_it(
    keeper: TestClient, game: GameHandle, csrf: str, htmx: bool
):
    fixed = [(3, 0), (2, 3), (1, 6), (0, 8)]
    corrected = keeper.post(
        f"/g/{game.id}/rounds/1", data=round_form(game.player_ids, fixed, csrf), headers=HTMX if htmx else {}
    )
    done = html(corrected).select_one("#done[role=status]")
    assert text_of(done.select_one("p")) == "Round 1 corrected."
    assert cards(game, 1) == fixed
    undo = done.select_one("form")
    assert text_of(undo.select_one("button")) == "Undo"
    answer = post_form(keeper, undo, htmx)
    assert answer.status_code == 200, answer.text
    assert cards(game, 1) == FIRST
    assert text_of(html(answer).select_one("#done p")) == "Round 1 reverted."


def test_a_correction_that_changed_nothing_offers_no_undo(keeper: TestClient, game: GameHandle, csrf: str):
    same = keeper.post(f"/g/{game.id}/rounds/1", data=round_form(game.player_ids, FIRST, csrf))
    done = html(same).select_one("#done")
    assert text_of(done.select_one("p")) == "Round 1 corrected."
    assert done.select_one("form") is None  # nothing was logged: nothing to undo


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_a_revert_from_the_change_log_says_what_it_did(keeper: TestClient, game: GameHandle, htmx: bool):
    fixed = game.scores([(5, 0), (4, 1), (3, 3), (2, 5)])
    assert game.client.put(f"/api/v1/games/{game.id}/rounds/2", json=fixed, headers=game.auth).status_code == 200
    page = html(keeper.get(f"/g/{game.id}/score"))
    assert page.select("#done") == []
    revert = page.select_one("#changes li.change form")
    answer = post_form(keeper, revert, htmx)
    assert answer.status_code == 200, answer.text
    assert text_of(html(answer).select_one("#done[role=status] p")) == "Round 2 reverted."
    assert cards(game, 2) == SECOND


@pytest.mark.parametrize(
    ("preset", "caller"), [("dutch", "caller"), ("thirty_one", "knocker")], ids=["dutch", "thirty-one"]
)
def test_undo_puts_the_hands_and_who_called_back_in_a_hand_games_form(make_game, keeper_of, preset, caller):
    game = make_game([{"name": name} for name in ("Ana", "Ben", "Cy")], {"preset": preset})
    ana, ben, cy = game.player_ids
    body = {"scores": [{"player_id": p, "hand": h} for p, h in ((ana, 10), (ben, 3), (cy, 25))], caller: ben}
    assert game.client.post(f"/api/v1/games/{game.id}/rounds", json=body, headers=game.auth).status_code == 201
    keeper = keeper_of(game)
    undo = html(keeper.get(f"/g/{game.id}/score?saved=1")).select_one("#done form")
    page = html(post_form(keeper, undo, htmx=False))
    assert text_of(page.select_one("#done p")) == "Round 1 undone."
    entry = page.select_one("#round-entry form")
    assert [entry.select_one(f"input[name=hand-{p}]")["value"] for p in (ana, ben, cy)] == ["10", "3", "25"]
    assert entry.select_one("input[name=caller][checked]")["value"] == str(ben)
    assert game.get()["rounds"] == []
    saved = keeper.post(entry["action"], data=form_data(entry))
    assert text_of(html(saved).select_one("#done p")) == "Round 1 saved."
    again = game.get()["rounds"][0]
    assert [s["hand"] for s in again["scores"]] == [10, 3, 25] and again[caller] == ben
