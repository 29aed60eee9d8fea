"""deletion indexes: every foreign key a deletion follows is indexed, and a replay record names its game

Deleting a player (a game's deletion, `blitzboard prune`) looks up the rows that refer to it: its round
scores and its results, whose primary keys lead with another column, so each player cost a scan of those
tables (a prune of 500 games held SQLite's write lock for minutes on a large database). The other
references a deletion follows were indexed already: player.game_id, round.game_id, round_change.game_id,
game.table_id, player.person_id, round_score.round_id and game_result.game_id (their primary keys' first
column), game_result.person_id and .table_id (the standings' indexes), person.table_id (its unique name).

A replay record gets the game it is of (`game_id`, indexed): a creation's and an import's records are
scoped "new-game" / "import-game", not to the game, so finding a game's meant reading every such
record's snapshot. The records there already are filled in: a game's own from their scope, a creation's
and an import's from their snapshots; a table's stay NULL.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 10:00:00
"""

import json
import zlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The scopes whose records are a game's creation (app.idempotency's NEW_GAME_SCOPE and IMPORT_GAME_SCOPE),
# as they were when this migration was written.
CREATION_SCOPES = ("new-game", "import-game")


def _snapshot_game_id(blob: bytes) -> str | None:
    """The game a creation's snapshot is of (app.idempotency.snapshot_game_id, kept here as it was: a
    migration must not change with the app). None for one that does not read as a snapshot."""
    try:
        game_id = json.loads(zlib.decompress(blob))["id"]
    except (zlib.error, ValueError, KeyError, TypeError):
        return None
    return game_id if isinstance(game_id, str) and len(game_id) <= 32 else None


def upgrade() -> None:
    op.create_index("ix_round_score_player_id", "round_score", ["player_id"])
    op.create_index("ix_game_result_player_id", "game_result", ["player_id"])
    # Plain ADD COLUMN, not batch mode (see 0005).
    op.add_column("idempotency_record", sa.Column("game_id", sa.String(32), nullable=True))

    records = sa.table(
        "idempotency_record",
        sa.column("scope", sa.String),
        sa.column("key", sa.String),
        sa.column("snapshot", sa.LargeBinary),
        sa.column("game_id", sa.String),
    )
    game = sa.table("game", sa.column("id", sa.String))
    bind = op.get_bind()
    # A game's writes and key rotations are scoped to its id (a table's to "t:<id>", never a game's id).
    bind.execute(records.update().where(records.c.scope.in_(sa.select(game.c.id))).values(game_id=records.c.scope))
    # Creations and imports: from their snapshots. Replay records live 48 hours, so these are few.
    found = [
        {"s": scope, "k": key, "g": game_id}
        for scope, key, blob in bind.execute(
            sa.select(records.c.scope, records.c.key, records.c.snapshot).where(records.c.scope.in_(CREATION_SCOPES))
        )
        if (game_id := _snapshot_game_id(blob)) is not None
    ]
    if found:
        bind.execute(
            records.update()
            .where(records.c.scope == sa.bindparam("s"), records.c.key == sa.bindparam("k"))
            .values(game_id=sa.bindparam("g")),
            found,
        )
    op.create_index("ix_idempotency_record_game_id", "idempotency_record", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_idempotency_record_game_id", "idempotency_record")
    op.drop_column("idempotency_record", "game_id")  # plain DROP COLUMN (see 0005); the records stay
    op.drop_index("ix_game_result_player_id", "game_result")
    op.drop_index("ix_round_score_player_id", "round_score")
