"""tables: a table's people across games, and each finished game's result per player

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamp(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "card_table",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("edit_key_hash", sa.String(64), nullable=False),
        _timestamp("created_at"),
        _timestamp("updated_at"),
    )
    op.create_table(
        "person",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("card_table.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("name_key", sa.String(200), nullable=False),
        _timestamp("created_at"),
    )
    op.create_index("ux_person_table_name", "person", ["table_id", "name_key"], unique=True)
    # Existing games and players belong to no table (null): they work exactly as before. Plain ADD
    # COLUMN, not batch mode (see 0005: rebuilding `game` on SQLite would cascade); SQLite can't add a
    # foreign key to an existing table that way, so there the reference is the model's alone.
    _add_reference("game", "table_id", sa.String(32), "card_table", "SET NULL")
    _add_reference("player", "person_id", sa.Integer(), "person", "RESTRICT")
    op.create_index("ix_game_table_id", "game", ["table_id"])
    op.create_index("ix_player_person_id", "player", ["person_id"])
    op.create_table(
        "game_result",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("game.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("player.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("person_id", sa.Integer(), sa.ForeignKey("person.id", ondelete="CASCADE"), nullable=False),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("card_table.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("preset", sa.String(24), nullable=False),
        _timestamp("finished_at"),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("shared", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_game_result_table_finished", "game_result", ["table_id", "finished_at"])
    op.create_index("ix_game_result_person_finished", "game_result", ["person_id", "finished_at"])


def _add_reference(table: str, column: str, type_: sa.types.TypeEngine, target: str, ondelete: str) -> None:
    if op.get_bind().dialect.name == "sqlite":
        # SQLite's ALTER TABLE ADD COLUMN takes a REFERENCES clause when the default is NULL.
        op.execute(
            f"ALTER TABLE {table} ADD COLUMN {column} {type_.compile(op.get_bind().dialect)} "
            f"REFERENCES {target}(id) ON DELETE {ondelete}"
        )
    else:
        op.add_column(table, sa.Column(column, type_, nullable=True))
        op.create_foreign_key(f"fk_{table}_{column}", table, target, [column], ["id"], ondelete=ondelete)


def downgrade() -> None:
    # Games played at a table stay, as games of their own (their people's names are their players').
    op.drop_table("game_result")
    op.drop_index("ix_player_person_id", "player")
    op.drop_index("ix_game_table_id", "game")
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint("fk_player_person_id", "player", type_="foreignkey")
        op.drop_constraint("fk_game_table_id", "game", type_="foreignkey")
    # Plain DROP COLUMN (see 0005). SQLite refuses to drop a column with a REFERENCES clause in some
    # versions; 3.35+ allows it when the column is not indexed (its index is dropped above).
    op.drop_column("player", "person_id")
    op.drop_column("game", "table_id")
    op.drop_index("ux_person_table_name", "person")
    op.drop_table("person")
    op.drop_table("card_table")
