"""A table night: what the pages need to carry one game into the next. Each a single small query.

- `last_players`: the people of the table's most recent game (by when it was started), which "New game at
  this table" ticks, so the same people play again with one tap. A table with no game ticks nobody.
- `finished_since`: whether a game of the table finished since a moment (the table's page opens on
  "Tonight" when one did in the last 12 hours; app.web.periods), read from `game_result`'s index.
- `tonight_lead`: who leads the table's standings of a game (its preset) since a moment: the most wins,
  the standings' first measure (app.tables.standings; a tie on wins shares the lead, rather than the
  win rate breaking it, so "Ana leads with 1 win" is never said beside Ben's 1 win); the game-over banner says it
  (`night_lead`: asked only for a game that is over and at a table, so no other game page pays for it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import case, func
from sqlmodel import Session, select

from app.models import Game, GameResult, Person, Player, utcnow

# "Tonight": the last 12 hours. A game night that began at 19:00 is still "tonight" at 2 in the morning, and
# last night's games (a day earlier) are not; the server knows nobody's time zone or bedtime (app.web.periods).
TONIGHT = timedelta(hours=12)


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
    """Who leads: their names (several when they share the lead: the same wins), their wins."""

    names: list[str]
    wins: int


def tonight_lead(session: Session, table_id: str, preset: str, since: datetime) -> Lead | None:
    """The first place of the table's standings for `preset` since `since` (None: no winner in it yet)."""
    wins = func.sum(case((GameResult.won, 1), else_=0))  # type: ignore[arg-type]
    query = (
        select(Person.name, wins)
        .join(Person, Person.id == GameResult.person_id)  # type: ignore[arg-type]
        .where(GameResult.table_id == table_id, GameResult.preset == preset, GameResult.finished_at >= since)
        .group_by(Person.id, Person.name)
    )
    rows = [(name, int(won or 0)) for name, won in session.exec(query)]
    best = max((won for _name, won in rows), default=0)
    if best == 0:
        return None
    return Lead(sorted((name for name, won in rows if won == best), key=str.casefold), best)


def night_lead(session: Session, game: Game, over: bool) -> Lead | None:
    """Who leads tonight at the game's table in its game (preset), for its game-over banner: None, and no
    query, unless the game is over and at a table."""
    if not over or game.table_id is None:
        return None
    return tonight_lead(session, game.table_id, game.preset, utcnow() - TONIGHT)
