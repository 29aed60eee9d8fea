"""Real server processes for tests that need one (live updates across processes, shutdown, crashes)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return self.process.returncode


def start_server(
    database_url: str, log: Path, port: int | None = None, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> Server:
    port = port or free_port()
    environment = os.environ | {"BLITZBOARD_DATABASE_URL": database_url, "BLITZBOARD_LOG_LEVEL": "warning"}
    environment.pop("DATABASE_URL", None)
    environment |= env or {}
    handle = log.open("ab")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:create_app",
            "--factory",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-access-log",
            "--timeout-graceful-shutdown",
            "5",
        ],
        cwd=cwd,
        env=environment,
        stdout=handle,
        stderr=subprocess.STDOUT,
    )
    handle.close()
    server = Server(f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{server.output()}")
        try:
            if httpx.get(server.url + "/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.stop(signal.SIGKILL)
    raise RuntimeError(f"server did not start:\n{server.output()}")


@contextmanager
def running_server(database_url: str, log: Path, **kwargs) -> Iterator[Server]:
    server = start_server(database_url, log, **kwargs)
    try:
        yield server
    finally:
        server.stop()
