"""/metrics (app/http/metrics.py): off unless asked for; then requests by route template (never a raw path,
which would carry game ids and edit keys), the round-save histogram, open event streams and games."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from app import cli
from app.config import Settings
from app.games.usecases import Games
from app.http.metrics import SAVE_BUCKETS
from app.main import create_app
from app.migrations import upgrade
from tests.helpers import MAX_BODY, SMALL_ROUND, claim, count_games, csrf_of, round_form

SAVE_API = "/api/v1/games/{game_id}/rounds"
SAVE_FORM = "/g/{game_id}/rounds"
JSON = {"Content-Type": "application/json"}


def _fail(*_args, **_kwargs):
    raise RuntimeError("kaboom")


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Every app of this module (the `app`, `client` and `make_game` fixtures) serves /metrics."""
    return Settings(database_url=database_url, metrics=True, tune_gc=False, _env_file=None)


def scrape(client: TestClient) -> str:
    response = client.get("/metrics")
    assert response.status_code == 200, response.text
    return response.text


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape, by name and labels (the text must parse as Prometheus's format)."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def requests(text: str, route: str, method: str, status: int) -> float:
    labels = frozenset({"route": route, "method": method, "status": str(status)}.items())
    return samples(text).get(("blitzboard_http_requests_total", labels), 0.0)


def value(text: str, name: str, **labels: str) -> float:
    return samples(text)[(name, frozenset(labels.items()))]


def test_metrics_are_off_unless_the_setting_is_on(database_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("BLITZBOARD_METRICS", raising=False)
    assert Settings(_env_file=None).metrics is False
    monkeypatch.setenv("BLITZBOARD_METRICS", "true")
    assert Settings(_env_file=None).metrics is True
    monkeypatch.delenv("BLITZBOARD_METRICS")
    plain = create_app(Settings(database_url=database_url, tune_gc=False, _env_file=None))
    upgrade(plain.state.engine)
    with TestClient(plain) as client:
        unknown = client.get("/no-such-page")
        response = client.get("/metrics")
        assert response.status_code == 404
        assert response.headers["content-type"] == unknown.headers["content-type"]
        assert client.head("/metrics").status_code == 404
    assert not hasattr(plain.state, "metrics")
    plain.state.engine.dispose()


def test_metrics_are_prometheus_text_outside_the_api_document(client: TestClient):
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert response.headers["cache-control"] == "no-store"
    names = {family.name for family in text_string_to_metric_families(response.text)}
    assert {
        "blitzboard_http_requests",
        "blitzboard_round_save_seconds",
        "blitzboard_event_streams_open",
        "blitzboard_games",
    } <= names
    assert "/metrics" not in client.get("/openapi.json").json()["paths"]
    head = client.head("/metrics")
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-type"] == response.headers["content-type"]


def test_requests_are_counted_by_route_template_and_never_by_path(client: TestClient, make_game):
    game = make_game()
    assert game.add_round(SMALL_ROUND).status_code == 201
    assert client.get(f"/g/{game.id}").status_code == 200
    assert client.head(f"/g/{game.id}").status_code == 200
    claim(client, game.id, game.key)
    assert client.get(f"/g/{game.id}/edit/not-the-key", follow_redirects=False).status_code == 403
    assert client.get(f"/api/v1/games/{game.id}/rounds/{game.key}/nothing").status_code == 404
    assert client.get(f"/static/app.css?{game.key}").status_code == 200
    assert client.request("BREW", f"/g/{game.id}").status_code == 405

    text = scrape(client)
    assert requests(text, "/api/v1/games", "POST", 201) == 1
    assert requests(text, SAVE_API, "POST", 201) == 1
    assert requests(text, "/g/{game_id}", "GET", 200) == 1
    assert requests(text, "/g/{game_id}", "HEAD", 200) == 1  # the method the client sent
    assert requests(text, "/g/{game_id}/edit/{edit_key}", "GET", 303) == 1
    assert requests(text, "/g/{game_id}/edit/{edit_key}", "GET", 403) == 1
    assert requests(text, "unmatched", "GET", 404) == 1
    assert requests(text, "/static/{path}", "GET", 200) == 1
    assert requests(text, "/g/{game_id}", "other", 405) == 1  # any token is a method: one label for the odd ones
    assert game.id not in text and game.key not in text
    assert "not-the-key" not in text and "BREW" not in text
    assert requests(text, "/metrics", "GET", 200) == 0  # a scrape is counted when it ends
    assert requests(scrape(client), "/metrics", "GET", 200) == 1


def test_round_saves_from_the_api_and_the_form_are_timed(client: TestClient, make_game):
    game = make_game()
    assert game.add_round(SMALL_ROUND).status_code == 201
    claim(client, game.id, game.key)
    saved = client.post(
        f"/g/{game.id}/rounds",
        data=round_form(game.player_ids, SMALL_ROUND, csrf_of(client, game.id)),
        follow_redirects=False,
    )
    assert saved.status_code == 303
    refused = game.add_round([(0, 11), (0, 0), (0, 0), (0, 0)])  # not a round: not a save
    assert refused.status_code == 422

    text = scrape(client)
    for route in (SAVE_API, SAVE_FORM):
        assert value(text, "blitzboard_round_save_seconds_count", route=route) == 1, route
        assert value(text, "blitzboard_round_save_seconds_bucket", route=route, le="+Inf") == 1
        assert 0 < value(text, "blitzboard_round_save_seconds_sum", route=route) < 60
    assert requests(text, SAVE_FORM, "POST", 303) == 1
    assert requests(text, SAVE_API, "POST", 422) == 1
    buckets = {dict(labels)["le"] for (name, labels) in samples(text) if name == "blitzboard_round_save_seconds_bucket"}
    assert buckets == {str(float(bound)) for bound in SAVE_BUCKETS} | {"+Inf"}


def test_the_stream_gauge_follows_open_event_streams(app: FastAPI, client: TestClient, make_game):
    game = make_game()
    assert value(scrape(client), "blitzboard_event_streams_open") == 0
    with client.stream("GET", f"/g/{game.id}/events") as response:
        assert response.status_code == 200
        assert app.state.streams.open == 1
        assert value(scrape(client), "blitzboard_event_streams_open") == 1
    assert app.state.streams.open == 0
    assert value(scrape(client), "blitzboard_event_streams_open") == 0


def test_the_games_gauge_counts_the_games_in_the_database(app: FastAPI, client: TestClient, make_game):
    assert value(scrape(client), "blitzboard_games") == 0
    for _ in range(3):
        make_game()
    assert value(scrape(client), "blitzboard_games") == count_games(app) == 3


def test_each_app_counts_in_a_registry_of_its_own(app: FastAPI, client: TestClient, settings: Settings):
    """Many apps in one process (the tests) never meet in prometheus_client's global registry."""
    other = create_app(settings)
    with TestClient(other) as other_client:
        for _ in range(2):
            other_client.get("/healthz")
        assert requests(scrape(other_client), "/healthz", "GET", 200) == 2
    assert requests(scrape(client), "/healthz", "GET", 200) == 0
    assert other.state.metrics.registry is not app.state.metrics.registry
    other.state.engine.dispose()


@pytest.fixture
def broken_app(settings: Settings) -> Iterator[FastAPI]:
    unreachable = {"database_url": "sqlite:////nonexistent-dir/blitzboard.db", "secret_key": SecretStr("s" * 32)}
    app = create_app(settings.model_copy(update=unreachable))
    yield app
    app.state.engine.dispose()


def test_a_database_that_does_not_answer_leaves_out_only_the_games_gauge(broken_app: FastAPI):
    with TestClient(broken_app) as client:
        assert client.get("/healthz").status_code == 200
        text = scrape(client)
    assert "blitzboard_games" not in {family.name for family in text_string_to_metric_families(text)}
    assert requests(text, "/healthz", "GET", 200) == 1
    assert value(text, "blitzboard_event_streams_open") == 0


def test_answers_from_the_outer_middleware_are_counted_under_their_route(
    client: TestClient, make_game, monkeypatch: pytest.MonkeyPatch
):
    """The counter sits outside ServerErrors and BodyLimit: their 500 and 413 count like any answer."""
    game = make_game()
    too_big = game.client.post(
        f"/api/v1/games/{game.id}/rounds", content=b" " * (MAX_BODY + 1), headers=game.auth | JSON
    )
    assert too_big.status_code == 413
    monkeypatch.setattr(Games, "get", _fail)
    assert client.get(f"/api/v1/games/{game.id}").status_code == 500

    text = scrape(client)
    assert requests(text, "/api/v1/games/{game_id}", "GET", 500) == 1
    # BodyLimit answers before the router runs: no route was matched.
    assert requests(text, "unmatched", "POST", 413) == 1
    assert ("blitzboard_round_save_seconds_count", frozenset({("route", SAVE_API)})) not in samples(text)


@pytest.mark.parametrize(("workers", "warned"), [(1, False), (2, True)])
def test_serve_says_when_each_scrape_reads_one_worker(
    workers: int, warned: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    started: list[dict] = []
    monkeypatch.setattr(cli, "configure_logging", lambda *_: None)  # the test process's logging stays as it is
    monkeypatch.setattr(cli, "migrate", lambda: None)
    monkeypatch.setattr(cli.uvicorn, "run", lambda _app, **options: started.append(options))
    monkeypatch.setenv("BLITZBOARD_DATABASE_URL", "postgresql://blitzboard@127.0.0.1:5432/blitzboard")
    monkeypatch.setenv("BLITZBOARD_METRICS", "true")
    cli.main(["serve", "--workers", str(workers)])
    assert [options["workers"] for options in started] == [workers]
    assert ("each scrape of /metrics reads one worker" in capsys.readouterr().out) is warned
