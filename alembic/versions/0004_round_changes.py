"""round changes: the log of corrections, deletions and rules changes that everyone can see

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 10:00:00

Self-contained: it only adds a table (games that exist keep working and simply have no changes yet).
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "round_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=True),
        sa.Column("round_id", sa.Integer(), nullable=True),
        sa.Column("reverts", sa.Integer(), nullable=True),
        sa.Column("old", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("new", sa.JSON(none_as_null=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("round_change", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_round_change_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("round_change", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_round_change_game_id"))
    op.drop_table("round_change")
