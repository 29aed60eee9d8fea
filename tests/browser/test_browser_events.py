"""The Server-Sent Events stream against the real server (the TestClient can't read an endless stream)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.browser.helpers import Server, api_game

pytestmark = pytest.mark.browser

READ_TIMEOUT = httpx.Timeout(10.0)


def events(lines: Iterator[str]) -> Iterator[dict[str, str]]:
    """Parse an event stream into events ({"event": ..., "data": ..., "retry": ...}); comments skipped."""
    event: dict[str, str] = {}
    for line in lines:
        if not line:
            if event:
                yield event
                event = {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        event[name] = value.removeprefix(" ")


@pytest.mark.parametrize("prefix", ["/g/{id}/events", "/api/v1/games/{id}/events"])
def test_the_stream_sends_the_current_version_then_each_new_one(server: Server, prefix: str):
    game = api_game(server, ["Ana", "Ben"])
    game.add_round([(10, 0), (5, 2)])
    url = server.url + prefix.format(id=game.id)
    with httpx.stream("GET", url, timeout=READ_TIMEOUT) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-store"
        stream = events(response.iter_lines())
        first = next(stream)
        assert first == {"event": "version", "data": "2", "retry": "2000"}
        game.add_round([(4, 3), (12, 0)])
        assert next(stream) == {"event": "version", "data": "3"}
        game.add_round([(1, 0), (2, 2)])
        assert next(stream) == {"event": "version", "data": "4"}


def test_a_reconnecting_client_gets_the_newest_version_at_once(server: Server):
    game = api_game(server, ["Ana", "Ben"])
    url = f"{server.url}/g/{game.id}/events"
    with httpx.stream("GET", url, timeout=READ_TIMEOUT) as response:
        assert next(events(response.iter_lines()))["data"] == "1"
    for counts in ([(10, 0), (5, 2)], [(4, 3), (12, 0)], [(1, 0), (2, 2)]):
        game.add_round(counts)  # missed while disconnected
    with httpx.stream("GET", url, timeout=READ_TIMEOUT) as response:
        assert next(events(response.iter_lines()))["data"] == "4"


def test_the_stream_of_an_unknown_game_is_404(server: Server):
    response = httpx.get(f"{server.url}/g/no-such-game/events", timeout=READ_TIMEOUT)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["status"] == 404
