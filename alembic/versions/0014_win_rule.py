"""the cards family's win rule

`game.win_rule`: app.rules' `win`, who wins a `cards` game that ends at the target: `highest_total` (the
highest total once someone reaches it, as every game there already was decided) or `first_to_target`
(whoever reached it in the earliest round). A string, as `tie_break` and `end_by` are.

Going back drops the column (plain DROP COLUMN, as 0009 and 0013): a game won by `first_to_target` is then
decided by the highest total, which may name another winner; every game and round stays.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 17:45:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("game", sa.Column("win_rule", sa.String(16), nullable=False, server_default="highest_total"))


def downgrade() -> None:
    op.drop_column("game", "win_rule")
