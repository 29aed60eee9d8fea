"""seats and drafts: every player enters their own row, on their own phone (issue 33)

`seat`: a player's phone, by the hash of its seat key (one a player), taken through the game's seat link
(a MAC of the game and its edit key's hash, so it is stored nowhere and a new edit key ends it). `draft_row`: each player's row of the round being played, sent before the round is saved;
not a round (no total, version or history), cleared when the round is saved.

Going back drops both tables: the seats taken and the rows being drafted then are lost (a draft, never a
round).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 08:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "seat",
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("player.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("game.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_seat_game_id", "seat", ["game_id"])
    op.create_table(
        "draft_row",
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("player.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("game.id", ondelete="CASCADE"), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("dutch", sa.Integer(), nullable=True),
        sa.Column("blitz", sa.Integer(), nullable=True),
        sa.Column("hand", sa.Integer(), nullable=True),
        sa.Column("called", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("by_seat", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_draft_row_game_id", "draft_row", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_draft_row_game_id", table_name="draft_row")
    op.drop_table("draft_row")
    op.drop_index("ix_seat_game_id", table_name="seat")
    op.drop_table("seat")
