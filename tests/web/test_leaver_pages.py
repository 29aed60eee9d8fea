"""A player who left (through the API) on the game's pages: listed last with "left the game", asked nothing
in the round form (a plain post without them is the next round), in "Changes" with a Revert, and a round
posted from the page without them the next round; the Players card's buttons mark a player as gone or back,
a refusal beside the player's field."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.helpers import GameHandle, csrf_of, form_data, game_url, html, round_body, text_of
from tests.tables.test_tables import make_table  # noqa: F401 (a fixture)


def leave(game: GameHandle, index: int) -> None:
    url = game_url(game.id, f"/players/{game.player_ids[index]}")
    assert game.client.patch(url, json={"left": True}, headers=game.auth).status_code == 200


def test_a_leaver_is_listed_last_asked_nothing_and_in_changes(client: TestClient, keeper_of, make_game):
    game = make_game(rules={"target": 1000})
    assert game.add_round([(3, 0), (2, 4), (1, 6), (0, 8)]).status_code == 201
    leave(game, 0)  # Ana
    keeper = keeper_of(game)
    page = html(keeper.get(f"/g/{game.id}/score"))
    last = page.select("#scoreboard li.standing")[-1]
    assert last["data-player-id"] == str(game.player_ids[0]) and "out" in last["class"]
    assert "left the game" in text_of(last)
    form = page.select_one("form.round-form, #round-form form, form[data-dutch-points]")
    fields = {i["name"] for i in form.select("input[name^=dutch-], input[name^=blitz-]")}
    assert fields == {f"{kind}-{pid}" for pid in game.player_ids[1:] for kind in ("dutch", "blitz")}
    line = text_of(page.select_one("#changes li.change .change-text"))
    assert line.startswith("Player left after round 1 at ") and line.endswith("Ana")
    assert page.select_one("#changes li.change form") is not None  # no round since: revertable
    # The view page too.
    view = html(client.get(f"/g/{game.id}"))
    assert "left the game" in text_of(view.select("#scoreboard li.standing")[-1])
    # A plain post of the form without her is round 2.
    data = {"csrf": csrf_of(keeper, game.id), "request_id": "leaver-1"}
    data |= {f"dutch-{pid}": "4" for pid in game.player_ids[1:]}
    data |= {f"blitz-{pid}": str(b) for pid, b in zip(game.player_ids[1:], (0, 3, 5), strict=True)}
    answer = keeper.post(f"/g/{game.id}/rounds", data=data, follow_redirects=True)
    assert answer.status_code == 200, answer.text
    body = game.get()
    assert len(body["rounds"]) == 2 and len(body["rounds"][1]["scores"]) == 3
    assert html(answer).select_one("#changes li.change form") is None  # now she can't come back


def test_a_russian_page_says_it_in_russian(keeper_of, make_game):
    game = make_game(rules={"target": 1000})
    leave(game, 1)
    keeper = keeper_of(game)
    page = html(keeper.get(f"/g/{game.id}/score", headers={"Accept-Language": "ru"}))
    assert "больше не играет" in text_of(page.select("#scoreboard li.standing")[-1])
    assert text_of(page.select_one("#changes li.change .change-text")).startswith("Игрок ушёл")


HTMX = {"HX-Request": "true"}


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_the_players_card_marks_a_player_as_gone_and_back(keeper_of, make_game, htmx: bool):
    game = make_game(rules={"target": 1000})
    assert game.add_round([(3, 0), (2, 4), (1, 6), (0, 8)]).status_code == 201
    keeper = keeper_of(game)
    form = html(keeper.get(f"/g/{game.id}/score")).select("#players form.rename-player")[2]
    button = form.select_one('button[name="left"]')
    assert (button["value"], button["aria-label"]) == ("1", "Cy has left the game")

    def press(form, value: str):
        data = form_data(form) | {"left": value}
        response = keeper.post(form["action"], data=data, headers=HTMX if htmx else {}, follow_redirects=False)
        if htmx:
            assert response.status_code in (200, 422), response.text
            return response, html(response)
        if response.status_code == 303:
            return response, html(keeper.get(response.headers["location"]))
        return response, html(response)

    _, page = press(form, "1")
    assert [p["left"] for p in game.get()["players"]] == [False, False, True, False]
    assert "left the game" in text_of(page.select("#scoreboard li.standing")[-1])
    back = page.select("#players form.rename-player")[2].select_one('button[name="left"]')
    assert (back["value"], back["aria-label"]) == ("0", "Cy is back in the game")
    _, page = press(page.select("#players form.rename-player")[2], "0")
    assert not any(p["left"] for p in game.get()["players"])
    # Gone again, a round played: coming back is refused beside her field, the name kept as typed.
    _, page = press(page.select("#players form.rename-player")[2], "1")
    ids = [pid for i, pid in enumerate(game.player_ids) if i != 2]
    rounds = game_url(game.id, "/rounds")
    assert (
        game.client.post(rounds, json=round_body(ids, [(4, 0), (2, 4), (1, 6)]), headers=game.auth).status_code == 201
    )
    form = html(keeper.get(f"/g/{game.id}/score")).select("#players form.rename-player")[2]
    response, page = press(form, "0")
    assert response.status_code == 422
    error = page.select_one("#players .field-error")
    assert "Cy can't come back: rounds were played since they left." in text_of(error)
    assert page.select("#players input[name=name]")[2]["value"] == "Cy"
    assert game.get()["players"][2]["left"]


def test_no_leave_button_on_a_finished_game(keeper_of, make_game):
    game = make_game(rules={"target": 10})
    assert game.add_round([(12, 0), (2, 4), (1, 6), (0, 8)]).status_code == 201
    page = html(keeper_of(game).get(f"/g/{game.id}/score"))
    assert page.select("#players form.rename-player") and page.select('#players button[name="left"]') == []


@pytest.mark.parametrize("preset", ["dutch_blitz", "dutch", "thirty_one"])
def test_every_page_of_a_table_game_finished_after_someone_left_before_any_round(
    client: TestClient,
    keeper_of,
    make_table,  # noqa: F811
    preset: str,
):
    table = make_table("The Millers", ["Ana", "Ben", "Cy"])
    game = table.game(["Ana", "Ben", "Cy"], rules={"preset": preset})
    leave(game, 2)
    ana, ben = game.player_ids[:2]
    rounds = game_url(game.id, "/rounds")
    if preset == "dutch_blitz":
        body = {"scores": [{"player_id": ana, "dutch": 40, "blitz": 0}, {"player_id": ben, "dutch": 0, "blitz": 10}]}
    else:
        body = {
            "scores": [{"player_id": ana, "hand": 30 if preset == "thirty_one" else 0}, {"player_id": ben, "hand": 25}]
        }
    while game.get()["status"] == "playing":
        assert client.post(rounds, json=body, headers=game.auth).status_code == 201, game.get()
    assert game.get()["winners"] == [ana]
    for url in (f"/g/{game.id}", f"/t/{table.id}", game_url(game.id, "/export.csv"), game_url(game.id, "/export")):
        assert client.get(url).status_code == 200, url
    page = html(keeper_of(game).get(f"/g/{game.id}/score"))
    assert "left the game" in text_of(page.select("#scoreboard li.standing")[-1])
