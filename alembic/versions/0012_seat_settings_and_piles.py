"""seat settings and the piles' count (issue 33)

`game.seats_save_round`: the round saves by itself once every seated player's row is in and valid (off by
default, as the issue asks). `game.seats_on_view`: the view page offers the seat link (and the pile check)
to everyone who follows the game (off: only the scorekeeper hands it out). `round.piles`: the cards the
Dutch piles held at the round's end as the table counted them ("Check the piles"), NULL when nobody
counted.

Every game there already keeps both settings off and every round has no count: NULL. Going back drops the
three columns (plain DROP COLUMN, as 0009): the counts and the two settings are lost, the rounds are not.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 10:45:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("game", sa.Column("seats_save_round", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("game", sa.Column("seats_on_view", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("round", sa.Column("piles", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("round", "piles")
    op.drop_column("game", "seats_on_view")
    op.drop_column("game", "seats_save_round")
