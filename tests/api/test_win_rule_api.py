"""The `cards` family's win rule through the API: `win` on a new game (`highest_total` when left out, and for
every game stored before it), read back and listed with the presets; refused (422 naming `win`, in the
reader's language) when not one of the two, and as `first_to_target` with `end: rounds`, at creation and in a
rules change; a change recomputes who won, is logged and reverts; a backup's round trip."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.answers import GamePublic
from tests.helpers import API, GameHandle, assert_problem, game_url

FIRST = {"win": "first_to_target"}


def new_game(make_game, rules: dict[str, Any] | None = None, starts=(58, 70)) -> GameHandle:
    return make_game(
        [{"name": "Ana", "starting_score": starts[0]}, {"name": "Ben", "starting_score": starts[1]}], rules
    )


def both_reach(game: GameHandle):
    """Ana 58 → 80, Ben 70 → 78: both past 75 in the same round."""
    ana, ben = game.player_ids
    body = {"scores": [{"player_id": ana, "dutch": 22, "blitz": 0}, {"player_id": ben, "dutch": 14, "blitz": 3}]}
    return game.client.post(game_url(game.id, "/rounds"), json=body, headers=game.auth)


def patch(game: GameHandle, rules: dict[str, Any], language: str = "en"):
    return game.client.patch(
        game_url(game.id), json={"rules": rules}, headers=game.auth | {"Accept-Language": language}
    )


def test_highest_total_by_default_and_listed_with_the_card_presets(client: TestClient, make_game):
    game = new_game(make_game)
    assert game.body["rules"]["win"] == "highest_total"
    presets = {p["name"]: p["params"] for p in client.get(f"{API}/presets").json()}
    for name in ("dutch_blitz", "dutch_blitz_100", "nerts", "ligretto"):
        assert presets[name]["win"] == {
            "default": "highest_total", "type": "string", "enum": ["highest_total", "first_to_target"],
        }  # fmt: skip
    assert "win" not in presets["dutch"] and "win" not in presets["thirty_one"]


def test_created_with_first_to_target_read_back_and_a_tie_in_that_round_plays_on(make_game):
    game = new_game(make_game, FIRST)
    assert game.body["rules"]["win"] == "first_to_target"
    saved = both_reach(game)
    assert saved.status_code == 201, saved.text
    for body in (saved.json(), game.get()):
        GamePublic.model_validate(body)
        assert body["rules"]["win"] == "first_to_target"
        assert (body["status"], body["winners"], body["tie_break"]) == ("playing", [], True)
        assert body["leaders"] == game.player_ids


def test_the_same_round_under_highest_total_goes_to_the_higher(make_game):
    game = new_game(make_game)
    body = both_reach(game).json()
    assert (body["status"], body["winners"], body["tie_break"]) == ("finished", [game.player_ids[0]], False)


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        pytest.param({"win": "first"}, "rules.win", id="not-a-win-rule"),
        pytest.param({"win": 1}, "rules.win", id="a-number"),
        pytest.param({"win": "first_to_target", "end": "rounds"}, "rules.win", id="rounds-and-first"),
        pytest.param(
            {"preset": "nerts", "end": "rounds", "rounds": 5, "win": "first_to_target"}, "rules.win", id="nerts"
        ),
    ],
)
def test_a_bad_win_rule_is_refused_naming_the_field(client: TestClient, rules, field):
    response = client.post(f"{API}/games", json={"players": [{"name": "Ana"}, {"name": "Ben"}], "rules": rules})
    body = assert_problem(response, 422)
    assert field in [e["field"] for e in body["errors"]]


def test_the_win_rule_is_not_a_rule_of_dutch_or_31(client: TestClient):
    for preset in ("dutch", "thirty_one"):
        response = client.post(
            f"{API}/games",
            json={"players": [{"name": "Ana"}, {"name": "Ben"}], "rules": {"preset": preset, **FIRST}},
        )
        assert [e["field"] for e in assert_problem(response, 422)["errors"]] == ["rules.win"]


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (
            "en",
            "“First to reach the target wins” needs a game that ends at the target, not after a set number of rounds.",
        ),
        (
            "ru",
            "Правило «побеждает тот, кто первым дойдёт до цели» подходит только для игры до цели, а не на заданное число раундов.",
        ),
        (
            "de",
            "„Wer das Ziel zuerst erreicht, gewinnt“ geht nur, wenn das Spiel am Ziel endet, nicht nach einer festen Zahl von Runden.",
        ),
    ],
)
def test_a_rules_change_to_rounds_under_first_to_target_is_refused_in_three_languages(make_game, language, message):
    game = new_game(make_game, FIRST)
    body = assert_problem(patch(game, {"end": "rounds"}, language), 422)
    assert [(e["field"], e["message"]) for e in body["errors"]] == [("rules.win", message)]
    assert (game.get()["rules"]["end"], game.get()["version"]) == ("target", game.body["version"])


def test_a_change_of_the_win_rule_recomputes_the_outcome_is_logged_and_reverts(make_game):
    game = new_game(make_game)
    both_reach(game)
    changed = patch(game, FIRST)
    assert changed.status_code == 200, changed.text
    assert (changed.json()["rules"]["win"], changed.json()["status"], changed.json()["tie_break"]) == (
        "first_to_target", "playing", True,
    )  # fmt: skip
    change = game.client.get(game_url(game.id, "/changes")).json()[0]
    assert (change["kind"], change["old"], change["new"], change["revertable"]) == (
        "rules", {"win": "highest_total"}, {"win": "first_to_target"}, True,
    )  # fmt: skip
    reverted = game.client.post(game_url(game.id, f"/changes/{change['id']}/revert"), headers=game.auth)
    assert reverted.status_code == 200, reverted.text
    after = game.get()
    assert (after["rules"]["win"], after["status"], after["winners"]) == (
        "highest_total",
        "finished",
        [game.player_ids[0]],
    )


def test_a_backup_keeps_the_win_rule_and_an_older_one_restores_highest_total(client: TestClient, make_game):
    game = new_game(make_game, FIRST)
    both_reach(game)
    document = client.get(f"{API}/games/{game.id}/export")
    assert document.status_code == 200, document.text
    backup = document.json()
    assert backup["rules"]["win"] == "first_to_target"
    imported = client.post(
        f"{API}/games/import", content=document.content, headers={"Content-Type": "application/json"}
    )
    assert imported.status_code == 201, imported.text
    assert (imported.json()["rules"]["win"], imported.json()["tie_break"]) == ("first_to_target", True)
    del backup["rules"]["win"]  # a backup made before the rule
    older = client.post(f"{API}/games/import", json=backup)
    assert older.status_code == 201, older.text
    assert (older.json()["rules"]["win"], older.json()["winners"]) == (
        "highest_total",
        [older.json()["players"][0]["id"]],
    )
    backup["rules"] |= {"win": "first_to_target", "end": "rounds"}
    refused = client.post(f"{API}/games/import", json=backup)
    assert "rules.win" in [e["field"] for e in assert_problem(refused, 422)["errors"]]
