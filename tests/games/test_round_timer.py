"""The start signal and round timer: "Start round" through the API and the keeper's
form, a saved round's start and duration, the pages' data attributes for the countdown, and the
pure rules of app/rules/timing.py. The server's clock is controlled (app.games.usecases.utcnow patched), never waited on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

import app.games.usecases
from app.rules import timing
from app.rules.timing import COUNTDOWN_S, MAX_ROUND_SECONDS, RoundTime
from tests.helpers import API, PROBLEM_JSON, SMALL_ROUND, WORKED_EXAMPLE_ROUND, GameHandle, html

T0 = datetime(2026, 11, 30, 21, 4, 5, tzinfo=UTC)


class Clock:
    """The server's clock for the use cases: set by the test."""

    def __init__(self, now: datetime = T0):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(app.games.usecases, "utcnow", clock)
    return clock


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def start(game: GameHandle, **headers: str):
    return game.client.post(f"{API}/games/{game.id}/start", headers=game.auth | headers)


# --- the pure rules -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pending", "saved_after", "sent_start", "sent_duration", "expected"),
    [
        (None, 60, None, None, RoundTime(None, None)),  # nobody started it
        (T0, 95.7, None, None, RoundTime(T0, 95)),  # whole seconds, rounded down
        (T0, 0, None, None, RoundTime(T0, 0)),  # saved at the very "Blitz!"
        (T0, -1, None, None, RoundTime(T0, None)),  # saved during the countdown: no duration
        (T0, MAX_ROUND_SECONDS + 1, None, None, RoundTime(T0, None)),  # a start left running
        (T0, MAX_ROUND_SECONDS, None, None, RoundTime(T0, MAX_ROUND_SECONDS)),
        (T0, 95, None, 120, RoundTime(T0, 120)),  # the client's duration wins
        (T0, 95, T0 - timedelta(seconds=30), None, RoundTime(T0 - timedelta(seconds=30), 125)),
        (None, 95, T0, None, RoundTime(T0, 95)),  # the client's own start, no pending one
        (None, 95, None, 42, RoundTime(None, 42)),
    ],
)
def test_a_saved_rounds_time(pending, saved_after, sent_start, sent_duration, expected):
    now = T0 + timedelta(seconds=saved_after)
    assert timing.saved_round_time(pending, now, sent_start, sent_duration) == expected


def test_a_correction_keeps_the_rounds_time_but_what_it_sends():
    stored = RoundTime(T0, 95)
    assert timing.corrected_round_time(stored) == stored
    assert timing.corrected_round_time(stored, duration_s=80) == RoundTime(T0, 80)
    assert timing.corrected_round_time(None, duration_s=80) == RoundTime(None, 80)
    later = T0 + timedelta(hours=1)
    assert timing.corrected_round_time(stored, started_at=later) == RoundTime(later, 95)


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0:00"), (9, "0:09"), (95, "1:35"), (600, "10:00"), (3725, "1:02:05")]
)
def test_clock_text(seconds: int, text: str):
    assert timing.clock_text(seconds) == text
    assert RoundTime(None, seconds).duration_text == text
    assert RoundTime().duration_text == ""


def test_the_blitz_moment_and_epoch_ms():
    assert timing.blitz_moment(T0) == T0 + timedelta(seconds=COUNTDOWN_S)
    assert timing.epoch_ms(datetime(1970, 1, 1, 0, 0, 1, 500000, tzinfo=UTC)) == 1500
    assert timing.epoch_ms(datetime(1970, 1, 1, 0, 0, 2)) == 2000  # naive: UTC, as SQLite gives it back


# --- the API ----------------------------------------------------------------------------------


def test_start_answers_blitz_at_and_server_now_and_the_game_shows_it(clock: Clock, make_game):
    game = make_game()
    answer = start(game)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["blitz_at"] == body["round_started_at"] == iso(T0 + timedelta(seconds=COUNTDOWN_S))
    server_now = datetime.fromisoformat(body["server_now"])
    assert abs(server_now - datetime.now(UTC)) < timedelta(minutes=5)  # the real clock, not the test's
    assert body["version"] == 2 and answer.headers["ETag"] == '"2"'  # a start is a change
    assert game.get()["round_started_at"] == body["blitz_at"]


def test_the_next_round_takes_the_start_and_its_duration(clock: Clock, make_game):
    game = make_game()
    assert start(game).status_code == 200
    clock.advance(COUNTDOWN_S + 95.4)  # "Blitz!", then 95 s of play
    saved = game.add_round(SMALL_ROUND)
    assert saved.status_code == 201, saved.text
    body = saved.json()
    assert body["rounds"][0]["started_at"] == iso(T0 + timedelta(seconds=COUNTDOWN_S))
    assert body["rounds"][0]["duration_s"] == 95
    assert body["round_started_at"] is None  # used up
    # Read again: stored; and the next round, never started, has no time.
    clock.advance(30)
    assert game.add_round(SMALL_ROUND).status_code == 201
    rounds = game.get()["rounds"]
    assert (rounds[0]["duration_s"], rounds[1]["duration_s"], rounds[1]["started_at"]) == (95, None, None)


def test_an_old_client_sees_every_field_it_read_and_nulls_for_untimed_rounds(make_game):
    game = make_game()
    body = game.add_round(WORKED_EXAMPLE_ROUND).json()
    assert body["winners"] == [game.player_ids[0]]
    assert body["round_started_at"] is None
    (round_,) = body["rounds"]
    assert set(round_) == {"number", "scores", "started_at", "duration_s", "piles"}  # piles: added since, additive
    assert (round_["started_at"], round_["duration_s"], round_["piles"]) == (None, None, None)
    assert [s["total"] for s in round_["scores"]] == [80, 78, 31, 15]


def test_a_client_may_send_its_own_start_and_duration(clock: Clock, make_game):
    game = make_game()
    assert start(game).status_code == 200
    clock.advance(200)
    body = game.scores(SMALL_ROUND) | {"duration_s": 61}
    saved = game.client.post(f"{API}/games/{game.id}/rounds", json=body, headers=game.auth).json()
    assert saved["rounds"][0]["duration_s"] == 61  # the client's wins over the 197 s since "Blitz!"
    assert saved["rounds"][0]["started_at"] == iso(T0 + timedelta(seconds=COUNTDOWN_S))

    body = game.scores(SMALL_ROUND) | {"started_at": "2026-11-30T22:00:00+01:00"}
    saved = game.client.post(f"{API}/games/{game.id}/rounds", json=body, headers=game.auth).json()
    # In UTC; its duration from that start to now (the server's clock: T0 + 200 s).
    assert saved["rounds"][1]["started_at"] == "2026-11-30T21:00:00Z"
    assert saved["rounds"][1]["duration_s"] == 445  # 21:00:00 to 21:07:25


def test_a_correction_keeps_the_time_unless_it_sends_one(clock: Clock, make_game):
    game = make_game()
    start(game)
    clock.advance(COUNTDOWN_S + 50)
    game.add_round(SMALL_ROUND)
    url = f"{API}/games/{game.id}/rounds/1"
    corrected = game.client.put(url, json=game.scores([(4, 0), (2, 4), (1, 6), (0, 8)]), headers=game.auth)
    assert corrected.status_code == 200
    assert corrected.json()["rounds"][0]["duration_s"] == 50
    assert corrected.json()["rounds"][0]["scores"][0]["dutch"] == 4
    timed = game.client.put(url, json=game.scores(SMALL_ROUND) | {"duration_s": 70}, headers=game.auth)
    assert timed.json()["rounds"][0]["duration_s"] == 70
    assert game.get()["rounds"][0]["duration_s"] == 70


def test_a_save_during_the_countdown_records_no_duration_and_the_countdown_goes_on(clock: Clock, make_game):
    # The round saved during the countdown is the one before it (typed late): the start belongs to the next.
    game = make_game()
    blitz = start(game).json()["blitz_at"]
    clock.advance(1)
    body = game.add_round(SMALL_ROUND).json()
    assert body["rounds"][0]["duration_s"] is None and body["rounds"][0]["started_at"] is None
    assert body["round_started_at"] == blitz  # still counting down on every page
    clock.advance(COUNTDOWN_S - 1 + 60)
    timed = game.add_round(SMALL_ROUND).json()
    assert timed["rounds"][1]["duration_s"] == 60 and timed["rounds"][1]["started_at"] == blitz
    assert timed["round_started_at"] is None


def test_a_game_decided_while_a_round_runs_stops_its_timer(clock: Clock, client: TestClient, make_game):
    game = make_game([{"name": "Ana"}, {"name": "Ben"}])
    game.add_round([(10, 0), (5, 2)])
    start(game)
    clock.advance(COUNTDOWN_S + 30)
    decided = client.patch(f"{API}/games/{game.id}", json={"rules": {"target": 10}}, headers=game.auth)
    assert decided.status_code == 200, decided.text
    assert decided.json()["status"] == "finished" and decided.json()["round_started_at"] is None
    page = html(client.get(f"/g/{game.id}"))
    assert page.select_one("#round-timer[data-blitz-at]") is None
    etag = client.get(f"/g/{game.id}").headers["etag"]
    assert client.get(f"/g/{game.id}", headers={"If-None-Match": etag}).status_code == 304


def test_starting_again_restarts_the_countdown(clock: Clock, make_game):
    game = make_game()
    first = start(game).json()["blitz_at"]
    clock.advance(10)
    again = start(game).json()
    assert again["blitz_at"] != first and again["blitz_at"] == iso(T0 + timedelta(seconds=10 + COUNTDOWN_S))
    assert again["version"] == 3


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"duration_s": -1}, "duration_s"),
        ({"duration_s": MAX_ROUND_SECONDS + 1}, "duration_s"),
        ({"duration_s": 1.5}, "duration_s"),
        ({"duration_s": "60"}, "duration_s"),
        ({"duration_s": True}, "duration_s"),
        ({"duration_s": 10**30}, "duration_s"),
        ({"started_at": "yesterday"}, "started_at"),
        ({"started_at": "2026-11-30T21:00:00"}, "started_at"),  # no timezone
        ({"started_at": "9999-12-31T23:00:00-05:00"}, "started_at"),  # would overflow in UTC
        ({"started_at": "0001-01-01T00:00:00+05:00"}, "started_at"),
        ({"started_at": 1700000000}, "started_at"),
    ],
)
def test_bad_times_are_a_422_naming_the_field_and_change_nothing(make_game, extra, field):
    game = make_game()
    answer = game.client.post(f"{API}/games/{game.id}/rounds", json=game.scores(SMALL_ROUND) | extra, headers=game.auth)
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"] == PROBLEM_JSON
    assert any(e["field"].endswith(field) for e in answer.json()["errors"]), answer.json()
    assert game.get()["version"] == 1


def test_start_needs_the_key_and_follows_the_write_rules(make_game, client: TestClient):
    game = make_game()
    url = f"{API}/games/{game.id}/start"
    missing = client.post(url)
    assert missing.status_code == 401 and missing.headers["content-type"] == PROBLEM_JSON
    assert client.post(url, headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert client.post(f"{API}/games/nope/start", headers=game.auth).status_code == 404
    assert client.post(f"{API}/games/a%20b/start", headers=game.auth).status_code == 422
    stale = client.post(url, headers=game.auth | {"If-Match": '"7"'})
    assert stale.status_code == 412
    assert game.get()["round_started_at"] is None and game.get()["version"] == 1
    # A body is ignored, never an error.
    assert client.post(url, headers=game.auth, content=b'{"x": 1}').status_code == 200


def test_a_finished_game_cant_start_a_round(make_game):
    game = make_game()
    assert game.add_round(WORKED_EXAMPLE_ROUND).json()["status"] == "finished"
    refused = start(game)
    assert refused.status_code == 409 and refused.headers["content-type"] == PROBLEM_JSON
    assert game.get()["round_started_at"] is None


def test_a_retried_start_gets_the_first_answer_and_changes_nothing(clock: Clock, make_game):
    game = make_game()
    first = start(game, **{"Idempotency-Key": "start-1"})
    clock.advance(5)
    again = start(game, **{"Idempotency-Key": "start-1"})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["blitz_at"] == first.json()["blitz_at"]
    assert again.json()["version"] == first.json()["version"] == game.get()["version"] == 2


def test_a_retried_timed_round_gets_its_time_back(clock: Clock, make_game):
    game = make_game()
    start(game)
    clock.advance(COUNTDOWN_S + 40)
    first = game.add_round(SMALL_ROUND, **{"Idempotency-Key": "round-1"})
    clock.advance(100)
    again = game.add_round(SMALL_ROUND, **{"Idempotency-Key": "round-1"})
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json() == first.json()
    assert again.json()["rounds"][0]["duration_s"] == 40


def test_an_old_clients_idempotency_key_still_matches_its_body(make_game):
    """A round without a time fingerprints as before, so the same key and body replay, and another
    body with the same key is still a 422."""
    game = make_game()
    first = game.add_round(SMALL_ROUND, **{"Idempotency-Key": "old-1"})
    assert game.add_round(SMALL_ROUND, **{"Idempotency-Key": "old-1"}).json() == first.json()
    timed = game.scores(SMALL_ROUND) | {"duration_s": 5}
    reused = game.client.post(
        f"{API}/games/{game.id}/rounds", json=timed, headers=game.auth | {"Idempotency-Key": "old-1"}
    )
    assert reused.status_code == 422


# --- the pages ----------------------------------------------------------------------------------


def csrf_of(page) -> str:
    return page.select_one("#round-timer form.start-round input[name=csrf]")["value"]


def test_the_keeper_page_has_a_start_button_and_no_running_timer(keeper_of, make_game):
    game = make_game()
    page = html(keeper_of(game).get(f"/g/{game.id}/score"))
    timer = page.select_one("#game #round-timer")
    assert timer is not None and not timer.has_attr("hidden")
    assert not timer.has_attr("data-blitz-at") and not timer.has_attr("data-server-now")
    form = timer.select_one("form.start-round")
    assert form["method"] == "post" and form["action"] == f"/g/{game.id}/start" == form["hx-post"]
    assert form.select_one("button[type=submit]").get_text(strip=True) == "Start round"
    countdown = timer.select_one("#countdown")
    assert (countdown["role"], countdown["aria-live"], countdown["aria-atomic"]) == ("timer", "assertive", "true")
    assert timer.select_one("#round-clock")["aria-live"] == "off"  # the running time is not announced
    # Before the standings, for everyone.
    markup = str(page.select_one("#game"))
    assert markup.index('id="round-timer"') < markup.index('id="scoreboard"')
    assert page.select_one("#game .game-head #round-timer") is not None  # on the title's line when it fits


def test_start_round_reads_as_the_option_it_is_and_a_restart_asks_first(clock: Clock, keeper_of, make_game):
    # Rounds are saved without it: a secondary button with what it does, never the page's primary action.
    game = make_game()
    keeper, path = keeper_of(game), f"/g/{game.id}/score"
    page = html(keeper.get(path))
    button = page.select_one("#round-timer form.start-round button")
    assert button is not None and "primary" not in button["class"] and "secondary" in button["class"]
    hint = page.select_one(f"#{button['aria-describedby']}")
    assert hint is not None and "optional" in hint.get_text()
    assert page.select_one("#round-timer form.start-round[hx-confirm]") is None  # nothing to lose yet
    keeper.post(f"/g/{game.id}/start", data={"csrf": csrf_of(page)})
    running = html(keeper.get(path)).select_one("#round-timer form.start-round")
    assert running is not None and "Restart the round?" in running["hx-confirm"]
    assert running.select_one("button").get_text(strip=True) == "Restart round"


def test_the_start_form_works_without_javascript(clock: Clock, keeper_of, make_game):
    game = make_game()
    keeper, path = keeper_of(game), f"/g/{game.id}/score"
    token = csrf_of(html(keeper.get(path)))
    answer = keeper.post(f"/g/{game.id}/start", data={"csrf": token}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == path
    page = html(keeper.get(path))
    timer = page.select_one("#round-timer")
    blitz_ms = timing.epoch_ms(T0 + timedelta(seconds=COUNTDOWN_S))
    assert int(timer["data-blitz-at"]) == blitz_ms
    assert abs(int(timer["data-server-now"]) - timing.epoch_ms(datetime.now(UTC))) < 300_000
    assert "running" in timer["class"]
    assert timer.select_one("button").get_text(strip=True) == "Restart round"
    assert timer.select_one("#round-clock").get_text(strip=True) == "Round running"  # until app.js counts


def test_the_start_form_with_htmx_answers_the_fragment_with_the_start(clock: Clock, keeper_of, make_game):
    game = make_game()
    keeper = keeper_of(game)
    token = csrf_of(html(keeper.get(f"/g/{game.id}/score")))
    answer = keeper.post(f"/g/{game.id}/start", data={"csrf": token}, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    fragment = html(answer)
    assert fragment.select_one("#game") is not None and fragment.select_one("#share") is None
    assert int(fragment.select_one("#game #round-timer")["data-blitz-at"]) == timing.epoch_ms(
        T0 + timedelta(seconds=COUNTDOWN_S)
    )
    # The round form now carries the version the start made (so the next save is not refused as stale).
    assert fragment.select_one("#round-entry input[name=version]")["value"] == "2"


def test_the_start_form_is_refused_without_the_csrf_token_or_the_cookie(keeper_of, make_game):
    game = make_game()
    keeper = keeper_of(game)
    assert keeper.post(f"/g/{game.id}/start", data={"csrf": "forged"}).status_code == 403
    keeper.cookies.clear()
    assert keeper.post(f"/g/{game.id}/start", data={}).status_code == 403
    assert game.get()["version"] == 1


def test_a_finished_game_has_no_start_button_and_says_so_to_a_late_post(keeper_of, make_game):
    game = make_game()
    keeper, path = keeper_of(game), f"/g/{game.id}/score"
    token = csrf_of(html(keeper.get(path)))
    game.add_round(WORKED_EXAMPLE_ROUND)
    page = html(keeper.get(path))
    assert page.select_one("#round-timer")["hidden"] is not None
    assert page.select("#round-timer form") == []
    refused = keeper.post(f"/g/{game.id}/start", data={"csrf": token}, headers={"HX-Request": "true"})
    assert refused.status_code == 409
    assert "over" in html(refused).select_one("#game > .form-error").get_text()


def test_view_and_tv_pages_show_a_running_round_and_hide_the_timer_otherwise(
    clock: Clock, client: TestClient, make_game
):
    game = make_game()
    for path in (f"/g/{game.id}", f"/g/{game.id}?tv=1"):
        timer = html(client.get(path)).select_one("#game #round-timer")
        assert timer.has_attr("hidden") and timer.select("form") == [], path
    start(game)
    blitz_ms = timing.epoch_ms(T0 + timedelta(seconds=COUNTDOWN_S))
    for path in (f"/g/{game.id}", f"/g/{game.id}?tv=1"):
        page = html(client.get(path))
        timer = page.select_one("#game #round-timer")
        assert not timer.has_attr("hidden") and int(timer["data-blitz-at"]) == blitz_ms, path
        assert timer.select("form") == [], path  # a viewer can't start a round
        # The page follows the stream's "start" events.
        assert page.select_one("#live #live-start[hx-trigger='sse:start']") is not None, path
    clock.advance(60)
    game.add_round(SMALL_ROUND)
    assert html(client.get(f"/g/{game.id}")).select_one("#round-timer").has_attr("hidden")


def test_no_304_for_a_view_page_while_a_round_runs(client: TestClient, make_game):
    """The page carries the server's clock as rendered: a kept copy would give the timer a wrong offset."""
    game = make_game()
    first = client.get(f"/g/{game.id}")
    assert client.get(f"/g/{game.id}", headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    start(game)
    running = client.get(f"/g/{game.id}")
    again = client.get(f"/g/{game.id}", headers={"If-None-Match": running.headers["ETag"]})
    assert again.status_code == 200 and html(again).select_one("#round-timer[data-server-now]") is not None


def test_the_round_times_the_templates_get(clock: Clock, client: TestClient, make_game, app):
    """What the history shows (the lead's templates): `timings[r.number].duration_s` / `.duration_text`."""
    from app.games.usecases import Games

    game = make_game()
    start(game)
    clock.advance(COUNTDOWN_S + 95)
    game.add_round(SMALL_ROUND)
    game.add_round(SMALL_ROUND)
    from sqlmodel import Session

    with Session(app.state.engine) as session:
        view = Games(session, app.state.broker, app.state.settings, app.state.sealer, app.state.views).get(game.id)
    timings = view.timings()
    assert (timings[1].duration_s, timings[1].duration_text) == (95, "1:35")
    assert (timings[2].duration_s, timings[2].duration_text) == (None, "")
    assert timings[1].started_at == T0 + timedelta(seconds=COUNTDOWN_S)


def test_the_history_shows_how_long_each_timed_round_took(clock: Clock, client: TestClient, make_game):
    game = make_game()
    start(game)
    clock.advance(COUNTDOWN_S + 95)
    game.add_round(SMALL_ROUND)  # timed: 1:35
    game.add_round(SMALL_ROUND)  # never started: no time
    page = html(client.get(f"/g/{game.id}"))
    assert page.select_one("#history li[data-round='1'] .round-head .duration").get_text(" ", strip=True) == (
        "⏱ took 1:35"
    )
    assert page.select_one("#history li[data-round='2'] .duration") is None
