"""The `cards` family's win rule on the pages: the start page's house rules and the game's rules form offer
it (the game's own checked), a game started with `first_to_target` has it, `end: rounds` with it is refused
beside the field; the scoreboard's rules line says "First to reach 75 wins"; a tie in the round two reached
the target says so; the change log words a change of it."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.helpers import GameHandle, game_url, html, text_of
from tests.web.test_change_pages import lines
from tests.web.test_start_kinds import created, house_rules, keeper_form, start, submit

FIRST = "first_to_target"


def both_reach(make_game, rules: dict | None = None) -> GameHandle:
    """Ana 58 → 80 and Ben 70 → 78: both past 75 in one round."""
    game = make_game([{"name": "Ana", "starting_score": 58}, {"name": "Ben", "starting_score": 70}], rules)
    ana, ben = game.player_ids
    body = {"scores": [{"player_id": ana, "dutch": 22, "blitz": 0}, {"player_id": ben, "dutch": 14, "blitz": 3}]}
    assert game.client.post(game_url(game.id, "/rounds"), json=body, headers=game.auth).status_code == 201
    return game


def win_choices(scope) -> dict[str, bool]:
    return {
        str(i["value"]): i.has_attr("checked") for i in scope.select("fieldset.win-rule input[type=radio][name=win]")
    }


def test_the_start_page_offers_the_win_rule_and_starts_a_game_with_it(client: TestClient):
    form = html(client.get("/")).select_one("form#new-game")
    rules = house_rules(form)
    assert win_choices(rules) == {"highest_total": True, FIRST: False}
    assert text_of(rules.select_one("fieldset.win-rule legend")) == "Who wins when someone reaches the target"
    assert created(client, start(client, form, win=FIRST))["rules"]["win"] == FIRST


def test_first_to_target_after_a_set_number_of_rounds_is_refused_beside_the_field(client: TestClient):
    form = html(client.get("/")).select_one("form#new-game")
    response = start(client, form, win=FIRST, end="rounds", rounds="5")
    assert response.status_code == 422, response.text
    again = html(response).select_one("form#new-game")
    message = again.select_one("fieldset.win-rule p.field-error#win-error")
    assert text_of(message) == (
        "“First to reach the target wins” needs a game that ends at the target, not after a set number of rounds."
    )
    assert win_choices(again) == {"highest_total": False, FIRST: True}  # as chosen


def test_the_rules_form_shows_the_games_win_rule_and_changes_it(client: TestClient, make_game):
    game = both_reach(make_game)
    form = keeper_form(client, game)
    assert win_choices(form) == {"highest_total": True, FIRST: False}
    response = submit(client, form, {"win": FIRST})
    assert response.status_code == 303, response.text
    assert game.get()["rules"]["win"] == FIRST
    assert win_choices(keeper_form(client, game)) == {"highest_total": False, FIRST: True}
    (line,) = lines(html(client.get(f"/g/{game.id}")))
    assert line.startswith("Win rule changed") and line.endswith(": highest total → first to the target"), line


def test_the_rules_line_and_the_tie_say_first_to_reach(client: TestClient, make_game):
    first = html(client.get(f"/g/{both_reach(make_game, {'win': FIRST}).id}"))
    assert text_of(first.select_one(".rules-line")).startswith("First to reach 75 wins · ")
    assert text_of(first.select_one("#banner h2")) == "Tie: Ana and Ben reached 75 in the same round."
    highest = html(client.get(f"/g/{both_reach(make_game).id}"))
    assert text_of(highest.select_one(".rules-line")).startswith("To 75 · ")
    assert text_of(highest.select_one("#banner h2")) == "🏆 Ana wins with 80!"


def test_a_shared_win_by_first_to_target_names_the_target_not_a_total(client: TestClient, make_game):
    game = both_reach(make_game, {"win": FIRST, "tie_break": "shared"})
    page = html(client.get(f"/g/{game.id}"))
    assert text_of(page.select_one("#banner h2")) == "🏆 Ana and Ben share the win: they reached 75 in the same round!"
