"""The two seat settings in pages: the scorekeeper ticks them in "Players enter their own" (a plain form),
the view page then offers the seat link to everyone who follows the game, and the last row in saves the
round by itself."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.helpers import GameHandle, game_url, html, text_of
from tests.web.test_seat_pages import NAMES, link_of, phone_at, send


def set_seats(keeper: TestClient, game: GameHandle, **ticked: str):
    page = html(keeper.get(f"/g/{game.id}/score?seats=1"))
    form = page.select_one("#seats form.seat-settings")
    answer = keeper.post(form["action"], data={"csrf": form.select_one("input[name=csrf]")["value"], **ticked})
    assert answer.status_code == 200 and answer.url.path == f"/g/{game.id}/score", answer.text
    return html(answer)


def test_the_keeper_ticks_the_settings_and_unticks_them(keeper_of, make_game):
    game = make_game(players=NAMES)
    keeper = keeper_of(game)
    page = html(keeper.get(f"/g/{game.id}/score?seats=1"))
    boxes = page.select("#seats form.seat-settings input[type=checkbox]")
    assert [(b["name"], b.has_attr("checked")) for b in boxes] == [("save_round", False), ("on_view", False)]
    page = set_seats(keeper, game, save_round="1")
    assert page.select_one("#seats input[name=save_round]").has_attr("checked")
    assert not page.select_one("#seats input[name=on_view]").has_attr("checked")
    assert game.get()["seats"] == {"save_round": True, "on_view": False}
    set_seats(keeper, game, on_view="1")  # a box left unticked turns its setting off
    assert game.get()["seats"] == {"save_round": False, "on_view": True}


def test_the_settings_need_the_keepers_page(app, make_game):
    game = make_game(players=NAMES)
    stranger = TestClient(app)
    answer = stranger.post(f"/g/{game.id}/seats", data={"save_round": "1", "csrf": "x"})
    assert answer.status_code == 403
    assert game.get()["seats"] == {"save_round": False, "on_view": False}


def test_the_view_page_offers_the_seat_link_only_when_the_keeper_lets_it(app, keeper_of, make_game):
    game = make_game(players=NAMES)
    viewer = TestClient(app)
    assert html(viewer.get(f"/g/{game.id}")).select_one("#take-seat") is None
    set_seats(keeper_of(game), game, on_view="1")
    page = html(viewer.get(f"/g/{game.id}"))
    link = page.select_one("#share #take-seat")["href"]
    assert link.endswith(link_of(game)) and page.select_one("#share #seats .qr svg") is not None
    assert "Enter your own row" in text_of(page.select_one("#share #seats h3"))
    # The link is the seat link: a viewer's phone takes Ana's seat from it.
    assert html(viewer.get(link.split("testserver", 1)[1])).select("#seat-link form")
    # TV: no Share box at all. A finished game: no seat to take.
    assert html(viewer.get(f"/g/{game.id}?tv=1")).select_one("#take-seat") is None
    game.add_round([(40, 0), (30, 5), (20, 8)])
    game.add_round([(40, 0), (30, 5), (20, 8)])
    assert game.get()["status"] == "finished"
    assert html(viewer.get(f"/g/{game.id}")).select_one("#take-seat") is None


def test_the_last_phone_to_send_saves_the_round_and_sees_the_next(app, keeper_of, make_game):
    game = make_game(players=NAMES)
    set_seats(keeper_of(game), game, save_round="1")
    phones = [phone_at(app, game, name) for name in ("Ana", "Ben", "Cy")]
    for phone, (dutch, blitz) in zip(phones[:2], [("12", "0"), ("9", "4")], strict=True):
        assert send(phone, game, dutch=dutch, blitz=blitz).status_code == 200
    assert game.get()["rounds"] == []
    last = send(phones[2], game, dutch="7", blitz="6")
    assert last.status_code == 200, last.text
    assert [p["total"] for p in game.get()["players"]] == [12, 1, -5]
    page = html(last)
    assert page.select_one("form.seat-form input[name=round]")["value"] == "2"
    assert text_of(page.select_one(".seat-saved")) == "Your row was the last one in: round 1 is saved."
    assert game.client.get(game_url(game.id, "/draft")).json()["rows"] == []
