"""The game's own words keep their capitals in every message a person reads: "Dutch" and "Blitz"
(cards, piles, "Blitz!"), never "dutch" or "blitz", in the API's problem details and in the form's
messages, whatever was wrong. Field names (`scores[0].dutch`) are for programs and stay as they are."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import claim, csrf_of, html, text_of

LOWER = re.compile(r"\b(dutch|blitz)\b")  # case-sensitive: the capitalised words are right

BAD_COUNTS: list[list[Any]] = [
    [[41, 0], [1, 1]],
    [[-1, 0], [1, 1]],
    [[3, 11], [1, 0]],
    [[35, 10], [0, 0]],
    [[3, 1], [1, 1]],  # nobody called Blitz
    [["x", 0], [1, "y"]],
    [[1.5, 0], [1, 0.5]],
    [[None, 0], [1, None]],
    [["", ""], ["", ""]],
]


def messages_of_problem(body: dict[str, Any]) -> list[str]:
    return [body["title"], body["detail"]] + [e["message"] for e in body.get("errors", [])]


@pytest.mark.parametrize("counts", BAD_COUNTS)
def test_api_messages_say_dutch_and_blitz_with_capitals(client: TestClient, make_game, counts):
    game = make_game([{"name": "Ana"}, {"name": "Ben"}])
    body = {
        "scores": [
            {"player_id": pid, "dutch": d, "blitz": b} for pid, (d, b) in zip(game.player_ids, counts, strict=True)
        ]
    }
    response = client.post(f"/api/v1/games/{game.id}/rounds", json=body, headers=game.auth)
    assert response.status_code == 422, response.text
    said = messages_of_problem(response.json())
    assert [m for m in said if LOWER.search(m)] == [], said
    missing = client.post(
        f"/api/v1/games/{game.id}/rounds",
        json={"scores": [{"player_id": pid} for pid in game.player_ids]},
        headers=game.auth,
    )
    assert [m for m in messages_of_problem(missing.json()) if LOWER.search(m)] == []


@pytest.mark.parametrize("counts", BAD_COUNTS)
def test_form_messages_say_dutch_and_blitz_with_capitals(client: TestClient, make_game, counts):
    game = make_game([{"name": "Ana"}, {"name": "Ben"}])
    claim(client, game.id, game.key)
    data = {"csrf": csrf_of(client, game.id), "version": "1"}
    for pid, (d, b) in zip(game.player_ids, counts, strict=True):
        data[f"dutch-{pid}"] = "" if d is None else str(d)
        data[f"blitz-{pid}"] = "" if b is None else str(b)
    page = html(client.post(f"/g/{game.id}/rounds", data=data, headers={"Origin": "http://testserver"}))
    said = [text_of(node) for node in page.select(".field-error, .form-error, #round-error")]
    assert said, "the form says what is wrong"
    assert [m for m in said if LOWER.search(m)] == [], said
