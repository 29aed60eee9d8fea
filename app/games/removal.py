"""Deleting games and every row they own, for the scorekeeper's "delete this game" (app.games.keeping) and
`blitzboard prune` (app.maintenance). The tables' ON DELETE CASCADE would take players, rounds and logged changes too;
they are deleted explicitly anyway, so nothing depends on SQLite's foreign_keys pragma being on.

Every statement finds its rows by an index on the game's id (or its rounds' and players' ids), so deleting a
game costs the same in a large database as in a small one: the references a deletion follows are all indexed
(migration 0008 added the last two, round_score.player_id and game_result.player_id, which SQLite looks up
for each player deleted), and a game's replay records, its creation's and import's among them (scoped
"new-game" / "import-game", not to the game), carry the game's id (`IdempotencyRecord.game_id`).
"""

from __future__ import annotations

from sqlalchemy import delete, or_
from sqlmodel import Session, select

from app.models import DraftRow, Game, GameResult, IdempotencyRecord, Player, Round, RoundChange, RoundScore, Seat


def remove_games(session: Session, ids: list[str]) -> None:
    """Delete the games and everything of theirs, inside the caller's write transaction."""
    rounds = select(Round.id).where(Round.game_id.in_(ids))
    session.exec(delete(GameResult).where(GameResult.game_id.in_(ids)))
    session.exec(delete(RoundScore).where(RoundScore.round_id.in_(rounds)))
    session.exec(delete(Round).where(Round.game_id.in_(ids)))
    session.exec(delete(DraftRow).where(DraftRow.game_id.in_(ids)))  # type: ignore[attr-defined]
    session.exec(delete(Seat).where(Seat.game_id.in_(ids)))  # type: ignore[attr-defined]
    session.exec(delete(Player).where(Player.game_id.in_(ids)))
    session.exec(delete(RoundChange).where(RoundChange.game_id.in_(ids)))
    # By game (every record of the game: its writes, its creation, its import) or by scope (a game's writes
    # recorded by a server that predates the column, still running beside a migrated one): both indexed.
    session.exec(
        delete(IdempotencyRecord).where(
            or_(IdempotencyRecord.game_id.in_(ids), IdempotencyRecord.scope.in_(ids))  # type: ignore[union-attr]
        )
    )
    session.exec(delete(Game).where(Game.id.in_(ids)))
