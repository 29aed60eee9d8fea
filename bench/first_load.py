"""First load on a phone: headless Chromium with a mobile profile (CPU slowed 4×, 150 ms latency, 1.6 Mbps
down and up), time from navigation start to the scoreboard (#scoreboard) being visible on the view page.

    .venv/bin/python bench/first_load.py

Each run is a new browser context (an empty cache: a first visit), throttled through the DevTools
Protocol (Emulation.setCPUThrottlingRate 4; Network.emulateNetworkConditions latency 150 ms,
1.6 Mbps each way). A script the browser injects before the page's own (so the page's CSP does not
apply to it) checks on every animation frame whether #scoreboard is rendered and visible, and notes
performance.now() (milliseconds since navigation start) the first time it is; rendering, and with it
animation frames, waits for the stylesheet, so that frame is the one that paints the scoreboard. The
median of the runs is the figure; first contentful paint, DOMContentLoaded and load come with it, and
a repeat visit in the same context (warm cache) for comparison.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from common import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PHONE,
    Connection,
    Server,
    add_round,
    command_line,
    create_games,
    machine,
    machine_line,
    median,
    print_table,
    sqlite_database,
    start_app,
    table,
    write_section,
)

RUNS = 7
ROUNDS = 10
PLAYERS = 4
CPU_SLOWDOWN = 4
LATENCY_MS = 150
THROUGHPUT_BPS = 1_600_000 // 8  # 1.6 Mbps in bytes per second
TIMEOUT_MS = 30_000

WATCH_SCOREBOARD = """
(() => {
  const look = () => {
    const board = document.getElementById("scoreboard");
    if (board) {
      const box = board.getBoundingClientRect();
      const visible = board.checkVisibility
        ? board.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
        : true;
      if (visible && box.width > 0 && box.height > 0 && box.top < window.innerHeight) {
        window.__scoreboardLaidOut = performance.now();
        // The next frame starts once this one has been painted.
        requestAnimationFrame(() => { window.__scoreboardNextFrame = performance.now(); });
        return;
      }
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();
"""

READ_TIMINGS = """
() => {
  const navigation = performance.getEntriesByType("navigation")[0];
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  const laidOut = window.__scoreboardLaidOut;
  const fcp = paint ? paint.startTime : null;
  return {
    // Painted: in the first paint when it was laid out by then, else by the start of the next frame.
    scoreboard: fcp !== null && laidOut <= fcp ? fcp : window.__scoreboardNextFrame,
    laid_out: laidOut,
    fcp: fcp,
    origin: performance.timeOrigin,
    // Bytes over the network (headers included) for the page and everything it loaded so far.
    bytes: performance.getEntriesByType("resource").reduce((sum, r) => sum + r.transferSize, navigation.transferSize),
    ttfb: navigation.responseStart,
    html: navigation.responseEnd,
    dcl: navigation.domContentLoadedEventEnd,
    load: navigation.loadEventEnd,
  };
}
"""

FIELDS = [  # (key, label): times in ms since navigation start
    ("scoreboard", "#scoreboard painted"),
    ("laid_out", "#scoreboard laid out and visible (its animation frame)"),
    ("fcp", "first contentful paint"),
    ("ttfb", "first byte of the page"),
    ("html", "last byte of the page"),
    ("dcl", "DOMContentLoaded"),
    ("load", "load"),
]


async def make_game(server: Server) -> str:
    connection = await Connection(server.host, server.port).open()
    (game,) = await create_games(connection, 1, players=PLAYERS)
    for _ in range(ROUNDS):
        answer = await add_round(connection, game)
        assert answer.status == 201, answer.body
    await connection.close()
    return game.id


def throttle(context, page) -> None:
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": LATENCY_MS,
            "downloadThroughput": THROUGHPUT_BPS,
            "uploadThroughput": THROUGHPUT_BPS,
            "connectionType": "cellular4g",
        },
    )


def visit(page, path: str) -> dict[str, float]:
    page.goto(path, wait_until="load", timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => window.__scoreboardNextFrame !== undefined && performance.getEntriesByName('first-contentful-paint')"
        ".length > 0",
        timeout=TIMEOUT_MS,
    )
    return page.evaluate(READ_TIMINGS)


def measure(server: Server, game_id: str) -> tuple[list[dict], list[dict]]:
    cold, warm = [], []
    path = f"/g/{game_id}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            # One unmeasured visit first, so the server's templates and the browser's process are warm
            # and the runs measure the page, not the first request after start-up.
            context = browser.new_context(base_url=server.url, **PHONE)
            context.new_page().goto(path, wait_until="load")
            context.close()
            for run in range(RUNS):
                # Without the service worker: what it changes is section 11's (bench/offline.py).
                context = browser.new_context(base_url=server.url, service_workers="block", **PHONE)
                context.add_init_script(WATCH_SCOREBOARD)
                page = context.new_page()
                throttle(context, page)
                cold.append(visit(page, path))
                page.goto("about:blank")
                warm.append(visit(page, path))
                assert warm[-1]["origin"] != cold[-1]["origin"], "the repeat visit did not load a new page"
                context.close()
                print(
                    f"  run {run + 1}: scoreboard painted at {cold[-1]['scoreboard']:.0f} ms "
                    f"(warm {warm[-1]['scoreboard']:.0f} ms), load {cold[-1]['load']:.0f} ms"
                )
        finally:
            browser.close()
    return cold, warm


def main() -> None:
    info = machine()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="blitzboard-bench-") as tmp:
        directory = Path(tmp)
        with sqlite_database(directory) as url:
            server = start_app(url, directory / "server.log")
            try:
                game_id = asyncio.run(make_game(server))
                cold, warm = measure(server, game_id)
            finally:
                server.stop()
    print(f"took {time.monotonic() - started:.0f} s")
    write(cold, warm, info)


def write(cold: list[dict], warm: list[dict], info: dict[str, str]) -> None:
    header = ["from navigation start to", "first visit, median (ms)", "min – max", "repeat visit, median (ms)"]
    rows = []
    for key, label in FIELDS:
        values = [run[key] for run in cold if run.get(key) is not None]
        again = [run[key] for run in warm if run.get(key) is not None]
        rows.append(
            [
                label,
                f"{median(values):.0f}",
                f"{min(values):.0f} – {max(values):.0f}",
                f"{median(again):.0f}",
            ]
        )
    print()
    print_table(header, rows)
    figure = median([run["scoreboard"] for run in cold])
    html = median([run["html"] for run in cold])
    kbytes = median([run["bytes"] for run in cold]) / 1024
    met = figure < 1500
    targets = [
        {
            "target": "first load < 1.5 s on the mobile profile",
            "figure": f"#scoreboard painted at {figure:.0f} ms (median of {len(cold)} first visits; repeat visit "
            f"{median([run['scoreboard'] for run in warm]):.0f} ms)",
            "met": met,
            "margin": f"{1500 - figure:.0f} ms to spare" if met else f"{figure - 1500:.0f} ms over",
            "why": f"the page's HTML is complete at {html:.0f} ms ({LATENCY_MS} ms latency plus the transfer at "
            f"1.6 Mbps); the stylesheet blocks the first paint and shares the link with htmx and app.js (deferred, "
            f"but downloaded at the same time): {kbytes:.1f} KiB over the network by the load event, and the "
            f"page's work on a CPU slowed {CPU_SLOWDOWN}×",
            "close": "fewer bytes before the first paint (compressed answers; htmx is the largest), cache-friendly "
            "static URLs for repeat visits; inlining the critical CSS would save the stylesheet's round trip",
        }
    ]
    body = [
        "## 5. First load on a phone\n",
        f"Command: `{command_line()}`  \nMachine: {machine_line(info)}\n",
        f"Debian's Chromium, headless, at phone size (390×844, touch), on the view page of a game of {PLAYERS} "
        f"players and {ROUNDS} rounds served by `blitzboard serve` (SQLite). Mobile profile through the "
        f"DevTools Protocol: `Emulation.setCPUThrottlingRate` {CPU_SLOWDOWN}, "
        f"`Network.emulateNetworkConditions` latency {LATENCY_MS} ms (added to every request), 1.6 Mbps down "
        "and up. 'First visit' is a new browser context each run (an empty cache); 'repeat visit' opens the "
        "page again in the same context (what the server's caching headers let the browser keep). The "
        "service worker is blocked here, so these are the HTTP cache's figures; what the worker changes is "
        "in section 11. "
        "A script the browser injects before the page's own notes the first animation frame in which "
        "#scoreboard has a box inside the viewport and passes checkVisibility() ('laid out'; rendering, and "
        "with it animation frames, waits for the render-blocking stylesheet). '#scoreboard painted' is the "
        "figure: the first contentful paint when the scoreboard was laid out by then (it is in the first "
        "frame painted), else the start of the frame after the one that laid it out. The others are the "
        f"page's own Navigation and Paint Timing entries. {len(cold)} runs after one "
        "unmeasured visit; the median is the figure.\n",
        table(header, rows),
        f"Bytes over the network by the load event (Resource and Navigation Timing `transferSize`, headers "
        f"included): {kbytes:.1f} KiB on a first visit, "
        f"{median([run['bytes'] for run in warm]) / 1024:.1f} KiB on a repeat visit (medians).\n",
    ]
    result = {
        "machine": info,
        "command": command_line(),
        "cold_ms": {key: [round(run[key], 1) for run in cold if run.get(key) is not None] for key, _ in FIELDS},
        "warm_ms": {key: [round(run[key], 1) for run in warm if run.get(key) is not None] for key, _ in FIELDS},
        "bytes": {"cold": [run["bytes"] for run in cold], "warm": [run["bytes"] for run in warm]},
        "targets": targets,
    }
    write_section("first_load", "\n".join(body), result)


if __name__ == "__main__":
    main()
