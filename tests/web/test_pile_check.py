"""The piles check the count, on the scorekeeper's round form (app/web/entry.py): the top card of each centre
pile, or their sum, against the rows' centre counts; a difference is said beside the field before anything is
saved, with the values kept and "Save anyway"; a match, or "Save anyway", saves the round as typed."""

from __future__ import annotations

import pytest

from app.rules.cards import piles_typed
from tests.helpers import csrf_of, html, text_of

NAMES = [{"name": n} for n in ("Ana", "Ben", "Cy")]
ROW = {"Ana": (12, 0), "Ben": (9, 4), "Cy": (7, 6)}  # 28 centre cards


@pytest.mark.parametrize(
    ("typed", "top", "read"),
    [
        ("28", 10, (28, None)),
        ("10 10 8", 10, (28, None)),
        ("10, 10+8", 10, (28, None)),
        ("13 12", 13, (25, None)),  # Nerts: A to K
        ("13 12", 10, (None, "pile_top_range")),
        ("0 5", 10, (None, "pile_top_range")),  # a pile has at least its first card
        ("ten", 10, (None, "piles_unreadable")),
        ("-3", 10, (None, "piles_unreadable")),
        ("²", 10, (None, "piles_unreadable")),  # a digit to str.isdigit, not to int()
        ("10 ①", 10, (None, "piles_unreadable")),
        ("١٠", 10, (None, "piles_unreadable")),  # Arabic-Indic digits: int() reads them, a person won't mean them
    ],
)
def test_what_was_typed_for_the_piles(typed: str, top: int, read):
    assert piles_typed(typed, top) == read


def post_round(keeper, game, **extra: str):
    data = {"csrf": csrf_of(keeper, game.id), "request_id": "piles-" + "-".join(extra.values())}
    for pid, (d, b) in zip(game.player_ids, ROW.values(), strict=True):
        data |= {f"dutch-{pid}": str(d), f"blitz-{pid}": str(b)}
    return keeper.post(f"/g/{game.id}/rounds", data=data | extra, follow_redirects=True)


def test_a_miscount_is_said_before_saving_and_saved_only_anyway(keeper_of, make_game):
    game = make_game(players=NAMES)
    keeper = keeper_of(game)
    answer = post_round(keeper, game, piles="10 10 10")  # 30 on the piles, 28 in the rows
    assert answer.status_code == 422
    page = html(answer)
    assert "The piles hold 30 cards; the rows say 28" in text_of(page.select_one("#piles-error"))
    assert page.select_one("details.pile-check")["open"] is not None
    assert page.select_one("#piles")["value"] == "10 10 10"
    assert page.select_one(f"input[name=dutch-{game.player_ids[0]}]")["value"] == "12"
    assert page.select_one("button[name=piles_anyway]") is not None
    assert game.get()["rounds"] == []
    anyway = post_round(keeper, game, piles="10 10 10", piles_anyway="1")
    assert anyway.status_code == 200 and len(game.get()["rounds"]) == 1


@pytest.mark.parametrize("typed", ["28", "10 10 8"])
def test_a_count_the_piles_agree_with_is_saved(keeper_of, make_game, typed: str):
    game = make_game(players=NAMES)
    assert post_round(keeper_of(game), game, piles=typed).status_code == 200
    assert len(game.get()["rounds"]) == 1


def test_an_unreadable_pile_count_is_said_beside_the_field(keeper_of, make_game):
    game = make_game(players=NAMES)
    answer = post_round(keeper_of(game), game, piles="10 11")
    assert answer.status_code == 422
    assert "between 1 and 10" in text_of(html(answer).select_one("#piles-error"))
    assert html(answer).select_one("button[name=piles_anyway]") is None
    assert game.get()["rounds"] == []


def piles_shown(browser, url: str) -> dict[str, str]:
    """Each round's "Piles: n" in the history of the page at `url`, by the round's card id."""
    page = html(browser.get(url))
    cards = page.select(".round-list .round-card[id]")
    return {card["id"]: text_of(said) if (said := card.select_one(".piles")) else None for card in cards}


@pytest.mark.parametrize(
    ("extra", "kept", "shown"),
    [
        ({"piles": "10 10 8"}, 28, "Piles: 28"),
        ({"piles": "28"}, 28, "Piles: 28"),
        ({"piles": "10 10 10", "piles_anyway": "1"}, 30, "Piles: 30"),  # the house's choice, kept as counted
        ({}, None, None),  # nobody counted: nothing said
    ],
)
def test_the_count_is_kept_with_the_round_and_shown_in_the_history(
    keeper_of, make_game, client, extra: dict[str, str], kept: int | None, shown: str | None
):
    game = make_game(players=NAMES)
    keeper = keeper_of(game)
    assert post_round(keeper, game, **extra).status_code == 200
    assert game.get()["rounds"][0]["piles"] == kept
    for browser, url in ((keeper, f"/g/{game.id}/score"), (client, f"/g/{game.id}")):
        assert piles_shown(browser, url) == {"round-1": shown}


def test_the_history_says_the_count_in_the_readers_language(keeper_of, make_game, client):
    game = make_game(players=NAMES)
    assert post_round(keeper_of(game), game, piles="28").status_code == 200
    page = html(client.get(f"/g/{game.id}", headers={"Accept-Language": "de"}))
    assert text_of(page.select_one("#round-1 .piles.muted")) == "Stapel: 28"


def test_a_correction_shows_the_count_and_emptied_clears_it(keeper_of, make_game):
    game = make_game(players=NAMES)
    keeper = keeper_of(game)
    assert post_round(keeper, game, piles="28").status_code == 200
    form = html(keeper.get(f"/g/{game.id}/score?edit=1"))
    assert form.select_one("#piles")["value"] == "28"
    data = {"csrf": csrf_of(keeper, game.id), "request_id": "piles-correction", "piles": ""}
    for pid, (d, b) in zip(game.player_ids, ROW.values(), strict=True):
        data |= {f"dutch-{pid}": str(d), f"blitz-{pid}": str(b)}
    assert keeper.post(f"/g/{game.id}/rounds/1", data=data, follow_redirects=True).status_code == 200
    assert game.get()["rounds"][0]["piles"] is None


def test_a_sum_over_every_deck_is_said_beside_the_field(keeper_of, make_game):
    game = make_game(players=NAMES)
    answer = post_round(keeper_of(game), game, piles="500", piles_anyway="1")  # three decks of 40: at most 120
    assert answer.status_code == 422
    assert "between 0 and 120 cards" in text_of(html(answer).select_one("#piles-error"))
    assert game.get()["rounds"] == []


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [(28, None, "piles: 28 → not counted"), (None, 30, "piles: not counted → 30"), (28, 30, "piles: 28 → 30")],
)
def test_the_changes_say_a_corrected_count(make_game, client, before, after, said: str):
    game = make_game(players=NAMES)
    counts = list(ROW.values())
    url = f"/api/v1/games/{game.id}/rounds"
    assert game.client.post(url, json=game.scores(counts) | {"piles": before}, headers=game.auth).status_code == 201
    body = game.scores(counts) | {"piles": after, "piles_anyway": True}
    assert game.client.put(url + "/1", json=body, headers=game.auth).status_code == 200
    page = html(client.get(f"/g/{game.id}"))
    assert said in text_of(page.select_one("#changes li.change .change-text"))
