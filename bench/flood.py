"""One client holds 1,400 connections against a server limited to 1,100 open files: do others still get in?

Repeats the reproduction of the hardening issue "One client can stall the server": one client address
(127.0.0.1) keeps 1,400 connections open (event streams, slowloris half-requests, idle keep-alive
sockets), reopening each one the server closes, while another client (127.0.0.2, a person watching the
game) asks for /healthz and the view page twice a second on fresh connections. The server runs
`blitzboard serve` with a soft and hard RLIMIT_NOFILE of 1,100 (set before it starts) and, as the
baseline in the same run, plain `uvicorn app.main:create_app --factory` as it ran before the limits,
with the app's stream caps out of the way.

    .venv/bin/python bench/flood.py [--seconds 30] [--no-baseline]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from common import (
    ROOT,
    SERVER_ENV,
    Server,
    command_line,
    free_port,
    machine,
    machine_line,
    more_open_files,
    percentile,
    print_table,
    sqlite_database,
    start_server,
    table,
    write_section,
)

OPEN_FILES = 1100
STREAMS, SLOWLORIS, IDLE = 400, 500, 500
PROBE_EVERY_S = 0.5
PROBE_TIMEOUT_S = 5.0
ATTACKER, VISITOR = "127.0.0.1", "127.0.0.2"
# A direct exposure: loopback is not a trusted proxy here (proxies are exempt from the connection cap).
ENV = SERVER_ENV | {"BLITZBOARD_FORWARDED_ALLOW_IPS": "192.0.2.1", "BLITZBOARD_LOG_LEVEL": "info"}
UNCAPPED_STREAMS = {"BLITZBOARD_MAX_STREAMS_PER_CLIENT": "100000", "BLITZBOARD_MAX_STREAMS": "100000"}


def _limit_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))


@dataclass
class Tally:
    held: dict[str, int] = field(default_factory=lambda: {"stream": 0, "slowloris": 0, "idle": 0})
    opened: int = 0
    refused: int = 0  # closed by the server before or instead of an answer
    probes: dict[str, list[float | None]] = field(default_factory=lambda: {"/healthz": [], "view page": []})


async def hold(kind: str, port: int, game_id: str, tally: Tally, stop: asyncio.Event) -> None:
    """Keep one connection of `kind` open until `stop`, reopening it whenever the server closes it."""
    while not stop.is_set():
        writer = None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0)), 5
            )
            tally.opened += 1
            tally.held[kind] += 1
            try:
                if kind == "stream":
                    writer.write(f"GET /g/{game_id}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                elif kind == "idle":
                    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                else:
                    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
                while not stop.is_set():
                    if kind == "slowloris":
                        writer.write(b"X-a: b\r\n")  # one more header line every 2 s, never the end
                        await writer.drain()
                    with contextlib.suppress(TimeoutError):
                        if not await asyncio.wait_for(reader.read(65536), 2):
                            break  # closed by the server
            finally:
                tally.held[kind] -= 1
        except (OSError, TimeoutError):
            pass
        finally:
            if writer is not None:
                writer.close()
        tally.refused += 1
        await asyncio.sleep(0.2)  # reopen, a little later


async def probe(port: int, path: str) -> float | None:
    """Seconds to a complete 200 answer on a fresh connection from the visitor; None if none in time."""
    started = time.perf_counter()
    writer = None
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(VISITOR, 0))
            writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            answer = await reader.read()
            return time.perf_counter() - started if answer.startswith(b"HTTP/1.1 200") else None
    except (OSError, TimeoutError):
        return None
    finally:
        if writer is not None:
            writer.close()


async def flood(server: Server, game_id: str, seconds: float) -> dict:
    tally = Tally()
    stop = asyncio.Event()
    kinds = ["stream"] * STREAMS + ["slowloris"] * SLOWLORIS + ["idle"] * IDLE
    holders = []
    for i, kind in enumerate(kinds):
        holders.append(asyncio.create_task(hold(kind, server.port, game_id, tally, stop)))
        if i % 100 == 99:
            await asyncio.sleep(0.05)
    await asyncio.sleep(2)  # let the flood build up before the visitor comes
    held_samples: list[int] = []
    fds: list[int] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        health, view = await asyncio.gather(probe(server.port, "/healthz"), probe(server.port, f"/g/{game_id}"))
        tally.probes["/healthz"].append(health)
        tally.probes["view page"].append(view)
        held_samples.append(sum(tally.held.values()))
        with contextlib.suppress(OSError):
            fds.append(len(os.listdir(f"/proc/{server.pid}/fd")))
        await asyncio.sleep(PROBE_EVERY_S)
    stop.set()
    for task in holders:
        task.cancel()
    await asyncio.gather(*holders, return_exceptions=True)
    return {"tally": tally, "held": held_samples, "fds": fds}


def create_game(port: int) -> str:
    import httpx

    body = {"name": "Flood", "players": [{"name": "Ana"}, {"name": "Ben"}]}
    answer = httpx.post(f"http://127.0.0.1:{port}/api/v1/games", json=body, timeout=30)
    answer.raise_for_status()
    return answer.json()["id"]


def run(name: str, argv_for: callable, env: dict[str, str], url: str, directory: Path, seconds: float) -> dict:
    port = free_port()
    log = directory / f"{name}.log"
    server = start_server(url, log, ENV | env, port=port, command=argv_for, preexec=_limit_files)
    try:
        game_id = create_game(port)
        before = log.stat().st_size
        started = time.monotonic()
        out = asyncio.run(flood(server, game_id, seconds))
        out["log_bytes_per_s"] = (log.stat().st_size - before) / (time.monotonic() - started)
        out["log_tail"] = log.read_text(errors="replace")[-400:]
    finally:
        server.stop()
    return out


def summary(name: str, out: dict) -> list[str]:
    tally: Tally = out["tally"]
    cells = [name]
    for path in ("/healthz", "view page"):
        answers = tally.probes[path]
        ok = [a for a in answers if a is not None]
        p50 = f"{percentile(ok, 50) * 1000:.0f}" if ok else "–"
        p99 = f"{percentile(ok, 99) * 1000:.0f}" if ok else "–"
        cells.append(f"{len(ok)} / {len(answers)} · {p50} / {p99}")
    held = out["held"]
    cells.append(f"{percentile(held, 50):.0f} (max {max(held)})" if held else "–")
    cells.append(f"{max(out['fds'])}" if out["fds"] else "–")
    cells.append(f"{tally.opened:,}")
    cells.append(f"{out['log_bytes_per_s'] / 1024:.1f}")
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30, help="how long the visitor probes under the flood")
    parser.add_argument("--no-baseline", action="store_true", help="skip plain uvicorn as it ran before")
    args = parser.parse_args()
    more_open_files()
    info = machine()
    header = [
        "server",
        "/healthz: answered / asked · p50 / p99 ms",
        "view page: answered / asked · p50 / p99 ms",
        "connections the flooder held, median",
        "server's open files, max",
        "connections the flooder opened",
        "server log KiB/s",
    ]
    rows = []
    results = {}
    with tempfile.TemporaryDirectory(prefix="blitzboard-bench-") as tmp:
        directory = Path(tmp)
        with contextlib.ExitStack() as stack:
            url = stack.enter_context(sqlite_database(directory))
            migrate = [sys.executable, "-m", "app.cli", "migrate"]
            subprocess.run(migrate, cwd=ROOT, env=os.environ | {"BLITZBOARD_DATABASE_URL": url}, check=True)
            serve = [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port"]
            runs = [("blitzboard serve (limits as shipped)", lambda port: [*serve, str(port)], {})]
            if not args.no_baseline:
                plain = [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--no-access-log"]
                runs.insert(
                    0,
                    (
                        "baseline: plain uvicorn, streams uncapped",
                        lambda port: [*plain, "--port", str(port)],
                        UNCAPPED_STREAMS,
                    ),
                )
            for name, argv_for, env in runs:
                print(f"{name}: {STREAMS + SLOWLORIS + IDLE:,} connections for {args.seconds:.0f} s ...")
                out = run(name, argv_for, env, url, directory, args.seconds)
                rows.append(summary(name, out))
                results[name] = {"row": rows[-1], "log_tail": out["log_tail"][-200:]}
    print_table(header, rows)
    body = [
        "## 6. One client flooding connections\n",
        f"Command: `{command_line()}`  \nMachine: {machine_line(info)}\n",
        f"The server process starts with a soft and hard open-file limit of {OPEN_FILES:,} (RLIMIT_NOFILE, set "
        f"before it runs). One client address ({ATTACKER}) keeps {STREAMS + SLOWLORIS + IDLE:,} connections "
        f"open: {STREAMS} asking for the view page's event stream, {SLOWLORIS} slowloris half-requests (one more "
        f"header line every 2 s, never the end) and {IDLE} idle keep-alive connections after one request; "
        "each one the server closes is opened again 0.2 s later. Meanwhile another client "
        f"({VISITOR}) asks for `/healthz` and the view page (`GET /g/{{id}}`) every {PROBE_EVERY_S} s on fresh "
        f"connections, for {args.seconds:.0f} s; an answer counts if a complete 200 arrives within "
        f"{PROBE_TIMEOUT_S:.0f} s. The baseline is the same app under plain uvicorn as it ran before the limits "
        "(no head deadline, no connection caps, stream caps lifted). Server log: bytes the server process "
        "wrote to its log per second during the flood (INFO level; the access log included).\n",
        table(header, rows),
    ]
    write_section("flood", "\n".join(body), {"machine": info, "command": command_line(), "runs": results})


if __name__ == "__main__":
    main()
