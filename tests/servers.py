"""Real server processes for the tests that need one (browser, live updates, shutdown, crashes, logs).

The server is the app as `blitzboard serve` runs it: its own uvicorn process on a migrated database,
so the event streams, htmx, the CSP and the cookies all work for real. The benchmarks in bench/ start
their servers with this too (another command, such as bench/serve.py with a factory, and another
ready path are options).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from app.db import make_engine
from app.migrations import upgrade

ROOT = Path(__file__).resolve().parent.parent
STARTUP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def migrated(url: str) -> str:
    """Bring a database to the newest migration (the way `blitzboard serve` does) and give back its URL."""
    engine = make_engine(url)
    try:
        upgrade(engine)
    finally:
        engine.dispose()
    return url


@dataclass
class Server:
    """A uvicorn process serving the app; stop() and start() again keep its port and database.

    `command` (given the port) replaces `blitzboard serve`; the server is up once `ready_path` answers
    200. An empty `database_url` leaves BLITZBOARD_DATABASE_URL unset (an app without a database).
    `preexec` runs in the child before the command (a resource limit, say).
    """

    database_url: str
    log: Path
    port: int = field(default_factory=free_port)
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path = ROOT
    command: Callable[[int], list[str]] | None = None
    ready_path: str = "/healthz"
    startup_seconds: float = STARTUP_SECONDS
    preexec: Callable[[], None] | None = None
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def start(self) -> Server:
        environment = os.environ | {"BLITZBOARD_LOG_LEVEL": "warning"}
        environment.pop("DATABASE_URL", None)
        environment.pop("BLITZBOARD_DATABASE_URL", None)
        if self.database_url:
            environment["BLITZBOARD_DATABASE_URL"] = self.database_url
        environment |= self.env
        # `blitzboard serve` itself, so the server runs under the uvicorn options (limits, timeouts,
        # connection guards) that are deployed: app.http.server.uvicorn_options.
        command = [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        if self.command:
            command = self.command(self.port)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command,
                cwd=self.cwd,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=self.preexec,  # a resource limit, set before the server starts threads
            )
        deadline = time.monotonic() + self.startup_seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.output()}")
            try:
                if httpx.get(self.url + self.ready_path, timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)  # polling until the server is up, not an assertion
        self.stop(signal.SIGKILL)
        raise RuntimeError(f"the server did not answer within {self.startup_seconds} s:\n{self.output()}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int | None:
        """Stop the process (SIGTERM: gracefully) and give its exit status."""
        process = self.process
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        return process.returncode


def start_server(
    database_url: str,
    log: Path,
    port: int | None = None,
    env: dict[str, str] | None = None,
    cwd: Path = ROOT,
    **options: Any,
) -> Server:
    """Start a Server; `options` are its optional fields (command, ready_path, startup_seconds, preexec)."""
    server = Server(database_url, log, env=env or {}, cwd=cwd, **options)
    if port:
        server.port = port
    return server.start()


@contextmanager
def running_server(database_url: str, log: Path, **kwargs) -> Iterator[Server]:
    server = start_server(database_url, log, **kwargs)
    try:
        yield server
    finally:
        server.stop()
