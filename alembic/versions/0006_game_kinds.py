"""game kinds: each game's kind, preset and their parameters; a round's hand and who called

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GAME_COLUMNS = [
    # Server defaults: every game stored before this is Dutch Blitz with its official parameters.
    ("kind", sa.String(16), "cards"),
    ("preset", sa.String(24), "dutch_blitz"),
    ("pile_size", sa.Integer(), "10"),
    ("deck_size", sa.Integer(), "40"),
    ("must_go_out", sa.Boolean(), sa.true()),
    ("end_by", sa.String(8), "target"),
    ("round_limit", sa.Integer(), "10"),
    ("lives", sa.Integer(), "3"),
    ("county", sa.Boolean(), sa.true()),
]


def upgrade() -> None:
    for name, type_, default in GAME_COLUMNS:
        op.add_column("game", sa.Column(name, type_, nullable=False, server_default=default))
    op.add_column("round_score", sa.Column("hand", sa.Integer(), nullable=True))
    op.add_column("round_score", sa.Column("called", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    # Before 0006 every game was Dutch Blitz: a game of another kind would come back as one, with its
    # hands lost. Refuse rather than change what was played (delete or export those games first).
    others = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT count(*) FROM game WHERE kind <> 'cards' OR preset NOT IN ('dutch_blitz', 'dutch_blitz_100')"
            )
        )
        .scalar()
    )
    if others:
        raise RuntimeError(
            f"{others} game(s) are not Dutch Blitz: a database before revision 0006 can't hold them. "
            "Delete them (blitzboard prune, or from their pages) before downgrading."
        )
    # Plain DROP COLUMN, not batch mode (see 0005: rebuilding `game` on SQLite would cascade).
    op.drop_column("round_score", "called")
    op.drop_column("round_score", "hand")
    for name, _, _ in reversed(GAME_COLUMNS):
        op.drop_column("game", name)
