"""How each player of a finished game at a table ended (table `game_result`): derived from the rounds
by app.rules.scoring and rewritten inside the write transaction of every change to the game, so it can't
drift from them. A table's standings and head-to-head are SQL aggregates over these rows (one per
player and finished game) rather than every game loaded and scored again.

A game that is not over (yet, or again after a round was deleted) has no rows; a game of its own
(no table) never has any. A player who left the game gets a row like everyone's (a game played, their
total), placed after the players who stayed (the rules rank them so) and never won.
"""

from __future__ import annotations

from sqlalchemy import bindparam, func
from sqlmodel import Session, select

from app.games.views import GameView
from app.models import Game, GameResult, Player, Round

# Built once; run as plain Core on the write's connection (no ORM unit of work in a save).
RESULTS = GameResult.__table__  # type: ignore[attr-defined]
RESULTS_DELETE = RESULTS.delete().where(RESULTS.c.game_id == bindparam("game_key"))
RESULTS_INSERT = RESULTS.insert()
LAST_SAVED = select(func.max(Round.created_at)).where(Round.game_id == bindparam("game_key"))


def record_results(session: Session, game: Game, players: list[Player], view: GameView) -> None:
    """Rewrite the game's result rows from what its rounds now mean (call after the change, before COMMIT)."""
    if game.table_id is None:
        return
    connection = session.connection()
    connection.execute(RESULTS_DELETE, {"game_key": game.id})
    state = view.state
    if not state.over:
        return
    finished = connection.execute(LAST_SAVED, {"game_key": game.id}).scalar_one()
    winners = set(state.winners)
    person_of = {p.id: p.person_id for p in players}
    rows = [
        {
            "game_id": game.id,
            "player_id": s.player.id,
            "person_id": person_of[s.player.id],
            "table_id": game.table_id,
            "kind": game.kind,
            "preset": game.preset,
            "finished_at": finished or game.updated_at,
            "rounds": len(state.rounds),
            "total": s.total,
            "place": 1 if s.player.id in winners else s.rank,
            "won": s.player.id in winners,
            "shared": s.player.id in winners and len(winners) > 1,
        }
        for s in state.standings
        if person_of.get(s.player.id) is not None
    ]
    if rows:
        connection.execute(RESULTS_INSERT, rows)
