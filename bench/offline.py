"""The service worker (installable and offline): what it changes on a repeat visit, and a page opened offline.

    .venv/bin/python bench/offline.py

Headless Chromium at phone size opens the view page of a game (4 players, 10 rounds) through a small TCP
proxy that counts every byte each way, so the figures include what the service worker fetches on its
own (the page's Resource Timing does not see those). Each run is two fresh browser contexts:

- without the service worker (Playwright's `service_workers="block"`): a first visit, the page opened
  again, then the repeat visit in the same context: what the HTTP cache alone keeps (the versioned
  static files for a year); the same number of loads as with the worker, since Chromium's script
  cache warms with each;
- with it: a first visit (the worker installs and keeps its shell), the page opened again once the
  worker controls it (it keeps its copy of the page), then the repeat visit; and then the same page
  with the proxy refusing every connection and the context offline: the kept copy.

Measured per visit: bytes through the proxy (both ways, headers included) and the time from navigation
start until #scoreboard is painted (bench/first_load.py's measure: the page's own Paint Timing and an
animation-frame watch). No network or CPU throttling here (it reaches the page but not the worker's own
fetches, which would make the comparison unfair); the first-load figures on the mobile profile are
bench/first_load.py's. The median of the runs is the figure; the ratio compares the two repeat visits
of the same run.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from common import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PHONE,
    command_line,
    free_port,
    machine,
    machine_line,
    median,
    print_table,
    sqlite_database,
    start_app,
    table,
    write_section,
)
from first_load import WATCH_SCOREBOARD, make_game, visit

RUNS = 7


class CountingProxy:
    """Forwards 127.0.0.1:port to the server, counting bytes; `down` refuses every new connection and
    cuts the open ones (the Wi-Fi gone)."""

    def __init__(self, target_port: int):
        self.target = target_port
        self.port = free_port()
        self.bytes = 0
        self.down = False
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            client, _ = self._listener.accept()
            if self.down:
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self._lock:
                self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                with self._lock:
                    self.bytes += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.down = True
        with self._lock:
            for end in self._open:
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
            self._open = []

    def restore(self) -> None:
        self.down = False


def counted(proxy: CountingProxy, page, path: str) -> dict[str, float]:
    before = proxy.bytes
    timings = visit(page, path)
    page.wait_for_timeout(300)  # what the worker fetches after the load (its install, a page to keep)
    return timings | {"wire": proxy.bytes - before}


def controlled(page) -> None:
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    for _ in range(100):
        if page.evaluate("() => !!navigator.serviceWorker.controller"):
            return
        page.wait_for_timeout(100)
    raise RuntimeError("the service worker never took control")


def measure(proxy: CountingProxy, game_id: str) -> dict[str, list[dict[str, float]]]:
    runs: dict[str, list[dict[str, float]]] = {
        "first_plain": [],
        "repeat_plain": [],
        "first_sw": [],
        "repeat_sw": [],
        "offline": [],
    }
    path = f"/g/{game_id}"
    base = f"http://127.0.0.1:{proxy.port}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            warmup = browser.new_context(base_url=base, **PHONE)
            warmup.new_page().goto(path, wait_until="load")
            warmup.close()
            for run in range(RUNS):
                plain = browser.new_context(base_url=base, service_workers="block", **PHONE)
                plain.add_init_script(WATCH_SCOREBOARD)
                page = plain.new_page()
                runs["first_plain"].append(counted(proxy, page, path))
                page.goto(path, wait_until="load")  # as often as under the worker (the script cache warms)
                page.wait_for_timeout(300)
                page.goto("about:blank")
                runs["repeat_plain"].append(counted(proxy, page, path))
                plain.close()

                worker = browser.new_context(base_url=base, **PHONE)
                worker.add_init_script(WATCH_SCOREBOARD)
                page = worker.new_page()
                runs["first_sw"].append(counted(proxy, page, path))
                controlled(page)
                page.goto(path, wait_until="load")  # now under the worker: it keeps its copy
                page.wait_for_timeout(300)
                page.goto("about:blank")
                runs["repeat_sw"].append(counted(proxy, page, path))
                page.goto("about:blank")
                proxy.cut()
                worker.set_offline(True)
                runs["offline"].append(counted(proxy, page, path))
                assert page.locator("#offline-note").count() == 1, "the kept copy was not shown"
                proxy.restore()
                worker.close()
                print(
                    f"  run {run + 1}: repeat visit {runs['repeat_plain'][-1]['scoreboard']:.0f} ms / "
                    f"{runs['repeat_plain'][-1]['wire']} B without the worker, "
                    f"{runs['repeat_sw'][-1]['scoreboard']:.0f} ms / {runs['repeat_sw'][-1]['wire']} B with it; "
                    f"offline {runs['offline'][-1]['scoreboard']:.0f} ms"
                )
        finally:
            browser.close()
    return runs


def main() -> None:
    info = machine()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="blitzboard-bench-") as tmp:
        directory = Path(tmp)
        with sqlite_database(directory) as url:
            server = start_app(url, directory / "server.log")
            try:
                game_id = asyncio.run(make_game(server))
                runs = measure(CountingProxy(server.port), game_id)
            finally:
                server.stop()
    print(f"took {time.monotonic() - started:.0f} s")
    write(runs, info)


LABELS = [
    ("first_plain", "first visit, no service worker"),
    ("repeat_plain", "repeat visit, no service worker (HTTP cache only)"),
    ("first_sw", "first visit, the worker installs"),
    ("repeat_sw", "repeat visit, under the worker"),
    ("offline", "opened offline (the kept copy)"),
]


def write(runs: dict[str, list[dict[str, float]]], info: dict[str, str]) -> None:
    header = ["visit", "#scoreboard painted, median (ms)", "min – max", "bytes on the wire, median (KiB)"]
    rows = []
    for key, label in LABELS:
        painted = [r["scoreboard"] for r in runs[key]]
        wire = [r["wire"] for r in runs[key]]
        rows.append(
            [label, f"{median(painted):.0f}", f"{min(painted):.0f} – {max(painted):.0f}", f"{median(wire) / 1024:.1f}"]
        )
    print()
    print_table(header, rows)
    time_ratio = median(
        [w["scoreboard"] / p["scoreboard"] for w, p in zip(runs["repeat_sw"], runs["repeat_plain"], strict=True)]
    )
    bytes_with, bytes_without = (
        median([r["wire"] for r in runs["repeat_sw"]]),
        median([r["wire"] for r in runs["repeat_plain"]]),
    )
    install = median([r["wire"] for r in runs["first_sw"]]) - median([r["wire"] for r in runs["first_plain"]])
    body = [
        "## 11. The service worker: repeat visits and offline\n",
        f"Command: `{command_line()}`  \nMachine: {machine_line(info)}\n",
        "Headless Chromium at phone size opens the view page of a game (4 players, 10 rounds) through a small "
        "TCP proxy that counts every byte each way, so the figures include what the service worker fetches on "
        "its own (the page's Resource Timing does not see those). Each run is two fresh browser contexts: "
        'without the worker (Playwright\'s `service_workers="block"`: the HTTP cache alone, which keeps the '
        "versioned static files for a year), a first visit, the page opened again, then the repeat visit; with "
        "it, a first visit (the worker installs), the page opened again once the worker controls it (it keeps "
        "its copy), the repeat visit, and then the page with the proxy refusing every connection and the "
        "context offline (the kept copy). The same number of loads either way, since Chromium's script cache "
        "warms with each. '#scoreboard painted' is bench/first_load.py's measure; no network or CPU throttling "
        "here (it reaches the page but not the worker's own fetches: the first-load figures on the mobile "
        f"profile are section 5's). {len(runs['offline'])} runs; the medians are the figures.\n",
        table(header, rows),
        f"A repeat visit under the worker takes {time_ratio:.2f}× the time of one without it (median of the "
        f"runs' ratios; the worker's start-up included) and moves {bytes_with / 1024:.1f} KiB against "
        f"{bytes_without / 1024:.1f} KiB: the page itself is still asked of the network first (so it is never "
        "stale when there is a connection), and the versioned static files were already kept for a year by the "
        "HTTP cache, so the worker saves no bytes on a repeat visit; its static files come from its own cache "
        f"instead. Installing it costs the first visit {install / 1024:.1f} KiB more (the worker's script, its "
        "offline page, and its shell, fetched again for its own cache). What it buys is the last row: the page "
        "opens with no connection at all.\n",
    ]
    result = {
        "machine": info,
        "command": command_line(),
        "runs": {
            key: [{k: round(v, 1) for k, v in r.items() if isinstance(v, int | float)} for r in runs[key]]
            for key, _ in LABELS
        },
        "repeat_time_ratio": round(time_ratio, 3),
    }
    write_section("offline", "\n".join(body), result)


if __name__ == "__main__":
    main()
