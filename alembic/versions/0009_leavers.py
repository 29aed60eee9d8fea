"""leavers: a player can leave a running game (issue 32, item 6)

`player.left_after_round_id`: NULL while the player plays; once they left, the id of the game's last round
when they did (0 when it had none). They sit in the rounds up to it, and in none after. A round id, not a
round number: rounds are numbered by their order, so deleting an earlier round renumbers the later ones
but leaves a leaver's rounds theirs. Not a foreign key (0 is no round); deleting the round it names moves
it back to the round before (app.games.writes), so a new round that reuses the id is not theirs.

Every player of the games there already plays: NULL. Going back drops the column (plain DROP COLUMN, as
0005 and 0008): a leaver then sits in every round again, as the game was before the leave.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 02:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("player", sa.Column("left_after_round_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("player", "left_after_round_id")
