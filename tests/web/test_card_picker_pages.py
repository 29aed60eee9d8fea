"""Count a hand: the markup of the card picker on the Dutch and 31 round entry (static/entry.js builds the
picker itself and adds the cards up; tests/browser/test_browser_card_picker.py taps it). Without
JavaScript the form is what it was: the "Count cards" button beside each hand is `hidden` and a plain
button (never a submit), so nothing of it shows or breaks; only Dutch and 31 have it, only for the
players still asked; the picker's words are in the page's language like the rest of entry.js's."""

from __future__ import annotations

import json

import pytest

from tests.helpers import html
from tests.web.test_game_pages_kinds import NAMES, Keeper, new_game, played


@pytest.mark.parametrize("preset", ["dutch", "thirty_one"])
def test_each_hand_has_a_hidden_count_cards_button_for_javascript_to_show(make_game, preset):
    game = new_game(make_game, {"preset": preset})
    page = Keeper(game).page()
    form = page.select_one("#round-entry form")
    assert form is not None
    assert form["data-kind"] == ("lowest" if preset == "dutch" else "lives")
    buttons = form.select("[data-count-cards]")
    assert [b["data-count-cards"] for b in buttons] == [f"hand-{p}" for p in game.player_ids]
    for button, name in zip(buttons, NAMES, strict=True):
        assert (button.name, button["type"], button.has_attr("hidden")) == ("button", "button", True)
        assert button.get_text(" ", strip=True) == f"Count cards — {name}"
        assert button["data-name"] == name
        # Next to its own field, inside the player's row: a screen reader hears it with the name.
        assert button.find_parent("fieldset")["data-player-id"] == button["data-count-cards"].removeprefix("hand-")


def test_a_player_out_of_31_has_no_button(make_game):
    # 2 lives, no county: Ana's hand is the lowest twice, so she is out after round 2.
    game = played(make_game, {"preset": "thirty_one", "lives": 2, "county": False}, [((10, 20, 25), None)] * 2)
    page = Keeper(game).page()
    assert [b["data-count-cards"] for b in page.select("[data-count-cards]")] == [
        f"hand-{p}" for p in game.player_ids[1:]
    ]


def test_the_card_games_have_no_picker(make_game):
    game = new_game(make_game, {"preset": "dutch_blitz_100"})
    page = Keeper(game).page()
    assert page.select_one("#round-entry form") is not None
    assert page.select("[data-count-cards]") == []


def test_the_pickers_words_come_in_the_pages_language(make_game):
    game = new_game(make_game, {"preset": "thirty_one"})
    keeper = Keeper(game)
    response = keeper.client.get(f"/g/{game.id}/score", headers={"Accept-Language": "de"})
    meta = html(response).select_one("meta[name=offline-text]")
    assert meta is not None
    words = json.loads(str(meta["content"]))
    assert [words[f"rank_{r}"] for r in "AJQK"] == ["A", "B", "D", "K"]
    assert (words["card_use"], words["card_total"], words["suit_hearts"]) == ("{n} eintragen", "Summe: {n}", "Herz")
    assert html(response).select_one("[data-count-cards]").get_text(strip=True) == "Karten zählen — Ana"
