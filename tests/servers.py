"""Real server processes for the tests that need one (browser, live updates, shutdown, crashes, logs).

The server is the app as `blitzboard serve` runs it: its own uvicorn process on a migrated database,
so the event streams, htmx, the CSP and the cookies all work for real.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

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
    """A uvicorn process serving the app; stop() and start() again keep its port and database."""

    database_url: str
    log: Path
    port: int = field(default_factory=free_port)
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path = ROOT
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def start(self) -> Server:
        environment = os.environ | {"BLITZBOARD_DATABASE_URL": self.database_url, "BLITZBOARD_LOG_LEVEL": "warning"}
        environment.pop("DATABASE_URL", None)
        environment |= self.env
        # `blitzboard serve` itself, so the server runs under the uvicorn options (limits, timeouts,
        # connection guards) that are deployed: app.server.uvicorn_options.
        command = [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command, cwd=self.cwd, env=environment, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.output()}")
            try:
                if httpx.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)  # polling until the server is up, not an assertion
        self.stop(signal.SIGKILL)
        raise RuntimeError(f"the server did not answer within {STARTUP_SECONDS} s:\n{self.output()}")

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
    database_url: str, log: Path, port: int | None = None, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> Server:
    server = Server(database_url, log, env=env or {}, cwd=cwd)
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
