"""Deleting games and every row they own, for the scorekeeper's "delete this game" (app.games.usecases) and
`blitzboard prune` (app.maintenance). The tables' ON DELETE CASCADE would take players, rounds and logged changes too;
they are deleted explicitly anyway, so nothing depends on SQLite's foreign_keys pragma being on."""

from __future__ import annotations

from sqlalchemy import delete
from sqlmodel import Session, select

from app.idempotency import IMPORT_GAME_SCOPE, NEW_GAME_SCOPE, snapshot_game_id
from app.models import Game, GameResult, IdempotencyRecord, Player, Round, RoundChange, RoundScore


def creation_records(session: Session) -> dict[str, list[str]]:
    """Game id → the keys of its creation's replay records (scoped "new-game", or "import-game" for a
    game imported from a backup, not to the game: the game is found in the record's snapshot)."""
    creations: dict[str, list[str]] = {}
    for key, blob in session.exec(
        select(IdempotencyRecord.key, IdempotencyRecord.snapshot).where(
            IdempotencyRecord.scope.in_((NEW_GAME_SCOPE, IMPORT_GAME_SCOPE))  # type: ignore[attr-defined]
        )
    ):
        creations.setdefault(snapshot_game_id(blob), []).append(key)
    return creations


def remove_games(session: Session, ids: list[str], creations: dict[str, list[str]]) -> None:
    """Delete the games and everything of theirs, inside the caller's write transaction."""
    rounds = select(Round.id).where(Round.game_id.in_(ids))
    session.exec(delete(GameResult).where(GameResult.game_id.in_(ids)))
    session.exec(delete(RoundScore).where(RoundScore.round_id.in_(rounds)))
    session.exec(delete(Round).where(Round.game_id.in_(ids)))
    session.exec(delete(Player).where(Player.game_id.in_(ids)))
    session.exec(delete(RoundChange).where(RoundChange.game_id.in_(ids)))
    session.exec(delete(IdempotencyRecord).where(IdempotencyRecord.scope.in_(ids)))
    if keys := [key for game_id in ids for key in creations.get(game_id, [])]:
        session.exec(
            delete(IdempotencyRecord).where(
                IdempotencyRecord.scope.in_((NEW_GAME_SCOPE, IMPORT_GAME_SCOPE)),  # type: ignore[attr-defined]
                IdempotencyRecord.key.in_(keys),
            )
        )
    session.exec(delete(Game).where(Game.id.in_(ids)))
