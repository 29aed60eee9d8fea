"""round timer: the game's running round start, and each round's start and duration

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 04:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable columns with no default: existing games and rounds simply have no time (null).
    op.add_column("game", sa.Column("round_started_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("round", sa.Column("started_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("round", sa.Column("duration_s", sa.Integer(), nullable=True))


def downgrade() -> None:
    # Plain DROP COLUMN (SQLite has it since 3.35), not batch mode: rebuilding `game` on SQLite would
    # drop the old table, and with foreign keys on that deletes every player and round (ON DELETE CASCADE).
    op.drop_column("round", "duration_s")
    op.drop_column("round", "started_at")
    op.drop_column("game", "round_started_at")
