"""Settings, read from the environment (prefix BLITZBOARD_, or DATABASE_URL) and an optional .env file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# Where templates/, static/, alembic/ and alembic.ini live: the source tree, or BLITZBOARD_ROOT
# when the package is installed elsewhere (the Docker image installs it into a virtualenv).
ROOT = Path(os.environ.get("BLITZBOARD_ROOT") or Path(__file__).resolve().parent.parent)


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
    # Empty: beside the SQLite file (blitzboard.db.secret), or ./blitzboard.secret on PostgreSQL.
    secret_file: str = ""
    # Rounds one game may hold: a bound on what one save answers and one page shows.
    max_rounds_per_game: int = Field(default=2000, ge=1, le=100_000)
    max_body_bytes: int = 64 * 1024
    # How long a browser remembers that it keeps score of a game.
    edit_cookie_days: int = 180
    # Rate limits (per client address, per minute): games created, and wrong edit keys presented.
    games_per_minute: int = 60
    wrong_keys_per_minute: int = 20
    # Seconds between keep-alive comments on open event streams (proxies close silent connections).
    sse_ping_seconds: int = 15
    # Trust X-Forwarded-For / X-Forwarded-Proto from these addresses (a reverse proxy in front).
    forwarded_allow_ips: str = "127.0.0.1"
    log_level: str = "info"
    # Strict-Transport-Security max-age on answers to HTTPS requests (never over plain HTTP); 0: not sent.
    hsts_seconds: int = Field(default=31_536_000, ge=0)
    # SQLite: FULL syncs the log at every commit, so a saved round survives a power cut or an OS
    # crash; NORMAL is faster on slow disks but may lose the last saves (never corrupts) when the
    # machine, not just the app, goes down. See the README.
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    # SQLite: how long a write waits for another process's write lock before answering 503.
    sqlite_busy_timeout_ms: int = Field(default=10_000, ge=0)
    # Tune Python's garbage collector for a long-running server at start-up (off in the test suite,
    # where many apps start in one process).
    tune_gc: bool = True

    @field_validator("sqlite_synchronous", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value


def get_settings() -> Settings:
    return Settings()
