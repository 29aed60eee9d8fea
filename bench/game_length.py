"""Scaling with game length: time per request for the scorekeeper's page and the game's JSON (and the view
page, and the save itself) for games of 10, 100 and 1,000 rounds with 8 players. The cost should grow at
most linearly with rounds, and the pages (long games as light as short ones) should cost about what a
short game's do: a 1,000-round game's view page and scorekeeper's page within 1.5x the bytes and the time
of a 10-round game's (t1000 / t10 <= 1.5). The pages render from a per-process cache of the scored game (app/games/viewcache.py)
while its version is unchanged; "view page, first after a change" times the page right after the version
moved on (a round's start, which changes no rounds), when the game is loaded and scored again.

    .venv/bin/python bench/game_length.py

The games are built through the API on a real server (`blitzboard serve`, a SQLite file); while building,
the time of each save is kept, so the save's own growth shows too. Then one client times N sequential
requests of each page at each length (bounded by a count and a time limit) on a keep-alive connection.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import variants
from common import (
    BenchGame,
    Connection,
    Server,
    add_round,
    command_line,
    create_games,
    kib,
    machine,
    machine_line,
    median,
    ms,
    print_table,
    round_body,
    sqlite_database,
    start_app,
    start_factory,
    table,
    write_section,
)

LENGTHS = [10, 100, 1000]
PLAYERS = 8
REQUESTS = {10: 200, 100: 100, 1000: 30}
TIME_LIMIT_S = 10.0
SAVE_WINDOW = 20  # the save's time at length n: the median of the saves that made the last 20 rounds
BUILD_LIMIT_S = 120.0
SAVE = "save (POST a round)"
COLD = "view page, first after a change"
COLD_REQUESTS = 10
PAGE_TARGET = 1.5  # t1000 / t10, bytes and time, for the view page and the scorekeeper's page
PAGES = ("scorekeeper's page", "view page")
EXPERIMENT = f"*experiment*: {variants.describe('gc_tuning')}"
API_BUILD_LIMIT = 100  # longer games: rounds written straight to the database, the last 10 through the API


@dataclass
class Timing:
    what: str
    server: str
    rounds: int
    times: list[float]
    size: int

    @property
    def median(self) -> float:
        return median(self.times)


def insert_rounds(database_url: str, game: BenchGame, count: int) -> None:
    """Write `count` valid rounds straight into the database, as the save would have written them.

    A save reads and answers the whole game, so building 1,000 rounds through the API costs the sum of
    1,000 ever longer saves (minutes: see the save's own row). The rounds in between are written here in
    one transaction; the first and last rounds still go through the API.
    """
    from sqlalchemy import insert, update
    from sqlmodel import Session

    from app.db import make_engine
    from app.models import Game, Round, RoundScore, utcnow

    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            for _ in range(count):
                body = round_body(game, game.rounds)
                round_id = session.execute(
                    insert(Round).values(game_id=game.id, created_at=utcnow()).returning(Round.id)
                ).scalar_one()
                session.execute(insert(RoundScore), [{"round_id": round_id, **score} for score in body["scores"]])
                game.rounds += 1
            session.execute(update(Game).where(Game.id == game.id).values(version=Game.version + count))
            session.commit()
    finally:
        engine.dispose()


async def build(servers: dict[str, Server], database_url: str) -> tuple[dict[int, BenchGame], list[Timing]]:
    """The games, and the time of the saves that made their last rounds (alternating between the servers)."""
    connections = {name: await Connection(s.host, s.port).open() for name, s in servers.items()}
    first = next(iter(connections.values()))
    games: dict[int, BenchGame] = {}
    save_times: dict[tuple[str, int], list[float]] = {}
    # Warm each server's code paths (a game, a few saves) so the first timed saves are not the first ever.
    for connection in connections.values():
        (spare,) = await create_games(connection, 1, players=PLAYERS)
        for _ in range(5):
            await add_round(connection, spare)
    deadline = time.perf_counter() + BUILD_LIMIT_S
    for length in LENGTHS:
        (game,) = await create_games(first, 1, players=PLAYERS)
        api_from = 1 if length <= API_BUILD_LIMIT else length - SAVE_WINDOW + 1
        if api_from > 1:
            await asyncio.to_thread(insert_rounds, database_url, game, api_from - 1)
        for number in range(api_from, length + 1):
            if time.perf_counter() > deadline:
                raise SystemExit(f"building the games took over {BUILD_LIMIT_S:.0f} s (at round {number} of {length})")
            name = list(connections)[number % len(connections)] if number > length - SAVE_WINDOW else "app"
            started = time.perf_counter()
            answer = await add_round(connections[name], game)
            took = time.perf_counter() - started
            if answer.status != 201:
                raise RuntimeError(f"save answered {answer.status}: {answer.body[:200]!r}")
            if number > length - SAVE_WINDOW:
                save_times.setdefault((name, length), []).append(took)
        check = (await first.request("GET", f"/api/v1/games/{game.id}")).json()
        assert len(check["rounds"]) == length, (len(check["rounds"]), length)
        answer = await first.request("GET", f"/g/{game.id}/edit/{game.key}")
        game.extra["cookie"] = answer.headers["set-cookie"].split(";", 1)[0]
        games[length] = game
    for connection in connections.values():
        await connection.close()
    saves = [Timing(SAVE, name, length, times, 0) for (name, length), times in save_times.items()]
    return games, saves


async def time_requests(servers: dict[str, Server], games: dict[int, BenchGame]) -> list[Timing]:
    timings = []
    for length, game in games.items():
        pages = {
            "scorekeeper's page": (f"/g/{game.id}/score", {"Cookie": game.extra["cookie"]}),
            "view page": (f"/g/{game.id}", {}),
            "game JSON": (f"/api/v1/games/{game.id}", {}),
        }
        for what, (path, headers) in pages.items():
            for name, server in servers.items():
                connection = await Connection(server.host, server.port).open()
                warm = await connection.request("GET", path, headers)
                if warm.status != 200:
                    raise RuntimeError(f"{what} answered {warm.status}")
                times = []
                deadline = time.perf_counter() + TIME_LIMIT_S
                for _ in range(REQUESTS[length]):
                    if time.perf_counter() > deadline:
                        break
                    started = time.perf_counter()
                    answer = await connection.request("GET", path, headers)
                    times.append(time.perf_counter() - started)
                    assert answer.status == 200
                await connection.close()
                timings.append(Timing(what, name, length, times, len(warm.body)))
                print(
                    f"  {what}, {length} rounds, {name}: median {ms(median(times))} ms over {len(times)}, "
                    f"{kib(len(warm.body))} KiB"
                )
        for name, server in servers.items():
            timings.append(await time_cold(server, game, length, name))
    return timings


async def time_cold(server: Server, game: BenchGame, length: int, name: str) -> Timing:
    """The view page right after the version moved on: a round's start (POST .../start, untimed) bumps
    the version and changes no rounds, so the next GET misses the cache and loads and scores the game."""
    connection = await Connection(server.host, server.port).open()
    times, size = [], 0
    for _ in range(COLD_REQUESTS):
        started = await connection.request(
            "POST", f"/api/v1/games/{game.id}/start", {"Authorization": f"Bearer {game.key}"}
        )
        if started.status != 200:
            raise RuntimeError(f"start answered {started.status}: {started.body[:200]!r}")
        began = time.perf_counter()
        answer = await connection.request("GET", f"/g/{game.id}", {})
        times.append(time.perf_counter() - began)
        assert answer.status == 200
        size = len(answer.body)
    await connection.close()
    print(f"  {COLD}, {length} rounds, {name}: median {ms(median(times))} ms over {len(times)}")
    return Timing(COLD, name, length, times, size)


def growth(values: dict[int, float]) -> tuple[float, float, float, float]:
    """t100/t10, t1000/t100, and the cost of one more round between 10 and 100 and between 100 and 1,000."""
    low = (values[100] - values[10]) / 90
    high = (values[1000] - values[100]) / 900
    return values[100] / values[10], values[1000] / values[100], low, high


def main() -> None:
    parser = argparse.ArgumentParser(description="Request times for games of 10, 100 and 1,000 rounds.")
    parser.add_argument("--no-experiments", action="store_true", help="skip the variant with the GC tuning flipped")
    args = parser.parse_args()
    info = machine()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="blitzboard-bench-") as tmp:
        directory = Path(tmp)
        with sqlite_database(directory) as url:
            servers: dict[str, Server] = {}
            try:
                servers["app"] = start_app(url, directory / "server.log")
                if not args.no_experiments:
                    # The same database, served by a second process: the app with its GC tuning flipped.
                    servers[EXPERIMENT] = start_factory("variants:gc_tuning", directory / "experiment.log", url)
                games, saves = asyncio.run(build(servers, url))
                built = time.monotonic() - started
                print(f"  built the games in {built:.0f} s")
                timings = asyncio.run(time_requests(servers, games)) + saves
            finally:
                for server in servers.values():
                    server.stop()
    print(f"took {time.monotonic() - started:.0f} s")
    write(timings, info, built)


def write(timings: list[Timing], info: dict[str, str], built: float) -> None:
    whats = ["scorekeeper's page", "view page", COLD, "game JSON", SAVE]
    names = list(dict.fromkeys(t.server for t in timings))
    header = [
        "request",
        "server",
        *(f"{n} rounds (ms)" for n in LENGTHS),
        "t100 / t10",
        "t1000 / t100",
        "t1000 / t10",
        "one more round costs (10→100, 100→1,000)",
    ]
    rows = []
    verdicts: dict[tuple[str, str], tuple[float, float, float, float]] = {}
    for what in whats:
        for name in names:
            values = {t.rounds: t.median for t in timings if t.what == what and t.server == name}
            if len(values) < len(LENGTHS):
                continue
            verdicts[what, name] = a, b, low, high = growth(values)
            rows.append(
                [
                    what,
                    "the app" if name == "app" else name,
                    *(ms(values[n]) for n in LENGTHS),
                    f"{a:.1f}",
                    f"{b:.1f}",
                    f"{values[1000] / values[10]:.2f}",
                    f"{low * 1e6:.0f} µs, {high * 1e6:.0f} µs",
                ]
            )
    size_of = {(t.what, t.rounds): t.size for t in timings if t.what not in (SAVE, COLD)}
    sizes = [
        [what, *(kib(size_of[what, n]) for n in LENGTHS), f"{size_of[what, 1000] / size_of[what, 10]:.2f}"]
        for what in whats
        if what not in (SAVE, COLD)
    ]
    time_of = {(t.what, t.rounds): t.median for t in timings if t.server == "app"}
    page_ratios = {
        what: (size_of[what, 1000] / size_of[what, 10], time_of[what, 1000] / time_of[what, 10]) for what in PAGES
    }
    pages_met = all(b <= PAGE_TARGET and t <= PAGE_TARGET for b, t in page_ratios.values())
    page_figure = "; ".join(f"{what}: bytes {b:.2f}, time {t:.2f}" for what, (b, t) in page_ratios.items())
    cold_ratio = time_of[COLD, 1000] / time_of[COLD, 10]
    print()
    print_table(header, rows)

    # At most linear: ten times the rounds costs at most ten times as much.
    def linear(what: str, name: str = "app") -> bool:
        return verdicts[what, name][1] <= 10.0

    met = all(linear(what) for what in whats)
    linear_whats = whats
    worst = max(linear_whats, key=lambda w: verdicts[w, "app"][1])
    figure = ", ".join(f"{w} {verdicts[w, 'app'][1]:.1f}" for w in linear_whats)
    flipped = [w for w in linear_whats if (w, EXPERIMENT) in verdicts]
    flipped_figure = ", ".join(f"{w} {verdicts[w, EXPERIMENT][1]:.1f}" for w in flipped)
    why = (
        "the game JSON, a save and the first page after a change load and re-score the whole game (all rounds × "
        "players; the JSON and a save answer it whole), so their work is linear; the pages then render from "
        "the per-process cache, a fixed 20 rounds of history and a chart of at most 60 points a line"
    )
    gc_story = (
        "a 1,000-round request builds tens of thousands of objects, which with Python's default collector "
        "settings set off full collections over the whole heap (its own objects included) while it runs, "
        "so a longer game pays for more collections that each cost more"
    )
    if variants.app_tunes_gc():
        why += "; the app tunes Python's garbage collector at start-up (app/main.py)"
        if flipped:
            why += f". Without that (experiment, same run) t1000/t100 was {flipped_figure}: {gc_story}"
        close = (
            "keep the GC tuning; to make long games cheaper, not just linear: answer a save with less than the "
            "whole game, and fill the page cache from the save (app.games.viewcache.put after COMMIT)"
        )
    else:
        if flipped:
            why += f"; with the collector tuned (experiment, same run) t1000/t100 was {flipped_figure}"
            if not met:
                why += f". What makes it superlinear: {gc_story}"
        close = (
            "in the app's start-up: gc.collect(); gc.freeze(); gc.set_threshold(50_000, 20, 20) (the experiment "
            "rows); then fewer objects per round (load the game once per save) and pages that show the latest "
            "rounds with the rest behind a link"
        )
    targets = [
        {
            "target": "cost grows at most linearly with rounds",
            "figure": f"t1000/t100 (10 = linear): {figure}",
            "met": met,
            "margin": f"worst {verdicts[worst, 'app'][1]:.1f} ({worst})"
            if met
            else f"worst {verdicts[worst, 'app'][1]:.1f}× for 10× the rounds ({worst}); superlinear: "
            + ", ".join(w for w in linear_whats if not linear(w)),
            "why": why,
            "close": close,
        },
        {
            "target": f"a 1,000-round game's pages within {PAGE_TARGET}x a 10-round game's, in bytes and time",
            "figure": f"t1000 / t10: {page_figure}",
            "met": pages_met,
            "margin": f"worst {max(max(r) for r in page_ratios.values()):.2f} (target {PAGE_TARGET})",
            "why": "the history shows the latest 20 rounds (older ones on ?page=N), the chart at most 60 points a "
            "line, and a page renders from the per-process cache of the scored game while its version is "
            f"unchanged; the first view page after a change loads and scores every round again "
            f"(t1000 / t10 {cold_ratio:.1f} for that request)",
            "close": "fill the cache from the save path after COMMIT (app.games.viewcache.put), so the first viewer "
            "after a save finds it warm too",
        },
    ]
    body = [
        "## 4. Scaling with game length\n",
        f"Command: `{command_line()}`  \nMachine: {machine_line(info)}\n",
        f"Three games of {PLAYERS} players with {', '.join(str(n) for n in LENGTHS)} rounds on one "
        f"`blitzboard serve` (a SQLite file), built in {built:.0f} s: through the API up to "
        f"{API_BUILD_LIMIT} rounds; the 1,000-round game gets its first {LENGTHS[-1] - SAVE_WINDOW} rounds "
        "written straight into the database (the same rows a save writes, checked afterwards through the "
        "API) and its last ones through the API, because a save reads and answers the whole game and 1,000 "
        "saves in a row take many minutes. One client on a keep-alive connection then times sequential GETs "
        "of each page (the scorekeeper's page with its edit cookie): the median over up to "
        f"{' / '.join(str(REQUESTS[n]) for n in LENGTHS)} requests (or {TIME_LIMIT_S:.0f} s) after one "
        "warm-up request. The save's figure is the median of the saves that made the last "
        f"{SAVE_WINDOW} rounds of each game (all 10 of the shortest), alternating between the servers, after "
        "a few unmeasured saves on another game. *Experiment*: a second server process on the same database "
        f"runs the app with its garbage-collector tuning flipped (bench/variants.py `gc_tuning`: "
        f"{variants.describe('gc_tuning')}; the tuning is gc.freeze() after start-up and a first-generation "
        "threshold of 50,000). At most linear: 10× the rounds costs at most 10× the time (t1000 / t100 ≤ 10); "
        "the cost of one more round is shown too (the fixed cost per request keeps t100 / t10 well under 10 "
        "whatever the growth).\n",
        table(header, rows),
        "Answer sizes (identity-encoded, the same from both servers):\n",
        table(["request", *(f"{n} rounds (KiB)" for n in LENGTHS), "1000 / 10"], sizes),
        f"Pages (long games as light as short ones: within {PAGE_TARGET}x of a 10-round game's, bytes and time, "
        f"t1000 / t10): "
        f"{page_figure}: {'met' if pages_met else 'not met'}. The first view page after a change (the cache "
        f"misses, the game is loaded and scored again) has t1000 / t10 = {cold_ratio:.1f}.\n",
    ]
    result = {
        "machine": info,
        "command": command_line(),
        "medians_ms": {
            f"{what} · {name}": {
                str(t.rounds): round(t.median * 1000, 3) for t in timings if t.what == what and t.server == name
            }
            for what in whats
            for name in names
        },
        "targets": targets,
    }
    write_section("game_length", "\n".join(body), result)


if __name__ == "__main__":
    main()
