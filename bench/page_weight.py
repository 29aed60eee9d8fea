"""Page weight: the bytes a phone downloads for the view page and the scorekeeper's page with every asset
they load, cold and warm cache, and the number of requests.

    .venv/bin/python bench/page_weight.py

Headless Chromium (Debian's, through Playwright) at phone size loads each page of a game of 4 players
and 10 rounds; the Chrome DevTools Protocol's Network events give every request, its status, whether
it came from the cache, and the bytes it took on the wire (encodedDataLength: headers + body as sent).
Answers the app sends uncompressed also get a computed gzip size (level 6, as a proxy with gzip on
would send them: the same headers plus the gzipped body); compressed ones count as sent. Warm: the
same browser opens the page again; what it fetches again follows the server's caching headers
(Chromium's own decision), and a second figure counts a revalidation of every asset (304 answers,
measured): what a browser sends for assets it may not keep without asking.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

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
    kib,
    machine,
    machine_line,
    print_table,
    sqlite_database,
    start_app,
    table,
    write_section,
)

ROUNDS = 10
PLAYERS = 4
SETTLE_S = 1.5  # after "load": the event stream's first event, and whatever it triggers
COMPRESSIBLE = re.compile(r"text/|javascript|json|svg|xml")


@dataclass
class Request:
    id: str
    url: str
    kind: str
    status: int = 0
    mime: str = ""
    cached: str = ""  # "", "memory", "disk"
    wire: int = 0  # encodedDataLength: headers + body as they came over the network
    body: bytes = b""
    headers_size: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    finished: bool = False

    @property
    def path(self) -> str:
        parts = urlsplit(self.url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    @property
    def streaming(self) -> bool:
        return self.mime == "text/event-stream"

    @property
    def encoding(self) -> str:
        return self.response_headers.get("content-encoding", "")

    def gzip_wire(self) -> int:
        """What the same answer would take gzipped (level 6) by a proxy: headers + compressed body."""
        if self.cached or self.status == 304 or not self.body or self.encoding:
            return self.wire
        if self.streaming or not COMPRESSIBLE.search(self.mime) or len(self.body) < 256:
            return self.wire
        return self.headers_size + len("Content-Encoding: gzip\r\n") + len(gzip.compress(self.body, 6))


class Recorder:
    """Every request of one page, from the DevTools Protocol's Network domain."""

    def __init__(self, context, page) -> None:
        self.cdp = context.new_cdp_session(page)
        self.requests: dict[str, Request] = {}
        self.cdp.on("Network.requestWillBeSent", self._sent)
        self.cdp.on("Network.requestServedFromCache", self._from_memory)
        self.cdp.on("Network.responseReceived", self._response)
        self.cdp.on("Network.responseReceivedExtraInfo", self._extra)
        self.cdp.on("Network.dataReceived", self._data)
        self.cdp.on("Network.loadingFinished", self._finished)
        self.cdp.send("Network.enable")

    def _sent(self, event) -> None:
        rid = event["requestId"]
        if rid in self.requests and event.get("redirectResponse"):
            self.requests[rid + "/redirect"] = self.requests.pop(rid)
        self.requests[rid] = Request(rid, event["request"]["url"], event.get("type", "?"))

    def _from_memory(self, event) -> None:
        if (request := self.requests.get(event["requestId"])) is not None:
            request.cached = "memory"

    def _response(self, event) -> None:
        request = self.requests.get(event["requestId"])
        if request is None:
            return
        response = event["response"]
        request.status = response["status"]
        request.mime = response.get("mimeType", "")
        request.response_headers = {k.lower(): v for k, v in response.get("headers", {}).items()}
        if response.get("fromDiskCache"):
            request.cached = "disk"
        elif response.get("fromMemoryCache"):
            request.cached = "memory"

    def _extra(self, event) -> None:
        request = self.requests.get(event["requestId"])
        if request is not None and event.get("headersText"):
            request.headers_size = len(event["headersText"].encode())

    def _data(self, event) -> None:
        request = self.requests.get(event["requestId"])
        if request is not None and request.streaming:
            request.wire += event.get("encodedDataLength", 0)

    def _finished(self, event) -> None:
        request = self.requests.get(event["requestId"])
        if request is None:
            return
        request.finished = True
        request.wire = int(event.get("encodedDataLength", 0))

    def take(self) -> list[Request]:
        taken = list(self.requests.values())
        self.requests = {}
        for request in taken:
            if request.finished and request.status == 200 and not request.cached:
                answer = self.cdp.send("Network.getResponseBody", {"requestId": request.id})
                data = answer["body"]
                request.body = base64.b64decode(data) if answer.get("base64Encoded") else data.encode()
            if not request.headers_size and request.body and request.wire >= len(request.body):
                request.headers_size = request.wire - len(request.body)
            if request.streaming and not request.headers_size:
                request.headers_size = request.wire
        return taken


@dataclass
class Load:
    page: str
    cache: str
    requests: list[Request]

    @property
    def network(self) -> list[Request]:
        """Requests that went over the network (not answered from the browser's cache)."""
        return [r for r in self.requests if not r.cached]

    @property
    def wire(self) -> int:
        return sum(r.wire for r in self.network)

    @property
    def gzip(self) -> int:
        return sum(r.gzip_wire() for r in self.network)


async def make_game(server: Server) -> tuple[str, str, str]:
    connection = await Connection(server.host, server.port).open()
    (game,) = await create_games(connection, 1, players=PLAYERS)
    for _ in range(ROUNDS):
        answer = await add_round(connection, game)
        assert answer.status == 201, answer.body
    # The edit link sets the scorekeeper's cookie (HttpOnly) and redirects to /score.
    answer = await connection.request("GET", f"/g/{game.id}/edit/{game.key}")
    cookie = answer.headers.get("set-cookie", "").split(";", 1)[0]
    await connection.close()
    return game.id, game.key, cookie


async def revalidation_bytes(server: Server, requests: list[Request]) -> dict[str, int]:
    """Bytes on the wire of a 304 for each asset that carries a validator (what a revalidation costs)."""
    sizes = {}
    connection = await Connection(server.host, server.port).open()
    for request in requests:
        validator = request.response_headers.get("etag")
        if request.kind == "Document" or request.streaming or request.status != 200 or not validator:
            continue
        connection.send("GET", request.path, {"If-None-Match": validator})
        assert connection.writer is not None and connection.reader is not None
        await connection.writer.drain()
        head = await connection.reader.readuntil(b"\r\n\r\n")
        if head.startswith(b"HTTP/1.1 304"):
            sizes[request.path] = len(head)
        else:  # not revalidated: it would be downloaded again
            length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
            await connection.reader.readexactly(length)
            sizes[request.path] = len(head) + length
    await connection.close()
    return sizes


async def stream_opening_bytes(server: Server, path: str) -> int:
    """Bytes of an event stream's answer headers and its first event, as they come over the wire."""
    connection = await Connection(server.host, server.port).open()
    connection.send("GET", path, {"Accept": "text/event-stream"})
    assert connection.writer is not None and connection.reader is not None
    await connection.writer.drain()
    head = await connection.reader.readuntil(b"\r\n\r\n")
    size_line = await connection.reader.readuntil(b"\r\n")
    chunk = await connection.reader.readexactly(int(size_line, 16) + 2)
    await connection.close()
    return len(head) + len(size_line) + len(chunk)


def measure(server: Server, game_id: str, cookie: str) -> list[Load]:
    loads: list[Load] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for name, path in (("view page", f"/g/{game_id}"), ("scorekeeper's page", f"/g/{game_id}/score")):
                context = browser.new_context(base_url=server.url, **PHONE)
                if name != "view page":
                    cookie_name, _, value = cookie.partition("=")
                    context.add_cookies([{"name": cookie_name, "value": value, "url": server.url}])
                page = context.new_page()
                recorder = Recorder(context, page)
                for cache in ("cold", "warm"):
                    page.goto(path, wait_until="load")
                    page.wait_for_selector("#scoreboard", state="visible")
                    page.wait_for_timeout(SETTLE_S * 1000)
                    loads.append(Load(name, cache, recorder.take()))
                    # Leave the page so its event stream closes before the next visit.
                    page.goto("about:blank")
                    page.wait_for_timeout(200)
                    recorder.take()
                context.close()
        finally:
            browser.close()
    return loads


def describe(request: Request) -> str:
    if request.cached:
        return f"from {request.cached} cache"
    if request.streaming:
        return "event stream (open)"
    return str(request.status)


def main() -> None:
    info = machine()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="blitzboard-bench-") as tmp:
        directory = Path(tmp)
        with sqlite_database(directory) as url:
            server = start_app(url, directory / "server.log")
            try:
                game_id, _key, cookie = asyncio.run(make_game(server))
                loads = measure(server, game_id, cookie)
                cold_view = next(load for load in loads if load.cache == "cold")
                revalidate = asyncio.run(revalidation_bytes(server, cold_view.requests))
                opening = asyncio.run(stream_opening_bytes(server, f"/g/{game_id}/events"))
                for load in loads:
                    for request in load.requests:
                        if request.streaming:
                            request.wire = request.headers_size = opening
            finally:
                server.stop()
    print(f"took {time.monotonic() - started:.0f} s")
    write(loads, revalidate, info)


def write(loads: list[Load], revalidate: dict[str, int], info: dict[str, str]) -> None:
    summary_header = [
        "page",
        "cache",
        "requests (over the network)",
        "bytes on the wire now (KiB)",
        "with gzip (KiB)",
    ]
    summary = []
    details = []
    for load in loads:
        summary.append(
            [load.page, load.cache, f"{len(load.requests)} ({len(load.network)})", kib(load.wire), kib(load.gzip)]
        )
        for request in load.requests:
            details.append(
                [
                    load.page,
                    load.cache,
                    f"`{request.path.split('?')[0]}`",
                    request.kind,
                    describe(request),
                    (request.encoding or "identity") if not request.cached else "",
                    request.response_headers.get("cache-control", "–") if not request.cached else "",
                    kib(len(request.body)) if request.body else "–",
                    kib(request.wire) if not request.cached else "0",
                    kib(request.gzip_wire()) if not request.cached else "0",
                ]
            )
    # A revalidating warm visit: the page again in full, a 304 for every asset with a validator.
    for page in ("view page", "scorekeeper's page"):
        cold = next(load for load in loads if load.page == page and load.cache == "cold")
        wire = gz = 0
        count = 0
        for request in cold.requests:
            if request.path in revalidate:
                wire += revalidate[request.path]
                gz += revalidate[request.path]
            else:
                wire += request.wire
                gz += request.gzip_wire()
            count += 1
        summary.append([page, "warm, every asset revalidated (304)", f"{count} ({count})", kib(wire), kib(gz)])

    print_table(summary_header, summary)
    detail_header = [
        "page",
        "cache",
        "resource",
        "type",
        "answer",
        "Content-Encoding",
        "Cache-Control",
        "body (KiB)",
        "on the wire now (KiB)",
        "with gzip (KiB)",
    ]
    view_cold = next(load for load in loads if load.page == "view page" and load.cache == "cold")
    keeper_cold = next(load for load in loads if load.page != "view page" and load.cache == "cold")
    view_warm = next(load for load in loads if load.page == "view page" and load.cache == "warm")
    view_compressed = any(r.encoding for r in view_cold.network)
    keeper_document = next((r for r in keeper_cold.network if r.kind == "Document"), None)
    keeper_plain = keeper_document is not None and not keeper_document.encoding
    static_cached = [r for r in view_cold.network if r.path.startswith("/static/")]
    long_lived = all("max-age=31536000" in r.response_headers.get("cache-control", "") for r in static_cached)
    gz = view_cold.gzip / 1024
    bar = 40_000 / 1024  # 40 KB, the stricter reading (40,000 bytes = 39.1 KiB)
    met = gz <= bar
    biggest = max(view_cold.network, key=lambda r: r.gzip_wire())
    if view_compressed:
        now = f"the app compresses it itself: {view_cold.wire / 1024:.1f} KiB on the wire now"
        close = "keep compression on; htmx is most of it, and a versioned URL with a year's max-age keeps it to one download"
    else:
        now = f"the app sends it uncompressed ({view_cold.wire / 1024:.1f} KiB) unless a proxy compresses it"
        close = (
            "compress in the app (Starlette's GZipMiddleware leaves text/event-stream alone) so the figure holds "
            "without a proxy; long-lived Cache-Control on versioned static URLs for warm visits"
        )
    why = (
        f"the largest part is {biggest.path.split('?')[0]} ({biggest.gzip_wire() / 1024:.1f} KiB gzip); {now}; "
        f"a repeat visit takes {view_warm.wire / 1024:.1f} KiB in {len(view_warm.network)} requests"
    )
    if keeper_plain:
        why += (
            f". The scorekeeper's page is sent uncompressed ({keeper_cold.wire / 1024:.1f} KiB) because it carries "
            "a secret (BREACH)"
        )
    targets = [
        {
            "target": "view page ≤ 40 KB gzip with every asset",
            "figure": f"{gz:.1f} KiB gzip cold in {len(view_cold.requests)} requests; scorekeeper's page "
            f"{keeper_cold.gzip / 1024:.1f} KiB gzip, {keeper_cold.wire / 1024:.1f} KiB as sent now",
            "met": met,
            "margin": f"{bar - gz:.1f} KiB under 40,000 bytes" if met else f"{gz - bar:.1f} KiB over 40,000 bytes",
            "why": why,
            "close": close,
        }
    ]
    sent = (
        "**The app compresses some answers itself** (see the Content-Encoding column): those count as sent. "
        if any(r.encoding for load in loads for r in load.network)
        else "**The app compresses nothing itself**, so 'on the wire now' is identity-encoded. "
    )
    caching = (
        "Static files have versioned URLs with a year's `max-age` (`immutable`), so a repeat visit takes them "
        "from the cache without asking. "
        if long_lived
        else "Static files without a long `max-age` are kept only as long as Chromium's heuristic freshness "
        "allows (10% of their age since Last-Modified), which depends on when they were deployed. "
    )
    body = [
        "## 3. Page weight\n",
        f"Command: `{command_line()}`  \nMachine: {machine_line(info)}\n",
        f"Debian's Chromium at phone size (390×844, touch) opens each page of a game of {PLAYERS} players and "
        f"{ROUNDS} rounds: the view page `/g/{{id}}` and the scorekeeper's page `/g/{{id}}/score` (with the "
        "edit cookie that the edit link sets). Every request the page makes is counted, from the DevTools "
        "Protocol's Network events: bytes on the wire are `encodedDataLength` (headers + body as sent). The "
        "event stream stays open and Chromium reports its bytes only when it ends, so its figure is its "
        "answer's headers and first event, read off the wire by a plain client. "
        + sent
        + "'With gzip' is what each answer takes gzipped (level 6) with the same headers, as a proxy with gzip "
        "on would send it; answers already compressed count as sent"
        + (
            " (the app leaves the scorekeeper's page uncompressed on purpose: it carries a secret, and "
            "compressing a secret beside text an attacker chooses leaks it through the size, BREACH; its gzip "
            "figure only shows what that costs, and a proxy should not compress it either)"
            if keeper_plain
            else ""
        )
        + ". Warm: the same browser opens the page "
        "again a moment later; what it fetches again is Chromium's own reading of the caching headers. "
        + caching
        + "'Every asset revalidated' is a warm visit that asks again for every asset (the page in full plus "
        "a conditional GET per asset, with the 304 answers' real sizes).\n",
        table(summary_header, summary),
        "Per request:\n",
        table(detail_header, details),
    ]
    result = {
        "machine": info,
        "command": command_line(),
        "loads": [
            {
                "page": load.page,
                "cache": load.cache,
                "requests": len(load.requests),
                "network_requests": len(load.network),
                "wire_bytes": load.wire,
                "gzip_bytes": load.gzip,
            }
            for load in loads
        ],
        "targets": targets,
    }
    write_section("page_weight", "\n".join(body), result)


if __name__ == "__main__":
    main()
