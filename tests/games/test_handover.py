"""Handing over scorekeeping (app.games.handover, app/routes/handover.py) and the scorekeeper's page following
the game live (keeper_page's `since`): "Hand over" moves the edit rights with a one-time link; "Share
editing" shows the edit link, which keeps both phones' rights."""

from __future__ import annotations

import logging
import threading
import time
from urllib.parse import urlsplit

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.games.handover import HANDOVER_MINUTES, MALFORMED, USED, expired, handover_token
from app.security import HANDED_OVER, csrf_token, hash_key
from tests.helpers import (
    SMALL_ROUND,
    GameHandle,
    all_at_once,
    claim,
    csrf_of,
    html,
    reads_of,
    round_form,
    statements,
    text_of,
)

HTMX = {"HX-Request": "true"}


@pytest.fixture
def game(make_game) -> GameHandle:
    """The game handed over; `keeper` is the scorekeeper's phone, the one that hands it over."""
    return make_game(rules={"target": 1000})


@pytest.fixture
def new(app: FastAPI) -> TestClient:
    """The next scorekeeper's phone: no cookie yet."""
    return TestClient(app)


def handover_path(browser: TestClient, game: GameHandle) -> str:
    """What "Hand over" shows on the scorekeeper's page: the one-time link (and its QR code)."""
    response = browser.get(f"/g/{game.id}/score?handover=move")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    page = html(response)
    link = str(page.select_one("#handover input#handover-link")["value"])
    assert page.select_one("#handover .qr svg path") is not None
    assert page.select_one("#edit-link") is None  # the edit key itself is not shown
    assert browser.cookies[f"bb_edit_{game.id}"] not in response.text
    return urlsplit(link).path


def take(browser: TestClient, path: str, **headers: str):
    """Open the handover link and confirm, as the new phone does."""
    page = html(browser.get(path))
    form = page.select_one("#take-over form")
    assert form is not None and form["action"] == path
    data = {"request_id": str(form.select_one("input[name=request_id]")["value"])}
    return browser.post(path, data=data, headers=headers, follow_redirects=False), data


def save(browser: TestClient, game: GameHandle, **headers: str):
    csrf = csrf_of(browser, game.id)
    return browser.post(
        f"/g/{game.id}/rounds",
        data=round_form(game.player_ids, SMALL_ROUND, csrf),
        headers=headers,
        follow_redirects=False,
    )


def test_the_share_box_offers_hand_over_and_share_editing(keeper: TestClient, game: GameHandle):
    box = html(keeper.get(f"/g/{game.id}/score")).select_one("#handover")
    assert text_of(box.select_one("#hand-over")) == "Hand over"
    assert box.select_one("#hand-over")["href"] == f"/g/{game.id}/score?handover=move#handover"
    assert text_of(box.select_one("#share-editing")) == "Share editing"
    assert box.select_one("#share-editing")["href"] == f"/g/{game.id}/score?handover=1#handover"
    assert "this one stops" in text_of(box)
    # Neither link is shown until asked for.
    assert box.select_one("#handover-link, #edit-link") is None
    # "Hand over" shows the one-time link with what it does; "Share editing" the edit link, as before.
    moved = html(keeper.get(f"/g/{game.id}/score?handover=move")).select_one("#handover")
    assert "this one stops" in text_of(moved.select_one(".warning"))
    assert f"works once, for {HANDOVER_MINUTES} minutes" in text_of(moved)
    shared = html(keeper.get(f"/g/{game.id}/score?handover=1")).select_one("#handover")
    assert str(shared.select_one("#edit-link")["value"]).endswith(f"/g/{game.id}/edit/{game.key}")
    # Anything else shows the choices again (never an error).
    for junk in ("0", "yes", "x" * 10, "<b>"):
        other = keeper.get(f"/g/{game.id}/score", params={"handover": junk})
        assert other.status_code == 200
        assert html(other).select_one("#handover-link, #edit-link") is None
    assert keeper.get(f"/g/{game.id}/score", params={"handover": "x" * 11}).status_code == 422


def test_hand_over_moves_the_rights_to_the_phone_that_takes_the_link(
    keeper: TestClient, game: GameHandle, new: TestClient
):
    path = handover_path(keeper, game)
    version = game.get()["version"]

    # Opening the link only asks; nothing changes until the new phone confirms.
    asked = new.get(path)
    assert asked.status_code == 200
    assert asked.headers["Referrer-Policy"] == "no-referrer" and asked.headers["Cache-Control"] == "no-store"
    assert html(asked).select_one("h1").get_text() == "Keep score of this game?"
    assert game.get()["version"] == version
    assert save(keeper, game).status_code == 303  # the old phone still keeps score meanwhile
    version += 1

    taken, _ = take(new, path)
    assert taken.status_code == 303
    assert taken.headers["location"] == f"/g/{game.id}/score?taken=1"
    cookie = taken.headers["set-cookie"]
    assert cookie.startswith(f"bb_edit_{game.id}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert game.get()["version"] == version + 1  # a change: every open page hears of it

    # The new phone keeps score and is told so.
    page = html(new.get(taken.headers["location"]))
    assert text_of(page.select_one("#done")) == "This phone keeps score now: it was handed over to you."
    assert save(new, game).status_code == 303
    assert len(game.get()["rounds"]) == 2

    # The old phone's post is refused and changes nothing...
    old_csrf = csrf_token(keeper.cookies[f"bb_edit_{game.id}"])  # what its open page's form carries
    refused = keeper.post(
        f"/g/{game.id}/rounds", data=round_form(game.player_ids, SMALL_ROUND, old_csrf), follow_redirects=False
    )
    assert refused.status_code == 403
    assert "handed over to another phone" in text_of(html(refused).select_one(".error-detail"))
    assert len(game.get()["rounds"]) == 2
    # ...its next load of the keeper page (no JavaScript) says why...
    stale = keeper.get(f"/g/{game.id}/score")
    assert stale.status_code == 403
    assert text_of(html(stale).select_one("#handed-over")) == HANDED_OVER
    assert html(stale).select_one("a.button")["href"] == f"/g/{game.id}"
    # ...and its live refresh (htmx) is sent to the view page, which says the same.
    refresh = keeper.get(f"/g/{game.id}/score", params={"since": version}, headers=HTMX)
    assert refresh.status_code == 204
    assert refresh.headers["HX-Redirect"] == f"/g/{game.id}?handed_over=1"
    view = html(keeper.get(refresh.headers["HX-Redirect"]))
    assert text_of(view.select_one("#handed-over")) == HANDED_OVER
    assert view.select_one("#game") is not None and view.select_one("#round-entry") is None
    # The old edit link (and the API key) stopped working too: the key was replaced.
    assert (
        game.client.post(
            f"/api/v1/games/{game.id}/rounds", json=game.scores(SMALL_ROUND), headers=game.auth
        ).status_code
        == 403
    )


def test_a_browser_that_never_kept_score_sees_no_handover_notice(game: GameHandle, new: TestClient):
    page = new.get(f"/g/{game.id}/score")
    assert page.status_code == 403
    assert html(page).select_one("#handed-over") is None
    assert html(new.get(f"/g/{game.id}")).select_one("#handed-over") is None


def test_a_handover_link_works_once(keeper: TestClient, game: GameHandle, new: TestClient, app: FastAPI):
    path = handover_path(keeper, game)
    taken, _ = take(new, path)
    assert taken.status_code == 303
    third = TestClient(app)
    for response in (third.get(path), third.post(path, data={"request_id": "another"}, follow_redirects=False)):
        assert response.status_code == 403
        assert text_of(html(response).select_one(".error-detail")) == USED
        assert "set-cookie" not in response.headers
    assert save(new, game).status_code == 303  # the one who took it keeps the rights


def test_a_lost_answer_is_given_again_to_the_same_request(keeper: TestClient, game: GameHandle, new: TestClient):
    """The new phone's confirmation whose answer was lost: sent again (same request id), it gets the same
    new key, rather than "already used" with nobody left to keep score."""
    path = handover_path(keeper, game)
    first, data = take(new, path)
    again = new.post(path, data=data, follow_redirects=False)
    assert again.status_code == 303
    assert again.cookies[f"bb_edit_{game.id}"] == first.cookies[f"bb_edit_{game.id}"]
    assert game.get()["version"] == 2  # taken over once


def test_a_handover_link_expires(game: GameHandle, new: TestClient, app: FastAPI):
    long_ago = time.time() - HANDOVER_MINUTES * 60 - 5
    token = handover_token(app.state.sealer, game.id, hash_key(game.key), now=long_ago)
    for response in (
        new.get(f"/g/{game.id}/take/{token}"),
        new.post(f"/g/{game.id}/take/{token}", follow_redirects=False),
    ):
        assert response.status_code == 403
        said = text_of(html(response).select_one(".error-detail"))
        assert said == " ".join(expired().split()) and f"it works for {HANDOVER_MINUTES} minutes" in said
    fresh = handover_token(app.state.sealer, game.id, hash_key(game.key))
    assert new.get(f"/g/{game.id}/take/{fresh}").status_code == 200


def test_a_new_edit_link_cancels_a_handover_link(keeper: TestClient, game: GameHandle, new: TestClient):
    path = handover_path(keeper, game)
    rotated = keeper.post(f"/g/{game.id}/key", data={"csrf": csrf_of(keeper, game.id)}, follow_redirects=False)
    assert rotated.status_code == 303
    response = new.get(path)
    assert response.status_code == 403 and text_of(html(response).select_one(".error-detail")) == USED
    assert save(keeper, game).status_code == 303


@pytest.mark.parametrize(
    "token",
    [
        "x",
        "zz.zz",
        "1." + "0" * 32,
        "ffffffffffffffff." + "0" * 32,
        "-1." + "0" * 32,
        "1." + "G" * 32,
        "a.b.c",
        "é.é",
        "%00",
    ],
)
def test_a_token_that_is_not_one_is_refused_plainly(game: GameHandle, new: TestClient, token: str):
    for response in (
        new.get(f"/g/{game.id}/take/{token}"),
        new.post(f"/g/{game.id}/take/{token}", data={"request_id": token}, follow_redirects=False),
    ):
        assert response.status_code == 403, response.text
        assert text_of(html(response).select_one(".error-detail")) in (MALFORMED, USED)
    assert new.get(f"/g/{game.id}/take/{'a' * 101}").status_code == 422
    assert new.get(f"/g/no-such-game/take/{token}").status_code == 404
    assert game.get()["version"] == 1


def test_a_handover_link_of_one_game_does_not_open_another(
    keeper: TestClient, game: GameHandle, new: TestClient, make_game
):
    other = make_game()
    token = handover_path(keeper, game).rsplit("/", 1)[1]
    response = new.post(f"/g/{other.id}/take/{token}", follow_redirects=False)
    assert response.status_code == 403
    assert other.get()["version"] == 1 and game.get()["version"] == 1


def test_taking_over_from_another_site_is_refused(keeper: TestClient, game: GameHandle, new: TestClient):
    path = handover_path(keeper, game)
    forged = new.post(path, headers={"Sec-Fetch-Site": "cross-site"}, follow_redirects=False)
    assert forged.status_code == 403
    assert game.get()["version"] == 1
    assert take(new, path)[0].status_code == 303  # the link is still good for the real phone


def test_two_phones_taking_the_same_link_at_once_one_wins(keeper: TestClient, game: GameHandle, app: FastAPI):
    path = handover_path(keeper, game)
    phones = [TestClient(app) for _ in range(4)]
    lock = threading.Lock()
    statuses: list[int] = []

    def work(i: int, barrier: threading.Barrier) -> None:
        barrier.wait()
        status = phones[i].post(path, data={"request_id": f"phone-{i}"}, follow_redirects=False).status_code
        with lock:
            statuses.append(status)

    all_at_once(len(phones), work)
    assert sorted(statuses) == [303, 403, 403, 403]
    assert game.get()["version"] == 2
    keepers = [p for p in phones if p.get(f"/g/{game.id}/score").status_code == 200]
    assert len(keepers) == 1


def test_the_api_keeps_its_key_and_rotation(keeper: TestClient, game: GameHandle, new: TestClient):
    """API v1 is unchanged: the bearer key works until a handover or a rotation replaces it, and the key
    a handover gives works from the API too."""
    rotated = game.client.post(f"/api/v1/games/{game.id}/key", headers=game.auth)
    assert rotated.status_code == 200
    key = rotated.json()["edit_key"]
    claim(keeper, game.id, key)
    taken, _ = take(new, handover_path(keeper, game))
    new_key = taken.cookies[f"bb_edit_{game.id}"]
    body = game.scores(SMALL_ROUND)
    assert (
        game.client.post(
            f"/api/v1/games/{game.id}/rounds", json=body, headers={"Authorization": f"Bearer {key}"}
        ).status_code
        == 403
    )
    added = game.client.post(
        f"/api/v1/games/{game.id}/rounds", json=body, headers={"Authorization": f"Bearer {new_key}"}
    )
    assert added.status_code == 201


def test_the_token_never_reaches_a_log_line_or_a_compressed_answer(
    keeper: TestClient, game: GameHandle, new: TestClient, caplog
):
    caplog.set_level(logging.INFO, logger="blitzboard")
    path = handover_path(keeper, game)
    token = path.rsplit("/", 1)[1]
    asked = new.get(path, headers={"Accept-Encoding": "gzip"})
    assert asked.status_code == 200 and "content-encoding" not in asked.headers  # a secret beside typed text
    assert take(new, path)[0].status_code == 303
    logged = [r.getMessage() for r in caplog.records]
    assert sum(f"/g/{game.id}/take/[redacted]" in line for line in logged) == 3, logged
    assert not any(token in line for line in logged)


def test_the_deleted_games_link_says_gone(keeper: TestClient, game: GameHandle, new: TestClient):
    path = handover_path(keeper, game)
    assert game.client.delete(f"/api/v1/games/{game.id}", headers=game.auth).status_code == 204
    assert new.get(path).status_code == 410
    assert new.post(path, follow_redirects=False).status_code == 410


# --- the scorekeeper's page follows the game ---------------------------------------------------------


def test_the_keeper_page_follows_the_event_stream(keeper: TestClient, game: GameHandle):
    page = html(keeper.get(f"/g/{game.id}/score"))
    live = page.select_one("#live[hx-ext=sse]")
    assert live["sse-connect"] == f"/g/{game.id}/events"
    refresh = live.select_one("#live-refresh")
    assert refresh["hx-get"] == f"/g/{game.id}/score"
    assert refresh["hx-include"] == "#since, #history-page, #keeper-state"
    assert page.select_one("#game #since")["value"] == "1"
    assert page.select_one("#game #keeper-state").select("input") == []
    assert page.select_one("script[src*=htmx-ext-sse]") is not None


def test_the_keeper_refresh_answers_204_until_another_keeper_saves(keeper: TestClient, game: GameHandle, app: FastAPI):
    with statements(app) as seen:
        same = keeper.get(f"/g/{game.id}/score", params={"since": 1}, headers=HTMX)
    assert (same.status_code, same.text) == (204, "")
    assert (reads_of(seen, "player"), reads_of(seen, "round")) == (0, 0), seen
    game.add_round(SMALL_ROUND)  # another keeper (here the API) saves
    newer = keeper.get(f"/g/{game.id}/score", params={"since": 1}, headers=HTMX)
    assert newer.status_code == 200
    fragment = html(newer)
    assert fragment.select_one("#game")["data-version"] == "2"
    assert fragment.select_one("#since")["value"] == "2"
    assert fragment.select_one("#round-entry form input[name=version]")["value"] == "2"
    # Without htmx, `since` changes nothing: the whole page.
    assert html(keeper.get(f"/g/{game.id}/score", params={"since": 2})).select_one("#share") is not None
    assert keeper.get(f"/g/{game.id}/score", params={"since": -1}, headers=HTMX).status_code == 422


@pytest.mark.parametrize(
    ("query", "state", "shown"),
    [
        ("?edit=1", {"edit": "1"}, "#round-entry form[action$='/rounds/1']"),
        ("?delete=1", {"delete": "1"}, "#confirm-delete"),
        ("?delete_game=1", {"delete_game": "1"}, "#game form[action$='/delete']"),
    ],
)
def test_the_keeper_refresh_keeps_what_the_page_has_open(
    keeper: TestClient, game: GameHandle, query: str, state: dict[str, str], shown: str
):
    game.add_round(SMALL_ROUND)
    fragment = html(keeper.get(f"/g/{game.id}/score{query}", headers=HTMX))
    inputs = {str(i["name"]): str(i["value"]) for i in fragment.select("#keeper-state input")}
    assert inputs == state
    game.add_round(SMALL_ROUND)  # another keeper saves: the refresh asks for the same view
    refreshed = html(keeper.get(f"/g/{game.id}/score", params={"since": 2, **inputs}, headers=HTMX))
    assert refreshed.select_one(shown) is not None
    assert refreshed.select_one("#game")["data-version"] == "3"
