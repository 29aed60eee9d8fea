"""A table night: what the pages need to carry one game into the next. Each a single small query.

- `last_players`: the people of the table's most recent game (by when it was started), which "New game at
  this table" ticks, so the same people play again with one tap. A table with no game ticks nobody.
- `finished_since`: whether a game of the table finished since a moment (the table's page opens on
  "Tonight" when one did in the last 12 hours; app.web.periods), read from `game_result`'s index.
- `tonight_lead`: who leads the table's standings of a game (its preset) since a moment, as those
  standings rank (app.tables.standings: most wins, then the best win rate); the game-over banner says it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, func
from sqlmodel import Session, select

from app.models import Game, GameResult, Person, Player


def last_players(session: Session, table_id: str) -> set[int]:
    """The person ids of the players of the table's most recent game (none when it has no game yet)."""
    latest = (
        select(Game.id)
        .where(Game.table_id == table_id)
        .order_by(Game.created_at.desc(), Game.id.desc())  # type: ignore[attr-defined]
        .limit(1)
        .scalar_subquery()
    )
    found = session.exec(select(Player.person_id).where(Player.game_id == latest))
    return {person_id for person_id in found if person_id is not None}


def finished_since(session: Session, table_id: str, since: datetime) -> bool:
    """Whether a game of the table finished at or after `since`."""
    query = select(GameResult.game_id).where(GameResult.table_id == table_id, GameResult.finished_at >= since)
    return session.exec(query.limit(1)).first() is not None


@dataclass(frozen=True, slots=True)
class Lead:
    """Who leads: their names (several when they share the lead: the same wins and win rate), their wins."""

    names: list[str]
    wins: int


def tonight_lead(session: Session, table_id: str, preset: str, since: datetime) -> Lead | None:
    """The first place of the table's standings for `preset` since `since` (None: no winner in it yet)."""
    wins = func.sum(case((GameResult.won, 1), else_=0))  # type: ignore[arg-type]
    query = (
        select(Person.name, wins, func.count())
        .join(Person, Person.id == GameResult.person_id)  # type: ignore[arg-type]
        .where(GameResult.table_id == table_id, GameResult.preset == preset, GameResult.finished_at >= since)
        .group_by(Person.id, Person.name)
    )
    rows = [(name, int(won or 0), int(games)) for name, won, games in session.exec(query)]
    if not rows:
        return None
    best = max((won, won / games) for _name, won, games in rows)
    if best[0] == 0:
        return None
    names = sorted((name for name, won, games in rows if (won, won / games) == best), key=str.casefold)
    return Lead(names, best[0])
