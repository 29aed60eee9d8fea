"""A player who left (through the API) on the game's pages: listed last with "left the game", asked nothing
in the round form (a plain post without them is the next round), in "Changes" with a Revert, and a round
posted from the page that still names them refused beside the form, nothing saved."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.helpers import GameHandle, csrf_of, game_url, html, text_of


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
    assert "покинул(а) игру" in text_of(page.select("#scoreboard li.standing")[-1])
    assert text_of(page.select_one("#changes li.change .change-text")).startswith("Игрок ушёл")
