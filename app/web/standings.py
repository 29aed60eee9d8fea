"""What a table's page shows of its finished games: the standings per game, the head-to-head
matrix and the awards of its latest finished games, for the period picked (app.web.periods). Every
figure comes from app.tables.standings' SQL (`table_stats`, `head_to_head`); nothing here scores a game
again, except the few latest games whose awards are kept, loaded and scored as their own pages do.

The section is `templates/_table_stats.html` (`#stats`), part of the table's page and of the fragment
the period links swap in with htmx.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Any

from fastapi import Request
from sqlalchemy import func
from sqlmodel import Session, select

from app.games.views import load_views, read_snapshot
from app.i18n import join_names
from app.models import Game, GameResult, as_utc
from app.rules.presets import BLITZ_WORDS
from app.tables.standings import head_to_head, table_stats
from app.web.context import award_lines
from app.web.periods import Period, period_links
from app.web.presets import preset_name

KEPT_AWARDS = 5  # the latest finished games whose awards the page keeps: its weight stays bounded


def stats_context(request: Request, session: Session, table_id: str, period: Period) -> dict[str, Any]:
    """The standings, the head-to-head matrix and the awards kept, for the period."""
    stats = table_stats(session, table_id, period.since)
    pairs = head_to_head(session, table_id, period.since)
    path = request.app.url_path_for("table_page", table_id=table_id)
    return {
        "period": period,
        "periods": period_links(path, period),
        "period_path": path,
        "standings": [
            {
                "preset": group["preset"],
                "kind": group["kind"],
                "name": preset_name(group["preset"]),
                "people": [row | {"url": person_url(request, table_id, row["person_id"])} for row in group["people"]],
            }
            for group in stats["groups"]
        ],
        "matrix": matrix(request, table_id, pairs),
        "kept_awards": kept_awards(request, session, table_id, period.since),
    }


def person_url(request: Request, table_id: str, person_id: int) -> str:
    # Starlette looks a path up through every route; a page links each person several times (a row per
    # game, the matrix), so the table's prefix is looked up once per request and kept on it.
    prefix = getattr(request.state, "person_prefix", None)
    if prefix is None or prefix[0] != table_id:
        path = request.app.url_path_for("person_page", table_id=table_id, person_id=1)
        prefix = request.state.person_prefix = (table_id, path.removesuffix("/1"))
    return f"{prefix[1]}/{person_id}"


# --- the head-to-head matrix ----------------------------------------------------------------------------


def matrix(request: Request, table_id: str, answer: dict[str, Any]) -> dict[str, Any]:
    """Rows and columns are the people (by name); a cell says how often the row's person finished ahead of
    the column's and the other way round, None where they never finished a game together."""
    people = answer["people"]
    found = {(p["a"], p["b"]): p for p in answer["pairs"]}
    labels = short_labels([p["name"] for p in people])
    rows = []
    for row in people:
        cells: list[dict[str, Any] | None] = []
        for column in people:
            me, other = row["person_id"], column["person_id"]
            pair = found.get((min(me, other), max(me, other)))
            if me == other or pair is None:
                cells.append({"self": me == other} if me == other else None)
                continue
            mine, theirs = ("a_ahead", "b_ahead") if me == pair["a"] else ("b_ahead", "a_ahead")
            cells.append({"ahead": pair[mine], "behind": pair[theirs], "level": pair["level"], "games": pair["games"]})
        rows.append(row | {"url": person_url(request, table_id, row["person_id"]), "cells": cells})
    columns = [p | {"short": label} for p, label in zip(people, labels, strict=True)]
    return {"columns": columns, "rows": rows}


def short_labels(names: list[str]) -> list[str]:
    """A short label per name for the matrix's narrow columns: the first letter, or as many as it takes
    to tell it from the others, ignoring case ("Ana", "Ben", "Bea", "Cy" → "A", "Ben", "Bea", "C"); a
    name that is the start of another ("Ana", "Ana Maria") is itself. A letter's marks stay with it
    ("É", an emoji joined by ZWJ). The full name is beside it on the page (the rows in the same order,
    and the column's abbr title)."""
    labels = [""] * len(names)
    open_ = list(range(len(names)))
    length = 1
    while open_:
        # Told apart from every other name cut as short, and from the labels already given.
        prefixes = [_prefix(name, length) for name in names]
        keys = [_key(prefix) for prefix in prefixes]
        given = {_key(label) for label in labels if label}
        still = []
        for i in open_:
            whole = len(prefixes[i]) >= len(names[i])
            if whole or (keys.count(keys[i]) == 1 and keys[i] not in given):
                labels[i] = prefixes[i].strip()
            else:
                still.append(i)
        open_ = still
        length += 1
    return labels


def _key(text: str) -> str:
    return unicodedata.normalize("NFC", " ".join(text.split())).casefold()


def _prefix(name: str, length: int) -> str:
    """The first `length` characters of `name`, and any marks, joiners or variation selectors that
    belong to the last of them (so "é" is never cut from its accent)."""
    end = min(length, len(name))
    while end < len(name) and (
        unicodedata.combining(name[end]) or name[end] in "\u200d\ufe0f\ufe0e" or name[end - 1] == "\u200d"
    ):
        end += 1
    return name[:end]


# --- the awards kept ------------------------------------------------------------------------------------


def kept_awards(
    request: Request, session: Session, table_id: str, since: datetime | None, limit: int = KEPT_AWARDS
) -> list[dict[str, Any]]:
    """The awards of the table's latest finished games in the period (at most `limit`), newest first,
    each under its game: loaded once (app.games.views.load_views) and given to app.rules.awards as the banner does."""
    read_snapshot(session)  # the games' results, rows and rounds: one version of each game
    finished = func.max(GameResult.finished_at).label("finished")
    query = select(GameResult.game_id, finished).where(GameResult.table_id == table_id)
    if since is not None:
        query = query.where(GameResult.finished_at >= since)
    latest = session.exec(
        query.group_by(GameResult.game_id).order_by(finished.desc(), GameResult.game_id.desc()).limit(limit)  # type: ignore[attr-defined]
    ).all()
    if not latest:
        return []
    games = {g.id: g for g in session.exec(select(Game).where(Game.id.in_([gid for gid, _ in latest])))}  # type: ignore[attr-defined]
    views = {view.game.id: view for view in load_views(session, list(games.values()))}
    kept = []
    for game_id, at in latest:
        view = views[game_id]
        names = view.player_names()
        everyone = join_names(p.name for p in view.players)
        preset = view.rules.preset
        kept.append(
            {
                "id": game_id,
                "title": view.game.name or everyone,
                "players": everyone,
                "game": preset_name(preset),
                "date": as_utc(at).date().isoformat(),
                "winners": join_names(names[pid] for pid in view.state.winners),
                "url": request.app.url_path_for("view_page", game_id=game_id),
                # What _award_list.html words them by, as on the game's own banner.
                "kind": view.rules.kind.value,
                "preset": preset,
                "blitz_words": preset in BLITZ_WORDS,
                "awards": award_lines(view),
            }
        )
    return kept
