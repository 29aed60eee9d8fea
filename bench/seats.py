"""Every player enters their own row: how long from a seat's Send to the row in the scorekeeper's form,
with 8 seats × 50 games sending and each game's scorekeeper listening on its stream?

    .venv/bin/python bench/seats.py                  # one process on SQLite, then two on PostgreSQL
    .venv/bin/python bench/seats.py --no-postgres    # the SQLite process only

50 games of 8 players; every seat taken through the API (`GET /api/v1/games/{id}/seats` with the edit
key, then `POST .../seats/{player_id}` with the link's key), each seat on a keep-alive connection of
its own. Each game's scorekeeper is one listener doing what the scorekeeper's page does (templates/
game.html, static/entry.js): it holds the game's event stream (`GET /g/{id}/events`) and, on every
`draft` event, fetches `GET /api/v1/games/{id}/draft`, on at most 6 keep-alive connections of its own
(a browser's per-host limit; more fetches wait for one, as a browser's do). A seat's Send is
`PUT /api/v1/games/{id}/draft/{player_id}` with its seat key; the row has arrived when a draft the
scorekeeper fetched holds that player's row sent at that moment or later (a newer row replaces it).

Two set-ups, in one run: (a) one `blitzboard serve` process on a SQLite file; (b) two processes on one
PostgreSQL database, every game's seats sending to one process while its scorekeeper listens on the
other (half the games each way), so every row crosses by LISTEN/NOTIFY (app/live_pg.py).

Phases, each bounded by a count and a time limit:
  paced     one Send at a time, every 20 ms, across the games
  table     every seat of every game sends once at a random moment within 10 s (all 50 tables finishing a
            round together, their players counting at their own pace: 40 Sends a second)
  burst     every seat of every game presses Send at the same instant (400 at once): a stress, beyond the
            write queue's 100 waiting (app/http/writequeue.py), so some are refused with 503
  baseline  a saved round reaching the same listeners (the live path the view pages use: the `version`
            event, then the game fragment fetched as htmx does), one save every 20 ms, measured in the
            same run: the draft's path compared with the one the round saves already take
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from common import (
    BenchGame,
    Connection,
    Server,
    add_round,
    command_line,
    create_games,
    json_body,
    machine,
    machine_line,
    more_open_files,
    ms,
    percentile,
    postgres_available,
    postgres_database,
    print_table,
    sqlite_database,
    start_app,
    table,
    write_section,
)

GAMES = 50
SEATS = 8
KEEPER_CONNECTIONS = 6  # a browser's connections per host
PACED_SENDS = 100
PACED_GAP_S = 0.020
TABLE_ROUNDS = 1
TABLE_WINDOW_S = 10.0
BASELINE_SAVES = GAMES
BASELINE_GAP_S = 0.020
SETTLE_S = 3.0  # how long to wait for the last rows of a phase
PHASE_LIMIT_S = 30.0
GOAL_MS = 300.0
# Servers: one client address plays 400 phones and 50 scorekeepers (bench/flood.py measures these limits).
SERVER_ENV = {"BLITZBOARD_MAX_STREAMS_PER_CLIENT": "1000", "BLITZBOARD_MAX_CONNECTIONS_PER_CLIENT": "0"}

_BLOCK = re.compile(r"\r?\n\r?\n")
_FIELD = re.compile(r"^(event|data): ?([^\r\n]*)", re.M)


def now() -> float:
    return time.perf_counter()


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def epoch_ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


@dataclass
class Keeper:
    """A scorekeeper's page: the game's stream, and the draft (or the fragment) fetched after its events."""

    game: BenchGame
    server: Server
    fragment_path: str = ""
    stream: Connection | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    drafts: list[tuple[int, float]] = field(default_factory=list)  # (the event's ms, when it arrived)
    versions: dict[int, float] = field(default_factory=dict)  # version -> when its event arrived
    fetched: list[tuple[float, dict[int, datetime]]] = field(default_factory=list)  # (when, player -> sent_at)
    refreshed: dict[int, float] = field(default_factory=dict)  # version -> when its fragment arrived
    newest: int = 0
    idle: list[Connection] = field(default_factory=list)
    gate: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(KEEPER_CONNECTIONS))
    tasks: set[asyncio.Task] = field(default_factory=set)
    errors: int = 0

    async def run(self) -> None:
        self.stream = await Connection(self.server.host, self.server.port).open()
        self.stream.send("GET", f"/g/{self.game.id}/events", {"Accept": "text/event-stream"})
        status, _ = await self.stream.read_head()
        if status != 200:
            raise RuntimeError(f"event stream answered {status}")
        buffer = ""
        while (chunk := await self.stream.read_chunk()) is not None:
            arrived = now()
            buffer += chunk.decode()
            *blocks, buffer = _BLOCK.split(buffer)
            for block in blocks:
                fields = dict(_FIELD.findall(block))
                kind, data = fields.get("event"), fields.get("data", "")
                if kind == "draft":
                    self.drafts.append((int(data), arrived))
                    self._spawn(self.fetch_draft())
                elif kind == "version":
                    version = int(data)
                    self.versions.setdefault(version, arrived)
                    if self.ready.is_set() and version > self.newest:
                        self.newest = version
                        self._spawn(self.fetch_fragment(version))
                    self.newest = max(self.newest, version)
                    self.ready.set()

    def _spawn(self, work) -> None:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def get(self, path: str, headers: dict[str, str]):
        async with self.gate:
            connection = self.idle.pop() if self.idle else await Connection(self.server.host, self.server.port).open()
            try:
                return await connection.request("GET", path, headers)
            finally:
                self.idle.append(connection)

    async def fetch_draft(self) -> None:
        answer = await self.get(f"/api/v1/games/{self.game.id}/draft", {"Accept": "application/json"})
        arrived = now()
        if answer.status != 200:
            self.errors += 1
            return
        rows = {row["player_id"]: moment(row["sent_at"]) for row in answer.json()["rows"]}
        self.fetched.append((arrived, rows))

    async def fetch_fragment(self, version: int) -> None:
        answer = await self.get(self.fragment_path, {"HX-Request": "true"})
        if answer.status != 200:
            self.errors += 1
            return
        self.refreshed.setdefault(version, now())

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for connection in [self.stream, *self.idle]:
            if connection is not None:
                await connection.close()


@dataclass
class Seat:
    game: BenchGame
    player_id: int
    key: str
    server: Server
    connection: Connection | None = None


@dataclass
class Send:
    game: BenchGame
    player_id: int
    sent: float
    answered: float
    status: int
    sent_at: datetime | None = None  # the row's, as the Send's answer gives it

    @property
    def sent_at_ms(self) -> int:
        assert self.sent_at is not None
        return epoch_ms(self.sent_at)


async def send(seat: Seat, rng: random.Random) -> Send:
    headers, body = json_body({"round": seat.game.rounds + 1, "dutch": rng.randint(0, 30), "blitz": rng.randint(0, 10)})
    headers["Authorization"] = f"Bearer {seat.key}"
    if seat.connection is None:
        seat.connection = await Connection(seat.server.host, seat.server.port).open()
    sent = now()
    answer = await seat.connection.request("PUT", f"/api/v1/games/{seat.game.id}/draft/{seat.player_id}", headers, body)
    entry = Send(seat.game, seat.player_id, sent, now(), answer.status)
    if answer.status == 200:
        mine = next(row for row in answer.json()["rows"] if row["player_id"] == seat.player_id)
        entry.sent_at = moment(mine["sent_at"])
    return entry


@dataclass
class Figures:
    sends: int
    refused: int  # not answered 200 (a full write queue's 503, say)
    missed: int  # answered 200, never in a draft the scorekeeper fetched
    event: list[float]  # the `draft` event's arrival after the Send's answer
    shown: list[float]  # the row in the scorekeeper's fetched draft, after the Send's answer
    shown_from_request: list[float]  # … after the Send's request


def draft_figures(sends: list[Send], keepers: dict[str, Keeper]) -> Figures:
    event, shown, from_request, missed = [], [], [], 0
    for s in sends:
        if s.status != 200:
            continue
        keeper = keepers[s.game.id]
        heard = min((t for ms_, t in keeper.drafts if ms_ >= s.sent_at_ms), default=None)
        seen = min(
            (t for t, rows in keeper.fetched if (row := rows.get(s.player_id)) is not None and row >= s.sent_at),
            default=None,
        )
        if seen is None:
            missed += 1
            continue
        if heard is not None:
            event.append(heard - s.answered)
        shown.append(seen - s.answered)
        from_request.append(seen - s.sent)
    refused = sum(1 for s in sends if s.status != 200)
    return Figures(len(sends), refused, missed, event, shown, from_request)


@dataclass
class Save:
    game: BenchGame
    version: int
    sent: float
    answered: float


def save_figures(saves: list[Save], keepers: dict[str, Keeper]) -> Figures:
    event, shown, from_request, missed = [], [], [], 0
    for s in saves:
        keeper = keepers[s.game.id]
        heard = min((t for v, t in keeper.versions.items() if v >= s.version), default=None)
        seen = min((t for v, t in keeper.refreshed.items() if v >= s.version), default=None)
        if seen is None:
            missed += 1
            continue
        if heard is not None:
            event.append(heard - s.answered)
        shown.append(seen - s.answered)
        from_request.append(seen - s.sent)
    return Figures(len(saves), 0, missed, event, shown, from_request)


async def settle(figures) -> None:
    deadline = now() + SETTLE_S
    while now() < deadline and figures().missed:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # the fetches still under way finish, so the next phase starts quiet


async def bench(servers: list[Server]) -> dict[str, Figures]:
    rng = random.Random(33)
    first = servers[0]
    setup = await Connection(first.host, first.port).open()
    games = await create_games(setup, GAMES, players=SEATS)
    page = await setup.request("GET", f"/g/{games[0].id}")
    template = re.search(rb'id="live-refresh"[^>]*hx-get="([^"]+)"', page.body)
    fragment = template.group(1).decode() if template else f"/g/{games[0].id}"

    # Seats: the scorekeeper's link, then each player's seat taken with its key.
    seats: list[list[Seat]] = []
    for i, game in enumerate(games):
        listed = await setup.request("GET", f"/api/v1/games/{game.id}/seats", {"Authorization": f"Bearer {game.key}"})
        if listed.status != 200:
            raise RuntimeError(f"seats answered {listed.status}: {listed.body[:200]!r}")
        link_key = listed.json()["link_key"]
        row = []
        for player_id in game.players:
            headers, body = json_body({"link": link_key})
            taken = await setup.request("POST", f"/api/v1/games/{game.id}/seats/{player_id}", headers, body)
            if taken.status != 201:
                raise RuntimeError(f"taking a seat answered {taken.status}: {taken.body[:200]!r}")
            # The seats send to one process; the scorekeeper listens on the other (when there are two).
            row.append(Seat(game, player_id, taken.json()["seat_key"], servers[(i + 1) % len(servers)]))
        seats.append(row)
    everyone = [seat for row in seats for seat in row]

    keepers: dict[str, Keeper] = {}
    for i, game in enumerate(games):
        keeper = Keeper(game, servers[i % len(servers)], fragment.replace(games[0].id, game.id))
        keeper._spawn(keeper.run())
        keepers[game.id] = keeper
    await asyncio.wait_for(asyncio.gather(*(k.ready.wait() for k in keepers.values())), 30)
    gate = asyncio.Semaphore(50)

    async def connect(seat: Seat) -> None:
        async with gate:
            seat.connection = await Connection(seat.server.host, seat.server.port).open()

    await asyncio.gather(*(connect(seat) for seat in everyone))
    # Warm the code paths (a Send, the draft's event and fetch) on every process before measuring.
    for row in seats[: len(servers) * 2]:
        await asyncio.gather(*(send(seat, rng) for seat in row))
    await asyncio.sleep(1.0)
    out: dict[str, Figures] = {}

    # paced: one Send at a time
    paced: list[Send] = []
    deadline = now() + PHASE_LIMIT_S
    for k in range(PACED_SENDS):
        if now() > deadline:
            break
        paced.append(await send(seats[k % GAMES][(k // GAMES) % SEATS], rng))
        await asyncio.sleep(PACED_GAP_S)
    await settle(lambda: draft_figures(paced, keepers))
    out["paced"] = draft_figures(paced, keepers)
    report("paced", out["paced"])

    # table: every seat sends once within the window, all games together
    table_sends: list[Send] = []

    async def later(seat: Seat, delay: float) -> None:
        await asyncio.sleep(delay)
        table_sends.append(await send(seat, rng))

    deadline = now() + PHASE_LIMIT_S
    for _ in range(TABLE_ROUNDS):
        if now() > deadline:
            break
        await asyncio.wait_for(
            asyncio.gather(*(later(seat, rng.uniform(0, TABLE_WINDOW_S)) for seat in everyone)), PHASE_LIMIT_S
        )
        await settle(lambda: draft_figures(table_sends, keepers))
    out["table"] = draft_figures(table_sends, keepers)
    report("table", out["table"])

    # burst: every seat at once
    burst = await asyncio.wait_for(asyncio.gather(*(send(seat, rng) for seat in everyone)), PHASE_LIMIT_S)
    await settle(lambda: draft_figures(burst, keepers))
    out["burst"] = draft_figures(burst, keepers)
    report("burst", out["burst"])

    # baseline: a saved round reaching the same listeners (on the seats' process, as the drafts came)
    savers = {s.port: await Connection(s.host, s.port).open() for s in servers}
    saves: list[Save] = []
    deadline = now() + PHASE_LIMIT_S
    for i, game in enumerate(games[:BASELINE_SAVES]):
        if now() > deadline:
            break
        sent = now()
        answer = await add_round(savers[servers[(i + 1) % len(servers)].port], game)
        if answer.status != 201:
            raise RuntimeError(f"save answered {answer.status}: {answer.body[:200]!r}")
        saves.append(Save(game, int(answer.headers["etag"].strip('"')), sent, now()))
        await asyncio.sleep(BASELINE_GAP_S)
    await settle(lambda: save_figures(saves, keepers))
    out["baseline"] = save_figures(saves, keepers)
    report("baseline (a saved round)", out["baseline"])

    errors = sum(k.errors for k in keepers.values())
    if errors:
        print(f"  note: {errors} of the scorekeepers' fetches failed")
    for keeper in keepers.values():
        await keeper.close()
    for connection in [setup, *savers.values(), *(s.connection for s in everyone)]:
        if connection is not None:
            await connection.close()
    return out


def p(values: list[float], q: float) -> str:
    return ms(percentile(values, q))


def report(name: str, f: Figures) -> None:
    print(
        f"  {name}: {f.sends} sends, {f.refused} refused, {f.missed} missed; the event after the answer p50 "
        f"{p(f.event, 50)} / p99 {p(f.event, 99)} ms; shown after the answer p50 {p(f.shown, 50)} / p99 "
        f"{p(f.shown, 99)} / max {ms(max(f.shown, default=float('nan')))} ms; after the request p99 "
        f"{p(f.shown_from_request, 99)} ms"
    )


PHASES = {
    "paced": "paced: one Send every 20 ms",
    "table": f"table: every seat once within {TABLE_WINDOW_S:.0f} s, all games together",
    "burst": f"burst: all {GAMES * SEATS} seats at the same instant",
    "baseline": "baseline: a saved round, one every 20 ms (`version` event, then the view's fragment)",
}
SETUPS = {
    "sqlite": "one process, SQLite",
    "postgresql": "two processes, PostgreSQL (keeper on the other)",
}


def write(runs: dict[str, dict[str, Figures]], info: dict[str, str], note: str) -> None:
    header = [
        "set-up",
        "phase",
        "sends",
        "refused",
        "missed",
        "event after the answer p50 / p99 (ms)",
        "row in the keeper's form after the answer p50 / p99 / max (ms)",
        "after the request p50 / p99 (ms)",
    ]
    rows = []
    for setup, phases in runs.items():
        for key, name in PHASES.items():
            f = phases[key]
            rows.append(
                [
                    SETUPS[setup],
                    name,
                    f.sends,
                    f.refused,
                    f.missed,
                    f"{p(f.event, 50)} / {p(f.event, 99)}",
                    f"{p(f.shown, 50)} / {p(f.shown, 99)} / {ms(max(f.shown, default=float('nan')))}",
                    f"{p(f.shown_from_request, 50)} / {p(f.shown_from_request, 99)}",
                ]
            )
    print()
    print_table(header, rows)

    # The goal: p99 after the Send's answer, in every phase with the seats sending, in each set-up.
    worst: dict[str, float] = {}
    ratios: dict[str, float] = {}
    lost = 0
    for setup, phases in runs.items():
        drafts = [phases[k] for k in ("paced", "table")]  # the burst is a stress, reported beside it
        worst[setup] = max(percentile(f.shown, 99) for f in drafts) * 1000
        lost += sum(f.missed + f.refused for f in drafts)
        base = percentile(phases["baseline"].shown, 50)
        ratios[setup] = percentile(phases["paced"].shown, 50) / base if base > 0 else float("nan")
    p99 = max(worst.values())
    met = p99 < GOAL_MS and lost == 0
    figure = "; ".join(
        f"{SETUPS[s]}: p99 {worst[s]:.0f} ms (paced and table pace), paced p50 {ratios[s]:.2f}× a saved "
        f"round's path; in the burst of {GAMES * SEATS} at once p99 {percentile(runs[s]['burst'].shown, 99) * 1000:.0f} "
        f"ms, {runs[s]['burst'].refused} refused with 503"
        for s in runs
    )
    targets = [
        {
            "target": f"a seat's Send to the row in the scorekeeper's form p99 < {GOAL_MS:.0f} ms, 8 seats × 50 games, "
            "one process (SQLite) and two (PostgreSQL, the keeper on the other)",
            "figure": figure + f"; {lost} Sends refused or never shown",
            "met": met,
            "margin": f"{GOAL_MS - p99:.0f} ms to spare"
            if met
            else f"{p99 - GOAL_MS:.0f} ms over"
            if lost == 0
            else f"{lost} lost",
            "why": "a Send publishes its `draft` event right after its COMMIT (in-process, and by NOTIFY to the "
            "other processes); the scorekeeper's page then reads the draft, one small query. Under load what "
            "the row waits for is the other Sends' writes and the fetches they set off, on the same cores",
            "close": "nothing needed at this size; with many more tables, the draft could travel in the event "
            "itself (no fetch after it)",
        }
    ]
    body = [
        "## 16. Every player's own row: from a seat's Send to the scorekeeper's form\n",
        f"Command: `{command_line()}`  \nMachine: {machine_line(info)}\n",
        f"{GAMES} games of {SEATS} players, every seat taken through the API, each on a keep-alive connection "
        "of its own; each game's scorekeeper is one listener doing what the scorekeeper's page does: it holds "
        "the game's stream (`GET /g/{id}/events`) and on every `draft` event fetches "
        f"`GET /api/v1/games/{{id}}/draft`, on at most {KEEPER_CONNECTIONS} connections of its own, as a browser "
        "would. A Send is `PUT /api/v1/games/{id}/draft/{player_id}` with the seat's key; the row is in the "
        "scorekeeper's form once a draft it fetched holds that player's row as sent (or newer). Delays are "
        "from the moment the seat read its Send's answer (and, last column, from its request). Set-ups: one "
        "`blitzboard serve` process on a SQLite file; two processes on one PostgreSQL database, each game's "
        "seats sending to one while its scorekeeper listens on the other (half the games each way), so every "
        "row crosses by LISTEN/NOTIFY. The baseline is a saved round reaching the same listeners in the same "
        "run (its `version` event, then the view's fragment fetched as htmx does: the path of bench/fanout.py). "
        "Refused: a Send not answered 200 (a full write queue answers 503). Missed: answered, never shown. "
        f"The goal is judged on the paced and table phases; the burst (every seat at the same instant) is a "
        "stress beyond the write queue's 100 waiting writes, whose refusals are by design. "
        f"Bounds: {PACED_SENDS} paced Sends, {TABLE_ROUNDS} × {GAMES * SEATS} at table pace, {GAMES * SEATS} "
        f"in the burst, {BASELINE_SAVES} saves, each phase at most {PHASE_LIMIT_S:.0f} s.\n",
        table(header, rows),
        "Interactions, counted by the browser test tests/browser/test_browser_seats.py (not by this script): a "
        "player's typical row on their phone is 3 (type the Dutch count in the field that has the focus, tap "
        "the Blitz count, tap Send; the test asserts at most 3 for each of four players' rows, 12/0, 9/4, 7/6 "
        "and 3/8, and its path can take no fewer). The scorekeeper's side with four seats sending is not "
        "counted: the test saves the round with one press of Save after correcting one row, but counts no "
        "interactions for the scorekeeper.\n",
    ]
    if note:
        body.append(note + "\n")
    result = {
        "machine": info,
        "command": command_line(),
        "games": GAMES,
        "seats": SEATS,
        "setups": {
            setup: {
                key: {
                    "sends": f.sends,
                    "refused": f.refused,
                    "missed": f.missed,
                    "event_after_answer_p50_ms": round(percentile(f.event, 50) * 1000, 2),
                    "event_after_answer_p99_ms": round(percentile(f.event, 99) * 1000, 2),
                    "shown_after_answer_p50_ms": round(percentile(f.shown, 50) * 1000, 2),
                    "shown_after_answer_p99_ms": round(percentile(f.shown, 99) * 1000, 2),
                    "shown_after_request_p99_ms": round(percentile(f.shown_from_request, 99) * 1000, 2),
                }
                for key, f in phases.items()
            }
            for setup, phases in runs.items()
        },
        "paced_vs_saved_round_p50": {s: round(r, 3) for s, r in ratios.items()},
        "interactions_per_player_row": 3,
        "targets": targets,
    }
    write_section("seats", "\n".join(body), result)


def main() -> None:
    parser = argparse.ArgumentParser(description="A seat's Send to the scorekeeper's form, 8 seats × 50 games.")
    parser.add_argument("--no-postgres", action="store_true", help="the SQLite process only")
    args = parser.parse_args()
    # 400 seats, 50 streams and up to 300 fetch connections here, as many in the servers (they inherit it).
    more_open_files()
    info = machine()
    use_pg = not args.no_postgres and postgres_available()
    note = "" if use_pg else "PostgreSQL was not measured in this run (not reachable, or --no-postgres)."
    started = time.monotonic()
    runs: dict[str, dict[str, Figures]] = {}
    with tempfile.TemporaryDirectory(prefix="blitzboard-bench-") as tmp, contextlib.ExitStack() as stack:
        directory = Path(tmp)
        print("one process, SQLite")
        server = start_app(stack.enter_context(sqlite_database(directory)), directory / "sqlite.log", env=SERVER_ENV)
        try:
            runs["sqlite"] = asyncio.run(bench([server]))
        finally:
            server.stop()
        if use_pg:
            print("two processes, PostgreSQL")
            url = stack.enter_context(postgres_database())
            pair: list[Server] = []
            try:
                for name in ("a", "b"):
                    pair.append(start_app(url, directory / f"postgresql-{name}.log", env=SERVER_ENV))
                runs["postgresql"] = asyncio.run(bench(pair))
            finally:
                for server in pair:
                    server.stop()
    print(f"took {time.monotonic() - started:.0f} s")
    write(runs, info, note)


if __name__ == "__main__":
    main()
