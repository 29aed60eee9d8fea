"""Backups you can hold: a table, or one game, as one JSON document (its shape:
app.backup.answers), and a new table or game made from one.

An export holds everything a game needs to be itself again (its name, rules, times, players and each
round as entered) and nothing that is only the server's: no ids but the exported thing's own at the
top, no keys, no version, no correction log, no replay records, no running round's start (a countdown
restored days later means nothing). People are referred to by their place in the roster, players by
their place at the table. It is built in a fixed order by hand, so the same data is always the same
bytes: export, import and export again, and the two differ only in that top-level id.

An import reads the document and its counts first (`read_game`, `read_table`: cheap, so the route
can refuse or count its games before the rest), then checks the whole of it (app.backup.check) and
writes nothing unless all of it is right; then everything in one write transaction, with new ids and
keys, the document's timestamps, version 1, and each game's result rows at a table
(app.games.results), as if it had been played here. A table's games are written in batches of about
WRITE_BATCH_SCORES scores (one transaction still), so the rows built for the INSERTs stay small
whatever the table's size.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from app.backup.answers import FORMAT_VERSION, GAME_FORMAT, TABLE_FORMAT
from app.backup.check import check_game, check_table
from app.backup.outline import Draft, outline
from app.backup.writes import NewGame, inserted, prepare, write_games
from app.config import Settings
from app.db import write_transaction
from app.errors import ReplayUnavailable
from app.games.views import (
    GameView,
    load_view,
    load_views,
    missing_game,
    read_snapshot,
    rule_players,
    scored_view,
)
from app.games.writes import Outcome
from app.i18n import _
from app.idempotency import (
    CREATE,
    IMPORT_GAME_SCOPE,
    IMPORT_TABLE_SCOPE,
    Idempotency,
    Record,
    Replays,
    restore,
    restored_piles,
    snapshot,
)
from app.models import CardTable, Game, Person, Round, as_utc
from app.rules import scoring
from app.rules.names import name_key
from app.rules.timing import RoundTime
from app.sealing import SealBroken, Sealer
from app.security import hash_key, new_edit_key, new_game_id
from app.tables.outcome import TableOutcome
from app.tables.roster import missing_table, public_table
from app.tables.usecases import table_scope

# The replay records of imports: scopes of their own, as their sealed keys are not a creation's.
NO_TIME = RoundTime()
WRITE_BATCH_SCORES = 20_000


# --- export ---------------------------------------------------------------------------------------


def _moment(moment: datetime) -> str:
    return as_utc(moment).isoformat().replace("+00:00", "Z")


def _maybe_moment(moment: datetime | None) -> str | None:
    return None if moment is None else _moment(moment)


def export_game(session: Session, game_id: str) -> dict[str, Any]:
    """One game as a document (`"format": "blitzboard-game"`). A game at a table exports as a game of
    its own: its players' names, not the people they are."""
    read_snapshot(session)  # every query sees the database as the first did: a save meanwhile is in all or none
    game = session.get(Game, game_id)
    if game is None:
        raise missing_game(session, game_id)
    view = load_view(session, game)
    saved = dict(session.exec(select(Round.id, Round.created_at).where(Round.game_id == game_id)).all())
    return {"format": GAME_FORMAT, "format_version": FORMAT_VERSION, "id": game.id, **_game(view, saved)}


def export_table(session: Session, table_id: str) -> dict[str, Any]:
    """A table as a document (`"format": "blitzboard-table"`): its roster and every game played at it."""
    read_snapshot(session)  # every query sees the database as the first did: a save meanwhile is in all or none
    table = session.get(CardTable, table_id)
    if table is None:
        raise missing_table(table_id)
    people = session.exec(select(Person).where(Person.table_id == table_id).order_by(Person.id)).all()  # type: ignore[arg-type]
    # In the order they were created; equal moments by id, in Python, whose order every database shares.
    games = sorted(
        session.exec(select(Game).where(Game.table_id == table_id)).all(), key=lambda g: (as_utc(g.created_at), g.id)
    )
    saved = dict(
        session.exec(
            select(Round.id, Round.created_at).join(Game, Game.id == Round.game_id).where(Game.table_id == table_id)  # type: ignore[arg-type]
        ).all()
    )
    place = {person.id: index for index, person in enumerate(people)}
    return {
        "format": TABLE_FORMAT,
        "format_version": FORMAT_VERSION,
        "id": table.id,
        "name": table.name,
        "created_at": _moment(table.created_at),
        "updated_at": _moment(table.updated_at),
        "people": [{"name": p.name, "created_at": _moment(p.created_at)} for p in people],
        "games": [_game(view, saved, place) for view in (load_views(session, games) if games else [])],
    }


def _game(view: GameView, saved: dict[int, datetime], place: dict[int | None, int] | None = None) -> dict[str, Any]:
    """A game's part of a document; `saved`: each round's created_at by id; `place`: at a table, each
    person's place in the roster."""
    game = view.game
    seat = {p.id: index for index, p in enumerate(view.players)}
    players = [{"name": p.name, "starting_score": p.starting_score} for p in view.players]
    for player, standing in zip(players, rule_players(view.players, view.round_ids), strict=True):
        if standing.left_after is not None:  # only a leaver's: every other document as it always was
            player["left_after_round"] = standing.left_after
        if standing.joined_after is not None:  # only a latecomer's
            player["joined_after_round"] = standing.joined_after
    if place is not None:
        players = [player | {"person": place[p.person_id]} for player, p in zip(players, view.players, strict=True)]
    cards = view.rules.kind == scoring.Kind.CARDS
    rounds = []
    for round_id, scored in zip(view.round_ids, view.state.rounds, strict=True):
        time = view.times.get(round_id, NO_TIME)
        if cards:
            scores = [{"player": seat[s.player_id], "dutch": s.dutch, "blitz": s.blitz} for s in scored.scores]
        else:  # `lives`: only the players still in, as stored
            scores = [{"player": seat[s.player_id], "hand": s.hand, "called": s.called} for s in scored.scores]
        entry = {
            "created_at": _moment(saved[round_id]),
            "started_at": _maybe_moment(time.started_at),
            "duration_s": time.duration_s,
        }
        if cards:  # the centre piles as counted ("Check the piles"); only the card games have them
            entry["piles"] = view.piles.get(round_id)
        rounds.append(entry | {"scores": scores})
    return {
        "name": game.name,
        "created_at": _moment(game.created_at),
        "updated_at": _moment(game.updated_at),
        "rules": scoring.public_rules(view.rules),
        "players": players,
        "rounds": rounds,
        "seats": {"save_round": game.seats_save_round, "on_view": game.seats_on_view},
    }


# --- import ---------------------------------------------------------------------------------------


class Backups:
    """Export and import (the use cases): an import is one write transaction, like a game's creation,
    and a retry with its Idempotency-Key (from the same client) gets the first answer, keys included."""

    def __init__(self, session: Session, settings: Settings, sealer: Sealer):
        self.session = session
        self.settings = settings
        self.replays = Replays(session, sealer, settings.idempotency_hours, settings.rotation_replay_minutes)

    def export_game(self, game_id: str) -> dict[str, Any]:
        return export_game(self.session, game_id)

    def export_table(self, table_id: str) -> dict[str, Any]:
        return export_table(self.session, table_id)

    def read_game(self, body: bytes) -> Draft:
        """A game's document parsed and its rounds counted (app.backup.outline.outline)."""
        return outline(body, GAME_FORMAT, self.settings.max_rounds_per_game)

    def read_table(self, body: bytes) -> Draft:
        """A table's document parsed and its games and rounds counted (app.backup.outline.outline)."""
        return outline(body, TABLE_FORMAT, self.settings.max_rounds_per_game)

    def import_game(self, draft: Draft, idempotency: Idempotency | None = None, client: str = "") -> Outcome:
        """A new game of its own from a game's document (`read_game`), with its edit key in the outcome."""
        [new] = prepare([check_game(draft)])
        replays, session = self.replays, self.session
        record_key, mac = self._keys(IMPORT_GAME_SCOPE, idempotency, client)

        def work() -> Outcome:
            if idempotency and (record := replays.find(IMPORT_GAME_SCOPE, record_key, mac)):
                return self._replayed_game(record, idempotency)
            [view] = write_games(session, [new])
            game, edit_key = view.game, new.edit_key
            if idempotency:
                times = [view.times.get(round_id, NO_TIME) for round_id in view.round_ids]
                seats = rule_players(view.players, view.round_ids)
                blob = snapshot(
                    game,
                    view.players,
                    [scores for _, scores in view.played()],
                    times,
                    [p.left_after for p in seats],
                    [p.joined_after for p in seats],
                    [view.piles.get(round_id) for round_id in view.round_ids],
                )
                replays.remember(
                    IMPORT_GAME_SCOPE, record_key, mac, CREATE, 201, blob, game.version,
                    edit_key=edit_key, idempotency=idempotency, game_id=game.id,
                )  # fmt: skip
            return Outcome(view, created=True, edit_key=edit_key)

        return write_transaction(session, work, again_when_taken=idempotency is not None)

    def import_table(self, draft: Draft, idempotency: Idempotency | None = None, client: str = "") -> TableOutcome:
        """A new table from a table's document (`read_table`), with its edit key and each game's new id and
        own key (in the document's order) in the outcome."""
        checked = check_table(draft)
        table_id = new_game_id()
        games = prepare(checked.games, table_id)
        replays, session = self.replays, self.session
        record_key, mac = self._keys(IMPORT_TABLE_SCOPE, idempotency, client)

        def work() -> TableOutcome:
            if idempotency and (record := replays.find(IMPORT_TABLE_SCOPE, record_key, mac)):
                return self._replayed_table(record, idempotency)
            table_key = new_edit_key()
            table = CardTable(
                id=table_id,
                name=checked.name,
                edit_key_hash=hash_key(table_key),
                created_at=checked.created_at,
                updated_at=checked.updated_at,
            )
            session.add(table)
            session.flush()
            person_ids = inserted(
                session,
                Person,
                [
                    {"table_id": table.id, "name": name, "name_key": name_key(name), "created_at": joined}
                    for name, joined in checked.people
                ],
            )
            for batch in _batches(games):
                write_games(session, batch, person_ids)
            answer = public_table(session, table)
            game_keys = tuple((new.game.id, new.edit_key) for new in games)
            if idempotency:
                # Every key sealed together: a replay gives back the whole first answer or nothing.
                blob = zlib.compress(_json(answer | {"game_ids": [i for i, _ in game_keys]}).encode(), 9)
                sealed = _json({"table": table_key, "games": [k for _, k in game_keys]})
                replays.remember(
                    IMPORT_TABLE_SCOPE, record_key, mac, CREATE, 201, blob, table.version,
                    edit_key=sealed, idempotency=idempotency, game_id=table_scope(table.id),
                )  # fmt: skip
            return TableOutcome(answer, created=True, edit_key=table_key, game_keys=game_keys)

        return write_transaction(session, work, again_when_taken=idempotency is not None)

    # replays

    def _keys(self, scope: str, idempotency: Idempotency | None, client: str) -> tuple[str, str]:
        """The replay record's key (bound to the client, as a creation's) and the request's fingerprint."""
        if not idempotency:
            return "", ""
        return (
            self.replays.lookup_key(CREATE, scope, client, idempotency),
            self.replays.request_mac(CREATE, idempotency),
        )

    def _sealed(self, record: Record, idempotency: Idempotency, scope_id: str) -> str:
        try:
            return self.replays.edit_key(record, idempotency, scope_id)
        except SealBroken:
            raise ReplayUnavailable(
                _("The first answer to this Idempotency-Key can't be given back; send the request with a new key.")
            ) from None

    def _replayed_game(self, record: Record, idempotency: Idempotency) -> Outcome:
        game, players, played, times = restore(record.snapshot)
        edit_key = self._sealed(record, idempotency, game.id)
        view = scored_view(game, players, played, times, restored_piles(record.snapshot))
        return Outcome(view, created=True, replayed=True, edit_key=edit_key)

    def _replayed_table(self, record: Record, idempotency: Idempotency) -> TableOutcome:
        answer = json.loads(zlib.decompress(record.snapshot))
        game_ids = answer.pop("game_ids")
        # A game deleted since (or pruned) is gone with its key: the first answer can't be given again.
        if len(self.session.exec(select(Game.id).where(Game.id.in_(game_ids))).all()) != len(game_ids):  # type: ignore[attr-defined]
            raise ReplayUnavailable(
                _("The first answer to this Idempotency-Key can't be given back; send the request with a new key.")
            )
        keys = json.loads(self._sealed(record, idempotency, table_scope(answer["id"])))
        game_keys = tuple(zip(game_ids, keys["games"], strict=True))
        return TableOutcome(answer, created=True, replayed=True, edit_key=keys["table"], game_keys=game_keys)


def _batches(games: list[NewGame]) -> Iterator[list[NewGame]]:
    """The games in order, a batch at a time: whole games, about WRITE_BATCH_SCORES scores a batch."""
    batch: list[NewGame] = []
    scores = 0
    for new in games:
        batch.append(new)
        scores += sum(len(r.scores) for r in new.checked.rounds)
        if scores >= WRITE_BATCH_SCORES:
            yield batch
            batch, scores = [], 0
    if batch:
        yield batch


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
