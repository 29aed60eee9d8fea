"""Reads never starve: saves that wait for the database's write lock wait on the event loop, in a queue
of bounded depth (app.http.writequeue), not in the thread pool that /healthz, the API's reads and the
pages need; past the depth a save is told 503 with Retry-After and changes nothing.

The lock is held from another connection, as another process would hold it (`blitzboard prune`, a
backup, another server): BEGIN IMMEDIATE on SQLite, the game's row lock on PostgreSQL. Everything is
bounded by counts; the timeouts only keep a broken build from hanging the suite.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.http.writequeue import WriteGate, WriteQueue
from app.paths import NOT_WRITES, is_write
from tests.helpers import API, assert_problem, html, on_postgres, pg_connect, round_body, round_form, text_of

RUNNING = 2  # saves let into the thread pool at once (the setting's default is larger)
WAITING = 20  # saves queued on the event loop; more are refused
SAVES = 100
GUARD_S = 60  # only so that a build where reads starve fails instead of hanging

PLAYERS = [{"name": name} for name in ("Ana", "Ben", "Cy", "Dee")]
ONE_POINT = [(1, 0), (0, 1), (0, 1), (0, 1)]  # Ana +1: a hundred of these never end the game

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def settings(database_url: str) -> Settings:
    # A busy timeout far longer than the test: on SQLite the admitted saves wait for the lock's release,
    # as they would behind a long prune batch, instead of giving up with 503.
    return Settings(
        database_url=database_url,
        tune_gc=False,
        sqlite_busy_timeout_ms=600_000,
        max_running_writes=RUNNING,
        max_waiting_writes=WAITING,
        games_per_minute=1000,
        _env_file=None,
    )


@contextmanager
def write_lock_held(database_url: str, game_id: str) -> Iterator[None]:
    """Another process's hold on what a save of `game_id` must lock, until the block ends."""
    if on_postgres():
        with pg_connect(database_url.rsplit("/", 1)[1]) as connection:
            connection.autocommit = False
            connection.execute("SELECT id FROM game WHERE id = %s FOR UPDATE", (game_id,))
            try:
                yield
            finally:
                connection.rollback()
        return
    connection = sqlite3.connect(database_url.removeprefix("sqlite:///"), isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        yield
        connection.execute("ROLLBACK")
    finally:
        connection.close()


@asynccontextmanager
async def _client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the app in this test's event loop, its lifespan run around it (as a server would)."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client


async def _create_game(client: httpx.AsyncClient) -> dict[str, Any]:
    created = await client.post(f"{API}/games", json={"players": PLAYERS})
    assert created.status_code == 201, created.text
    return created.json()


async def _a_round_to_save(
    client: httpx.AsyncClient,
) -> tuple[dict[str, Any], Callable[[], Awaitable[httpx.Response]]]:
    """A new game (as its creation answered), and a save of one more round of it (the same request each call)."""
    game = await _create_game(client)
    auth = {"Authorization": f"Bearer {game['edit_key']}"}
    body = round_body([p["id"] for p in game["players"]], ONE_POINT)
    return game, lambda: client.post(f"{API}/games/{game['id']}/rounds", json=body, headers=auth)


async def _until_done(tasks: list[asyncio.Task], count: int) -> None:
    """Wait until `count` of the tasks have finished (they are the refused saves)."""
    async with asyncio.timeout(GUARD_S):
        while sum(task.done() for task in tasks) < count:
            await asyncio.wait([t for t in tasks if not t.done()], return_when=asyncio.FIRST_COMPLETED)


async def test_reads_answer_while_a_hundred_saves_wait_for_the_lock(app: FastAPI, database_url: str) -> None:
    async with _client(app) as client:
        game, save = await _a_round_to_save(client)
        game_id = game["id"]
        with write_lock_held(database_url, game_id):
            saves = [asyncio.create_task(save()) for _ in range(SAVES)]
            # Every save past the ones running and the ones queued is refused at once.
            refused_count = SAVES - RUNNING - WAITING
            await _until_done(saves, refused_count)
            assert app.state.writes.running == RUNNING
            assert app.state.writes.waiting == WAITING

            # The lock is still held and the queue full: reads answer all the same.
            async with asyncio.timeout(GUARD_S):
                health = await client.get("/healthz")
                read = await client.get(f"{API}/games/{game_id}")
                page = await client.get(f"/g/{game_id}")
            assert health.status_code == 200
            assert read.status_code == 200 and read.json()["rounds"] == []
            assert page.status_code == 200

            refused = [task.result() for task in saves if task.done()]
            assert len(refused) == refused_count
            for answer in refused:
                problem = assert_problem(answer, 503)
                assert problem["type"].endswith("/unavailable")
                assert int(answer.headers["Retry-After"]) > 0
                assert "nothing was changed" in problem["detail"]
            assert (await client.get(f"{API}/games/{game_id}")).json()["version"] == game["version"]

        # The lock is free: every save that was let in or queued is made, once.
        async with asyncio.timeout(GUARD_S):
            answers = await asyncio.gather(*saves)
        made = [answer for answer in answers if answer.status_code == 201]
        assert len(made) == RUNNING + WAITING, sorted(answer.status_code for answer in answers)
        final = await client.get(f"{API}/games/{game_id}")
        assert len(final.json()["rounds"]) == RUNNING + WAITING
        assert app.state.writes.running == 0 and app.state.writes.waiting == 0


async def test_a_page_form_past_the_queue_gets_a_page_in_its_language(app: FastAPI, database_url: str) -> None:
    """Without JavaScript the refusal is a page to read, not JSON; with htmx, the message for #request-error."""
    async with _client(app) as client:
        game, save = await _a_round_to_save(client)
        game_id = game["id"]
        with write_lock_held(database_url, game_id):
            saves = [asyncio.create_task(save()) for _ in range(RUNNING + WAITING + 1)]
            await _until_done(saves, 1)  # one refused: the queue is full
            form = {"csrf": "x", "version": "1"}
            german = {"Accept-Language": "de"}
            page = await client.post(f"/g/{game_id}/rounds", data=form, headers=german)
            swap = await client.post(f"/g/{game_id}/rounds", data=form, headers=german | {"HX-Request": "true"})
        async with asyncio.timeout(GUARD_S):
            await asyncio.gather(*saves)

    assert page.status_code == 503
    assert page.headers["content-type"].startswith("text/html")
    assert int(page.headers["Retry-After"]) > 0
    document = html(page)
    assert document.html["lang"] == "de"
    assert "warten" in text_of(document.select_one(".error-detail"))  # said in German
    assert swap.status_code == 503 and swap.headers["HX-Retarget"] == "#request-error"
    assert "warten" in text_of(html(swap).select_one(".problem"))


async def test_a_page_save_that_waits_for_the_lock_leaves_the_event_loop_free(app: FastAPI, database_url: str) -> None:
    """The scorekeeper's page posts are async routes (they read the form); their write runs in the thread
    pool, so a save that waits for the lock holds a thread, never the event loop every request needs."""
    async with _client(app) as client:
        game = await _create_game(client)
        game_id = game["id"]
        await client.get(f"/g/{game_id}/edit/{game['edit_key']}")  # this browser keeps score
        page = await client.get(f"/g/{game_id}/score")
        csrf = html(page).select_one("form input[name=csrf]")["value"]
        form = round_form([p["id"] for p in game["players"]], ONE_POINT, csrf)
        with write_lock_held(database_url, game_id):
            save = asyncio.create_task(
                client.post(f"/g/{game_id}/rounds", data=form, headers={"Origin": "http://testserver"})
            )
            async with asyncio.timeout(GUARD_S):
                while app.state.writes.running < 1:  # let in, and waiting for the lock
                    await asyncio.sleep(0.01)
                health = await client.get("/healthz")
            assert health.status_code == 200
            assert not save.done()  # still waiting: the lock is held
        async with asyncio.timeout(GUARD_S):
            saved = await save
        assert saved.status_code in (200, 303), saved.text
        assert len((await client.get(f"{API}/games/{game_id}")).json()["rounds"]) == 1


async def test_an_import_waiting_for_its_own_slot_holds_no_turn_saves_wait_for(app: FastAPI) -> None:
    """The imports have a bound of their own (app.http.ratelimit.ImportSlots) and parse for seconds before
    they write: one waiting for an import slot must not take a turn from the saves."""
    async with _client(app) as client:
        game = await _create_game(client)
        game_id, auth = game["id"], {"Authorization": f"Bearer {game['edit_key']}"}
        exported = (await client.get(f"{API}/games/{game_id}/export")).content
        slots = app.state.limits.imports
        taken = [slots.take_now() for _ in range(slots.size)]  # every import slot busy
        assert all(taken)
        try:
            waiting = [
                asyncio.create_task(
                    client.post(f"{API}/games/import", content=exported, headers={"Content-Type": "application/json"})
                )
                for _ in range(RUNNING + WAITING + 1)
            ]
            async with asyncio.timeout(GUARD_S):
                while slots.waiting < len(waiting):
                    await asyncio.sleep(0.01)
            assert app.state.writes.running == 0 and app.state.writes.waiting == 0
            body = round_body([p["id"] for p in game["players"]], ONE_POINT)
            saved = await client.post(f"{API}/games/{game_id}/rounds", json=body, headers=auth)
            assert saved.status_code == 201, saved.text
        finally:
            for _ in taken:
                slots.release()
        async with asyncio.timeout(GUARD_S):
            await asyncio.gather(*waiting)


def test_what_counts_as_a_write() -> None:
    """Every request that may change something waits its turn; a language choice changes only a cookie."""
    for method, path in [("POST", "/api/v1/games/x/rounds"), ("PUT", "/api/v1/games/x"), ("DELETE", "/t/x")]:
        assert is_write(method, path)
    for method, path in [("GET", "/g/x"), ("HEAD", "/healthz"), ("OPTIONS", "/api/v1/games"), *NOT_WRITES]:
        assert not is_write(method, path)


def test_the_paths_that_are_not_writes_are_routes(app: FastAPI) -> None:
    routes = {
        (method, context.path)
        for route in app.router.routes
        for context in (route.effective_route_contexts() if hasattr(route, "effective_route_contexts") else [])
        for method in context.methods or ()
    }
    assert routes >= NOT_WRITES


async def test_turns_go_in_order_of_arrival_and_a_full_queue_refuses() -> None:
    queue = WriteQueue(running=1, waiting=2)
    first, second, third = queue.join(), queue.join(), queue.join()
    assert first is not None and first.done()
    assert second is not None and third is not None and not second.done() and not third.done()
    assert queue.join() is None  # one more than may wait
    queue.leave(second)  # its client gave up: the one behind moves up
    queue.leave(first)
    assert third.done() and (queue.running, queue.waiting) == (1, 0)
    queue.leave(third)
    assert (queue.running, queue.waiting) == (0, 0)


async def test_a_client_that_leaves_while_it_waits_leaves_the_queue() -> None:
    """Nothing runs for it, and the write behind it takes its place."""
    ran: list[str] = []

    async def app(scope, receive, send) -> None:
        ran.append(scope["path"])

    class State:
        writes = WriteQueue(running=1, waiting=2)

    gate = WriteGate(app, State, html_error=lambda request, status, detail: None)
    held = State.writes.join()  # a write in the app: the next ones wait
    messages = [{"type": "http.request", "body": b"{}", "more_body": False}, {"type": "http.disconnect"}]

    async def leaving():
        return messages.pop(0)

    async def unused_send(message) -> None:
        raise AssertionError(message)

    scope = {"type": "http", "method": "POST", "path": "/api/v1/games/x/rounds", "headers": []}
    await gate(scope, leaving, unused_send)
    assert ran == [] and State.writes.waiting == 0
    State.writes.leave(held)
    assert State.writes.running == 0
