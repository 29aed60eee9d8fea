"""A player's name on the scorekeeper's page (templates/_players_form.html): a form per player that works as a
plain post and with htmx, a refused name kept as typed with why beside it, and the rename in "Changes"."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.helpers import GameHandle, csrf_of, form_data, game_url, html, text_of

HTMX = {"HX-Request": "true"}


@pytest.fixture
def game(make_game) -> GameHandle:
    game = make_game(rules={"target": 1000})
    assert game.add_round([(3, 0), (2, 4), (1, 6), (0, 8)]).status_code == 201
    return game


def names(game: GameHandle) -> list[str]:
    return [p["name"] for p in game.get()["players"]]


def test_the_keeper_page_has_a_rename_form_per_player_and_the_view_page_none(
    client: TestClient, keeper: TestClient, game: GameHandle
):
    page = html(keeper.get(f"/g/{game.id}/score"))
    forms = page.select("#players form.rename-player")
    assert len(forms) == 4
    csrf = csrf_of(keeper, game.id)
    for form, player_id, name in zip(forms, game.player_ids, ["Ana", "Ben", "Cy", "Dee"], strict=True):
        action = f"/g/{game.id}/players/{player_id}"
        assert (form["method"], form["action"], form["hx-post"]) == ("post", action, action)
        field = form.select_one('input[name="name"]')
        assert field["value"] == name and form.select_one(f'label[for="{field["id"]}"]') is not None
        assert form.select_one('input[name="csrf"]')["value"] == csrf
    assert html(client.get(f"/g/{game.id}")).select("#players, form.rename-player") == []


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_a_rename_from_the_page_shows_everywhere_and_in_changes(
    client: TestClient, keeper: TestClient, game: GameHandle, htmx: bool
):
    form = html(keeper.get(f"/g/{game.id}/score")).select("#players form.rename-player")[1]
    data = form_data(form) | {"name": "Benjamin"}
    response = keeper.post(form["action"], data=data, headers=HTMX if htmx else {}, follow_redirects=False)
    if htmx:
        assert response.status_code == 200, response.text
        page = html(response)
    else:
        assert response.status_code == 303, response.text
        page = html(keeper.get(response.headers["location"]))
    assert names(game) == ["Ana", "Benjamin", "Cy", "Dee"]
    assert page.select("#players form.rename-player input[name=name]")[1]["value"] == "Benjamin"
    line = text_of(page.select_one("#changes li.change .change-text"))
    assert line.startswith("Player renamed at ") and line.endswith("“Ben” → “Benjamin”"), line
    assert page.select_one("#changes li.change form") is not None  # the scorekeeper may revert it
    assert "Benjamin" in text_of(html(client.get(f"/g/{game.id}")).select_one("#game"))


REFUSED = {
    "another player's name": ("  cy ", "Another player is already called cy"),
    "blank": ("   ", "Enter a name."),
    "too long": ("B" * 41, "A name can have at most 40 characters."),
}


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
@pytest.mark.parametrize("typed, message", REFUSED.values(), ids=REFUSED.keys())
def test_a_refused_name_stays_as_typed_with_why_beside_it(
    keeper: TestClient, game: GameHandle, typed: str, message: str, htmx: bool
):
    before = game.get()
    form = html(keeper.get(f"/g/{game.id}/score")).select("#players form.rename-player")[1]
    response = keeper.post(
        form["action"], data=form_data(form) | {"name": typed}, headers=HTMX if htmx else {}, follow_redirects=False
    )
    assert response.status_code == 422, response.text
    page = html(response)
    assert page.select_one("details#players").has_attr("open")
    field = page.select("#players form.rename-player input[name=name]")[1]
    assert field["value"] == typed and field["aria-invalid"] == "true"
    error = page.select_one(f"#{field['aria-describedby']}")
    assert error is not None and error["role"] == "alert" and text_of(error).startswith(message)
    # The other players' fields keep their names and no error.
    assert [f["value"] for f in page.select("#players form.rename-player input[name=name]")][::2] == ["Ana", "Cy"]
    assert len(page.select("#players .field-error")) == 1
    assert game.get() == before


def test_a_rename_from_a_page_the_game_moved_past_is_refused_and_kept(keeper: TestClient, game: GameHandle):
    form = html(keeper.get(f"/g/{game.id}/score")).select("#players form.rename-player")[0]
    assert game.add_round([(3, 0), (2, 4), (1, 6), (0, 8)]).status_code == 201  # another phone saves meanwhile
    response = keeper.post(form["action"], data=form_data(form) | {"name": "Anna"}, headers=HTMX)
    assert response.status_code == 409
    field = html(response).select("#players form.rename-player input[name=name]")[0]
    assert field["value"] == "Anna"
    assert "changed on another device" in text_of(html(response).select_one(f"#{field['aria-describedby']}"))
    assert names(game)[0] == "Ana"


def test_a_rename_without_the_key_or_the_csrf_token_is_refused(client: TestClient, keeper: TestClient, game):
    url = f"/g/{game.id}/players/{game.player_ids[0]}"
    assert client.post(url, data={"name": "X"}).status_code == 403
    assert keeper.post(url, data={"name": "X", "csrf": "nope"}).status_code == 403
    assert (
        keeper.post(f"/g/{game.id}/players/999999", data={"name": "X", "csrf": csrf_of(keeper, game.id)}).status_code
        == 404
    )
    assert names(game)[0] == "Ana"
    assert game.client.get(game_url(game.id, "/changes")).json() == []
