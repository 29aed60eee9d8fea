"""The use cases of a table: the same people playing game after game. Create one, rename it,
give it a new key; add, rename and remove the people on its roster; read it.

A table works like a game: a public id (its view link), a secret edit key stored only as a hash, a
version bumped by every change (ETag, If-Match) and Idempotency-Key replays. Its writes share one
transaction shape (`_write`, on app.db.write_transaction): the table's row locked, the key checked, a
replay answered, If-Match, the change, the version, the replay record, COMMIT. A replay record of a table keeps its answer (a
table's answer is small), compressed, where a game's keeps its inputs.

Renaming a person renames their players in every game of the table: those games change too (their
versions move on and their viewers hear of it), in the same transaction.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from typing import Any

from sqlalchemy import func, update
from sqlmodel import Session, select

from app.config import Settings
from app.db import write_transaction
from app.errors import (
    GameNotFound,
    InvalidInput,
    PersonHasGames,
    ReplayUnavailable,
)
from app.i18n import _, fill, ngettext
from app.idempotency import CREATE, ROTATE, TABLE_SCOPE_PREFIX, WRITE, Idempotency, Replays
from app.live import Broker
from app.models import CardTable, Game, Person, Player, utcnow
from app.rules.base import Problem, name_refused
from app.rules.names import clean_name, name_key, table_name_problem
from app.schemas import PersonIn, TableCreate, TableUpdate
from app.sealing import SealBroken, Sealer
from app.security import Credential, hash_key, new_edit_key, new_game_id
from app.tables.outcome import TableOutcome
from app.tables.roster import (
    MAX_PEOPLE,
    check_table_key,
    check_table_version,
    checked_name,
    join_roster,
    missing_table,
    public_table,
    roster_people,
    taken,
)

NEW_TABLE_SCOPE = "new-table"


def table_scope(table_id: str) -> str:
    """The scope of a table's replay records (a game's is its id, which can't start with "t:")."""
    return TABLE_SCOPE_PREFIX + table_id


class Tables:
    def __init__(self, session: Session, broker: Broker, settings: Settings, sealer: Sealer):
        self.session = session
        self.broker = broker
        self.settings = settings
        self.replays = Replays(session, sealer, settings.idempotency_hours, settings.rotation_replay_minutes)

    # reading

    def get(self, table_id: str) -> dict[str, Any]:
        table = self.session.get(CardTable, table_id)
        if table is None:
            raise missing_table(table_id)
        return public_table(self.session, table)

    def version(self, table_id: str) -> int | None:
        return self.session.exec(select(CardTable.version).where(CardTable.id == table_id)).first()

    def key_hash(self, table_id: str) -> str | None:
        return self.session.exec(select(CardTable.edit_key_hash).where(CardTable.id == table_id)).first()

    def existing(self, table_ids: list[str]) -> list[CardTable]:
        if not table_ids:
            return []
        return list(self.session.exec(select(CardTable).where(CardTable.id.in_(table_ids))))  # type: ignore[union-attr]

    # writing

    def create(self, data: TableCreate, idempotency: Idempotency | None = None, client: str = "") -> TableOutcome:
        """A new table, with its edit key in the outcome; its people join its roster."""
        name = clean_name(data.name)
        problems = [name_refused(reason, field="table_name")] if (reason := table_name_problem(name)) else []
        names: list[str] = []
        seen: dict[str, int] = {}
        for index, person in enumerate(data.people):
            cleaned, refused = checked_name(person.name, index=index)
            problems += refused
            if not refused and seen.setdefault(name_key(cleaned), index) != index:
                problems.append(taken(cleaned, index=index))
            names.append(cleaned)
        if problems:
            raise InvalidInput(problems)
        replays, session = self.replays, self.session
        key = mac = ""
        if idempotency:
            key = replays.lookup_key(CREATE, NEW_TABLE_SCOPE, client, idempotency)
            mac = replays.request_mac(CREATE, idempotency)

        def work() -> TableOutcome:
            if idempotency and (record := replays.find(NEW_TABLE_SCOPE, key, mac)):
                return self._replayed(record, idempotency)
            edit_key = new_edit_key()
            table = CardTable(id=new_game_id(), name=name, edit_key_hash=hash_key(edit_key))
            session.add(table)
            session.flush()
            join_roster(session, table, names)
            answer = public_table(session, table)
            if idempotency:
                self._remember(NEW_TABLE_SCOPE, key, mac, CREATE, 201, answer, table, edit_key, idempotency)
            return TableOutcome(answer, created=True, edit_key=edit_key)

        return write_transaction(session, work, again_when_taken=idempotency is not None)

    def update(self, table_id: str, credential: Credential, data: TableUpdate, **options: Any) -> TableOutcome:
        def change(table: CardTable) -> None:
            name = clean_name(data.name)
            if reason := table_name_problem(name):
                raise InvalidInput([name_refused(reason, field="table_name")])
            table.name = name

        return self._write(table_id, credential, change, **options)

    def rotate_key(self, table_id: str, credential: Credential, **options: Any) -> TableOutcome:
        """A new edit key; the old one (its links and cookies) stops working. A retry with the same
        Idempotency-Key and old key gets the new key again, for a few minutes and while nothing else
        changed the table (as a game's rotation, app.games.keeping)."""
        new_key = new_edit_key()

        def change(table: CardTable) -> None:
            table.edit_key_hash = hash_key(new_key)

        return self._write(table_id, credential, change, new_key=new_key, **options)

    def add_person(self, table_id: str, credential: Credential, data: PersonIn, **options: Any) -> TableOutcome:
        def change(table: CardTable) -> None:
            name, problems = checked_name(data.name)
            if problems:
                raise InvalidInput(problems)
            roster = roster_people(self.session, table_id)
            if (other := roster.get(name_key(name))) is not None:
                raise InvalidInput([taken(other.name)])
            if len(roster) >= MAX_PEOPLE:
                raise InvalidInput([Problem("roster_full", field="name", params={"max": MAX_PEOPLE})])
            self.session.add(Person(table_id=table_id, name=name, name_key=name_key(name)))

        return self._write(table_id, credential, change, created=True, **options)

    def rename_person(
        self, table_id: str, person_id: int, credential: Credential, data: PersonIn, **options: Any
    ) -> TableOutcome:
        changed: list[tuple[str, int]] = []

        def change(table: CardTable) -> None:
            changed.clear()  # a write run again (its connection lost before COMMIT) starts afresh
            person = self._person(table_id, person_id)
            name, problems = checked_name(data.name)
            if problems:
                raise InvalidInput(problems)
            other = roster_people(self.session, table_id).get(name_key(name))
            if other is not None and other.id != person.id:
                raise InvalidInput([taken(other.name)])
            if name == person.name:
                return
            # Their players carry the name: every game they played changes, and its viewers hear of it.
            # The games are locked before the person's row changes: a game's write holds its game and
            # then (its results' foreign keys, on PostgreSQL) share-locks the person's row, so the other
            # order could deadlock with a round saved in one of their games.
            games = self.session.exec(
                select(Game)
                .join(Player, Player.game_id == Game.id)
                .where(Player.person_id == person.id)
                .with_for_update()
            ).all()
            person.name, person.name_key = name, name_key(name)
            self.session.add(person)
            self.session.exec(update(Player).where(Player.person_id == person.id).values(name=name))  # type: ignore[arg-type]
            for game in games:
                game.version += 1
                game.updated_at = utcnow()
                self.session.add(game)
                changed.append((game.id, game.version))

        outcome = self._write(table_id, credential, change, **options)
        for game_id, version in changed if not outcome.replayed else ():
            self.broker.publish(game_id, version)
        return outcome

    def remove_person(self, table_id: str, person_id: int, credential: Credential, **options: Any) -> TableOutcome:
        def change(table: CardTable) -> None:
            person = self._person(table_id, person_id)
            played = self.session.exec(select(func.count(Player.id)).where(Player.person_id == person.id)).one()
            if played:
                raise PersonHasGames(
                    fill(
                        ngettext(
                            "{name} has played {count} game at this table, so stays on its roster.",
                            "{name} has played {count} games at this table, so stays on its roster.",
                            played,
                        ),
                        name=person.name,
                        count=played,
                    )
                )
            self.session.delete(person)

        return self._write(table_id, credential, change, **options)

    # the write transaction

    def _person(self, table_id: str, person_id: int) -> Person:
        person = self.session.get(Person, person_id)
        if person is None or person.table_id != table_id:
            raise GameNotFound(_("There is no person {id} at this table.").format(id=person_id))
        return person

    def locked(self, table_id: str) -> CardTable:
        # FOR NO KEY UPDATE on PostgreSQL: the results a game at the table writes share-lock the table's
        # key (their foreign key to it), which a plain FOR UPDATE would block: a deadlock with a rename.
        table = self.session.exec(
            select(CardTable).where(CardTable.id == table_id).with_for_update(key_share=True)
        ).first()
        if table is None:
            raise missing_table(table_id)
        return table

    def _write(
        self,
        table_id: str,
        credential: Credential,
        change: Callable[[CardTable], None],
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
        created: bool = False,
        new_key: str | None = None,
    ) -> TableOutcome:
        """One change to a table, in the write transaction every write shares (app.db.write_transaction): the
        table's row locked, the key checked, a replay answered (a rotation's looked up before the key check),
        If-Match, the change, the version, the replay record. `new_key`: the change gives the table this key."""
        replays, session = self.replays, self.session
        operation = ROTATE if new_key is not None else WRITE
        scope = table_scope(table_id)
        key = mac = ""
        if idempotency:
            bound = (credential.key or "") if operation == ROTATE else ""
            key = replays.lookup_key(operation, scope, bound, idempotency)
            mac = replays.request_mac(operation, idempotency)

        def work() -> TableOutcome:
            table = self.locked(table_id)
            if operation == ROTATE and idempotency:
                record = replays.find_rotation(scope, key, mac, table.version)
                if record is not None:
                    return self._replayed(record, idempotency)
            check_table_key(table, credential)
            if idempotency and (record := replays.find(scope, key, mac)):
                return self._replayed(record, idempotency)
            check_table_version(table, if_match)
            change(table)
            table.version += 1
            table.updated_at = utcnow()
            session.add(table)
            session.flush()
            answer = public_table(session, table)
            if idempotency:
                self._remember(scope, key, mac, operation, 201 if created else 200, answer, table, new_key, idempotency)
            return TableOutcome(answer, created=created, edit_key=new_key)

        return write_transaction(session, work)

    def _remember(
        self,
        scope: str,
        key: str,
        mac: str,
        operation: str,
        status: int,
        body: dict[str, Any],
        table: CardTable,
        edit_key: str | None,
        idempotency: Idempotency,
    ) -> None:
        blob = zlib.compress(json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode(), 9)
        self.replays.remember(
            scope,
            key,
            mac,
            operation,
            status,
            blob,
            table.version,
            edit_key=edit_key,
            idempotency=idempotency,
            game_id=table_scope(table.id),
        )

    def _replayed(self, record: Any, idempotency: Idempotency) -> TableOutcome:
        answer = json.loads(zlib.decompress(record.snapshot))
        edit_key = None
        if record.sealed_key is not None:
            try:
                edit_key = self.replays.edit_key(record, idempotency, table_scope(answer["id"]))
            except SealBroken:
                raise ReplayUnavailable(
                    _("The first answer to this Idempotency-Key can't be given back; send the request with a new key.")
                ) from None
        return TableOutcome(answer, created=record.status_code == 201, replayed=True, edit_key=edit_key)
