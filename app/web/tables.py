"""What the table pages show: a table's page (its roster, its latest games, the keeper's forms
and the share box), "Your tables" on the start page, and the start page's new-game form bound to a table
(its roster to tick). Read models over app.tables.roster's `public_table`, so the page and the API agree on who
is on the roster, how many games each played, and which games are finished and who won them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from sqlalchemy import func
from sqlmodel import Session, select

from app.i18n import join_names, pgettext
from app.models import CardTable, Game, Person, Player, utcnow
from app.security import (
    EDIT_COOKIE_PREFIX,
    TABLE_COOKIE_PREFIX,
    csrf_token,
    key_matches,
    table_cookie_key,
)
from app.tables.nights import finished_since
from app.tables.roster import missing_table, public_table
from app.urls import absolute_url, table_urls
from app.web.periods import TONIGHT, Period, read_period
from app.web.presets import preset_name
from app.web.render import is_htmx
from app.web.share import qr_code
from app.web.standings import stats_context

MAX_YOUR_TABLES = 20


@dataclass
class TableForm:
    """A keeper's form posted back: what was typed (by field) and the messages beside the fields. A
    person's fields are `person-<id>`; `open` names the person whose edit box is open (a message in it)."""

    values: dict[str, str] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    open: int | None = None


def table_keeper(request: Request, table: CardTable) -> str | None:
    """This browser's key to the table when it is the table's current one (None otherwise)."""
    key = table_cookie_key(request, table.id).key
    return key if key_matches(key, table.edit_key_hash) else None


def table_context(
    request: Request,
    session: Session,
    table_id: str,
    *,
    form: TableForm | None = None,
    share: bool = False,
    message: str | None = None,
    period: Period | None = None,
) -> dict[str, Any]:
    """The table's page: its name, its standings, head-to-head and latest awards for the period (from the
    query unless given; app.web.standings), its roster with each person's games, its latest games (linked
    to the keeper's page where this browser keeps score of one, else to the view page), and for the
    browser that holds the table's key its forms, which post to the same period (a form's answer shows
    the figures the page showed); the share box (QR codes) on the whole page only."""
    table = session.get(CardTable, table_id)
    if table is None:
        raise missing_table(table_id)
    period = period or table_period(request, session, table.id)
    body = public_table(session, table)
    key = table_keeper(request, table)
    names = {p["id"]: p["name"] for p in body["people"]}
    view_url = absolute_url(request, request.app.url_path_for("table_page", table_id=table.id))
    edit_url = table_urls(request)(table.id, key)["edit"] if key and share else None
    fragment_only = is_htmx(request)
    return {
        "table": body,
        "people": body["people"],
        "games": game_rows(request, session, body["games"], names),
        "keeper": key is not None,
        "csrf": csrf_token(key) if key else "",
        "form": form or TableForm(),
        "message": message,
        "share": share and key is not None,
        "view_url": view_url,
        "edit_url": edit_url,
        # The share box is part of the whole page, never of the htmx fragment (as a game's).
        "qr": None if fragment_only else qr_code(view_url),
        "edit_qr": qr_code(edit_url) if edit_url and not fragment_only else None,
        "new_game_url": request.app.url_path_for("start_page") + f"?table={table.id}",
    } | stats_context(request, session, table.id, period)


def table_period(request: Request, session: Session, table_id: str) -> Period:
    """The period the table's page shows: the query's, else "Tonight" on a table night (one of its games
    finished in the last 12 hours: "Tonight" then counts at least that one), else all time. Asked on every
    view, query or not, so the "All time" link of a table night says `?period=all`."""
    now = utcnow()
    night = finished_since(session, table_id, now - TONIGHT)
    return read_period(request.query_params, now, default="tonight" if night else "all")


def game_rows(
    request: Request, session: Session, games: list[dict[str, Any]], names: dict[int, str]
) -> list[dict[str, Any]]:
    """Games as the table's pages list them (the table's latest, a person's): a title (the game's name, else
    its players), the game's name for people, finished or playing, the winners, and where the link goes.
    `games` in public_table's shape; `names`: the people by id, for the winners."""
    ids = [g["id"] for g in games]
    players: dict[str, list[str]] = {game_id: [] for game_id in ids}
    if ids:
        for game_id, name in session.exec(
            select(Player.game_id, Player.name).where(Player.game_id.in_(ids)).order_by(Player.game_id, Player.seat)  # type: ignore[attr-defined]
        ):
            players[game_id].append(name)
    # The games this browser keeps score of (a valid edit cookie) open on the keeper's page.
    held = {
        gid: request.cookies[EDIT_COOKIE_PREFIX + gid] for gid in ids if EDIT_COOKIE_PREFIX + gid in request.cookies
    }
    kept = set()
    if held:
        for game_id, key_hash in session.exec(
            select(Game.id, Game.edit_key_hash).where(Game.id.in_(list(held)))  # type: ignore[union-attr]
        ):
            if key_matches(held[game_id], key_hash):
                kept.add(game_id)
    rows = []
    for g in games:
        everyone = join_names(players[g["id"]])
        finished = g["status"] == "finished"
        rows.append(
            {
                "id": g["id"],
                "title": g["name"] or everyone,
                "players": everyone,
                "game": preset_name(g["preset"]),
                "status": pgettext("game status", "finished") if finished else pgettext("game status", "playing"),
                "winners": join_names(names[p] for p in g["winners"] if p in names),
                "date": g["created_at"][:10],  # the day it started, of the API's UTC timestamp
                "url": request.app.url_path_for("keeper_page" if g["id"] in kept else "view_page", game_id=g["id"]),
            }
        )
    return rows


# --- the start page: "Your tables" and the new-game form at a table ------------------------------


def your_tables(request: Request, session: Session) -> tuple[list[dict[str, Any]], list[str]]:
    """The tables this browser keeps (from its table cookies), most recently changed first, and the ids
    of stale cookies (no such table, or a key that was replaced) for the page to clear."""
    keys = {
        name[len(TABLE_COOKIE_PREFIX) :]: value
        for name, value in request.cookies.items()
        if name.startswith(TABLE_COOKIE_PREFIX)
    }
    ids = list(keys)[:200]
    found = (
        {t.id: t for t in session.exec(select(CardTable).where(CardTable.id.in_(ids)))} if ids else {}  # type: ignore[union-attr]
    )
    stale = [tid for tid, key in keys.items() if tid not in found or not key_matches(key, found[tid].edit_key_hash)]
    mine = sorted((t for t in found.values() if t.id not in stale), key=lambda t: t.updated_at, reverse=True)
    mine = mine[:MAX_YOUR_TABLES]
    if not mine:
        return [], stale
    shown = [t.id for t in mine]
    people = dict(
        session.exec(
            select(Person.table_id, func.count(Person.id)).where(Person.table_id.in_(shown)).group_by(Person.table_id)  # type: ignore[attr-defined]
        ).all()
    )
    games = dict(
        session.exec(
            select(Game.table_id, func.count(Game.id)).where(Game.table_id.in_(shown)).group_by(Game.table_id)  # type: ignore[union-attr]
        ).all()
    )
    rows = [
        {
            "id": t.id,
            "name": t.name,
            "people": people.get(t.id, 0),
            "games": games.get(t.id, 0),
            "url": request.app.url_path_for("table_page", table_id=t.id),
        }
        for t in mine
    ]
    return rows, stale


def table_binding(request: Request, session: Session, table_id: str) -> dict[str, Any] | None:
    """The table a new game is started at, as the start page's form shows it: its name, its roster to
    tick (`plays-<id>`, with a starting score `start-p<id>`), and the CSRF token of this browser's key to
    it ("" when it holds none: the form then says so). None when there is no such table."""
    table = session.get(CardTable, table_id)
    if table is None:
        return None
    key = table_keeper(request, table)
    roster = session.exec(select(Person).where(Person.table_id == table.id).order_by(Person.id)).all()
    return {
        "id": table.id,
        "name": table.name,
        "url": request.app.url_path_for("table_page", table_id=table.id),
        "people": [{"id": p.id, "name": p.name, "field": f"plays-{p.id}", "start": f"start-p{p.id}"} for p in roster],
        "csrf": csrf_token(key) if key else "",
        "keeper": key is not None,
    }


def new_table_form(values: dict[str, str] | None = None, errors: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The start page's "New table" form (templates/_new_table_form.html): what was typed, the messages."""
    return {"values": values or {}, "errors": errors or {}}
