"""`blitzboard serve` (migrate, then serve), `blitzboard migrate`, `blitzboard backup` and `blitzboard
prune` (their work is in app/maintenance.py); `--version`, and `--help` with every setting's
environment variable."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import uvicorn
from pydantic import ValidationError
from sqlalchemy.exc import OperationalError

from app.config import Settings, environment_variables, get_settings, package_version, settings_error
from app.db import make_engine
from app.http.limits import raise_open_file_limit
from app.http.server import uvicorn_options
from app.lan import announcement, lan_url
from app.logs import configure as configure_logging
from app.maintenance import MAX_DAYS, MaintenanceError, backup, prune
from app.migrations import upgrade


def migrate() -> None:
    engine = make_engine(get_settings().database_url)
    try:
        upgrade(engine)
    finally:
        engine.dispose()


def _settings_help() -> str:
    rows = environment_variables()
    width = max(len(name) for name, _ in rows)
    lines = [f"  {name:<{width}}  {default}" for name, default in rows]
    return (
        "settings (environment variables, or a .env file in the working directory; defaults shown):\n"
        + "\n".join(lines)
        + "\n\nWhat each one does: docs/operations.md, Settings."
    )


def serve_the_lan(settings: Settings, port: int) -> Settings:
    """Announce the LAN address, and make it the public address of every worker (they read the
    environment) unless one is configured."""
    url = settings.public_url or lan_url(port)
    if url is None:
        print("No local network found: serving every interface; phones need this machine's address.", flush=True)
        return settings
    if not settings.public_url:
        os.environ["BLITZBOARD_PUBLIC_URL"] = url
        settings = settings.model_copy(update={"public_url": url})
    print(announcement(url), flush=True)
    return settings


def _days(value: str) -> int:
    try:
        days = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of days: {value!r}") from None
    if not 1 <= days <= MAX_DAYS:
        raise argparse.ArgumentTypeError(f"takes 1 to {MAX_DAYS} days, not {days}")
    return days


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="blitzboard",
        description="Blitzboard, a score keeper for Dutch Blitz.",
        epilog=_settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"blitzboard {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="apply the database migrations, then start the web server")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 in a container)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes; more than one needs PostgreSQL (DATABASE_URL) for live updates to reach all",
    )
    serve.add_argument(
        "--lan",
        action="store_true",
        help="serve the local network: listen on every interface, print the address (and a QR code) phones "
        "open, and use it in share links unless BLITZBOARD_PUBLIC_URL is set",
    )
    commands.add_parser("migrate", help="apply the database migrations and exit")
    saving = commands.add_parser(
        "backup",
        help="SQLite: copy the live database to PATH, safely while the server writes; "
        "PostgreSQL: print the pg_dump command to use",
    )
    saving.add_argument("path", type=Path, metavar="PATH")
    saving.add_argument("--force", action="store_true", help="replace PATH (and PATH.secret) when it exists")
    saving.add_argument(
        "--with-secret", action="store_true", help="also copy the server secret file to PATH.secret (mode 0600)"
    )
    pruning = commands.add_parser("prune", help="delete the games nobody has changed for DAYS days")
    pruning.add_argument("--older-than", type=_days, required=True, metavar="DAYS", help="at least 1")
    pruning.add_argument("--dry-run", action="store_true", help="only count the games that would be deleted")
    args = parser.parse_args(argv)

    try:
        settings = get_settings()
    except ValidationError as error:
        parser.exit(2, f"blitzboard: {settings_error(error)}\n")
    configure_logging(settings.log_level, settings.log_format)
    if args.command in ("backup", "prune"):
        # Neither migrates: a backup is the database as it is, and prune refuses one that is not at head.
        try:
            if args.command == "backup":
                print(backup(settings, args.path, force=args.force, with_secret=args.with_secret))
            else:
                print(prune(settings, args.older_than, dry_run=args.dry_run))
        except MaintenanceError as error:
            parser.exit(1, f"blitzboard {args.command}: {error}\n")
        except OperationalError as error:  # the database can't be reached: its first line, no traceback
            reason = (str(error.orig).strip().splitlines() or [""])[0]
            parser.exit(1, f"blitzboard {args.command}: the database: {type(error.orig).__name__}: {reason}\n")
        return
    migrate()
    if args.command == "serve":
        if args.workers > 1 and settings.database_url.startswith("sqlite"):
            parser.error("--workers above 1 needs PostgreSQL: live updates on SQLite stay in one process")
        if args.workers > 1 and settings.metrics:
            print(
                "BLITZBOARD_METRICS: each scrape of /metrics reads one worker's counts (docs/operations.md, Metrics)",
                flush=True,
            )
        # Raised here, before uvicorn starts, so that worker processes inherit it and the connection
        # cap can be set under it; each app raises it again in its lifespan (servers started otherwise).
        open_files = raise_open_file_limit()
        host = "0.0.0.0" if args.lan else args.host
        if args.lan:
            settings = serve_the_lan(settings, args.port)
        options = uvicorn_options(settings, host=host, port=args.port, workers=args.workers, open_files=open_files)
        uvicorn.run("app.main:create_app", **options)


if __name__ == "__main__":
    main()
