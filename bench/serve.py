"""Serve any app factory with the uvicorn settings `blitzboard serve` uses (app/cli.py), so a baseline or
an experiment differs from the real app in the app only.

    .venv/bin/python bench/serve.py bare_app:create_app --port 8001
    .venv/bin/python bench/serve.py variants:write_queue --port 8002 --migrate

Factories are looked up in bench/ first, then in the project (app.main:create_app).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import uvicorn

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("factory", help="module:function returning an ASGI app")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--migrate", action="store_true", help="apply Blitzboard's migrations first")
    args = parser.parse_args()
    sys.path[:0] = [str(BENCH), str(ROOT)]
    if args.migrate:
        from app.cli import migrate

        migrate()
    # The same options app/cli.py gives uvicorn for one process.
    from app.config import get_settings
    from app.http.limits import raise_open_file_limit
    from app.http.server import uvicorn_options

    settings = get_settings()
    options = uvicorn_options(settings, host=args.host, port=args.port, workers=1, open_files=raise_open_file_limit())
    uvicorn.run(args.factory, **options)


if __name__ == "__main__":
    main()
