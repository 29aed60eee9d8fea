"""The write transaction every change to a game shares, and what a write answers.

One transaction per change: the write lock (BEGIN IMMEDIATE on SQLite, the game's row lock on
PostgreSQL), the edit key checked, a repeated Idempotency-Key answered again (the game as it now
stands, app.idempotency; a key rotation's replay looked up before the key check), If-Match checked, the change (asked of
app.rules.scoring by the use case), the version bumped, the replay record kept, COMMIT, and only then
"game X is at version N" published (on PostgreSQL the other processes hear it by a NOTIFY sent after
the COMMIT: app.live_pg). Run once more when the connection drops before COMMIT.

Every row goes by Core statements built once (module level), on the write's connection: never the
ORM's unit of work, whose flush works out again on every save what changed and how to write it. The
game's row is read with its lock, detached from the session, changed by the use case and written
back by one UPDATE of what changed. The game before the change comes from app.games.viewcache when it holds
the version just locked (the rows of that version, as every change moves the version on), else from
the database.

Just past 400 lines (about 415), on purpose: the transaction and the Core statements it runs belong
together (the statements are built once, here, for it); what a change means lives in the use cases.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, select

from app.config import Settings
from app.db import write_transaction
from app.errors import GameError, KeyMissing, KeyWrong, ReplayUnavailable, VersionMismatch
from app.games.results import record_results
from app.games.viewcache import ViewCache
from app.games.views import GameView, load_view, missing_game, scored_view
from app.i18n import _
from app.idempotency import (
    NOTHING_MADE,
    ROTATE,
    WRITE,
    Idempotency,
    Made,
    Record,
    Replays,
    reference,
    referenced,
    restore,
)
from app.live import Broker
from app.models import DraftRow, Game, Round, RoundScore, Seat, utcnow
from app.preconditions import etag_matches
from app.rules import scoring
from app.rules.scoring import Played
from app.rules.timing import RoundTime, epoch_ms
from app.schemas import RoundIn
from app.sealing import SealBroken, Sealer
from app.security import Credential, key_matches

log = logging.getLogger("blitzboard.games")

# The write's statements, built once: plain Core on the write's connection, never the ORM's unit of
# work (whose flush works out again, on every save, what changed and how to write it).
GAME_TABLE = Game.__table__  # type: ignore[attr-defined]
GAME_COLUMNS = tuple(column.key for column in GAME_TABLE.columns if column.key != "id")
GAME_UPDATE = GAME_TABLE.update().where(GAME_TABLE.c.id == bindparam("game_key"))  # SET: the columns changed
ROUNDS = Round.__table__  # type: ignore[attr-defined]
SCORES = RoundScore.__table__  # type: ignore[attr-defined]
ROUND_INSERT = ROUNDS.insert()
ROUND_TIME_UPDATE = ROUNDS.update().where(ROUNDS.c.id == bindparam("round_key"))
ROUND_DELETE = ROUNDS.delete().where(ROUNDS.c.id == bindparam("round_key"))
SCORE_INSERT = SCORES.insert()
SCORES_DELETE = SCORES.delete().where(SCORES.c.round_id == bindparam("round_key"))
# The round's field that names who called Dutch or knocked, by kind (`cards` has none).
CALLER_FIELD = {scoring.Kind.LOWEST: "caller", scoring.Kind.LIVES: "knocker"}
LOCK_GAME = (  # built once; read afresh even when the session read the game earlier in the request
    select(Game).where(Game.id == bindparam("game_id")).with_for_update().execution_options(populate_existing=True)
)

# What a game that finishes takes with it: its players' seats and the round's draft (app.games.seats).
CLOSED_WITH_THE_GAME = (Seat.__table__, DraftRow.__table__)  # type: ignore[attr-defined]


DRAFT_ROWS = DraftRow.__table__  # type: ignore[attr-defined]


def renumber_draft(session: Session, game_id: str, was: int, now: int) -> None:
    """A round deleted or put back before the round being played: the rows its players sent are still the
    rows of the same deal, which the game now numbers `now` (it was `was`); rows of any other number are
    stale and go, so none comes back as a later round's."""
    connection = session.connection()
    of_game = DRAFT_ROWS.c.game_id == game_id
    connection.execute(DRAFT_ROWS.delete().where(of_game, DRAFT_ROWS.c.round_number != was))
    connection.execute(DRAFT_ROWS.update().where(of_game).values(round_number=now))


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a write did, in the game's terms: the API route turns it into JSON (app.games.views.to_public),
    the pages read its fields."""

    view: GameView  # the game as the write left it (a replay of a write: as it now stands, app.idempotency)
    created: bool = False  # it made something new: a game, a round (the API answers 201)
    replayed: bool = False  # the first answer to this Idempotency-Key, again: nothing changed now
    edit_key: str | None = None  # a new edit key (a creation, a rotation, a handover): shown only here
    made: Made = NOTHING_MADE  # the round it added, the start it set (a replay's too, wherever the game is now)
    unchanged: bool = False  # the change found nothing to do (`Unchanged`): no version, no log, nobody told

    @property
    def version(self) -> int:
        return self.view.game.version

    @property
    def game_id(self) -> str:
        return self.view.game.id

    @property
    def current(self) -> GameView | None:
        """The game as it stands now, for a page to show (None for a replay: the game may have moved on)."""
        return None if self.replayed else self.view


class Unchanged(Exception):
    """Raised by a change that finds the game already as it asks (a player renamed to the name they have):
    the write answers the game as it stands and writes nothing, so no viewer's page or waiting round goes
    stale for a tap that changed nothing."""


@dataclass(frozen=True, slots=True)
class Guard:
    """Who may make a change: the holder of the edit key (`Guard.key`), or of a handover link (app.games.keeping).
    `binding`: what a rotation's replay is bound to, since its retry still presents what the first request did."""

    check: Callable[[Game], None]  # raises when the request may not change this game
    binding: str

    @classmethod
    def key(cls, credential: Credential) -> Guard:
        return cls(lambda game: check_key(game, credential), credential.key or "")


@dataclass(frozen=True, slots=True)
class Replay:
    """An Idempotency-Key's part in a write: the record it is kept under and the request's fingerprint.
    A rotation's (ROTATE) is bound to the guard's old key and looked for before the guard."""

    idempotency: Idempotency
    operation: str
    key: str
    mac: str


def _columns(game: Game) -> tuple[Any, ...]:
    return tuple(getattr(game, name) for name in GAME_COLUMNS)


def check_key(game: Game, credential: Credential) -> None:
    if not credential.key:
        raise KeyMissing(_("Changing a game needs its edit key (Authorization: Bearer <edit key>)."))
    if not key_matches(credential.key, game.edit_key_hash):
        raise KeyWrong(_("That is not this game's edit key."))


def check_version(game: Game, if_match: str | None) -> None:
    if if_match is not None and not etag_matches(if_match, game.version):
        raise VersionMismatch(
            _("The game is at version {version}, not {if_match}: load it again and retry.").format(
                version=game.version, if_match=if_match
            )
        )


class GameWriter:
    """The machinery of every change to a game, handed to the use cases (app.games.usecases,
    app.games.keeping): the write transaction (`write`), the rows of a round as Core statements, and the
    replay of a first answer."""

    def __init__(self, session: Session, broker: Broker, settings: Settings, sealer: Sealer, views: ViewCache):
        self.session = session
        self.broker = broker
        self.settings = settings
        self.views = views  # the app's cache of scored games (app.games.viewcache)
        self.replays = Replays(session, sealer, settings.idempotency_hours, settings.rotation_replay_minutes)

    def replay(
        self, idempotency: Idempotency | None, scope: str, operation: str = WRITE, binding: str = ""
    ) -> Replay | None:
        """The Idempotency-Key's record for a write of `scope` (None without a key). A creation's is bound
        to the client; a rotation's to the old key (or handover link) it presents."""
        if idempotency is None:
            return None
        replays = self.replays
        key = replays.lookup_key(operation, scope, binding, idempotency)
        return Replay(idempotency, operation, key, replays.request_mac(operation, idempotency))

    def locked(self, game_id: str) -> Game:
        """The game's row, locked for this write transaction (404, or 410 for a deleted game)."""
        game = self.session.exec(LOCK_GAME, params={"game_id": game_id}).first()
        if game is None:
            raise missing_game(self.session, game_id)
        return game

    def write(
        self,
        game_id: str,
        guard: Guard,
        change: Callable[[GameView], Played | None],
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
        rotate_to: str | None = None,
        created: bool = False,
    ) -> Outcome:
        """One change to a game, in the write transaction every change shares (app.db.write_transaction).

        `change` gets the game as it stands (its row detached: changed as the use case likes, written back
        by one UPDATE of what changed) and answers the rounds after the change (None: unchanged). When it
        refuses (raises a GameError), the game as loaded goes up with the error (`error.view`), so a page
        can show the refusal without loading the game again. It is the change's own copy: a change that
        refuses after it began (a rules change, a correction that breaks a later round) may have altered
        it, so only the round form's refusals, which come before the round is touched, are shown from it.

        `rotate_to`: the change gives the game this new edit key; the outcome carries it, and a retry with
        the same Idempotency-Key (bound to `guard.binding`) gets it again while nothing else changed the game.
        `created`: the change makes something new (a round), which the outcome and a replay say.
        A change that sets the game's round start is heard by every viewer (a `start` event beside the
        version), in this process and, on PostgreSQL, in every other.
        """
        replay = self.replay(idempotency, game_id, ROTATE if rotate_to else WRITE, guard.binding if rotate_to else "")
        session = self.session
        done: dict[str, Any] = {}

        def work() -> Outcome:
            game = self.locked(game_id)
            # Detached: the use case changes it as it likes, and one UPDATE of the columns that
            # changed writes it back (no flush of the ORM's, here or at COMMIT).
            session.expunge(game)
            loaded = _columns(game)
            if replay and rotate_to is not None:
                record = self.replays.find_rotation(game_id, replay.key, replay.mac, game.version)
                if record is not None and (outcome := self.replayed(record, replay.idempotency, game, strict=False)):
                    return outcome
            guard.check(game)
            if replay and (record := self.replays.find(game_id, replay.key, replay.mac)):
                return self.replayed(record, replay.idempotency, game)
            check_version(game, if_match)
            before = self.before(game)
            started = game.round_started_at
            try:
                played = change(before)  # the rounds after the change (None: unchanged)
            except Unchanged:
                return Outcome(before, unchanged=True)
            except GameError as error:
                # Kept as loaded: its game and players are in no session, so the rollback expires nothing.
                error.view = before
                raise
            game.version += 1
            game.updated_at = utcnow()
            # What the game means now, from the rounds just written (not read back: the same rows).
            if played is None:
                played = before.played()
            view = scored_view(game, before.players, played, before.times, before.piles)
            record_results(session, game, before.players, view)  # a table's standings (app.games.results)
            if view.state.over and game.round_started_at is not None:
                game.round_started_at = None  # a decided game has no round running (a timer would run for ever)
            if view.state.over and not before.state.over:  # a game that finishes closes its seats (app.games.seats)
                for table in CLOSED_WITH_THE_GAME:
                    session.connection().execute(table.delete().where(table.c.game_id == game_id))
            elif not created and len(played) != len(before.round_ids):
                renumber_draft(session, game_id, len(before.round_ids) + 1, len(played) + 1)
            self._update_game(game, loaded)
            moved = game.round_started_at is not None and game.round_started_at != started
            added = played[-1][0] if created and played and played[-1][0] not in before.round_ids else None  # a round
            made = Made(added, game.round_started_at if moved else None)
            if replay:
                self.replays.remember(
                    game_id,
                    replay.key,
                    replay.mac,
                    replay.operation,
                    201 if created else 200,
                    reference(made),
                    game.version,
                    edit_key=rotate_to,
                    idempotency=replay.idempotency,
                    game_id=game_id,
                )
            done["start_ms"] = epoch_ms(game.round_started_at) if moved else None
            return Outcome(view, created=created, edit_key=rotate_to, made=made)

        outcome = write_transaction(session, work)
        if outcome.replayed or outcome.unchanged:
            return outcome
        # Warm for the viewers the publish is about to send for it (app.games.viewcache), then tell them.
        try:
            self.views.put(outcome.view, owned=True)  # its game and players are in no session, and stay as they are
        except Exception:  # a cache, never a reason to fail a committed save
            log.exception("could not keep game %s at version %s in the view cache", game_id, outcome.version)
        self.broker.publish(game_id, outcome.version, done["start_ms"])
        return outcome

    def before(self, game: Game) -> GameView:
        """The game as it stands before the change, with `game` (just locked, read afresh) as its row.

        Its players, rounds and what they mean come from the view cache when it holds this very
        version (the same rows: every change moves the version on, in the transaction that makes it),
        and from the database otherwise. The players are in no session either way (they go into the
        view cache as they are, after COMMIT); the round ids and times are the write's own copies."""
        cached = self.views.get(game.id, game.version)
        if cached is None:
            view = load_view(self.session, game)
            for player in view.players:
                self.session.expunge(player)
            return view
        return GameView(
            game, cached.players, list(cached.round_ids), cached.state, dict(cached.times), dict(cached.piles)
        )

    def _update_game(self, game: Game, loaded: tuple[Any, ...]) -> None:
        """Write back what the write changed of the game's own row (its version, at least)."""
        changed = {
            name: value
            for name, value, before in zip(GAME_COLUMNS, _columns(game), loaded, strict=True)
            if value != before
        }
        self.session.connection().execute(GAME_UPDATE, {"game_key": game.id, **changed})

    # --- the rows of a round, as plain Core statements on the write's connection (compiled once per
    # process, not the ORM's unit of work or a multi-row VALUES compiled again for every save)

    def insert_round(
        self,
        game_id: str,
        now: datetime,
        started_at: datetime | None,
        duration_s: int | None,
        round_id: int | None = None,
        piles: int | None = None,
    ) -> int:
        """A new round's row (with `round_id`: a deleted round put back under its old id; `piles`: the centre
        piles as counted); its id."""
        values = {
            "game_id": game_id,
            "created_at": now,
            "started_at": started_at,
            "duration_s": duration_s,
            "piles": piles,
        }
        if round_id is not None:
            values["id"] = round_id
        return self.session.connection().execute(ROUND_INSERT, values).inserted_primary_key[0]

    def set_round_time(self, round_id: int, time: RoundTime) -> None:
        values = {"round_key": round_id, "started_at": time.started_at, "duration_s": time.duration_s}
        self.session.connection().execute(ROUND_TIME_UPDATE, values)

    def set_round_piles(self, round_id: int, piles: int | None) -> None:
        self.session.connection().execute(ROUND_TIME_UPDATE, {"round_key": round_id, "piles": piles})

    def delete_scores(self, round_id: int) -> None:
        self.session.connection().execute(SCORES_DELETE, {"round_key": round_id})

    def delete_round(self, round_id: int) -> None:
        self.delete_scores(round_id)
        self.session.connection().execute(ROUND_DELETE, {"round_key": round_id})

    def add_scores(self, round_id: int, data: RoundIn, rules: scoring.Rules) -> list[scoring.Score]:
        """The round's scores as entered (the engine's), written in one executemany."""
        own = CALLER_FIELD.get(rules.kind)
        if own is None:
            scores = [scoring.Score(s.player_id, s.dutch, s.blitz) for s in data.scores]
        else:
            caller = getattr(data, own)
            scores = [scoring.Score(s.player_id, None, None, s.hand, s.player_id == caller) for s in data.scores]
        rows = [
            {
                "round_id": round_id,
                "player_id": s.player_id,
                "dutch": s.dutch or 0,  # 0 in the kinds that score hands
                "blitz": s.blitz or 0,
                "hand": hand,
                "half": half,  # 31's 30½: its 30 in `hand`
                "called": s.called,
            }
            for s in scores
            for hand, half in [scoring.hand_to_store(s.hand)]
        ]
        self.session.connection().execute(SCORE_INSERT, rows)
        return scores

    def replayed(
        self, record: Record, idempotency: Idempotency, now: Game | None = None, *, strict: bool = True
    ) -> Outcome | None:
        """The first answer again (None, if not `strict`, when its seal is broken). A write's record (a
        reference) answers the game `now` (just locked), which is the first answer while its version is the
        record's; a creation's, and a write's made before references, the game as its snapshot kept it."""
        made = referenced(record.snapshot)
        if made is None:
            game, players, played, times = restore(record.snapshot)
            view = scored_view(game, players, played, times)
            made = Made(played[-1][0] if record.status_code == 201 and played else None, game.round_started_at)
        elif now is None:
            raise RuntimeError("a write's record is replayed with its game, locked")
        else:
            view = self.before(now)
        edit_key = None
        if record.sealed_key is not None:
            try:
                edit_key = self.replays.edit_key(record, idempotency, view.game.id)
            except SealBroken:
                log.warning("an idempotency record's sealed key did not open (scope %s): refused", record.scope)
                if not strict:
                    return None
                raise ReplayUnavailable(
                    _("The first answer to this Idempotency-Key can't be given back; send the request with a new key.")
                ) from None
        return Outcome(view, created=record.status_code == 201, replayed=True, edit_key=edit_key, made=made)
