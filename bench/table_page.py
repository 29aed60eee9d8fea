"""A table's page and a person's page at 10, 100 and 1,000 finished games (the table's pages at scale): their
weight (bytes as sent and gzipped, with every asset, as bench/page_weight.py counts them) and their time.

    .venv/bin/python bench/table_page.py

Three tables on one SQLite file, each with a roster of 12 and 10, 100 or 1,000 finished games of 4-8 of
them (Dutch Blitz mostly, some Nerts, Dutch and 31; ten games a night, the last night ending an hour ago,
so "Tonight" is ten games whatever the table's size). The games are written straight into the database
(the API would take many minutes): rounds drawn at random, each checked by app.rules.scoring.validate_round,
played until the rules end the game, and each game's result rows written by app.games.results.record_results
itself, as every save writes them. Then `blitzboard serve`:

- weight: Debian's Chromium at phone size opens each table's page cold, and the DevTools Protocol's
  Network events count every request (bench/page_weight.py's Recorder);
- time: one client on a keep-alive connection times sequential GETs of the table's page (all time and
  tonight), the person's page of its busiest player, and the two API answers the table's page is built on
  (`/stats`, `/head-to-head`), against a constant answer (`GET /api/v1/presets`) in the same run.

The page must not grow with the table's games beyond its bounded parts (the 20 latest games, the awards
of the 5 latest, a person's chart of their 50 latest per game): its figures come from aggregates, so its
size follows the roster, and its time the work of those aggregates (linear at most).
"""

from __future__ import annotations

import asyncio
import gzip
import random
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from playwright.sync_api import sync_playwright
from sqlalchemy import func
from sqlmodel import Session, select

from app.db import make_engine
from app.migrations import upgrade
from app.models import CardTable, GameResult, Person
from app.rules.names import name_key
from app.security import hash_key, new_edit_key, new_game_id
from common import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PHONE,
    Connection,
    Server,
    command_line,
    kib,
    machine,
    machine_line,
    median,
    ms,
    print_table,
    sqlite_database,
    start_app,
    table,
    write_section,
)
from page_weight import Load, Recorder
from table_data import GAMES_A_NIGHT, ROSTER, SIZES, seed_game  # bench/tables.py's games, placed in time here

REQUESTS = {10: 100, 100: 50, 1000: 20}
TIME_LIMIT_S = 8.0
SETTLE_S = 1.0


@dataclass
class Seeded:
    table_id: str
    games: int
    rounds: int = 0
    busiest: int = 0  # the person with the most games: their page has the most to show


@dataclass
class Timing:
    what: str
    size: int
    times: list[float]
    identity: int  # the answer's body as the app sends it without compression
    gzipped: int  # the same body gzipped (level 6)

    @property
    def median(self) -> float:
        return median(self.times)


# --- the tables -----------------------------------------------------------------------------------------


def seed(database_url: str, now: datetime) -> dict[int, Seeded]:
    rng = random.Random(16)
    engine = make_engine(database_url)
    upgrade(engine)
    tables: dict[int, Seeded] = {}
    try:
        with Session(engine) as session:
            for size in SIZES:
                card_table = CardTable(id=new_game_id(), name=f"{size} games", edit_key_hash=hash_key(new_edit_key()))
                session.add(card_table)
                session.flush()
                people = [Person(table_id=card_table.id, name=n, name_key=name_key(n)) for n in ROSTER]
                session.add_all(people)
                session.flush()
                seeded = Seeded(card_table.id, size)
                for number in range(size):
                    back = size - 1 - number  # games before the table's last one
                    night = now - timedelta(hours=1, days=back // GAMES_A_NIGHT)
                    finished = night - timedelta(minutes=20 * (back % GAMES_A_NIGHT))
                    seeded.rounds += seed_game(session, card_table, people, number, rng, finished=finished)[1]
                    if number % 100 == 99:
                        session.commit()
                session.commit()
                seeded.busiest = session.exec(
                    select(GameResult.person_id)
                    .where(GameResult.table_id == card_table.id)
                    .group_by(GameResult.person_id)
                    .order_by(func.count().desc(), GameResult.person_id)
                ).first()
                tables[size] = seeded
    finally:
        engine.dispose()
    return tables


# --- what is measured -------------------------------------------------------------------------------------


def paths(seeded: Seeded) -> dict[str, str]:
    t = seeded.table_id
    return {
        # All time named: the page opens on "Tonight" after a game of the last 12 hours (the seeded night).
        "table's page, all time": f"/t/{t}?period=all",
        "table's page, tonight": f"/t/{t}?period=tonight",
        "person's page, all time": f"/t/{t}/p/{seeded.busiest}",
        "GET /stats (the standings it shows)": f"/api/v1/tables/{t}/stats",
        "GET /head-to-head (its matrix)": f"/api/v1/tables/{t}/head-to-head",
        "baseline: GET /api/v1/presets": "/api/v1/presets",
    }


async def time_requests(server: Server, tables: dict[int, Seeded]) -> list[Timing]:
    timings = []
    for size, seeded in tables.items():
        for what, path in paths(seeded).items():
            connection = await Connection(server.host, server.port).open()
            warm = await connection.request("GET", path)
            if warm.status != 200:
                raise RuntimeError(f"{what} answered {warm.status}: {warm.body[:200]!r}")
            times = []
            deadline = time.perf_counter() + TIME_LIMIT_S
            for _ in range(REQUESTS[size]):
                if time.perf_counter() > deadline:
                    break
                started = time.perf_counter()
                answer = await connection.request("GET", path)
                times.append(time.perf_counter() - started)
                assert answer.status == 200
            await connection.close()
            timing = Timing(what, size, times, len(warm.body), len(gzip.compress(warm.body, 6)))
            timings.append(timing)
            print(f"  {what}, {size} games: median {ms(timing.median)} ms over {len(times)}, {kib(len(warm.body))} KiB")
    return timings


def weigh(server: Server, tables: dict[int, Seeded]) -> dict[int, Load]:
    """Each table's page opened cold by a phone-sized Chromium: every request it makes."""
    loads = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for size, seeded in tables.items():
                context = browser.new_context(base_url=server.url, **PHONE)
                page = context.new_page()
                recorder = Recorder(context, page)
                page.goto(f"/t/{seeded.table_id}?period=all", wait_until="load")  # its heaviest period
                page.wait_for_selector("#stats", state="visible")
                page.wait_for_timeout(SETTLE_S * 1000)
                loads[size] = Load("table's page", "cold", recorder.take())
                context.close()
        finally:
            browser.close()
    return loads


def main() -> None:
    info = machine()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="blitzboard-bench-") as tmp:
        directory = Path(tmp)
        with sqlite_database(directory) as url:
            tables = seed(url, datetime.now(UTC))
            seeded_in = time.monotonic() - started
            print(f"  seeded {sum(SIZES)} games ({sum(t.rounds for t in tables.values())} rounds) in {seeded_in:.0f} s")
            server = start_app(url, directory / "server.log")
            try:
                loads = weigh(server, tables)
                timings = asyncio.run(time_requests(server, tables))
            finally:
                server.stop()
    print(f"took {time.monotonic() - started:.0f} s")
    write(tables, loads, timings, info, seeded_in)


def write(
    tables: dict[int, Seeded], loads: dict[int, Load], timings: list[Timing], info: dict[str, str], seeded_in: float
) -> None:
    whats = list(dict.fromkeys(t.what for t in timings))
    by = {(t.what, t.size): t for t in timings}
    header = ["request", *(f"{n} games (ms)" for n in SIZES), "t100 / t10", "t1000 / t100"]
    rows = []
    for what in whats:
        values = [by[what, n].median for n in SIZES]
        rows.append([what, *(ms(v) for v in values), f"{values[1] / values[0]:.1f}", f"{values[2] / values[1]:.1f}"])
    print()
    print_table(header, rows)
    size_header = ["answer", *(f"{n} games: uncompressed / gzipped (KiB)" for n in SIZES)]
    sizes = [
        [what, *(f"{kib(by[what, n].identity)} / {kib(by[what, n].gzipped)}" for n in SIZES)]
        for what in whats
        if not what.startswith("baseline")
    ]
    print_table(size_header, sizes)
    weight_header = ["table", "requests", "document as sent (KiB)", "every request as sent (KiB)", "with gzip (KiB)"]
    weights = []
    for n in SIZES:
        load = loads[n]
        document = next(r for r in load.network if r.kind == "Document")
        weights.append([f"{n} games", str(len(load.network)), kib(document.wire), kib(load.wire), kib(load.gzip)])
    print_table(weight_header, weights)

    page = "table's page, all time"
    t10, t100, t1000 = (by[page, n].median for n in SIZES)
    grows = by[page, 1000].identity / by[page, 100].identity
    heaviest = max(loads.values(), key=lambda load: load.gzip)
    met = t1000 / t100 <= 10 and grows <= 1.1
    targets = [
        {
            "target": "a table's page: its weight bounded whatever its games, its time at most linear",
            "figure": f"the page {kib(by[page, 10].identity)} / {kib(by[page, 100].identity)} / "
            f"{kib(by[page, 1000].identity)} KiB at 10 / 100 / 1,000 games ({kib(heaviest.gzip)} KiB gzip cold "
            f"with every asset); {ms(t10)} / {ms(t100)} / {ms(t1000)} ms, t1000/t100 {t1000 / t100:.1f}",
            "met": met,
            "margin": f"×{grows:.2f} the bytes for 10× the games, t1000/t100 {t1000 / t100:.1f}",
            "why": "every figure on it is an aggregate over the table's result rows and rounds (app.tables.standings), so "
            "its size follows the roster (a row per person and game, a matrix cell per two people) and the bounded "
            "lists (20 latest games, the awards of 5, a person's 50 latest results per game), and its time the "
            "work of the aggregates, which read every round of the period once",
            "close": "most of the time is the standings' aggregates (the GET /stats row); to make all-time figures "
            "over thousands of games cheap, not just linear, game_result could carry each player's round figures, "
            "so the standings read a row per player and game instead of every round; a period reads only its own "
            "games",
        }
    ]
    body = [
        "## 10. A table's page\n",
        f"Command: `{command_line()}`  \nMachine: {machine_line(info)}\n",
        f"Three tables on one SQLite file, each with a roster of {len(ROSTER)} and "
        f"{', '.join(f'{n:,}' for n in SIZES)} finished games of 4–8 of them (six games in ten Dutch Blitz, two "
        f"Nerts, one Dutch, one 31; ten games a night, the last night ending an hour before the run, so "
        f"'tonight' is ten games for every table), written straight into the database in {seeded_in:.0f} s: "
        "rounds drawn at random, each checked by `app.rules.scoring.validate_round`, played until the rules end the "
        "game, and each game's result rows written by `app.games.results.record_results`, as a save writes them. "
        "`blitzboard serve` on it. *Weight*: Debian's Chromium at phone size (390×844) opens each table's page "
        "cold, as anyone with its link (no key: the app compresses the page itself); every request is counted "
        "as section 3 counts them (bytes on the wire, headers included; 'with gzip' as a proxy would send "
        "what the app sends uncompressed). *Time*: one client on a keep-alive connection times sequential "
        f"GETs, the median over up to {' / '.join(str(REQUESTS[n]) for n in SIZES)} requests (or "
        f"{TIME_LIMIT_S:.0f} s) after one warm-up request: the table's page for all time and for tonight, the "
        "page of the person with the most games there, and the two API answers whose queries the table's page "
        "runs (its standings and head-to-head); the baseline is a constant answer in the same run. The page must "
        "not grow with the games beyond its bounded parts, and its time at most linearly (t1000 / t100 ≤ 10).\n",
        table(weight_header, weights),
        table(header, rows),
        "Answer sizes (the body uncompressed, as the app would send it to a client that takes no gzip, and gzipped):\n",
        table(size_header, sizes),
    ]
    result = {
        "machine": info,
        "command": command_line(),
        "medians_ms": {what: {str(n): round(by[what, n].median * 1000, 3) for n in SIZES} for what in whats},
        "bytes": {what: {str(n): by[what, n].identity for n in SIZES} for what in whats},
        "weight_gzip_bytes": {str(n): loads[n].gzip for n in SIZES},
        "targets": targets,
    }
    write_section("table_page", "\n".join(body), result)


if __name__ == "__main__":
    main()
