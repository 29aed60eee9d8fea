"""Who sits at a table, and the table as the API shows it (`public_table`, `table_etag`):
its roster's people, the checks of a table's key, version and names, and what a new game at a table needs: the table locked and its key checked (`table_for_game`), each
player's person, newcomers joining the roster (`join_roster`), and a rematch's right to start there
with its own game's key (`RematchOf`). The table's own use cases are in app.tables.usecases.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from app.errors import GameNotFound, InvalidInput, KeyMissing, KeyWrong, VersionMismatch
from app.i18n import _
from app.models import CardTable, Game, GameResult, Person, Player, as_utc, utcnow
from app.preconditions import etag_matches
from app.rules.base import Problem, name_refused
from app.rules.names import clean_name, name_key, name_problem
from app.security import Credential, key_matches

MAX_PEOPLE = 200  # a club's roster; the API's model says the same of a new table's list
RECENT_GAMES = 20  # the games a table's answer lists (newest first); the rest are in its export


def missing_table(table_id: str) -> GameNotFound:
    return GameNotFound(_("There is no table with the id {id}.").format(id=table_id))


def check_table_key(table: CardTable, credential: Credential) -> None:
    if not credential.key:
        raise KeyMissing(_("Changing a table needs its edit key (Authorization: Bearer <table's edit key>)."))
    if not key_matches(credential.key, table.edit_key_hash):
        raise KeyWrong(_("That is not this table's edit key."))


def table_etag(body: dict[str, Any]) -> str:
    """A table answer's ETag: `"<version>.<digest>"`. The version is what If-Match checks; the digest of
    the answer (its keys and links left out) moves when a game at the table finishes, is renamed or
    deleted, which the table's version does not count (a game's write never locks its table), so
    If-None-Match never gets a 304 for an answer that changed."""
    shown = {name: value for name, value in body.items() if name not in ("edit_key", "urls", "game_keys")}
    digest = hashlib.sha256(json.dumps(shown, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]
    return f'"{body["version"]}.{digest}"'


def _versions(if_match: str) -> str:
    """An If-Match header with each table ETag cut to its version (`"3.ab12"` → `"3"`)."""
    tags = []
    for tag in if_match.split(","):
        tag = tag.strip().removeprefix("W/")
        tags.append(tag if tag == "*" else '"' + tag.strip('"').split(".", 1)[0] + '"')
    return ",".join(tags)


def check_table_version(table: CardTable, if_match: str | None) -> None:
    """412 unless If-Match names the table's version (`"<version>"`, or an ETag `"<version>.<digest>"`)."""
    if if_match is not None and not etag_matches(_versions(if_match), table.version):
        raise VersionMismatch(
            _("The table is at version {version}, not {if_match}: load it again and retry.").format(
                version=table.version, if_match=if_match
            )
        )


def checked_name(name: str, field: str = "name", **where: Any) -> tuple[str, list[Problem]]:
    """A person's name as stored, and why it is refused (if it is)."""
    cleaned = clean_name(name)
    reason = name_problem(cleaned)
    return cleaned, [name_refused(reason, field=field, **where)] if reason else []


def taken(name: str, **where: Any) -> Problem:
    return Problem("person_taken", field="name", params={"name": name}, **where)


@dataclass(frozen=True, slots=True)
class RematchOf:
    """A rematch's right to start a game at its table: the game it follows and that game's key. Its
    scorekeeper may not hold the table's key, and needs none to play again with exactly the same people
    (`same_people`): who plays at the table does not change, so the roster does not either."""

    game_id: str
    credential: Credential


def roster_people(session: Session, table_id: str) -> dict[str, Person]:
    """The table's people by the key their name is compared by."""
    return {p.name_key: p for p in session.exec(select(Person).where(Person.table_id == table_id))}


def join_roster(
    session: Session, table: CardTable, names: list[str], rematch_of: RematchOf | None = None
) -> list[Person]:
    """The person of each (cleaned, checked) name, in order: the roster's, or a new one who joins it.
    A rematch's (`rematch_of`) are the people of the game it follows, in their seats, or it is refused."""
    roster = roster_people(session, table.id)
    people = []
    for name in names:
        person = roster.get(name_key(name))
        if person is None:
            if len(roster) >= MAX_PEOPLE:
                raise InvalidInput([Problem("roster_full", field="players", params={"max": MAX_PEOPLE})])
            person = Person(table_id=table.id, name=name, name_key=name_key(name))
            session.add(person)
            roster[person.name_key] = person
        people.append(person)
    session.flush()
    if rematch_of is not None:
        same_people(session, rematch_of, people)
    return people


def table_for_game(
    session: Session, table_id: str, credential: Credential | None, rematch_of: RematchOf | None = None
) -> CardTable:
    """The table a new game is played at: locked, its key checked, its version moved on (its games changed).
    A rematch (`rematch_of`) may show its game's key instead, when that game was played at this table."""
    # FOR NO KEY UPDATE (PostgreSQL), as Tables.locked: a game's results only share-lock the table's key.
    table = session.exec(select(CardTable).where(CardTable.id == table_id).with_for_update(key_share=True)).first()
    if table is None:
        raise InvalidInput([Problem("table_unknown", field="table_id")])
    if rematch_of is None or key_matches((credential or Credential(None)).key, table.edit_key_hash):
        check_table_key(table, credential or Credential(None))
    else:
        game = session.exec(select(Game.table_id, Game.edit_key_hash).where(Game.id == rematch_of.game_id)).first()
        if game is None or game[0] != table.id or not key_matches(rematch_of.credential.key, game[1]):
            check_table_key(table, credential or Credential(None))  # neither key: refused as any game would be
    table.version += 1
    table.updated_at = utcnow()
    session.add(table)
    return table


def same_people(session: Session, rematch_of: RematchOf, people: list[Person]) -> None:
    """A rematch is played by the people of the game it follows, in their seats: nobody new joins the
    roster through it (which the table's key alone may do)."""
    before = session.exec(
        select(Player.person_id).where(Player.game_id == rematch_of.game_id).order_by(Player.seat)
    ).all()
    if list(before) != [p.id for p in people]:
        raise KeyWrong(_("A rematch is played by the same people as its game: start a new game at the table instead."))


def _timestamp(moment: Any) -> str:
    return as_utc(moment).isoformat().replace("+00:00", "Z")


def public_table(session: Session, table: CardTable) -> dict[str, Any]:
    """The table as the API answers it: its roster (with each person's games) and its latest games."""
    people = session.exec(select(Person).where(Person.table_id == table.id).order_by(Person.id)).all()
    counts = dict(
        session.exec(
            select(Player.person_id, func.count(Player.id))
            .join(Game, Game.id == Player.game_id)
            .where(Game.table_id == table.id, Player.person_id.is_not(None))  # type: ignore[union-attr]
            .group_by(Player.person_id)
        ).all()
    )
    games = session.exec(
        select(Game).where(Game.table_id == table.id).order_by(Game.created_at.desc(), Game.id).limit(RECENT_GAMES)  # type: ignore[attr-defined]
    ).all()
    winners: dict[str, list[int]] = {game.id: [] for game in games}
    finished: set[str] = set()
    if games:
        for game_id, person_id, won in session.exec(
            select(GameResult.game_id, GameResult.person_id, GameResult.won)
            .where(GameResult.game_id.in_(list(winners)))  # type: ignore[attr-defined]
            .order_by(GameResult.place, GameResult.player_id)
        ):
            finished.add(game_id)
            if won:
                winners[game_id].append(person_id)
    total = session.exec(select(func.count(Game.id)).where(Game.table_id == table.id)).one()
    return {
        "id": table.id,
        "name": table.name,
        "version": table.version,
        "created_at": _timestamp(table.created_at),
        "updated_at": _timestamp(table.updated_at),
        "people": [{"id": p.id, "name": p.name, "games": counts.get(p.id, 0)} for p in people],
        "games_count": total,
        "games": [
            {
                "id": g.id,
                "name": g.name,
                "kind": g.kind,
                "preset": g.preset,
                "created_at": _timestamp(g.created_at),
                "status": "finished" if g.id in finished else "playing",
                "winners": winners[g.id],
            }
            for g in games
        ],
    }
