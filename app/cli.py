"""`blitzboard serve` (migrate, then serve) and `blitzboard migrate`; `--version`, and `--help` with
every setting's environment variable."""

from __future__ import annotations

import argparse
import os

import uvicorn
from pydantic import ValidationError

from app.config import Settings, environment_variables, get_settings, package_version, settings_error
from app.db import make_engine
from app.lan import announcement, lan_url
from app.limits import raise_open_file_limit
from app.logs import configure as configure_logging
from app.migrations import upgrade
from app.server import uvicorn_options


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
        + "\n\nWhat each one does: the README's Configuration table."
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
    args = parser.parse_args(argv)

    try:
        settings = get_settings()
    except ValidationError as error:
        parser.exit(2, f"blitzboard: {settings_error(error)}\n")
    configure_logging(settings.log_level, settings.log_format)
    migrate()
    if args.command == "serve":
        if args.workers > 1 and settings.database_url.startswith("sqlite"):
            parser.error("--workers above 1 needs PostgreSQL: live updates on SQLite stay in one process")
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
