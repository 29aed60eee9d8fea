"""Alembic environment: runs on a connection handed over by app.migrations, or on the settings' URL."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import app.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from app.config import get_settings
from app.db import make_engine

config = context.config
target_metadata = SQLModel.metadata


def run_migrations(connection) -> None:
    # Batch mode: SQLite can't ALTER most things, so Alembic rebuilds the table instead.
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    run_migrations(connection)
else:
    engine = make_engine(config.get_main_option("sqlalchemy.url") or get_settings().database_url)
    with engine.connect() as conn:
        run_migrations(conn)
    engine.dispose()
