"""A person's page at a table (`/t/{id}/p/{person_id}`): their figures per game and their row of
the head-to-head (from app.tables.standings, the table page's own answers narrowed to them), their games at
the table, and a chart of their results over time (app.web.results_chart) for the period picked.

The chart reads each finished game's result row (`game_result`: total, place, won), the newest
MAX_GAMES per game, with one windowed query; nothing is scored again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import Request
from sqlalchemy import and_, func
from sqlmodel import Session, select

from app.errors import GameNotFound
from app.i18n import _
from app.models import CardTable, Game, GameResult, Person, Player, as_utc
from app.rules.presets import BLITZ_WORDS, PRESETS
from app.tables.roster import missing_table
from app.tables.standings import head_to_head, table_stats
from app.web.periods import Period, period_links
from app.web.presets import preset_name
from app.web.results_chart import MAX_GAMES, build_results_chart
from app.web.standings import person_url
from app.web.tables import game_rows

THEIR_GAMES = 20  # the newest games listed on their page
_ORDER = {preset: index for index, preset in enumerate(PRESETS)}


def person_context(request: Request, session: Session, table_id: str, person_id: int, period: Period) -> dict[str, Any]:
    table = session.get(CardTable, table_id)
    if table is None:
        raise missing_table(table_id)
    person = session.get(Person, person_id)
    if person is None or person.table_id != table_id:  # someone of another table is nobody here
        raise GameNotFound(_("There is nobody with the id {id} at this table.").format(id=person_id))
    path = request.app.url_path_for("person_page", table_id=table_id, person_id=person_id)
    games, count = their_games(request, session, table_id, person_id)
    return {
        "table": {"id": table.id, "name": table.name},
        "table_url": request.app.url_path_for("table_page", table_id=table_id),
        "person": {"id": person.id, "name": person.name},
        "period": period,
        "periods": period_links(path, period),
        "period_path": path,
        "figures": figures(session, table_id, person_id, period.since),
        "opponents": opponents(request, session, table_id, person_id, period.since),
        "games": games,
        "games_count": count,
        "charts": charts(request, session, table_id, person_id, period.since),
    }


def figures(session: Session, table_id: str, person_id: int, since: datetime | None) -> list[dict[str, Any]]:
    """Their row of each game's standings (app.tables.standings.table_stats), with the game's name."""
    return [
        {
            "preset": group["preset"],
            "kind": group["kind"],
            "name": preset_name(group["preset"]),
            "blitz_words": group["preset"] in BLITZ_WORDS,  # "Blitz calls", or the game's own word
            "row": row,
        }
        for group in table_stats(session, table_id, since)["groups"]
        for row in group["people"]
        if row["person_id"] == person_id
    ]


def opponents(
    request: Request, session: Session, table_id: str, person_id: int, since: datetime | None
) -> list[dict[str, Any]]:
    """Their row of the head-to-head: everyone they finished a game with, by name, and how often each
    finished ahead."""
    answer = head_to_head(session, table_id, since)
    names = {p["person_id"]: p["name"] for p in answer["people"]}
    order = {p["person_id"]: index for index, p in enumerate(answer["people"])}
    rows = []
    for pair in answer["pairs"]:
        if person_id not in (pair["a"], pair["b"]):
            continue
        mine = pair["a"] == person_id
        other = pair["b"] if mine else pair["a"]
        rows.append(
            {
                "person_id": other,
                "name": names[other],
                "url": person_url(request, table_id, other),
                "games": pair["games"],
                "ahead": pair["a_ahead"] if mine else pair["b_ahead"],
                "behind": pair["b_ahead"] if mine else pair["a_ahead"],
                "level": pair["level"],
            }
        )
    return sorted(rows, key=lambda r: order[r["person_id"]])


def their_games(request: Request, session: Session, table_id: str, person_id: int) -> tuple[list[dict[str, Any]], int]:
    """Their newest games at the table (THEIR_GAMES, playing ones too) as the table's page lists games,
    each with how they finished; and how many games they have played there."""
    rows = session.exec(
        select(Game, GameResult.place, GameResult.won)
        .join(Player, and_(Player.game_id == Game.id, Player.person_id == person_id))  # type: ignore[arg-type]
        .outerjoin(GameResult, and_(GameResult.game_id == Game.id, GameResult.player_id == Player.id))  # type: ignore[arg-type]
        .where(Game.table_id == table_id)
        .order_by(Game.created_at.desc(), Game.id)  # type: ignore[attr-defined]
        .limit(THEIR_GAMES)
    ).all()
    count = session.exec(
        select(func.count(Player.id))
        .join(Game, Game.id == Player.game_id)
        .where(  # type: ignore[arg-type]
            Game.table_id == table_id, Player.person_id == person_id
        )
    ).one()
    ids = [game.id for game, _place, _won in rows]
    winners: dict[str, list[int]] = {game_id: [] for game_id in ids}
    names: dict[int, str] = {}
    if ids:
        for game_id, winner, name in session.exec(
            select(GameResult.game_id, GameResult.person_id, Person.name)
            .join(Person, Person.id == GameResult.person_id)  # type: ignore[arg-type]
            .where(GameResult.game_id.in_(ids), GameResult.won)  # type: ignore[attr-defined]
            .order_by(GameResult.player_id)
        ):
            winners[game_id].append(winner)
            names[winner] = name
    public = [
        {
            "id": game.id,
            "name": game.name,
            "preset": game.preset,
            "created_at": as_utc(game.created_at).isoformat(),
            "status": "finished" if place is not None else "playing",
            "winners": winners[game.id],
        }
        for game, place, _won in rows
    ]
    listed = game_rows(request, session, public, names)
    for row, (_game, place, won) in zip(listed, rows, strict=True):
        row |= {"place": place, "won": bool(won)}
    return listed, int(count)


def charts(
    request: Request, session: Session, table_id: str, person_id: int, since: datetime | None
) -> list[dict[str, Any]]:
    """Per game (preset): their newest MAX_GAMES finished games, oldest first, as a chart and as a list."""
    newest = func.row_number().over(
        partition_by=GameResult.preset,
        order_by=(GameResult.finished_at.desc(), GameResult.game_id.desc()),  # type: ignore[attr-defined]
    )
    picked = select(
        GameResult.game_id,
        GameResult.preset,
        GameResult.kind,
        GameResult.finished_at,
        GameResult.total,
        GameResult.place,
        GameResult.won,
        newest.label("newest"),
    ).where(GameResult.table_id == table_id, GameResult.person_id == person_id)
    if since is not None:
        picked = picked.where(GameResult.finished_at >= since)
    sub = picked.subquery()
    rows = session.exec(
        select(sub.c.game_id, sub.c.preset, sub.c.kind, sub.c.finished_at, sub.c.total, sub.c.place, sub.c.won)
        .where(sub.c.newest <= MAX_GAMES)
        .order_by(sub.c.preset, sub.c.finished_at, sub.c.game_id)
    ).all()
    by_preset: dict[str, list[Any]] = {}
    for row in rows:
        by_preset.setdefault(row.preset, []).append(row)
    found = []
    for preset in sorted(by_preset, key=lambda p: (_ORDER.get(p, len(_ORDER)), p)):
        games = by_preset[preset]
        places = games[0].kind == "lives"  # 31's totals are lives left: its chart shows places
        values = [g.place if places else g.total for g in games]
        found.append(
            {
                "preset": preset,
                "kind": games[0].kind,
                "name": preset_name(preset),
                "places": places,
                "chart": build_results_chart(values, [bool(g.won) for g in games], places=places),
                "games": [
                    {
                        "date": as_utc(g.finished_at).date().isoformat(),
                        "total": g.total,
                        "place": g.place,
                        "won": bool(g.won),
                        "url": request.app.url_path_for("view_page", game_id=g.game_id),
                    }
                    for g in games
                ],
            }
        )
    return found
