"""The correction log on the pages (templates/_changes.html): what the view page and the scorekeeper's page
say, and the scorekeeper's one-tap Revert, with and without htmx, refused beside the change it concerns."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.helpers import GameHandle, csrf_of, game_url, html, text_of

ROUNDS = [[(3, 0), (2, 4), (1, 6), (0, 8)], [(5, 0), (4, 2), (3, 3), (2, 5)], [(7, 0), (6, 1), (5, 2), (4, 3)]]
HTMX = {"HX-Request": "true"}


@pytest.fixture
def game(make_game) -> GameHandle:
    game = make_game(rules={"target": 1000})
    for counts in ROUNDS:
        assert game.add_round(counts).status_code == 201
    return game


def make_changes(game: GameHandle) -> list[dict]:
    """Ben's Blitz count in round 2 corrected 2 → 1, round 1 deleted, the target changed: the log, newest first."""
    client = game.client
    fixed = game.scores([(5, 0), (4, 1), (3, 3), (2, 5)])
    assert client.put(game_url(game.id, "/rounds/2"), json=fixed, headers=game.auth).status_code == 200
    assert client.delete(game_url(game.id, "/rounds/1"), headers=game.auth).status_code == 200
    assert client.patch(game_url(game.id), json={"rules": {"target": 500}}, headers=game.auth).status_code == 200
    return client.get(game_url(game.id, "/changes")).json()


def lines(page) -> list[str]:
    return [text_of(item.select_one(".change-text")) for item in page.select("#changes li.change")]


def test_a_game_without_changes_shows_no_changes_section(client: TestClient, keeper: TestClient, game):
    for page in (client.get(f"/g/{game.id}"), keeper.get(f"/g/{game.id}/score")):
        assert html(page).select("#changes, .changes") == []


def test_the_view_page_lists_the_changes_newest_first_in_plain_words(client: TestClient, game: GameHandle):
    logged = make_changes(game)
    page = html(client.get(f"/g/{game.id}"))
    assert text_of(page.select_one("#changes h2")) == "Changes"
    times = page.select("#changes time")
    assert [t["datetime"] for t in times] == [change["at"] for change in logged]  # ISO, UTC, for app.js
    hhmm = [f"{t['datetime'][11:16]} UTC" for t in times]
    assert [text_of(t) for t in times] == hhmm
    assert lines(page) == [
        f"Target changed at {hhmm[0]} : 1,000 → 500",  # numbers as the scoreboard writes them
        f"Round 1 deleted at {hhmm[1]} : Ana 3/0, Ben 2/4, Cy 1/6, Dee 0/8 (Dutch/Blitz cards)",
        f"Round 2 corrected at {hhmm[2]} : Ben , Blitz 2 → 1",
    ]
    assert [b.get_text() for b in page.select("#changes li:last-child bdi")] == ["Ben"]
    assert page.select("#changes form, #changes button") == []  # nobody but the scorekeeper reverts
    # The live refresh (the fragment) carries them too; the TV view leaves them off.
    fragment = html(client.get(f"/g/{game.id}", headers=HTMX))
    assert lines(fragment) == lines(page)
    assert html(client.get(f"/g/{game.id}?tv=1")).select("#changes") == []


def test_the_keeper_page_offers_revert_on_each_change_that_can_be_reverted(keeper: TestClient, game):
    logged = make_changes(game)
    game.add_round([(1, 0), (1, 1), (1, 1), (1, 1)])
    page = html(keeper.get(f"/g/{game.id}/score"))
    version = game.get()["version"]
    csrf = csrf_of(keeper, game.id)
    for change in logged:
        forms = page.select(f"#change-{change['id']} form")
        assert len(forms) == (1 if change["revertable"] else 0), change
        for form in forms:
            action = f"/g/{game.id}/changes/{change['id']}/revert"
            assert (form["method"], form["action"], form["hx-post"]) == ("post", action, action)
            assert form.select_one('input[name="csrf"]')["value"] == csrf
            assert form.select_one('input[name="version"]')["value"] == str(version)
            assert text_of(form.select_one("button")) == "Revert"
    assert [c["revertable"] for c in logged] == [True, True, True]


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_one_tap_reverts_a_correction_and_the_revert_is_logged(keeper: TestClient, game: GameHandle, htmx: bool):
    fixed = game.scores([(5, 0), (4, 1), (3, 3), (2, 5)])
    assert game.client.put(game_url(game.id, "/rounds/2"), json=fixed, headers=game.auth).status_code == 200
    [change] = game.client.get(game_url(game.id, "/changes")).json()
    data = {"csrf": csrf_of(keeper, game.id), "version": str(game.get()["version"])}
    response = keeper.post(
        f"/g/{game.id}/changes/{change['id']}/revert",
        data=data,
        headers=HTMX if htmx else {},
        follow_redirects=False,
    )
    if htmx:
        assert response.status_code == 200, response.text
        page = html(response)
        assert page.select_one("#game") is not None
    else:
        location = f"/g/{game.id}/score?reverted={change['id']}#game"  # the page says what the revert did
        assert (response.status_code, response.headers["location"]) == (303, location)
        page = html(keeper.get(response.headers["location"]))
    assert [[s["blitz"] for s in r["scores"]] for r in game.get()["rounds"]][1] == [0, 2, 3, 5]
    assert lines(page)[0].startswith("Round 2 reverted at ") and lines(page)[0].endswith("Ben , Blitz 1 → 2")
    assert page.select(f"#change-{change['id']} form") == []  # undone: its revert went with it


REFUSALS = {
    "stale version": (lambda game: str(game.get()["version"] - 1), "The game changed on another device"),
    "changed again since": (None, "Round 2 was corrected again since: revert the later change first."),
}


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
@pytest.mark.parametrize("version, message", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_refused_revert_says_why_beside_the_change_and_changes_nothing(
    keeper: TestClient, game: GameHandle, version, message: str, htmx: bool
):
    client = game.client
    for blitz in (1, 0):
        fixed = game.scores([(5, 0), (4, blitz), (3, 3), (2, 5)])
        assert client.put(game_url(game.id, "/rounds/2"), json=fixed, headers=game.auth).status_code == 200
    first = client.get(game_url(game.id, "/changes")).json()[-1]
    before = game.get()
    data = {"csrf": csrf_of(keeper, game.id), "version": version(game) if version else str(before["version"])}
    response = keeper.post(
        f"/g/{game.id}/changes/{first['id']}/revert", data=data, headers=HTMX if htmx else {}, follow_redirects=False
    )
    assert response.status_code == 409, response.text
    if htmx:
        assert response.headers["HX-Retarget"] == "#game"
    error = html(response).select_one(f"#change-{first['id']} .change-error")
    assert error is not None and error["role"] == "alert"
    assert text_of(error).startswith(message)
    assert game.get() == before


def test_a_forged_revert_is_refused_and_changes_nothing(app: FastAPI, keeper: TestClient, game: GameHandle):
    [change] = make_changes(game)[-1:]
    before = game.get()
    url = f"/g/{game.id}/changes/{change['id']}/revert"
    stranger = TestClient(app)
    for browser, data, headers in (
        (keeper, {"csrf": "0" * 32}, {}),
        (keeper, {}, {}),
        (keeper, {"csrf": csrf_of(keeper, game.id)}, {"Origin": "https://evil.example"}),
        (stranger, {"csrf": csrf_of(keeper, game.id)}, {}),
    ):
        assert browser.post(url, data=data, headers=headers, follow_redirects=False).status_code in (401, 403)
    assert game.get() == before
    assert (
        keeper.post(f"/g/{game.id}/changes/999999/revert", data={"csrf": csrf_of(keeper, game.id)}).status_code == 404
    )
    assert keeper.post(f"/g/{game.id}/changes/x/revert", data={"csrf": csrf_of(keeper, game.id)}).status_code == 422
    assert game.get() == before


def test_a_rules_change_to_negative_points_reads_with_the_pages_minus(client: TestClient, game: GameHandle):
    rules = {"rules": {"blitz_points": -3}}
    assert client.patch(game_url(game.id), json=rules, headers=game.auth).status_code == 200
    (line,) = lines(html(client.get(f"/g/{game.id}")))
    assert line.endswith("−2 → −3"), line  # U+2212, as the scoreboard writes points
