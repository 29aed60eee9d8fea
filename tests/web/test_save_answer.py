"""The scorekeeper's save answers only what changed: a new round's htmx answer leaves out
the rounds the page already shows as they are (`Blitzboard-Shown`, sent by static/app.js), as empty
cards marked hx-preserve, which htmx fills with the cards on the page. Whatever doesn't fit (another
version, another history page, a correction, no header) gets the whole fragment."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.helpers import GameHandle, form_data, html, round_form

ROUND = [(3, 0), (2, 4), (1, 6), (0, 8)]
HTMX = {"HX-Request": "true"}


@pytest.fixture
def game(make_game) -> GameHandle:
    game = make_game(rules={"target": 10_000})
    for _ in range(25):
        assert game.add_round(ROUND).status_code == 201
    return game


def form_values(keeper: TestClient, game: GameHandle, counts=(5, 1)) -> dict[str, str]:
    page = html(keeper.get(f"/g/{game.id}/score"))
    values = form_data(page.select_one("#round-entry form"))
    # The first player went out.
    typed = [(counts[0], counts[1] if seat else 0) for seat in range(len(game.player_ids))]
    return values | round_form(game.player_ids, typed, values["csrf"])


def cards(answer) -> tuple[list[int], list[int]]:
    """(the rounds answered whole, the rounds left to the page) in the answer's history."""
    whole, kept = [], []
    for card in answer.select("#history .round-card[data-round]"):
        (kept if card.has_attr("hx-preserve") else whole).append(int(card["data-round"]))
        assert card["id"] == f"round-{card['data-round']}"
    return whole, kept


def test_a_new_round_answers_only_itself_in_the_history(keeper: TestClient, game: GameHandle):
    values = form_values(keeper, game)
    version = int(values["version"])
    shown = {"Blitzboard-Shown": f"{version} 6-25"}  # the latest 20 of 25 rounds, as the page shows them
    answer = keeper.post(f"/g/{game.id}/rounds", data=values, headers=HTMX | shown)
    assert answer.status_code == 200, answer.text
    page = html(answer)
    whole, kept = cards(page)
    assert whole == [26] and kept == list(range(25, 6, -1))  # round 6 drops off the page
    assert all(not card.contents for card in page.select("#history .round-card[hx-preserve]"))
    assert page.select_one('#history .round-card[data-round="26"] .score .points').get_text() == "+5"
    # The same save answered whole (no header) is larger by the cards left out.
    game2_values = form_values(keeper, game)
    full = keeper.post(f"/g/{game.id}/rounds", data=game2_values, headers=HTMX)
    whole, kept = cards(html(full))
    assert whole == list(range(27, 7, -1)) and kept == []
    assert len(answer.content) < len(full.content) - 19 * 400


@pytest.mark.parametrize(
    "shown",
    [
        "{v_before} 6-24",  # the page didn't show the latest round
        "{v_old} 6-25",  # the page showed an older version of the game
        "{v_before} 1-20",  # another history page
        "{v_before} 9-3",  # nonsense
        "{v_before}",
        "x 6-25",
    ],
)
def test_a_page_that_does_not_show_the_game_as_the_save_found_it_gets_the_whole_history(
    keeper: TestClient, game: GameHandle, shown: str
):
    values = form_values(keeper, game)
    version = int(values["version"])
    header = shown.format(v_before=version, v_old=version - 1)
    answer = keeper.post(f"/g/{game.id}/rounds", data=values, headers=HTMX | {"Blitzboard-Shown": header})
    assert answer.status_code == 200
    whole, kept = cards(html(answer))
    assert kept == [] and whole == list(range(26, 6, -1))


def test_a_correction_and_the_page_without_javascript_get_everything(keeper: TestClient, game: GameHandle):
    values = form_values(keeper, game)
    version = int(values["version"])
    page = html(keeper.get(f"/g/{game.id}/score?edit=25", headers=HTMX))
    form = page.select_one("#game form[action$='/rounds/25']")
    fix = form_data(form)
    fix[f"dutch-{game.player_ids[0]}"] = "9"
    answer = keeper.post(form["action"], data=fix, headers=HTMX | {"Blitzboard-Shown": f"{version} 6-25"})
    assert answer.status_code == 200, answer.text
    assert cards(html(answer))[1] == []  # a correction changes the totals of the rounds after it
    values = form_values(keeper, game)
    plain = keeper.post(
        f"/g/{game.id}/rounds",
        data=values,
        headers={"Blitzboard-Shown": f"{values['version']} 6-25"},
        follow_redirects=True,
    )
    assert cards(html(plain))[1] == []


def test_a_replayed_save_gets_everything(keeper: TestClient, game: GameHandle):
    values = form_values(keeper, game)
    shown = {"Blitzboard-Shown": f"{values['version']} 6-25"}
    first = keeper.post(f"/g/{game.id}/rounds", data=values, headers=HTMX | shown)
    again = keeper.post(f"/g/{game.id}/rounds", data=values, headers=HTMX | shown)  # same request id
    assert cards(html(first))[1] and cards(html(again))[1] == []
    assert len(game.get()["rounds"]) == 26
