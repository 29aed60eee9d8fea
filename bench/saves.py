"""Round saves through the real server: throughput and p50/p99 latency at 1, 8 and 32 concurrent clients,
on a SQLite file and on PostgreSQL, side by side with a bare FastAPI endpoint (bench/bare_app.py) under
the same uvicorn settings, measured in the same run.

    .venv/bin/python bench/saves.py                 # SQLite, PostgreSQL (when it answers) and the bare endpoint
    .venv/bin/python bench/saves.py --no-postgres
    .venv/bin/python bench/saves.py --no-experiments  # without the variants' rows (as docs/performance.md shows)

Each client is one keep-alive connection sending one save after another (a closed loop: the next request
leaves when the answer is in). Every level starts on fresh games: 96 games of 4 players, and client i
saves to games i, i+N, i+2N, … in turn, so no two clients ever write the same game. What concurrent
saves contend for is then the database (SQLite's single write lock; PostgreSQL's connection pool and
commits) and the server's thread pool, not one game's row lock. Each level is bounded by a number of
requests per client and by a time limit, whichever comes first. The app's saves are measured twice per
level, answered whole and with `Prefer: return=minimal` (rows of their own).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import variants
from common import (
    BenchGame,
    Connection,
    Server,
    command_line,
    create_games,
    json_body,
    machine,
    machine_line,
    ms,
    percentile,
    postgres_available,
    postgres_database,
    print_table,
    round_body,
    sqlite_database,
    start_app,
    start_bare,
    start_factory,
    table,
    write_section,
)

LEVELS = [1, 8, 32]
GAMES_PER_LEVEL = 96
WARMUP_PER_CLIENT = 3
# Requests per client at each level (then the time limit): enough for a steady p99, few enough that a
# game holds at most ~10 rounds by the end (a save's cost grows with the game's length: see game_length.py).
SAVES_PER_CLIENT = {1: 400, 8: 100, 32: 30}
BARE_PER_CLIENT = {1: 4000, 8: 800, 32: 200}
TIME_LIMIT_S = 12.0
LABELS = {
    "bare": "bare endpoint",
    "sqlite": "save, SQLite",
    "sqlite-experiment": f"save, SQLite, *experiment*: {variants.describe('write_queue')}",
    "sqlite-normal": "save, SQLite, *experiment*: `BLITZBOARD_SQLITE_SYNCHRONOUS=NORMAL` (the default is FULL)",
    "postgresql": "save, PostgreSQL",
    "sqlite-minimal": "save, SQLite, `Prefer: return=minimal`",
    "postgresql-minimal": "save, PostgreSQL, `Prefer: return=minimal`",
}
# The servers whose saves are measured twice: answered whole (the default), then minimal (a row of its own).
MINIMAL_TOO = ("sqlite", "postgresql")
PREFER_MINIMAL = {"Prefer": "return=minimal"}


@dataclass
class Run:
    target: str
    clients: int
    latencies: list[float]
    errors: int
    elapsed: float
    server_cpu: float
    max_rounds: int = 0
    answer_bytes: float = 0.0  # the mean size of an answer's body

    @property
    def done(self) -> int:
        return len(self.latencies)

    @property
    def throughput(self) -> float:
        return self.done / self.elapsed if self.elapsed else 0.0

    @property
    def p50(self) -> float:
        return percentile(self.latencies, 50)

    @property
    def p99(self) -> float:
        return percentile(self.latencies, 99)

    @property
    def cpu_per_request(self) -> float:
        return self.server_cpu / self.done if self.done else float("nan")


async def closed_loop(
    server: Server,
    name: str,
    clients: int,
    per_client: int,
    games: list[BenchGame],
    path_of,
    expect: int,
    extra: dict[str, str] | None = None,
) -> Run:
    """`clients` connections, each saving `per_client` times (or until the time limit)."""
    connections = [await Connection(server.host, server.port).open() for _ in range(clients)]
    own = [games[i::clients] for i in range(clients)]
    latencies: list[float] = []
    sizes: list[int] = []
    errors = 0

    async def save(connection: Connection, game: BenchGame) -> float:
        nonlocal errors
        headers, body = json_body(round_body(game, game.rounds))
        headers["Authorization"] = f"Bearer {game.key}"
        headers |= extra or {}
        started = time.perf_counter()
        answer = await connection.request("POST", path_of(game), headers, body)
        took = time.perf_counter() - started
        # A minimal answer must say so, or the row would measure the whole answer under another name.
        if answer.status == expect and (not extra or answer.headers.get("preference-applied") == "return=minimal"):
            game.rounds += 1
            sizes.append(len(answer.body))
            return took
        errors += 1
        if errors <= 3:
            print(f"  {name}: unexpected answer {answer.status}: {answer.body[:200]!r}")
        return -1.0

    async def warm(i: int) -> None:
        for j in range(WARMUP_PER_CLIENT):
            await save(connections[i], own[i][j % len(own[i])])

    await asyncio.gather(*(warm(i) for i in range(clients)))
    errors = 0
    deadline = time.perf_counter() + TIME_LIMIT_S

    async def client(i: int) -> None:
        for j in range(per_client):
            if time.perf_counter() > deadline:
                return
            took = await save(connections[i], own[i][j % len(own[i])])
            if took >= 0:
                latencies.append(took)

    cpu_before = server.cpu_seconds()
    started = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    elapsed = time.perf_counter() - started
    cpu = server.cpu_seconds() - cpu_before
    for connection in connections:
        await connection.close()
    size = sum(sizes) / len(sizes) if sizes else 0.0
    return Run(name, clients, latencies, errors, elapsed, cpu, max(g.rounds for g in games), size)


async def measure(servers: dict[str, Server], levels: list[int]) -> list[Run]:
    runs: list[Run] = []
    for clients in levels:
        # The baseline first, then each database, all at this level, all in this run.
        fake = [BenchGame(f"bare{i}", "k", [1, 2, 3, 4]) for i in range(GAMES_PER_LEVEL)]
        run = await closed_loop(
            servers["bare"], "bare", clients, BARE_PER_CLIENT[clients], fake, lambda g: f"/bare/{g.id}/rounds", 201
        )
        runs.append(run)
        report(run)
        for name, server in servers.items():
            if name == "bare":
                continue
            forms = [(name, None), (f"{name}-minimal", PREFER_MINIMAL)] if name in MINIMAL_TOO else [(name, None)]
            for target, extra in forms:
                setup = await Connection(server.host, server.port).open()
                games = await create_games(setup, GAMES_PER_LEVEL, players=4)
                await setup.close()
                run = await closed_loop(
                    server,
                    target,
                    clients,
                    SAVES_PER_CLIENT[clients],
                    games,
                    lambda g: f"/api/v1/games/{g.id}/rounds",
                    201,
                    extra,
                )
                runs.append(run)
                report(run)
    return runs


def report(run: Run) -> None:
    print(
        f"  {run.target:>10} · {run.clients:>2} clients: {run.done} requests in {run.elapsed:.2f} s = "
        f"{run.throughput:.0f}/s, p50 {ms(run.p50)} ms, p99 {ms(run.p99)} ms, "
        f"server CPU {ms(run.cpu_per_request)} ms/request, answers of {run.answer_bytes:.0f} B, {run.errors} errors"
    )


EXPERIMENTS_TEXT = (
    "The *experiment* rows are the app with one change flipped (bench/variants.py `write_queue`: "
    f"{variants.describe('write_queue')}; the queue makes writers wait on an in-process lock instead of in "
    "SQLite's busy handler), served beside it on a SQLite file of its own; and the app with "
    "`synchronous=NORMAL` instead of its default FULL (NORMAL skips the fsync at each commit in WAL mode: a "
    "crash of the process loses nothing, a power cut can lose the last acknowledged saves). "
)


def faster_saves_targets(runs: list[Run], bare: dict[int, Run]) -> list[dict]:
    """The faster saves' targets at 8 clients: p99 under 50 ms on both databases; with
    `Prefer: return=minimal`, ≥ 30% of the bare endpoint's throughput on SQLite and ≥ 20% on PostgreSQL."""
    at8 = {r.target: r for r in runs if r.clients == 8}
    if "sqlite" not in at8:
        return []
    rows = []
    p99s = {name: at8[name].p99 * 1000 for name in ("sqlite", "postgresql") if name in at8}
    worst = max(p99s.values())
    cpu = {name: at8[name].cpu_per_request * 1000 for name in p99s}
    rows.append(
        {
            "target": "save p99 < 50 ms at 8 clients, SQLite and PostgreSQL (faster saves)",
            "figure": ", ".join(f"{name}: p99 {p99:.1f} ms" for name, p99 in p99s.items()),
            "met": worst < 50,
            "margin": f"{50 - worst:.0f} ms to spare" if worst < 50 else f"{worst - 50:.0f} ms over",
            "why": "8 clients' saves take turns for one Python process's CPU (one interpreter lock): each waits "
            "about the others' CPU, "
            + ", ".join(f"{cpu[name]:.1f} ms a save on {name}" for name in cpu)
            + " (server CPU per request), and on SQLite the write lock too (one writer at a time, fsync included)",
            "close": "less CPU per save (what the save path without the ORM did: item 28), or more processes on "
            "PostgreSQL (`--workers`), where commits of different games run in parallel",
        }
    )
    goals = {"sqlite-minimal": 0.30, "postgresql-minimal": 0.20}
    ratios = {name: at8[name].throughput / bare[8].throughput for name in goals if name in at8}
    if ratios:
        met = all(ratio >= goals[name] for name, ratio in ratios.items())
        busy = (
            at8["sqlite-minimal"].throughput * at8["sqlite-minimal"].cpu_per_request if "sqlite-minimal" in at8 else 0
        )
        rows.append(
            {
                "target": "saves with `Prefer: return=minimal` ≥ 30% of the bare endpoint's throughput on SQLite, "
                "≥ 20% on PostgreSQL, at 8 clients (faster saves)",
                "figure": ", ".join(
                    f"{name.removesuffix('-minimal')}: {at8[name].throughput:.0f}/s = {ratio:.1%}"
                    for name, ratio in ratios.items()
                )
                + f" of the bare {bare[8].throughput:.0f}/s",
                "met": met,
                "margin": ", ".join(
                    f"{goals[name] / ratio:.1f}× short" for name, ratio in ratios.items() if ratio < goals[name]
                )
                or "met",
                "why": f"the server is CPU-bound: on SQLite it was busy {busy:.2f} CPU-seconds a second (one "
                f"interpreter lock), at {ms(at8['sqlite-minimal'].cpu_per_request) if 'sqlite-minimal' in at8 else '?'} ms "
                f"of CPU a save against {ms(bare[8].cpu_per_request)} ms for the bare endpoint's whole request. What "
                "is left is the write's own work (the lock, key, replay record, If-Match, the round's inserts, the "
                "version, scoring, COMMIT: six statements through SQLAlchemy Core, three more with an Idempotency-Key) and the framework's "
                "fixed cost per request (middleware, FastAPI's dependencies and validation, the thread-pool hop)",
                "close": "30% means about 3 times the bare endpoint's CPU per save: a save without SQLAlchemy's "
                "execution layer (the driver's own statements) and outside FastAPI's routing (a raw-ASGI route "
                "like the event streams', app/stream_front.py), and fewer statements per save (the replay record "
                "and the version in one)" + fsync_note(at8),
            }
        )
    return rows


def fsync_note(at8: dict[str, Run]) -> str:
    """What group commit (one fsync for every save waiting) could buy at most: the saves without fsync."""
    if "sqlite-normal" not in at8 or "sqlite" not in at8:
        return ""
    normal, full = at8["sqlite-normal"].throughput, at8["sqlite"].throughput
    return (
        f"; group commit could buy at most what no fsync at all does: {normal:.0f}/s with `synchronous=NORMAL` "
        f"(experiment, same run) against {full:.0f}/s, ×{normal / full:.2f}"
    )


def write(runs: list[Run], info: dict[str, str], pg_note: str) -> None:
    bare = {r.clients: r for r in runs if r.target == "bare"}
    header = [
        "clients",
        "endpoint",
        "requests",
        "throughput (req/s)",
        "× bare",
        "p50 (ms)",
        "p99 (ms)",
        "server CPU per request (ms)",
        "answer (bytes)",
        "errors",
    ]
    rows = []
    for run in runs:
        ratio = run.throughput / bare[run.clients].throughput if run.target != "bare" else 1.0
        label = LABELS[run.target]
        rows.append(
            [
                run.clients,
                label,
                run.done,
                f"{run.throughput:.0f}",
                f"{ratio:.1%}" if run.target != "bare" else "1",
                ms(run.p50),
                ms(run.p99),
                ms(run.cpu_per_request),
                f"{run.answer_bytes:.0f}",
                run.errors,
            ]
        )
    print()
    print_table(header, rows)

    targets = []
    sqlite8 = next((r for r in runs if r.target == "sqlite" and r.clients == 8), None)
    experiment8 = next((r for r in runs if r.target == "sqlite-experiment" and r.clients == 8), None)
    if sqlite8:
        p99 = sqlite8.p99 * 1000
        cpu = sqlite8.cpu_per_request * 1000
        met = p99 < 100
        queued = variants.app_queues_writes()
        if queued:
            why = (
                "writers queue on one in-process lock (app/db.py serial_writes) and the next starts the moment "
                "it frees, so 8 clients wait about 8 saves' CPU in turn"
            )
            if experiment8:
                why += (
                    f"; without the queue (experiment, same run) p99 was {ms(experiment8.p99)} ms: SQLite's busy "
                    "handler sleeps and polls for the write lock with growing naps, and an unlucky save loses the "
                    "race again and again"
                )
            close = (
                f"keep the queue; the tail is then the queue's depth times a save's CPU ({cpu:.1f} ms here), so "
                "less work per save (one load of the game, the answer built from it) widens the margin"
            )
        else:
            why = (
                "the median is fine, the tail is not: a writer that finds SQLite's write lock taken (BEGIN "
                "IMMEDIATE) waits in SQLite's busy handler, which sleeps and polls with growing naps instead "
                "of being woken when the lock frees, so an unlucky save loses the race again and again"
            )
            if experiment8:
                why += (
                    f"; with writers queued on an in-process lock (experiment, same run) p99 was "
                    f"{ms(experiment8.p99)} ms (p50 {ms(experiment8.p50)} ms)"
                )
            close = (
                "on SQLite (one process, as `blitzboard serve` insists) queue the write use cases on one "
                f"in-process lock before BEGIN IMMEDIATE; and cut the CPU a save holds the lock for ({cpu:.1f} "
                "ms here)"
            )
        targets.append(
            {
                "target": "save p99 < 100 ms at 8 concurrent clients, SQLite",
                "figure": f"p99 {p99:.1f} ms (p50 {ms(sqlite8.p50)} ms)",
                "met": met,
                "margin": f"{100 - p99:.0f} ms to spare" if met else f"{p99 - 100:.0f} ms over",
                "why": why,
                "close": close,
            }
        )
        ratio = sqlite8.throughput / bare[8].throughput
        pg8 = next((r for r in runs if r.target == "postgresql" and r.clients == 8), None)
        pg_ratio = f", PostgreSQL {pg8.throughput / bare[8].throughput:.1%}" if pg8 else ""
        minimal8 = next((r for r in runs if r.target == "sqlite-minimal" and r.clients == 8), None)
        if minimal8:
            pg_ratio += f"; with `Prefer: return=minimal` SQLite {minimal8.throughput / bare[8].throughput:.1%}"
        met = ratio >= 0.20
        targets.append(
            {
                "target": "save throughput ≥ 20% of the bare endpoint's (8 clients)",
                "figure": f"SQLite {sqlite8.throughput:.0f}/s = {ratio:.1%} of the bare {bare[8].throughput:.0f}/s"
                + pg_ratio,
                "met": met,
                "margin": f"{ratio / 0.20:.1f}× the bar" if met else f"{0.20 / ratio:.1f}× short",
                "why": f"server CPU per request: bare {ms(bare[8].cpu_per_request)} ms, save {cpu:.1f} ms, so one save "
                f"costs the CPU of {sqlite8.cpu_per_request / bare[8].cpu_per_request:.0f} constant answers. A save "
                "now loads the game once (three queries), checks the key, the idempotency record and If-Match, "
                "writes the round (two inserts and the version update), scores the game in memory and answers the "
                "whole game as JSON, in one BEGIN IMMEDIATE transaction; most of the rest is the framework's fixed "
                "cost per request (FastAPI dependencies and body validation, a thread-pool hop for the database "
                "session, SQLAlchemy's work per statement and transaction), which the constant endpoint doesn't pay",
                "close": "20% means under 1 ms of CPU per save, below what FastAPI plus SQLAlchemy spend on one "
                "write transaction even as Core statements (the faster save path took the ORM's unit of work out of "
                "the save and the game's loading out of most saves: docs/performance.md item 28). A client that sends "
                "`Prefer: return=minimal` gets the changed round and the totals instead of the whole game, which "
                "saves the answer's bytes, not the write's work",
            }
        )
        targets += faster_saves_targets(runs, bare)

    body = [
        "## 1. Round saves\n",
        f"Command: `{command_line()}`  \nMachine: {machine_line(info)}\n",
        "`POST /api/v1/games/{id}/rounds` (4 players, `Authorization: Bearer`, no Idempotency-Key or "
        "If-Match) through `blitzboard serve`, against `POST /bare/{id}/rounds` in bench/bare_app.py: a "
        "FastAPI endpoint that reads the same body and returns a constant, served by the same uvicorn "
        "settings, measured at the same concurrency in the same run. Each client is one keep-alive "
        "connection in a closed loop (next request when the answer is in). Every level starts on "
        f"{GAMES_PER_LEVEL} fresh games and client i saves to games i, i+N, i+2N, … in turn, so no two "
        "clients write the same game: concurrent saves contend for the database (SQLite's one write lock, "
        "PostgreSQL's pool and commits) and the thread pool, never for one game's row lock. Bounds: "
        f"{' / '.join(str(SAVES_PER_CLIENT[n]) for n in LEVELS)} saves per client at "
        f"{' / '.join(str(n) for n in LEVELS)} clients ({' / '.join(str(BARE_PER_CLIENT[n]) for n in LEVELS)} "
        f"bare requests) or {TIME_LIMIT_S:.0f} s, "
        f"whichever comes first, after {WARMUP_PER_CLIENT} warm-up requests per client (so no game had more "
        f"than {max(r.max_rounds for r in runs if r.target != 'bare')} rounds by the end of its level). Latency is "
        "client-side, request written to answer read. Server CPU is the server process's user + system "
        "time over the level divided by requests. "
        + (EXPERIMENTS_TEXT if any("experiment" in r.target or "normal" in r.target for r in runs) else "")
        + "The `Prefer: return=minimal` rows are the same saves with that "
        "header (the answer is the new version, the standings and the round saved instead of the whole game: "
        "app/minimal.py), sent to the same server on fresh games right after the row above them; each of their "
        "answers was checked to say `Preference-Applied: return=minimal`. *answer (bytes)* is the mean size "
        f"of an answer's body. {pg_note}\n",
        table(header, rows),
    ]
    result = {
        "machine": info,
        "command": command_line(),
        "runs": [
            {
                "target": r.target,
                "clients": r.clients,
                "requests": r.done,
                "throughput": round(r.throughput, 1),
                "p50_ms": round(r.p50 * 1000, 2),
                "p99_ms": round(r.p99 * 1000, 2),
                "cpu_ms": round(r.cpu_per_request * 1000, 3),
                "answer_bytes": round(r.answer_bytes),
                "errors": r.errors,
            }
            for r in runs
        ],
        "targets": targets,
    }
    write_section("saves", "\n".join(body), result)


def main() -> None:
    parser = argparse.ArgumentParser(description="Round saves vs a bare endpoint, SQLite and PostgreSQL.")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite and the bare endpoint only")
    parser.add_argument(
        "--no-experiments",
        action="store_true",
        help="skip the variants of the app (write queue flipped; SQLite synchronous=NORMAL)",
    )
    args = parser.parse_args()
    info = machine()
    use_pg = not args.no_postgres and postgres_available()
    pg_note = "" if use_pg else "PostgreSQL was not measured in this run (not reachable, or --no-postgres)."
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="blitzboard-bench-") as tmp:
        directory = Path(tmp)
        with contextlib.ExitStack() as stack:
            sqlite_url = stack.enter_context(sqlite_database(directory))
            pg_url = stack.enter_context(postgres_database()) if use_pg else None
            servers: dict[str, Server] = {}
            try:
                servers["bare"] = start_bare(directory / "bare.log")
                servers["sqlite"] = start_app(sqlite_url, directory / "sqlite.log")
                if not args.no_experiments:
                    experiment_url = stack.enter_context(sqlite_database(directory))
                    servers["sqlite-experiment"] = start_factory(
                        "variants:write_queue", directory / "experiment.log", experiment_url
                    )
                    normal_url = stack.enter_context(sqlite_database(directory))
                    servers["sqlite-normal"] = start_app(
                        normal_url, directory / "normal.log", env={"BLITZBOARD_SQLITE_SYNCHRONOUS": "NORMAL"}
                    )
                if pg_url:
                    servers["postgresql"] = start_app(pg_url, directory / "postgresql.log")
                runs = asyncio.run(measure(servers, LEVELS))
            finally:
                for server in servers.values():
                    server.stop()
    print(f"took {time.monotonic() - started:.0f} s")
    write(runs, info, pg_note)


if __name__ == "__main__":
    main()
