"""10,000 viewers in one process: open event streams on one `blitzboard serve` process, 100 games × 100
streams, against the same figures at 1,000 streams (100 × 10) in the same run. What does the server's
memory (VmRSS) grow by per open stream, and does a save's `version` event reach every stream of its
game in time (p50/p99/max after the save's answer, none missed)?

    .venv/bin/python bench/streams.py               # 1,000 then 10,000 streams, and a tracemalloc pass
    .venv/bin/python bench/streams.py --no-trace    # without the tracemalloc pass

Phases at each size, each bounded by a count and a time limit:
  paced     one save at a time (every 20 ms) over the 100 games: each reaches that game's streams
  burst     all 100 games saved at once by 8 concurrent savers: every stream of the process wakes

The client is one asyncio process holding every stream with a bare protocol per socket (it reads the
bytes for `event: version` and notes when each version came; no parsing beyond that), so it takes as
little CPU as it can from the server. The per-client caps (app/http/limits.py: streams per address,
connections per peer) and the totals are lifted for this server only, through BLITZBOARD_* settings.

The tracemalloc pass serves the same app (bench/serve.py, factory `streams:traced_app`) with tracemalloc
on, opens 1,000 streams between two snapshots, and sums the difference by file: where the memory of
an open stream goes. (Past 400 lines for that pass and its reading, kept beside the figures they explain.)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

from common import (
    ROOT,
    BenchGame,
    Connection,
    Server,
    command_line,
    create_games,
    machine,
    machine_line,
    ms,
    percentile,
    print_table,
    sqlite_database,
    start_server,
    table,
    write_section,
)
from fanout import Figures, Save, delays, report, save

GAMES = 100
SIZES = (10, 100)  # streams per game: 1,000 and then 10,000 in all
OPEN_AT_ONCE = 200
PACED_GAP_S = 0.020
BURST_SAVERS = 8
SETTLE_S = 5.0  # how long to wait for the last deliveries of a phase
PHASE_LIMIT_S = 60.0
OPEN_LIMIT_S = 180.0
TRACE_STREAMS = 1000
MIB = 2**20
# The caps of app/http/limits.py and app/http/server.py, lifted for one client holding every stream.
SERVER_ENV = {
    "BLITZBOARD_MAX_STREAMS_PER_CLIENT": "1000000",
    "BLITZBOARD_MAX_STREAMS": "1000000",
    "BLITZBOARD_MAX_CONNECTIONS": "1000000",
    "BLITZBOARD_MAX_CONNECTIONS_PER_CLIENT": "0",
}

_VERSION = re.compile(rb"event: ?version\r?\ndata: ?(\d+)")


class Listener(asyncio.Protocol):
    """One open stream: the versions it heard, and when each came first (fanout.delays reads `heard`)."""

    def __init__(self, game: BenchGame, request: bytes) -> None:
        self.game = game
        self.request = request
        self.heard: dict[int, float] = {}
        self.first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.tail = b""
        self.status = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if not self.status:
            self.status = data[9:12]
            if self.status != b"200" and not self.first.done():
                self.first.set_exception(RuntimeError(f"event stream answered {data[:200]!r}"))
        text = self.tail + data
        for match in _VERSION.finditer(text):
            self.heard.setdefault(int(match.group(1)), now)
            if not self.first.done():
                self.first.set_result(None)
        self.tail = text[-48:]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.first.done():
            self.first.set_exception(RuntimeError("the server closed the stream"))


async def open_streams(server: Server, games: list[BenchGame], per_game: int, into: dict[str, list[Listener]]) -> float:
    """Open streams until each game has `per_game`; the seconds it took."""
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(OPEN_AT_ONCE)

    async def open_one(game: BenchGame) -> None:
        async with gate:
            request = f"GET /g/{game.id}/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n"
            _, listener = await loop.create_connection(
                lambda: Listener(game, request.encode()), server.host, server.port
            )
            into[game.id].append(listener)
            await asyncio.wait_for(listener.first, 60)

    started = time.perf_counter()
    wanted = [g for g in games for _ in range(per_game - len(into[g.id]))]
    await asyncio.wait_for(asyncio.gather(*(open_one(g) for g in wanted)), OPEN_LIMIT_S)
    return time.perf_counter() - started


async def settle(saves: list[Save], listeners: dict[str, list[Listener]]) -> None:
    deadline = time.perf_counter() + SETTLE_S
    while time.perf_counter() < deadline and delays(saves, listeners).missed:
        await asyncio.sleep(0.05)


async def phases(server: Server, setup: Connection, games: list[BenchGame], listeners) -> dict[str, Figures]:
    out: dict[str, Figures] = {}
    paced: list[Save] = []
    deadline = time.perf_counter() + PHASE_LIMIT_S
    for game in games:
        if time.perf_counter() > deadline:
            break
        paced.append(await save(setup, game))
        await asyncio.sleep(PACED_GAP_S)
    await settle(paced, listeners)
    out["paced"] = delays(paced, listeners)
    report("paced", out["paced"])

    savers = [await Connection(server.host, server.port).open() for _ in range(BURST_SAVERS)]
    burst: list[Save] = []

    async def saver(i: int) -> None:
        for game in games[i::BURST_SAVERS]:
            burst.append(await save(savers[i], game))

    await asyncio.wait_for(asyncio.gather(*(saver(i) for i in range(BURST_SAVERS))), PHASE_LIMIT_S)
    await settle(burst, listeners)
    out["burst"] = delays(burst, listeners)
    report("burst", out["burst"])
    for connection in savers:
        await connection.close()
    return out


async def bench(server: Server) -> dict:
    out: dict = {"sizes": {}}
    setup = await Connection(server.host, server.port).open()
    games = await create_games(setup, GAMES, players=4)
    listeners: dict[str, list[Listener]] = {g.id: [] for g in games}
    # Warm the server's code paths once (a save, a stream opened and closed) before measuring memory.
    await save(setup, games[0])
    warm: dict[str, list[Listener]] = {g.id: [] for g in games[:1]}
    await open_streams(server, games[:1], 5, warm)
    for listener in warm[games[0].id]:
        assert listener.transport is not None
        listener.transport.close()
    await asyncio.sleep(1.0)
    out["rss_before"] = server.rss_bytes()
    for per_game in SIZES:
        seconds = await open_streams(server, games, per_game, listeners)
        streams = sum(len(v) for v in listeners.values())
        await asyncio.sleep(1.0)
        rss = server.rss_bytes()
        print(
            f"{streams:,} streams open in {seconds:.1f} s; server RSS {rss / MIB:.1f} MiB "
            f"({(rss - out['rss_before']) / streams / 1024:.1f} KiB per stream)"
        )
        figures = await phases(server, setup, games, listeners)
        out["sizes"][streams] = {"open_s": seconds, "rss": rss, "rss_after": server.rss_bytes(), **figures}
    for group in listeners.values():
        for listener in group:
            if listener.transport is not None:
                listener.transport.close()
    await setup.close()
    return out


# --- where the memory goes: tracemalloc in the server ------------------------------------------------------


def traced_app():
    """The app with tracemalloc on and two bench-only routes: mark a snapshot, and the difference since it."""
    import tracemalloc

    from fastapi.responses import JSONResponse

    from app.main import create_app

    tracemalloc.start(1)
    app = create_app()
    marked: dict[str, tracemalloc.Snapshot] = {}

    def mark() -> JSONResponse:
        marked["base"] = tracemalloc.take_snapshot()
        return JSONResponse({})

    def difference() -> JSONResponse:
        stats = tracemalloc.take_snapshot().compare_to(marked["base"], "filename")
        return JSONResponse([[s.traceback[0].filename, s.size_diff, s.count_diff] for s in stats])

    app.add_api_route("/_bench/mark", mark, methods=["POST"])
    app.add_api_route("/_bench/difference", difference)
    return app


def where_it_goes(rows: list[list], streams: int) -> list[tuple[str, float]]:
    """KiB per stream by file, the larger first; site-packages and the standard library named short."""
    named: dict[str, float] = {}
    for filename, size, _ in rows:
        name = filename
        if "site-packages/" in name:
            name = name.split("site-packages/", 1)[1].split("/", 1)[0]
        elif str(ROOT) in name:
            name = str(Path(name).relative_to(ROOT))
        elif "/lib/python" in name:
            name = "stdlib " + Path(name).name
        named[name] = named.get(name, 0) + size / streams / 1024
    return sorted(named.items(), key=lambda kv: -kv[1])


async def trace(server: Server) -> list[tuple[str, float]]:
    setup = await Connection(server.host, server.port).open()
    games = await create_games(setup, 10, players=4)
    warm: dict[str, list[Listener]] = {g.id: [] for g in games}
    await open_streams(server, games[:1], 5, warm)
    for listener in warm[games[0].id]:
        assert listener.transport is not None
        listener.transport.close()
    await asyncio.sleep(1.0)
    await setup.request("POST", "/_bench/mark")
    listeners: dict[str, list[Listener]] = {g.id: [] for g in games}
    await open_streams(server, games, TRACE_STREAMS // len(games), listeners)
    await asyncio.sleep(1.0)
    answer = await setup.request("GET", "/_bench/difference")
    for group in listeners.values():
        for listener in group:
            if listener.transport is not None:
                listener.transport.close()
    await setup.close()
    return where_it_goes(answer.json(), TRACE_STREAMS)


# --- the report --------------------------------------------------------------------------------------------


def write(out: dict, traced: list[tuple[str, float]] | None, info: dict[str, str]) -> None:
    header = [
        "streams open",
        "opened in (s)",
        "server RSS (MiB)",
        "per stream (KiB)",
        "phase",
        "saves",
        "deliveries",
        "missed",
        "after the save's answer p50 / p99 / max (ms)",
        "after the save's request p50 / p99 (ms)",
        "first to last stream of a save, p99 (ms)",
    ]
    rows = []
    result_sizes = {}
    for streams, size in out["sizes"].items():
        per_stream = (size["rss"] - out["rss_before"]) / streams / 1024
        size["per_stream_kib"] = per_stream
        for phase in ("paced", "burst"):
            f: Figures = size[phase]
            rows.append(
                [
                    f"{streams:,}",
                    f"{size['open_s']:.1f}",
                    f"{size['rss'] / MIB:.1f}",
                    f"{per_stream:.1f}",
                    "paced: one save every 20 ms"
                    if phase == "paced"
                    else f"burst: 100 saves at once ({BURST_SAVERS} savers)",
                    f.saves,
                    len(f.from_answer),
                    f.missed,
                    f"{ms(percentile(f.from_answer, 50))} / {ms(percentile(f.from_answer, 99))} / "
                    f"{ms(max(f.from_answer, default=float('nan')))}",
                    f"{ms(percentile(f.from_request, 50))} / {ms(percentile(f.from_request, 99))}",
                    ms(percentile(f.spread, 99)),
                ]
            )
        result_sizes[str(streams)] = {
            "rss_mib": round(size["rss"] / MIB, 1),
            "per_stream_kib": round(per_stream, 1),
            "open_s": round(size["open_s"], 1),
            **{
                phase: {
                    "saves": size[phase].saves,
                    "deliveries": len(size[phase].from_answer),
                    "missed": size[phase].missed,
                    "after_answer_p50_ms": round(percentile(size[phase].from_answer, 50) * 1000, 2),
                    "after_answer_p99_ms": round(percentile(size[phase].from_answer, 99) * 1000, 2),
                    "after_answer_max_ms": round(max(size[phase].from_answer, default=float("nan")) * 1000, 2),
                    "after_request_p99_ms": round(percentile(size[phase].from_request, 99) * 1000, 2),
                }
                for phase in ("paced", "burst")
            },
        }
    print()
    print_table(header, rows)
    small, large = (out["sizes"][n] for n in sorted(out["sizes"]))
    n_large = max(out["sizes"])
    peak = max(large["rss"], large["rss_after"]) / MIB
    worst = max(percentile(large[p].from_answer, 99) for p in ("paced", "burst")) * 1000
    missed = sum(large[p].missed for p in ("paced", "burst"))
    worst_request = max(percentile(large[p].from_request, 99) for p in ("paced", "burst")) * 1000
    met_memory = peak < 500 and n_large >= 10_000
    met_latency = worst < 500 and missed == 0
    met_per_stream = large["per_stream_kib"] <= 32
    targets = [
        {
            "target": "10,000 open streams in one process under 500 MB RSS, at most 32 KiB per stream",
            "figure": f"{peak:.0f} MiB with {n_large:,} streams open ({out['rss_before'] / MIB:.0f} MiB before); "
            f"{large['per_stream_kib']:.1f} KiB per stream ({small['per_stream_kib']:.1f} KiB at "
            f"{min(out['sizes']):,})",
            "met": met_memory and met_per_stream,
            "margin": f"{500 - peak:.0f} MiB to spare" if met_memory else f"{peak - 500:.0f} MiB over",
            "why": "a stream is its connection, one small ASGI loop outside the middleware stack (no task group), "
            "one task that waits for the client to leave, and a subscription that keeps only the newest version",
            "close": "the connection itself (uvicorn's protocol and its request cycle) is most of what is left",
        },
        {
            "target": "with 10,000 streams, every save's event delivered, p99 < 500 ms after the save's answer",
            "figure": (
                "every event arrived before the save's answer did"
                if worst <= 0
                else f"p99 {worst:.0f} ms after the save's answer (worst phase)"
            )
            + f", {missed} missed; p99 {worst_request:.0f} ms after the save's request (100 saves at once, "
            "10,000 deliveries, the saves' own queue included)",
            "met": met_latency,
            "margin": f"{500 - max(worst, 0):.0f} ms to spare" if met_latency else f"{worst - 500:.0f} ms over",
            "why": "a save wakes only its game's streams, each writes one small chunk; a burst wakes every stream "
            "of the process, and the event loop writes them one after another",
            "close": "more processes (PostgreSQL's LISTEN/NOTIFY spreads the streams over them)",
        },
    ]
    body = [
        "## 12. 10,000 viewers in one process\n",
        f"Command: `{command_line()}`  \nMachine: {machine_line(info)}\n",
        f"One `blitzboard serve` process on a SQLite file; {GAMES} games of 4 players, first with "
        f"{SIZES[0]} open streams each (`GET /g/{{id}}/events`, the view page's stream), then with "
        f"{SIZES[1]} each: {min(out['sizes']):,} and {n_large:,} streams in the same run, all held by one "
        "client process (asyncio, one socket each, a bare protocol that only looks for `event: version`), "
        f"opened {OPEN_AT_ONCE} at a time. The per-client caps and totals of app/http/limits.py are lifted for this "
        "server (`BLITZBOARD_MAX_STREAMS_PER_CLIENT`, `_MAX_STREAMS`, `_MAX_CONNECTIONS`, "
        "`_MAX_CONNECTIONS_PER_CLIENT=0`), and its open-file limit is raised to the hard limit at start-up "
        f"as always. Per stream is (RSS with the streams open − RSS before any, {out['rss_before'] / MIB:.1f} MiB, "
        "warmed up) ÷ streams. A delivery is one stream receiving a save's `version` event; its delay is "
        "measured from the moment the saver read the save's answer (negative: before it: the save publishes "
        "right after its COMMIT, before it answers), and from the moment the save's request was sent (the "
        "save's own time, and in a burst its queue, included). Phases at each "
        f"size: {GAMES} paced saves, one every 20 ms (each reaches its game's streams), then {GAMES} saves at "
        f"once by {BURST_SAVERS} savers (every stream of the process wakes); each bounded by "
        f"{PHASE_LIMIT_S:.0f} s.\n",
        table(header, rows),
    ]
    if traced:
        shown = [(name, kib) for name, kib in traced if abs(kib) >= 0.1][:12]
        total = sum(kib for _, kib in traced)
        body.append(
            f"Where an open stream's memory goes (tracemalloc in the server, {TRACE_STREAMS:,} streams opened "
            "between two snapshots, the difference by the file that allocated it, KiB per stream; "
            f"{total:.1f} KiB in all, which is what Python allocated: RSS adds the allocator's slack and the "
            "kernel's socket buffers):\n"
        )
        body.append(table(["file", "KiB per stream"], [[f"`{n}`", f"{k:.2f}"] for n, k in shown]))
        kib = dict(traced)

        def part(*names: str) -> float:
            return sum(kib.get(n, 0.0) for n in names)

        body.append(
            f"What is left is mostly the connection: uvicorn's protocol and request cycle ({part('uvicorn'):.1f} KiB, "
            f"its `asyncio.Event` among asyncio's locks, {part('stdlib locks.py'):.1f}; the request's task, made by "
            f"uvloop and counted under `runners.py`, {part('stdlib runners.py'):.1f}) and the connection guard every "
            f"connection has (`app/http/server.py`, {part('app/http/server.py'):.1f}). The stream itself, its loop's frames, the "
            "task that waits for the client to leave, the subscription and the future it waits on (`app/http/streaming.py`, "
            f"`app/stream_front.py`, `app/live.py`, `app/routes/events.py`), is "
            f"{part('app/http/streaming.py', 'app/stream_front.py', 'app/live.py', 'app/routes/events.py'):.1f} KiB. "
            "Before (the app at commit 6a8d030: sse-starlette's EventSourceResponse, four tasks in an anyio task "
            "group plus the route's watcher, behind the whole middleware stack), the same benchmark measured 68.0 KiB "
            "per stream at 1,000 streams and 63.7 KiB at 10,000 (739 MiB RSS), and tracemalloc put anyio at 13.4 KiB "
            "per stream, asyncio's locks 7.4, Starlette 7.3, FastAPI 5.7, uvicorn 5.4, sse-starlette 3.3, contextlib "
            "2.9, the route 2.3 and our middleware 2.1.\n"
        )
    result = {
        "machine": info,
        "command": command_line(),
        "backend": "SQLite",
        "rss_before_mib": round(out["rss_before"] / MIB, 1),
        "sizes": result_sizes,
        "tracemalloc_kib_per_stream": {n: round(k, 2) for n, k in traced[:20]} if traced else None,
        "targets": targets,
    }
    write_section("streams", "\n".join(body), result)


def raise_open_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < GAMES * max(SIZES) + 1000:
        raise SystemExit(f"the open-file limit ({soft}) is too low for {GAMES * max(SIZES):,} streams")


def main() -> None:
    parser = argparse.ArgumentParser(description="10,000 event streams on one server process.")
    parser.add_argument("--no-trace", action="store_true", help="skip the tracemalloc pass")
    args = parser.parse_args()
    raise_open_files()  # the server inherits it, and raises its own soft limit to the hard one too
    info = machine()
    started = time.monotonic()
    traced = None
    with tempfile.TemporaryDirectory(prefix="blitzboard-bench-") as tmp, contextlib.ExitStack() as stack:
        directory = Path(tmp)
        url = stack.enter_context(sqlite_database(directory))
        server = start_server(url, directory / "server.log", SERVER_ENV)
        try:
            out = asyncio.run(bench(server))
        finally:
            server.stop()
        if not args.no_trace:
            bench_dir = Path(__file__).resolve().parent

            def command(port: int) -> list[str]:
                return [sys.executable, str(bench_dir / "serve.py"), "streams:traced_app", "--port", str(port)]

            server = start_server(url, directory / "traced.log", SERVER_ENV, command=command)
            try:
                traced = asyncio.run(trace(server))
            finally:
                server.stop()
            for name, kib in traced[:12]:
                print(f"  {kib:7.2f} KiB/stream  {name}")
    print(f"took {time.monotonic() - started:.0f} s")
    write(out, traced, info)


if __name__ == "__main__":
    main()
