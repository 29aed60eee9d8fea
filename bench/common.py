"""What every benchmark shares: the machine's description, databases, real server processes, a small
HTTP/1.1 client, percentiles, and writing results into docs/performance.md.

The benchmarks are scripts (run on demand, never in the test suite); each one runs its baseline in the
same run as its measurement, so the figures that matter are ratios that travel between machines.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import re
import secrets
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The benchmarks run as scripts from bench/; the test suite's server helper and browser settings are
# imported from this checkout's tests/.
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

from tests import servers  # noqa: E402
from tests.browser.device import CHROMIUM, CHROMIUM_ARGS, PHONE  # noqa: E402, F401 (the benchmarks' phone is the tests')
from tests.servers import free_port  # noqa: E402, F401

DOC = ROOT / "docs" / "performance.md"
RESULTS = ROOT / "bench" / "results.json"
POSTGRES_URL = os.environ.get("BLITZBOARD_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
# Server settings for every benchmark: quiet logs, and rate limits out of the way (the benchmarks create
# games from one address far faster than a person would).
SERVER_ENV = {
    "BLITZBOARD_LOG_LEVEL": "warning",
    "BLITZBOARD_GAMES_PER_MINUTE": "1000000",
    "BLITZBOARD_WRONG_KEYS_PER_MINUTE": "1000000",
}


# --- the machine -----------------------------------------------------------------------------------


def _cpu_jiffies() -> tuple[int, int]:
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields[:8]) - idle, sum(fields[:8])


def cpu_busy(interval: float = 1.0) -> float:
    """The fraction of all cores busy over `interval` seconds (other processes included)."""
    busy0, total0 = _cpu_jiffies()
    time.sleep(interval)
    busy1, total1 = _cpu_jiffies()
    return (busy1 - busy0) / max(1, total1 - total0)


def wait_for_quiet(limit_s: float = 60.0, threshold: float = 0.15) -> float:
    """Wait (at most `limit_s`) until other work leaves the cores mostly idle; the last busy fraction seen.

    The benchmarks share the machine with whatever else runs on it (test suites, browsers); they say in
    their results how busy it was, and wait a little for it to calm down first.
    """
    deadline = time.monotonic() + limit_s
    busy = cpu_busy()
    while busy > threshold and time.monotonic() < deadline:
        busy = cpu_busy(2.0)
    if busy > threshold:
        print(f"  note: the machine is {busy:.0%} busy with other work; figures will be noisier")
    return busy


_RUN_START: dict[str, float] = {}


def _own_cpu_seconds() -> float:
    """CPU time of this process and of every child it has waited for (servers, the browser's driver)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _start_run_clock() -> None:
    busy, total = _cpu_jiffies()
    _RUN_START.update(busy=busy, total=total, own=_own_cpu_seconds())


def other_work_share() -> float | None:
    """The share of the machine's CPU that processes other than this benchmark used since it started."""
    if not _RUN_START:
        return None
    busy, total = _cpu_jiffies()
    tick = os.sysconf("SC_CLK_TCK")
    machine_busy = (busy - _RUN_START["busy"]) / tick
    capacity = (total - _RUN_START["total"]) / tick
    ours = _own_cpu_seconds() - _RUN_START["own"]
    return max(0.0, machine_busy - ours) / capacity if capacity else None


def machine() -> dict[str, str]:
    model = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    commit = "?"
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        commit = subprocess.check_output(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True).strip()
        dirty = subprocess.check_output(["git", "status", "--porcelain", "app", "templates", "static"], cwd=ROOT)
        if dirty.strip():
            commit += " + uncommitted changes"
    busy = wait_for_quiet()
    _start_run_clock()
    return {
        "busy": f"{busy:.0%}",
        "cores": str(os.cpu_count()),
        "cpu": model,
        "memory": memory,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "commit": commit,
    }


def machine_line(info: dict[str, str]) -> str:
    return (
        f"{info['date']} · {info['cores']} cores ({info['cpu']}) · {info['memory']} RAM · "
        f"Python {info['python']} · {info['os']} · code at {info['commit']} · "
        f"cores {info.get('busy', '?')} busy with other work when it started"
    )


# --- numbers -----------------------------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (0–100) by linear interpolation between closest ranks; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def kib(size: float) -> str:
    return f"{size / 1024:.1f}"


# --- databases --------------------------------------------------------------------------------------


@contextlib.contextmanager
def sqlite_database(directory: Path) -> Iterator[str]:
    path = directory / f"blitzboard_bench_{secrets.token_hex(4)}.db"
    try:
        yield f"sqlite:///{path}"
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)


def postgres_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(POSTGRES_URL, connect_timeout=3):
            return True
    except Exception:
        return False


@contextlib.contextmanager
def postgres_database() -> Iterator[str]:
    """A new database of our own on the PostgreSQL server, dropped afterwards."""
    import psycopg

    name = f"blitzboard_bench_{secrets.token_hex(4)}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = POSTGRES_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- server processes ---------------------------------------------------------------------------------


@dataclass
class Server(servers.Server):
    """tests/servers.Server (the process, its start and stop) plus what a benchmark reads about it."""

    host: str = "127.0.0.1"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def rss_bytes(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def cpu_seconds(self) -> float:
        """User + system CPU time the server process has used so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(database_url: str, log: Path, env: dict[str, str] | None = None, **options: Any) -> Server:
    """A server with the benchmarks' settings (SERVER_ENV, then `env`); `options` as tests/servers.Server's."""
    options = {"startup_seconds": 60} | options
    if options.get("port") is None:
        options.pop("port", None)
    return Server(database_url, log, env=SERVER_ENV | (env or {}), **options).start()


def start_app(database_url: str, log: Path, port: int | None = None, env: dict[str, str] | None = None) -> Server:
    """The app as it is deployed: `blitzboard serve` (migrates, then one uvicorn process); `env` adds settings."""
    return start_server(database_url, log, env, port=port)


def start_factory(
    factory: str, log: Path, database_url: str | None = None, port: int | None = None, ready_path: str = "/healthz"
) -> Server:
    """Any app factory (bench/bare_app.py, bench/variants.py) under the uvicorn settings of `blitzboard serve`."""

    def command(port: int) -> list[str]:
        argv = [sys.executable, str(ROOT / "bench" / "serve.py"), factory, "--port", str(port)]
        return [*argv, "--migrate"] if database_url else argv

    return start_server(database_url or "", log, port=port, command=command, ready_path=ready_path)


def start_bare(log: Path, port: int | None = None) -> Server:
    return start_factory("bare_app:create_app", log, port=port)


@contextlib.contextmanager
def running(server: Server) -> Iterator[Server]:
    try:
        yield server
    finally:
        server.stop()


# --- a small HTTP/1.1 client (keep-alive, Content-Length or chunked answers) ----------------------------
# Cheaper per request than a full client library, so on a 2-core machine the client takes as little CPU
# as possible away from the server it measures.


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class HTTPError(Exception):
    pass


class Connection:
    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> Connection:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port, limit=1 << 22)
        return self

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None

    def send(self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b"") -> None:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}")
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        assert self.writer is not None
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)

    async def read_head(self) -> tuple[int, dict[str, str]]:
        assert self.reader is not None
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        return status, headers

    async def read_chunk(self) -> bytes | None:
        """One chunk of a chunked body; None at its end."""
        assert self.reader is not None
        size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            while (await self.reader.readuntil(b"\r\n")) != b"\r\n":
                pass
            return None
        data = await self.reader.readexactly(size + 2)
        return data[:-2]

    async def request(self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b"") -> Answer:
        if self.writer is None:
            await self.open()
        try:
            self.send(method, path, headers, body)
            assert self.writer is not None
            await self.writer.drain()
            status, answer_headers = await self.read_head()
        except (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError) as error:
            if isinstance(error, asyncio.IncompleteReadError) and error.partial:
                raise
            # The server closed the connection while it sat idle (its keep-alive and head deadlines):
            # not a single byte of an answer came, so the request was never read. Reconnect and send
            # it again, as a browser does.
            await self.close()
            await self.open()
            self.send(method, path, headers, body)
            assert self.writer is not None
            await self.writer.drain()
            status, answer_headers = await self.read_head()
        assert self.reader is not None
        if "content-length" in answer_headers:
            data = await self.reader.readexactly(int(answer_headers["content-length"]))
        elif answer_headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while (chunk := await self.read_chunk()) is not None:
                parts.append(chunk)
            data = b"".join(parts)
        elif status in (204, 304):
            data = b""
        else:
            data = await self.reader.read()  # until the server closes
        if answer_headers.get("connection", "").lower() == "close":
            await self.close()
        return Answer(status, answer_headers, data)


def more_open_files(wanted: int = 8192) -> None:
    """Raise this process's soft open-file limit towards `wanted` (within the hard limit): the servers it
    starts inherit it. For the benches that hold thousands of connections on each side."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def json_body(value: Any) -> tuple[dict[str, str], bytes]:
    return {"Content-Type": "application/json"}, json.dumps(value, separators=(",", ":")).encode()


# --- games through the API -------------------------------------------------------------------------------

PLAYER_NAMES = ["Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal"]


@dataclass
class BenchGame:
    id: str
    key: str
    players: list[int]
    rounds: int = 0
    version: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


def new_game_body(players: int) -> dict[str, Any]:
    return {
        "name": "Bench",
        "players": [{"name": name} for name in PLAYER_NAMES[:players]],
        # A target nobody reaches: a finished game would refuse rounds with a 409.
        "rules": {"target": 10_000},
    }


def round_body(game: BenchGame, seed: int) -> dict[str, Any]:
    """A valid round: the first player (in turn) called Blitz; every count within the rules."""
    caller = seed % len(game.players)
    scores = []
    for i, player in enumerate(game.players):
        blitz = 0 if i == caller else (seed + i) % 11
        dutch = (seed * 7 + i * 3) % (41 - blitz)
        scores.append({"player_id": player, "dutch": dutch, "blitz": blitz})
    return {"scores": scores}


async def create_games(connection: Connection, count: int, players: int = 4) -> list[BenchGame]:
    games = []
    headers, body = json_body(new_game_body(players))
    for _ in range(count):
        answer = await connection.request("POST", "/api/v1/games", headers, body)
        if answer.status != 201:
            raise HTTPError(f"creating a game: {answer.status} {answer.body[:300]!r}")
        data = answer.json()
        games.append(BenchGame(data["id"], data["edit_key"], [p["id"] for p in data["players"]]))
    return games


async def add_round(connection: Connection, game: BenchGame, seed: int | None = None) -> Answer:
    headers, body = json_body(round_body(game, game.rounds if seed is None else seed))
    headers["Authorization"] = f"Bearer {game.key}"
    answer = await connection.request("POST", f"/api/v1/games/{game.id}/rounds", headers, body)
    if answer.status == 201:
        game.rounds += 1
    return answer


# --- results: bench/results.json and docs/performance.md ----------------------------------------------


def save_result(name: str, result: dict[str, Any]) -> dict[str, Any]:
    """Keep the latest result of each benchmark (the Targets table is built from all of them)."""
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results[name] = result
    RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    return results


INTRO = """# Performance

Measured, not guessed: each benchmark in [bench/](../bench/) is one command (listed in
[bench/README.md](../bench/README.md)), runs on demand (never in the test suite), prints its figures and
rewrites its own section below, with the machine, the date and the exact command. Wherever it can, a
figure comes with a baseline measured in the same run on the same machine (a bare FastAPI endpoint
under the same uvicorn settings, the same page at another game length), so the ratios carry over to
other machines better than the absolute numbers do.

How: the app runs as it is deployed, `blitzboard serve` (migrations, then one uvicorn process, no
access log), on a SQLite file or on a PostgreSQL database of its own that the benchmark creates and
drops. Clients are asyncio programs in one process speaking HTTP/1.1 over keep-alive sockets (a small
client in bench/common.py, so the client takes as little as it can of the CPU the server needs); the
browser figures come from Debian's Chromium driven by Playwright, reading the Chrome DevTools
Protocol's network events. Client and server share the machine's cores, so the absolute numbers are
lower bounds of what a dedicated server does.
"""

TARGETS_HEAD = """## Targets

The targets from the benchmark issue, each with the latest figure measured. Regenerated from
[bench/results.json](../bench/results.json) whenever a benchmark runs; the "why" and "what would close
it" notes are the benchmark's own reading of its measurements (see each section for the figures).

| target | latest figure | verdict | why | what would close it / keep it |
|---|---|---|---|---|
"""

SECTION_ORDER = [
    "saves",
    "fanout",
    "page_weight",
    "game_length",
    "first_load",
    "flood",
    "replays",
    "countdown",
    "tables",
    "table_page",
    "offline",
    "streams",
    "imports",
    "prune",
    "waiting_saves",
    "seats",
]


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- bench:{name}:start -->", f"<!-- bench:{name}:end -->"


def _targets_table(results: dict[str, Any]) -> str:
    rows = []
    for name in SECTION_ORDER:
        for target in results.get(name, {}).get("targets", []):
            cells = [
                target["target"],
                target["figure"],
                ("**met**" if target["met"] else "**missed**") + f" ({target['margin']})",
                target["why"],
                target["close"],
            ]
            rows.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    for name in SECTION_ORDER:
        if name not in results:
            rows.append(f"| (bench/{name}.py has not run yet) | | | | |")
    return TARGETS_HEAD + "\n".join(rows) + "\n"


def write_section(name: str, markdown: str, result: dict[str, Any]) -> None:
    """Replace this benchmark's section of docs/performance.md (and the Targets table) with new figures."""
    share = other_work_share()
    if share is not None:
        result["other_work_share"] = round(share, 3)
        markdown = markdown.rstrip() + (
            f"\n\nOther processes on the machine (the PostgreSQL server or the browser this benchmark drives "
            f"among them, where it uses one) used {share:.0%} of its CPU while this ran"
            + (" (the figures are noisier for it)." if share > 0.15 else ".")
            + "\n"
        )
    results = save_result(name, result)
    text = DOC.read_text() if DOC.exists() else ""
    sections: dict[str, str] = {}
    for other in SECTION_ORDER:
        start, end = _markers(other)
        match = re.search(re.escape(start) + r"\n(.*?)" + re.escape(end), text, re.S)
        if match:
            sections[other] = match.group(1)
    sections[name] = markdown.rstrip() + "\n"
    # Hand-written notes between the Targets table and the first section are kept.
    notes = ""
    match = re.search(r"<!-- targets:end -->\n(.*?)(<!-- bench:|\Z)", text, re.S)
    if match:
        notes = match.group(1)
    parts = [INTRO, "<!-- targets:start -->\n" + _targets_table(results) + "<!-- targets:end -->\n" + notes]
    for other in SECTION_ORDER:
        if other in sections:
            start, end = _markers(other)
            parts.append(f"{start}\n{sections[other]}{end}\n")
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text("\n".join(part.rstrip("\n") + "\n" for part in parts))


def table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def command_line() -> str:
    """The command that ran this benchmark, as a reader would type it from the project's root."""
    script = os.path.relpath(sys.argv[0], ROOT)
    return " ".join([".venv/bin/python", script, *sys.argv[1:]])


def print_table(header: list[str], rows: list[list[Any]]) -> None:
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows, strict=True)]
    for row in [header, *rows]:
        print("  ".join(str(cell).rjust(width) for cell, width in zip(row, widths, strict=True)))
