"""latecomers: a player can join a running game (issue 32, item 6)

`player.joined_after_round_id`: NULL for a player from the start (and one added before the first round);
for a latecomer, the id of the game's last round when they came. They sit in no round up to it and in every
one after. A round id, as 0009's leavers' mark and for the same reason: deleting an earlier round
renumbers the later ones but leaves the rounds before the latecomer came theirs. Not a foreign key; a new
round that takes the id of a deleted last round moves the mark before it (app.games.players), so the
latecomer is in that round.

Every player of the games there already played from the start: NULL. Going back drops the column (plain
DROP COLUMN, as 0009): a latecomer then sits in every round, which the rules read as a missing score
(0 points) in the rounds before they came.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 08:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("player", sa.Column("joined_after_round_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("player", "joined_after_round_id")
