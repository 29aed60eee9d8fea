"""Settings, read from the environment (prefix BLITZBOARD_, or DATABASE_URL) and an optional .env file."""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# Where templates/, static/, alembic/ and alembic.ini live: inside the package when it was installed
# from the wheel (pyproject.toml puts them there), beside it in the source tree; BLITZBOARD_ROOT
# overrides both (a customised copy of the templates, for example).
_PACKAGE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("BLITZBOARD_ROOT") or (_PACKAGE if (_PACKAGE / "templates").is_dir() else _PACKAGE.parent))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BLITZBOARD_", env_file=".env", extra="ignore")

    # SQLite file by default (created next to where the app runs); a postgresql:// URL for several
    # server processes. Plain DATABASE_URL is read too, as most hosting platforms set that name.
    database_url: str = Field(
        default="sqlite:///blitzboard.db",
        validation_alias=AliasChoices("BLITZBOARD_DATABASE_URL", "DATABASE_URL"),
    )
    # The public address when behind a proxy (used for the share links and QR codes); when empty,
    # links are built from the request's own host.
    public_url: str = ""
    # Writes that repeat an Idempotency-Key within this many hours get the first answer back.
    idempotency_hours: int = Field(default=48, ge=24)
    # A retried key rotation gets its new key back only within this many minutes, only with the
    # old key, and only while nothing else has changed the game (docs/security.md).
    rotation_replay_minutes: int = Field(default=10, ge=1, le=24 * 60)
    # The server secret that seals edit keys in replay records and MACs Idempotency-Keys. Not in
    # the database. Empty: read from secret_file, created on first start (mode 0600).
    secret_key: SecretStr = SecretStr("")
    # Empty: beside the SQLite file (blitzboard.db.secret), or ./blitzboard.secret on PostgreSQL, where
    # it always was. Set it to keep the secret apart from the database and its backups: with both, a
    # handover link can be forged (docs/security.md).
    secret_file: str = ""
    # Rounds one game may hold: a bound on what one save answers and one page shows.
    max_rounds_per_game: int = Field(default=2000, ge=1, le=100_000)
    max_body_bytes: int = 64 * 1024
    # A backup to import (POST /api/v1/tables/import and /games/import) may be this large; every other
    # request body keeps max_body_bytes. Read whole and parsed in memory, so not unbounded.
    max_import_bytes: int = Field(default=8 * 1024 * 1024, ge=64 * 1024, le=256 * 1024 * 1024)
    # Imports run at once per process: each holds its document parsed in memory (tens of MiB for an
    # 8 MiB table) and a core for seconds. One more waits up to import_wait_seconds, then gets 503.
    max_concurrent_imports: int = Field(default=2, ge=1)
    import_wait_seconds: float = Field(default=5, ge=0, le=60)
    # Games one address may import a minute (a table's backup takes one per game; a larger backup is
    # taken whole from a full budget, and the address then waits until it is paid: app.http.ratelimit).
    import_games_per_minute: int = Field(default=600, ge=1)
    # How long a browser remembers that it keeps score of a game.
    edit_cookie_days: int = 180
    # Rate limits (per client address, per minute): games created, and wrong edit keys presented.
    games_per_minute: int = 60
    wrong_keys_per_minute: int = 20
    # Seconds between keep-alive comments on open event streams (proxies close silent connections).
    sse_ping_seconds: int = 15
    # Limits that keep one client from stalling the server (docs/security.md, "Limits"). Open event
    # streams per client address (429 beyond it) and in total per process (503 beyond it; lowered at
    # start-up to leave `open_files_reserve` descriptors under the open-file limit).
    max_streams_per_client: int = Field(default=16, ge=0)
    max_streams: int = Field(default=2000, ge=0)
    # Connections one peer address may hold open at once (more are closed as soon as they are accepted);
    # the proxies in `forwarded_allow_ips` are exempt, as every client arrives through them. 0: no cap.
    max_connections_per_client: int = Field(default=100, ge=0)
    # Connections in total before uvicorn answers 503 (its limit_concurrency), also kept under the
    # open-file limit minus the reserve below.
    max_connections: int = Field(default=4000, ge=1)
    # Descriptors kept free under the open-file limit for health checks, pages, the database, logs.
    open_files_reserve: int = Field(default=128, ge=16)
    # Requests that may write (saves, corrections, tables, imports) let into the thread pool at once per
    # process; the others wait their turn on the event loop, so a save stuck behind another process's
    # write lock holds no thread that /healthz, the API's reads and the pages need (app.http.writequeue).
    # 8 of the pool's 40 threads: SQLite runs one write at a time anyway; on PostgreSQL 8 writes of
    # different games run side by side, within its pool of 30 connections.
    max_running_writes: int = Field(default=8, ge=1, le=32)
    # Writes that may wait for their turn per process; one more is answered 503 with Retry-After and
    # changes nothing. At the usual few milliseconds a save, 100 waiting clear in well under a second:
    # a full queue means the write lock is held elsewhere (a prune, a backup, another server).
    max_waiting_writes: int = Field(default=100, ge=0, le=10_000)
    # Seconds a connection may take to send a complete request head (also: to send anything at all
    # after connecting, or after a keep-alive pause has ended); then it is closed (slowloris).
    header_timeout_seconds: float = Field(default=10, gt=0)
    # Seconds a request may take to send its body once its head is in; then 408.
    body_timeout_seconds: float = Field(default=20, gt=0)
    # Seconds an idle keep-alive connection stays open between requests (uvicorn's timeout_keep_alive).
    keep_alive_seconds: int = Field(default=5, ge=1)
    # Largest request head (request line and headers) in bytes (uvicorn's h11_max_incomplete_event_size).
    max_header_bytes: int = Field(default=16 * 1024, ge=1024)
    # An identical error line from asyncio or uvicorn is logged at most once per this many seconds.
    log_repeat_seconds: float = Field(default=10, ge=0)
    # Trust X-Forwarded-For / X-Forwarded-Proto from these addresses (a reverse proxy in front).
    forwarded_allow_ips: str = "127.0.0.1"
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    # text: one readable line per event (UTC timestamp, level, logger, message, request id); json: one
    # JSON object per line, for a log collector.
    log_format: Literal["text", "json"] = "text"
    # Strict-Transport-Security max-age on answers to HTTPS requests (never over plain HTTP); 0: not sent.
    hsts_seconds: int = Field(default=31_536_000, ge=0)
    # SQLite: FULL syncs the log at every commit, so a saved round survives a power cut or an OS
    # crash; NORMAL is faster on slow disks but may lose the last saves (never corrupts) when the
    # machine, not just the app, goes down. See docs/operations.md, Settings.
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    # SQLite: how long a write waits for another process's write lock before answering 503.
    sqlite_busy_timeout_ms: int = Field(default=10_000, ge=0)
    # Tune Python's garbage collector for a long-running server at start-up (off in the test suite,
    # where many apps start in one process).
    tune_gc: bool = True
    # Serve Prometheus metrics at /metrics (app/http/metrics.py); off, /metrics is a 404. Anyone who can
    # reach it reads the request counts: keep it to your network (docs/operations.md, "Metrics").
    metrics: bool = False

    @field_validator("sqlite_synchronous", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("log_level", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


def environment_variables() -> list[tuple[str, str]]:
    """Every setting as the environment variable that sets it, with its default (for --help)."""
    rows = []
    for name, field in Settings.model_fields.items():
        variable = f"BLITZBOARD_{name.upper()}"
        if name == "database_url":
            variable += " (or DATABASE_URL)"
        default = field.default.get_secret_value() if isinstance(field.default, SecretStr) else field.default
        rows.append((variable, "(empty)" if default == "" else str(default)))
    return rows


def settings_error(error: ValidationError) -> str:
    """A bad setting in one line: which variable, what was wrong."""
    parts = []
    for problem in error.errors():
        name = str(problem["loc"][0]) if problem["loc"] else "?"
        variable = name if name.isupper() else f"BLITZBOARD_{name.upper()}"
        shown = isinstance(problem.get("input"), str | int | float) and "secret" not in name.lower()
        given = f" (got {problem['input']!r})" if shown else ""
        parts.append(f"{variable}: {problem['msg']}{given}")
    return "bad setting: " + "; ".join(parts)


def package_version() -> str:
    """The installed package's version (pyproject.toml's): the CLI's --version and the API document's."""
    try:
        return version("blitzboard")
    except PackageNotFoundError:  # run from a tree that was never installed
        return "0+unknown"


def get_settings() -> Settings:
    return Settings()
