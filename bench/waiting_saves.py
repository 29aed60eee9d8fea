"""/healthz and a game's JSON while 100 saves wait for a write lock another process holds.

Repeats the reproduction of the hardening issue's "Waiting saves starve reads": a SQLite server, another
connection holding the write lock (BEGIN IMMEDIATE on the same file, as `blitzboard prune`, a backup or
another server would), 100 clients each sending a save at once, and meanwhile one more client asking for
/healthz and a game's JSON one after the other, each on a fresh connection, until the lock is given back
(`--hold`, 15 s: longer than the busy timeout's 10 s, so saves that waited that long in a thread answer
503 and free it). The app as it is (`blitzboard serve`, the writes' queue of app.http.writequeue), and as
the baseline in the same run the same app without the queue (`waiting_saves:without_queue`, the writes in
the thread pool as before), and both at rest (no lock held, no saves).

    .venv/bin/python bench/waiting_saves.py [--saves 100] [--hold 15]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import tempfile
import time
from pathlib import Path

from common import (
    Connection,
    add_round,
    command_line,
    create_games,
    machine,
    machine_line,
    percentile,
    print_table,
    running,
    sqlite_database,
    start_app,
    start_factory,
    table,
    wait_for_quiet,
    write_section,
)

PROBE_TIMEOUT_S = 60.0


def without_queue():
    """The app with its writes' queue taken out: every write goes straight to the thread pool."""
    from app.http.writequeue import WriteGate
    from app.main import create_app

    app = create_app()
    app.user_middleware = [m for m in app.user_middleware if m.cls is not WriteGate]
    return app


async def _probe(port: int, path: str) -> float | None:
    connection = await Connection("127.0.0.1", port).open()
    started = time.perf_counter()
    try:
        answer = await asyncio.wait_for(connection.request("GET", path), PROBE_TIMEOUT_S)
    except TimeoutError:
        return None
    finally:
        await connection.close()
    return time.perf_counter() - started if answer.status == 200 else None


async def measure(port: int, database: Path | None, saves: int, hold_s: float) -> dict:
    """Probes while `saves` saves wait on a held lock (`database` None: at rest, for the baseline)."""
    setup = await Connection("127.0.0.1", port).open()
    games = await create_games(setup, 2)
    await setup.close()
    writers = [await Connection("127.0.0.1", port).open() for _ in range(saves if database else 0)]
    lock = sqlite3.connect(database, isolation_level=None) if database else None
    probes: dict[str, list[float | None]] = {"/healthz": [], "game": []}
    statuses: list[int] = []
    if lock:
        lock.execute("BEGIN IMMEDIATE")
    waiting = [asyncio.ensure_future(add_round(w, games[0])) for w in writers]

    async def release() -> None:
        # Given back on time, whatever the probes wait for: a probe stuck behind the saves then gets its
        # answer, and its time, once they move on.
        await asyncio.sleep(hold_s if database else 5)
        if lock:
            lock.execute("ROLLBACK")
            lock.close()

    released = asyncio.ensure_future(release())
    await asyncio.sleep(0.5)  # the saves reach the server
    while not released.done():
        probes["/healthz"].append(await _probe(port, "/healthz"))
        probes["game"].append(await _probe(port, f"/api/v1/games/{games[1].id}"))
    for answer in await asyncio.gather(*waiting, return_exceptions=True):
        statuses.append(getattr(answer, "status", 0))
    for w in writers:
        await w.close()
    return {"probes": probes, "statuses": statuses}


def summary(probes: list[float | None]) -> dict:
    ok = [p for p in probes if p is not None]
    figures = {"asked": len(probes), "answered": len(ok)}
    if ok:
        figures |= {f"p{p}_ms": round(percentile(ok, p) * 1000, 1) for p in (50, 99)} | {
            "max_ms": round(max(ok) * 1000, 1)
        }
    return figures


def cells(probes: list[float | None]) -> str:
    ok = [p for p in probes if p is not None]
    if not ok:
        return f"0 / {len(probes)}"
    return f"{len(ok)} / {len(probes)} · {percentile(ok, 50) * 1000:.0f} / {percentile(ok, 99) * 1000:.0f} / {max(ok) * 1000:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=100)
    parser.add_argument("--hold", type=float, default=15.0, help="seconds the other connection holds the lock")
    args = parser.parse_args()
    wait_for_quiet()
    info = machine()
    rows, result = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for name, start in (
            ("the app (writes' queue)", lambda url, log: start_app(url, log)),
            ("without the queue (before)", lambda url, log: start_factory("waiting_saves:without_queue", log, url)),
        ):
            with sqlite_database(directory) as url, running(start(url, directory / "server.log")) as server:
                path = Path(url.removeprefix("sqlite:///"))
                rest = asyncio.run(measure(server.port, None, 0, args.hold))
                held = asyncio.run(measure(server.port, path, args.saves, args.hold))
            counts = {s: held["statuses"].count(s) for s in sorted(set(held["statuses"]))}
            result[name] = {
                "rest": {path: summary(probes) for path, probes in rest["probes"].items()},
                "held": {path: summary(probes) for path, probes in held["probes"].items()},
                "save_statuses": counts,
            }
            saved = ", ".join(f"{n}× {s or 'no answer'}" for s, n in counts.items())
            rows.append([name, "at rest", cells(rest["probes"]["/healthz"]), cells(rest["probes"]["game"]), "–"])
            rows.append(
                [
                    name,
                    f"{args.saves} saves waiting",
                    cells(held["probes"]["/healthz"]),
                    cells(held["probes"]["game"]),
                    saved,
                ]
            )
    header = ["server", "while", "/healthz: answered / asked · p50 / p99 / max ms", "game JSON: same", "the saves"]
    print_table(header, rows)
    body = [
        "## 15. Reads while 100 saves wait for the write lock",
        "",
        machine_line(info),
        "",
        f"`{command_line()}`: another connection holds SQLite's write lock for {args.hold:.0f} s while "
        f"{args.saves} clients each send a save; one more client asks for `/healthz` and a game's JSON one "
        "after the other, each on a fresh connection (a request unanswered after "
        f"{PROBE_TIMEOUT_S:.0f} s counts as not answered). Baselines in the same run: the same server at rest, "
        "and the app without its writes' queue (every write waiting in the thread pool, as before). The one "
        "probe of the app without the queue waited for a thread behind the saves until the lock was given back.",
        "",
        table(header, rows),
    ]
    write_section("waiting_saves", "\n".join(body), {"machine": info, "command": command_line(), "runs": result})


if __name__ == "__main__":
    main()
