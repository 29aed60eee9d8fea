"""Round saves of this checkout against another one (a commit before a change), back to back in one run:
the same closed loop as bench/saves.py at 8 clients, alternating between the two servers (and the bare
endpoint) for a few rounds, so both sides meet the same machine. Prints the medians; writes nothing.

    git worktree add /tmp/before <commit>
    .venv/bin/python bench/saves_ab.py /tmp/before              # SQLite
    .venv/bin/python bench/saves_ab.py /tmp/before --postgres   # PostgreSQL (a database of its own per side)

On a shared machine one run's absolute figures move by tens of percent from one hour to the next; two
checkouts measured in turn, in the same minutes, is how a change's effect shows (docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
from pathlib import Path

import saves
from common import Connection, create_games, postgres_database, sqlite_database, start_bare, start_server

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = 8
FORMS = {"full": None, "minimal": saves.PREFER_MINIMAL}


async def measure(servers: dict, rounds: int) -> dict[str, list[saves.Run]]:
    runs: dict[str, list[saves.Run]] = {}
    for _ in range(rounds):
        fake = [saves.BenchGame(f"bare{i}", "k", [1, 2, 3, 4]) for i in range(saves.GAMES_PER_LEVEL)]
        bare = await saves.closed_loop(
            servers["bare"],
            "bare",
            CLIENTS,
            saves.BARE_PER_CLIENT[CLIENTS],
            fake,
            lambda g: f"/bare/{g.id}/rounds",
            201,
        )
        runs.setdefault("bare", []).append(bare)
        for side in ("before", "after"):
            for form, extra in FORMS.items():
                setup = await Connection(servers[side].host, servers[side].port).open()
                games = await create_games(setup, saves.GAMES_PER_LEVEL, players=4)
                await setup.close()
                run = await saves.closed_loop(
                    servers[side],
                    side,
                    CLIENTS,
                    saves.SAVES_PER_CLIENT[CLIENTS],
                    games,
                    lambda g: f"/api/v1/games/{g.id}/rounds",
                    201,
                    extra,
                )
                runs.setdefault(f"{side}, {form}", []).append(run)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the other checkout (a git worktree at the commit before)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL instead of a SQLite file")
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": ROOT}
    with tempfile.TemporaryDirectory(prefix="blitzboard-ab-") as tmp, contextlib.ExitStack() as stack:
        directory = Path(tmp)
        servers = {}
        try:
            servers["bare"] = start_bare(directory / "bare.log")
            for side, tree in trees.items():
                url = stack.enter_context(postgres_database() if args.postgres else sqlite_database(directory))
                servers[side] = start_server(url, directory / f"{side}.log", {"PYTHONPATH": str(tree)}, cwd=tree)
            runs = asyncio.run(measure(servers, args.rounds))
        finally:
            for server in servers.values():
                server.stop()
    bare = statistics.median(r.throughput for r in runs["bare"])
    print(
        f"\n{'database':>10}: {'PostgreSQL' if args.postgres else 'SQLite'}, {CLIENTS} clients, medians of {args.rounds}"
    )
    for name, side in runs.items():
        throughput = statistics.median(r.throughput for r in side)
        print(
            f"{name:>16}: {throughput:6.0f}/s ({throughput / bare:5.1%} of bare), "
            f"p50 {statistics.median(r.p50 for r in side) * 1000:5.1f} ms, "
            f"p99 {statistics.median(r.p99 for r in side) * 1000:5.1f} ms, "
            f"server CPU {statistics.median(r.cpu_per_request for r in side) * 1000:4.2f} ms a request, "
            f"{sum(r.errors for r in side)} errors; runs {[round(r.throughput) for r in side]}"
        )


if __name__ == "__main__":
    main()
