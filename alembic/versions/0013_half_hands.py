"""31's three of a kind at 30½: the rule and the half hand

`game.thirty_and_a_half`: 31's house rule that three of a kind counts 30½ (off, as every game there
already was played). `round_score.half` and `draft_row.half`: the hand holds a half on top of its whole
points (30½ is stored as `hand` 30 with `half` true; false for every hand there already).

Going back drops the three columns (plain DROP COLUMN, as 0009): the rule is lost, and a 30½ hand becomes
a 30, which may change who lost a life in that round; every game, round and hand stays.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 17:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("game", sa.Column("thirty_and_a_half", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("round_score", sa.Column("half", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("draft_row", sa.Column("half", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("draft_row", "half")
    op.drop_column("round_score", "half")
    op.drop_column("game", "thirty_and_a_half")
