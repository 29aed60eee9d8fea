"""What Python says goes through the catalogs: under a pseudo-language that wraps every translated
string in ⟦…⟧, the API's problems (title, detail, every errors[].message) come back wrapped, while
`type`, `status` and `errors[].field` are exactly as in English; the pages' Python-built text too.

Anything English left outside the catalogs would show here unwrapped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app import i18n, validation
from tests.helpers import (
    API,
    CLOSE,
    OPEN,
    PSEUDO,
    assert_problem,
    claim,
    csrf_of,
    game_url,
    html,
    limited_app,
    round_form,
    text_of,
)


@pytest.fixture(autouse=True)
def _in_pseudo(pseudo: str) -> None:
    """Every test here compares English with the pseudo-language."""


IN_PSEUDO = {"Accept-Language": PSEUDO}
IN_ENGLISH = {"Accept-Language": "en"}


def wrapped(text: str) -> bool:
    return text.startswith(OPEN) and text.endswith(CLOSE)


def both(send: Callable[[dict[str, str]], httpx.Response], status: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The same refused request in English and in the pseudo-language: the two problems, after checking
    that the pseudo one is wrapped wherever a person reads it and equal to English wherever a program does."""
    english, pseudo = send(IN_ENGLISH), send(IN_PSEUDO)
    english_body, pseudo_body = assert_problem(english, status), assert_problem(pseudo, status)
    assert english.headers["content-language"] == "en"
    assert pseudo.headers["content-language"] == PSEUDO
    assert not wrapped(english_body["title"]) and not wrapped(english_body["detail"])
    assert wrapped(pseudo_body["title"]), pseudo_body
    assert wrapped(pseudo_body["detail"]), pseudo_body
    assert pseudo_body["type"] == english_body["type"]
    assert pseudo_body["status"] == english_body["status"] == status
    if "errors" in english_body:
        assert [e["field"] for e in pseudo_body["errors"]] == [e["field"] for e in english_body["errors"]]
        for error in pseudo_body["errors"]:
            assert wrapped(error["message"]), error
    return english_body, pseudo_body


# --- the API's problems ------------------------------------------------------------------------------


def test_an_unknown_game_and_an_unknown_path(client: TestClient):
    english, pseudo = both(lambda h: client.get(game_url("nope"), headers=h), 404)
    assert english["detail"] == "There is no game “nope”."
    assert pseudo["detail"] == "⟦There is no game “{game_id}”.⟧".format(game_id="nope")
    both(lambda h: client.get(f"{API}/no-such-thing", headers=h), 404)


def test_a_missing_and_a_wrong_key(client: TestClient, make_game):
    game = make_game()
    body = game.scores([(3, 0), (2, 4), (1, 6), (0, 8)])
    missing = both(lambda h: client.post(game_url(game.id, "/rounds"), json=body, headers=h), 401)[1]
    assert missing["title"] == "⟦Edit key missing⟧"
    wrong = {"Authorization": "Bearer not-the-key"}
    both(lambda h: client.post(game_url(game.id, "/rounds"), json=body, headers=h | wrong), 403)


def test_a_finished_game_and_a_stale_version(client: TestClient, make_game):
    game = make_game()
    assert game.add_round([(22, 0), (14, 3), (11, 5), (9, 7)]).status_code == 201  # the worked example: Ana wins
    body = game.scores([(3, 0), (2, 4), (1, 6), (0, 8)])
    both(lambda h: client.post(game_url(game.id, "/rounds"), json=body, headers=h | game.auth), 409)
    stale = {"If-Match": '"1"'}
    patch = {"name": "Later"}
    both(lambda h: client.patch(game_url(game.id), json=patch, headers=h | game.auth | stale), 412)


def test_a_round_the_rules_refuse(client: TestClient, make_game):
    game = make_game()
    body = game.scores([(3, 2), (2, 4), (41, 6), (0, 8)])  # nobody called Blitz, 41 Dutch cards
    english, pseudo = both(lambda h: client.post(game_url(game.id, "/rounds"), json=body, headers=h | game.auth), 422)
    assert len(pseudo["errors"]) == len(english["errors"]) >= 2


def test_what_pydantic_refuses(client: TestClient, make_game):
    text_for_number = {"players": [{"name": "Ana", "starting_score": "5"}, {"name": "Ben"}]}
    english, _pseudo = both(lambda h: client.post(f"{API}/games", json=text_for_number, headers=h), 422)
    assert english["errors"][0]["message"] == "Input should be a valid integer"  # pydantic's own, in English
    many = {"players": [{"name": "Ana"}, {"name": "Ben"}], "rules": {"target": 0, "tie_break": "coin"}, "x": 1}
    both(lambda h: client.post(f"{API}/games", json=many, headers=h), 422)
    game = make_game()
    timed = game.scores([(3, 0), (2, 4), (1, 6), (0, 8)]) | {"started_at": "1999-01-01T00:00:00Z"}
    both(lambda h: client.post(game_url(game.id, "/rounds"), json=timed, headers=h | game.auth), 422)
    long_key = {"Idempotency-Key": "k" * 300}
    both(lambda h: client.post(game_url(game.id, "/start"), headers=h | game.auth | long_key), 422)


def test_a_body_that_is_not_json(client: TestClient):
    broken = {"Content-Type": "application/json"}
    english, _pseudo = both(lambda h: client.post(f"{API}/games", content=b"{not json", headers=h | broken), 422)
    assert english["errors"] == [{"field": "body", "message": "The body is not valid JSON."}]
    twice = b'{"players": [{"name": "A", "name": "B"}, {"name": "C"}]}'
    both(lambda h: client.post(f"{API}/games", content=twice, headers=h | broken), 422)
    not_utf8 = b'{"name": "\xff"}'
    both(lambda h: client.post(f"{API}/games", content=not_utf8, headers=h | broken), 422)


def test_a_reused_idempotency_key(client: TestClient, make_game):
    game = make_game()
    key = {"Idempotency-Key": "once"} | game.auth
    assert client.patch(game_url(game.id), json={"name": "One"}, headers=key).status_code == 200
    both(lambda h: client.patch(game_url(game.id), json={"name": "Two"}, headers=h | key), 422)


def test_too_many_new_games(database_url: str):
    app = limited_app(database_url, games_per_minute=1)
    with TestClient(app) as limited:
        assert limited.post(f"{API}/games", json={"players": [{"name": "A"}, {"name": "B"}]}).status_code == 201
        players = {"players": [{"name": "A"}, {"name": "B"}]}
        both(lambda h: limited.post(f"{API}/games", json=players, headers=h), 429)
    app.state.engine.dispose()


@pytest.mark.parametrize(
    "error",
    [
        {"type": "missing", "loc": ("body", "x"), "msg": "Field required"},
        {"type": "less_than_equal", "loc": ("x",), "msg": "", "ctx": {"le": 5}},
        {"type": "string_too_long", "loc": ("x",), "msg": "", "ctx": {"max_length": 1}},
        {"type": "too_short", "loc": ("x",), "msg": "", "ctx": {"min_length": 2, "actual_length": 0}},
        {"type": "literal_error", "loc": ("x",), "msg": "", "ctx": {"expected": "'a', 'b' or 'c'"}},
        {"type": "something_new", "loc": ("x",), "msg": "Something new"},
        {"type": "greater_than_equal", "loc": ("x",), "msg": "", "ctx": {}},  # a limit missing: said generally
    ],
)
def test_every_pydantic_message_is_our_own(error: dict[str, Any]):
    token = i18n.use(PSEUDO)
    try:
        message = validation.message(error)
    finally:
        i18n.reset(token)
    assert wrapped(message), message
    assert "{" not in message.replace("{n}", "")  # every placeholder filled (the pseudo keeps the msgid's)


def test_one_of_lists_the_values_without_pydantics_or():
    token = i18n.use(PSEUDO)
    try:
        message = validation.message({"type": "literal_error", "ctx": {"expected": "'play_on' or 'shared'"}})
    finally:
        i18n.reset(token)
    assert message == "⟦Input should be one of: {values}⟧".format(values="'play_on', 'shared'")


# --- the pages' Python-built text --------------------------------------------------------------------


def test_the_view_page_says_what_it_takes_through_the_catalogs(client: TestClient, make_game):
    game = make_game(players=[{"name": "Ana", "starting_score": 70}, {"name": "Ben"}])
    page = html(client.get(f"/g/{game.id}", headers=IN_PSEUDO))
    lines = [text_of(li) for li in page.select("#what-it-takes li")]
    assert lines == ["⟦Ana wins next round with +5 or more⟧"]


def test_form_errors_and_refusals_on_the_pages(client: TestClient, make_game):
    game = make_game()
    claim(client, game.id, game.key)
    form = round_form(game.player_ids, [(3, 0), (2, 4), (1, 6), (0, 8)], csrf_of(client, game.id))
    form["dutch-" + str(game.player_ids[0])] = "many"
    page = html(client.post(f"/g/{game.id}/rounds", data=form, headers=IN_PSEUDO))
    messages = [text_of(node) for node in page.select(".field-error, .form-error p")]
    assert messages and all(wrapped(m) for m in messages), messages
    gone = client.get("/g/no-such-game", headers=IN_PSEUDO)
    assert gone.status_code == 404
    assert wrapped(text_of(html(gone).select_one(".error-detail")))


def test_a_body_over_the_limit(client: TestClient):
    big = b'{"name": "' + b"x" * (64 * 1024) + b'"}'
    json_body = {"Content-Type": "application/json"}
    english, _pseudo = both(lambda h: client.post(f"{API}/games", content=big, headers=h | json_body), 413)
    assert english["detail"] == "The request body is over 65536\u00a0bytes."


def test_the_change_log_through_the_catalogs(client: TestClient, make_game):
    game = make_game()
    assert game.add_round([(3, 0), (2, 4), (1, 6), (0, 8)]).status_code == 201
    corrected = game.scores([(3, 0), (2, 3), (1, 6), (0, 8)])
    assert client.put(game_url(game.id, "/rounds/1"), json=corrected, headers=game.auth).status_code == 200
    assert client.patch(game_url(game.id), json={"rules": {"target": 100}}, headers=game.auth).status_code == 200
    page = html(client.get(f"/g/{game.id}", headers=IN_PSEUDO))
    lines = [text_of(line) for line in page.select(".change-text")]
    assert "⟦Target changed⟧" in lines[0] and f"⟦{75} → {100}⟧" in lines[0]
    assert f"⟦Round {1} corrected⟧" in lines[1]
    assert f"⟦Blitz {4} → {3}⟧" in lines[1]
