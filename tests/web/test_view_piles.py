""" "Check the piles" on the view page, for anyone at the table while the scorekeeper lets them help from
there (`seats.on_view`), in games of cards only: the typed tops against the rows sent for the round being
played, else against the last round saved. A plain GET form: its own page without JavaScript, the answer in
place with htmx. It reads and changes nothing."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.helpers import GameHandle, game_url, html, text_of
from tests.web.test_seat_pages import NAMES, phone_at, send


def let_the_table_help(game: GameHandle) -> None:
    answer = game.client.patch(game_url(game.id), json={"seats": {"on_view": True}}, headers=game.auth)
    assert answer.status_code == 200, answer.text


def check(viewer: TestClient, game: GameHandle, typed: str, **headers: str):
    page = html(viewer.get(f"/g/{game.id}"))
    form = page.select_one("#share #pile-check form")
    assert form["method"] == "get" and form.select_one("input[name=piles]") is not None
    answer = viewer.get(form["action"], params={"piles": typed}, headers=headers)
    assert answer.status_code == 200, answer.text
    return html(answer)


def result(page) -> tuple[str, str]:
    shown = page.select_one("#pile-check .pile-result")
    return shown["data-outcome"], text_of(shown)


def test_the_view_page_offers_the_check_only_when_the_keeper_lets_the_table_help(app, make_game):
    game = make_game(players=NAMES)
    viewer = TestClient(app)
    assert html(viewer.get(f"/g/{game.id}")).select_one("#pile-check") is None
    assert viewer.get(f"/g/{game.id}/piles", params={"piles": "5"}).status_code == 404
    let_the_table_help(game)
    assert html(viewer.get(f"/g/{game.id}")).select_one("#share #pile-check form") is not None
    assert html(viewer.get(f"/g/{game.id}?tv=1")).select_one("#pile-check") is None  # the TV has no Share box


@pytest.mark.parametrize("preset", ["dutch", "thirty_one"])
def test_games_without_centre_piles_have_no_check(app, make_game, preset):
    game = make_game(players=NAMES, rules={"preset": preset})
    let_the_table_help(game)
    viewer = TestClient(app)
    assert html(viewer.get(f"/g/{game.id}")).select_one("#pile-check") is None
    assert viewer.get(f"/g/{game.id}/piles", params={"piles": "5"}).status_code == 404


def test_the_piles_against_the_rows_sent_for_the_round_being_played(app, make_game):
    game = make_game(players=NAMES)
    let_the_table_help(game)
    viewer = TestClient(app)
    assert result(check(viewer, game, "10 4")) == ("none", "Nothing to check yet: no row of round 1 was sent.")
    for name, dutch in (("Ana", "9"), ("Ben", "5")):
        assert send(phone_at(app, game, name), game, dutch=dutch, blitz="0").status_code == 200
    assert result(check(viewer, game, "10 4")) == (
        "waiting",
        "The piles hold 14 cards; the rows sent so far for round 1 say 14. Not sent yet: Cy.",
    )
    assert send(phone_at(app, game, "Cy"), game, dutch="3", blitz="4").status_code == 200
    assert result(check(viewer, game, "10 7")) == ("same", "The piles hold 17 cards, as round 1 says.")
    page = check(viewer, game, "10 9")
    assert result(page) == (
        "differ",
        "The piles hold 19 cards; round 1 says 17. Tell the scorekeeper, who can correct it.",
    )
    assert page.select_one("#view-piles")["value"] == "10 9"  # kept as typed
    assert game.get()["rounds"] == [] and game.get()["version"] == 2  # it read, and changed nothing


def test_after_the_save_the_piles_are_checked_against_the_last_round(app, make_game):
    game = make_game(players=NAMES)
    let_the_table_help(game)
    assert game.add_round([(12, 0), (9, 4), (7, 6)]).status_code == 201
    viewer = TestClient(app)
    assert result(check(viewer, game, "28")) == ("same", "The piles hold 28 cards, as round 1 says.")
    assert result(check(viewer, game, "10 10 6")) == (
        "differ",
        "The piles hold 26 cards; round 1 says 28. Tell the scorekeeper, who can correct it.",
    )


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("ten", "Type the top card of each centre pile (10 7 5 …), or their sum."),
        ("10 11", "A pile's top card is between 1 and 10."),
    ],
)
def test_what_cannot_be_read_is_said_beside_the_field(app, make_game, typed, message):
    game = make_game(players=NAMES)
    let_the_table_help(game)
    page = check(TestClient(app), game, typed)
    assert result(page) == ("error", message)
    assert page.select_one("#view-piles")["aria-invalid"] == "true"


def test_with_htmx_the_answer_is_the_box_alone_and_without_it_a_page_with_the_way_back(app, make_game):
    game = make_game(players=NAMES)
    let_the_table_help(game)
    viewer = TestClient(app)
    fragment = check(viewer, game, "5", **{"HX-Request": "true"})
    assert fragment.select_one("#pile-check") is not None and fragment.select_one("main") is None
    page = check(viewer, game, "5")
    assert page.select_one("main #pile-check") is not None
    assert page.select_one(f"main a[href='/g/{game.id}']") is not None
