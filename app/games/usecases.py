"""The use cases of a game: create it, change its name or rules, start / add / correct / delete a round;
rename a player, mark them as having left, or add a latecomer (app.games.players);
revert a logged change (app.games.reverts); a new key, a handover and the game's deletion
(app.games.keeping); reading it.

`Games` is handed a writer (app.games.writes.GameWriter): each change asks app.rules.scoring whether it is
allowed and makes it inside the write transaction every change shares, logging what changes a past round
or the rules (app.games.changes). They return domain outcomes (app.games.writes.Outcome), never HTTP.

Just past 400 lines, on purpose: `Games` is the one door every route goes through, and each use case here
is a short change handed to the writer; the longer parts already live in their own modules (players,
seats, keeping, reverts), and the next one to grow moves out as they did.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import delete
from sqlmodel import Session, select

from app.config import Settings
from app.db import write_transaction
from app.errors import (
    GameError,
    GameIsOver,
    InvalidInput,
    TooManyRounds,
)
from app.games import keeping, players, reverts, seats
from app.games.changes import (
    Change,
    log_correction,
    log_deletion,
    log_rules,
    read_changes,
    settings_of,
)
from app.games.game_rules import changed_rules, checked_round, new_game, round_of, rounds_under, still_possible
from app.games.viewcache import ViewCache
from app.games.views import GameView, load_view, missing_game, read_snapshot, set_rules, version_and_start
from app.games.writes import GameWriter, Guard, Outcome
from app.i18n import _, fill, ngettext
from app.idempotency import CREATE, NEW_GAME_SCOPE, Idempotency, snapshot
from app.live import Broker
from app.models import DraftRow, Game, Player, as_utc, utcnow
from app.rules import scoring, timing
from app.rules.names import clean_name, game_name_problem
from app.rules.scoring import Played
from app.schemas import GameCreate, GameUpdate, RoundIn
from app.sealing import Sealer
from app.security import Credential, hash_key, new_edit_key, new_game_id
from app.tables.roster import RematchOf, join_roster, table_for_game

# Reads a round from what was typed, against the game just loaded (raises when it can't).
RoundParser = Callable[[GameView], RoundIn]


class Games:
    """The use cases, each one write transaction (its writer's) or one read."""

    def __init__(self, session: Session, broker: Broker, settings: Settings, sealer: Sealer, views: ViewCache):
        self.session = session
        self.settings = settings
        self.views = views  # the app's cache of scored games, which the pages read too (app.games.viewcache)
        self.writer = GameWriter(session, broker, settings, sealer, views)

    # reading

    def get(self, game_id: str) -> GameView:
        """The game as it stands: one version of it (its row, players, rounds and scores in one snapshot)."""
        game = self.row(game_id)
        if game is None:
            raise missing_game(self.session, game_id)
        return load_view(self.session, game)

    def row(self, game_id: str) -> Game | None:
        """The game's row, read first in the one snapshot a read of the game takes (views.read_snapshot),
        and afresh even when the session holds the game: what the session reads of it next is this version."""
        read_snapshot(self.session)
        return self.session.get(Game, game_id, populate_existing=True)

    def version(self, game_id: str) -> int | None:
        """The game's version alone (None when there is no such game): one small query, no rounds. Read in
        the snapshot a read of the game takes (the conditional GET that reads the game next needs no other)."""
        read_snapshot(self.session)
        return self.session.exec(select(Game.version).where(Game.id == game_id)).first()

    def version_and_start(self, game_id: str) -> tuple[int, datetime | None] | None:
        """The game's version and its running round's start (None when there is no such game)."""
        return version_and_start(self.session, game_id)

    def missing(self, game_id: str) -> GameError:
        """What to say of a game that is not there: 410 when its scorekeeper deleted it, else 404."""
        return missing_game(self.session, game_id)

    def key_hash(self, game_id: str) -> str | None:
        return self.session.exec(select(Game.edit_key_hash).where(Game.id == game_id)).first()

    def key_and_version(self, game_id: str) -> tuple[str, int] | None:
        """The game's key hash and version alone (a keeper page's live refresh): one small query, in the
        snapshot the page's read of the game takes next (`version`)."""
        read_snapshot(self.session)
        row = self.session.exec(select(Game.edit_key_hash, Game.version).where(Game.id == game_id)).first()
        return (row[0], row[1]) if row is not None else None

    def existing(self, game_ids: list[str]) -> list[Game]:
        """The rows of the games that exist, read first in one snapshot (views.read_snapshot): loaded next
        (views.load_views), each is one version of that game."""
        if not game_ids:
            return []
        read_snapshot(self.session)
        query = select(Game).where(Game.id.in_(game_ids)).execution_options(populate_existing=True)
        return list(self.session.exec(query))

    def changes(self, game_id: str, limit: int | None = None) -> list[Change]:
        """The game's logged changes, newest first (all of them, or the latest `limit`)."""
        return read_changes(self.session, game_id, limit)

    # creating

    def create(
        self,
        data: GameCreate,
        idempotency: Idempotency | None = None,
        client: str = "",
        table_credential: Credential | None = None,
        rematch_of: RematchOf | None = None,
    ) -> Outcome:
        """A new game, with its edit key in the outcome. `client` (the caller's address) scopes the
        Idempotency-Key: a retry from another client is a request of its own and never gets this game's key.

        At a table (`data.table_id`, with the table's key in `table_credential`): each player is the
        roster's person of that name (a new name joins the roster), and the table's version moves on.
        A rematch (`rematch_of`) may show its game's key instead of the table's, and keeps its people."""
        name, players, rules = new_game(data)
        writer, session = self.writer, self.session
        # At a table, a retry must also present the table's key to get the game's key back.
        bound = f"{client}|{(table_credential or Credential(None)).key}" if data.table_id else client
        replay = writer.replay(idempotency, NEW_GAME_SCOPE, CREATE, bound)

        def work() -> Outcome:
            if replay and (record := writer.replays.find(NEW_GAME_SCOPE, replay.key, replay.mac)):
                return writer.replayed(record, replay.idempotency)
            table = table_for_game(session, data.table_id, table_credential, rematch_of) if data.table_id else None
            edit_key = new_edit_key()
            game = Game(
                id=new_game_id(), name=name, edit_key_hash=hash_key(edit_key), table_id=table.id if table else None
            )
            set_rules(game, rules)
            session.add(game)
            session.flush()
            people = join_roster(session, table, [p.name for p in players], rematch_of) if table else []
            for seat, (player, person) in enumerate(zip(players, people or [None] * len(players), strict=True)):
                called, person_id = (person.name, person.id) if person else (player.name, None)
                start = player.starting_score
                session.add(Player(game_id=game.id, seat=seat, name=called, starting_score=start, person_id=person_id))
            session.flush()
            view = load_view(session, game)
            if replay:
                writer.replays.remember(
                    NEW_GAME_SCOPE, replay.key, replay.mac, CREATE, 201, snapshot(game, view.players, []),
                    game.version, edit_key=edit_key, idempotency=replay.idempotency, game_id=game.id,
                )  # fmt: skip
            return Outcome(view, created=True, edit_key=edit_key)

        return write_transaction(session, work, again_when_taken=replay is not None)

    # changing

    def update(
        self,
        game_id: str,
        credential: Credential,
        data: GameUpdate,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
        reverting: Change | None = None,
    ) -> Outcome:
        """The game's name and rules (`reverting`: the logged change this puts back)."""

        def change(view: GameView) -> None:  # the rounds stay as they are
            game = view.game
            before = settings_of(game)
            problems: list[scoring.Problem] = []
            name = rules = None
            if data.name is not None:
                name = clean_name(data.name)
                if reason := game_name_problem(name):
                    problems.append(scoring.name_refused(reason, field="name"))
            if data.rules is not None:
                rules, refused = changed_rules(game, data.rules)
                problems += refused or rounds_under(view, rules)
            if problems:
                raise InvalidInput(problems)
            if name is not None:
                game.name = name
            if rules is not None:
                set_rules(game, rules)
            if data.seats is not None:  # not the rules: no change is logged for them (nothing to revert)
                if data.seats.save_round is not None:
                    game.seats_save_round = data.seats.save_round
                if data.seats.on_view is not None:
                    game.seats_on_view = data.seats.on_view
            log_rules(self.session, view, before, reverting)

        return self.writer.write(game_id, Guard.key(credential), change, if_match=if_match, idempotency=idempotency)

    def add_round(
        self,
        game_id: str,
        credential: Credential,
        data: RoundIn | RoundParser,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
        guard: Guard | None = None,
    ) -> Outcome:
        """A new round; `guard`: who may add it, when not the edit key's holder (a round its players' seats
        completed, app.games.seats)."""
        limit, writer = self.settings.max_rounds_per_game, self.writer

        def change(view: GameView) -> Played:
            if view.state.over:
                raise GameIsOver(_("The game is over: no more rounds can be added. Correct or delete a round instead."))
            if len(view.round_ids) >= limit:
                raise TooManyRounds(
                    fill(
                        ngettext(
                            "A game can hold at most {limit} round, and this one has it: start a new game "
                            "(the totals can be carried over as starting scores).",
                            "A game can hold at most {limit} rounds, and this one has them all: start a new game "
                            "(the totals can be carried over as starting scores).",
                            limit,
                        ),
                        limit=limit,
                    )
                )
            scores = checked_round(view, data, len(view.round_ids) + 1)
            # The round takes the game's pending start (its "Blitz!"), which it uses up; not one still
            # counting down, which belongs to the next round (the countdown goes on on every page).
            pending = view.game.round_started_at and as_utc(view.game.round_started_at)
            now = utcnow()
            counting = pending is not None and pending > now
            time = timing.saved_round_time(None if counting else pending, now, scores.started_at, scores.duration_s)
            if not counting:
                view.game.round_started_at = None
            round_id = writer.insert_round(view.game.id, now, time.started_at, time.duration_s, piles=scores.piles)
            self.session.exec(delete(DraftRow).where(DraftRow.game_id == view.game.id))  # type: ignore[arg-type]
            players.leavers_before(self.session, view, round_id)
            if time.started_at is not None or time.duration_s is not None:
                view.times[round_id] = time
            if scores.piles is not None:
                view.piles[round_id] = scores.piles
            return [*view.played(), (round_id, writer.add_scores(round_id, scores, view.rules))]

        guard = guard or Guard.key(credential)
        return writer.write(game_id, guard, change, if_match=if_match, idempotency=idempotency, created=True)

    def replace_round(
        self,
        game_id: str,
        number: int,
        credential: Credential,
        data: RoundIn | RoundParser,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
        reverting: Change | None = None,
    ) -> Outcome:
        """Round `number` corrected (`reverting`: the logged correction whose old cards these are)."""
        writer = self.writer

        def change(view: GameView) -> Played:
            round_id = round_of(view, number)
            scores = checked_round(view, data, number)
            if scores.started_at is not None or scores.duration_s is not None:
                time = timing.corrected_round_time(view.times.get(round_id), scores.started_at, scores.duration_s)
                writer.set_round_time(round_id, time)
                view.times[round_id] = time
            log_correction(self.session, view, number, scores, reverting)
            if "piles" in scores.model_fields_set:  # left out: the round keeps its count; null clears it
                writer.set_round_piles(round_id, scores.piles)
                view.piles.pop(round_id, None)
                if scores.piles is not None:
                    view.piles[round_id] = scores.piles
            writer.delete_scores(round_id)
            played = view.played()
            played[number - 1] = (round_id, writer.add_scores(round_id, scores, view.rules))
            still_possible(view, played, number)
            return played

        return writer.write(game_id, Guard.key(credential), change, if_match=if_match, idempotency=idempotency)

    def delete_round(
        self,
        game_id: str,
        number: int,
        credential: Credential,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
        reverting: Change | None = None,
    ) -> Outcome:
        """Round `number` deleted (`reverting`: the logged restoration this undoes)."""
        writer = self.writer

        def change(view: GameView) -> Played:
            round_id = round_of(view, number)
            log_deletion(self.session, view, number, reverting)
            writer.delete_round(round_id)
            played = view.played()
            del played[number - 1]
            still_possible(view, played, number - 1)
            return played

        return writer.write(game_id, Guard.key(credential), change, if_match=if_match, idempotency=idempotency)

    def start_round(
        self,
        game_id: str,
        credential: Credential,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """The scorekeeper's "Start round": "Blitz!" in COUNTDOWN_S seconds on every open page of the game.

        Stored on the game (the next saved round takes it as its start) and announced to every event
        stream as a `start` event. Starting again before a round is saved restarts the countdown (a
        false start). Refused (409) once the game is over, like a new round.
        """

        def change(view: GameView) -> None:
            if view.state.over:
                raise GameIsOver(_("The game is over: no round can start. Correct or delete a round instead."))
            view.game.round_started_at = timing.blitz_moment(utcnow())

        return self.writer.write(game_id, Guard.key(credential), change, if_match=if_match, idempotency=idempotency)

    # the players (app.games.players)

    def rename_player(self, game_id: str, player_id: int, credential: Credential, name: str, **options: Any) -> Outcome:
        return players.rename_player(self, game_id, player_id, credential, name, **options)

    def update_player(
        self,
        game_id: str,
        player_id: int,
        credential: Credential,
        name: str | None = None,
        left: bool | None = None,
        **options: Any,
    ) -> Outcome:
        return players.update_player(self, game_id, player_id, credential, name, left, **options)

    def add_player(
        self,
        game_id: str,
        credential: Credential,
        name: str,
        starting_score: int | None = None,
        lives: int | None = None,
        **options: Any,
    ) -> Outcome:
        return players.add_player(self, game_id, credential, name, starting_score, lives, **options)

    def take_out(self, game_id: str, credential: Credential, **options: Any) -> Outcome:
        return players.take_out(self, game_id, credential, **options)

    # seats and the round's draft (app.games.seats)

    def seats(self, game_id: str, credential: Credential) -> seats.Seats:
        return seats.seats(self, game_id, credential)

    def claim_seat(
        self, game_id: str, player_id: int, token: str, idempotency: Idempotency | None = None, client: str = ""
    ) -> seats.SeatTakenOutcome:
        return seats.claim_seat(self, game_id, player_id, token, idempotency, client)

    def free_seat(self, game_id: str, player_id: int, credential: Credential) -> None:
        seats.free_seat(self, game_id, player_id, credential)

    def send_row(
        self,
        game_id: str,
        player_id: int,
        credential: Credential,
        row: seats.RowIn,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> seats.Draft:
        return seats.send_row(self, game_id, player_id, credential, row, if_match, idempotency)

    def taken_seats(self, game_id: str) -> list[int]:
        return seats.taken_seats(self, game_id)

    def seat_of(self, view: GameView, credential: Credential) -> Player | None:
        return seats.seat_of(self, view, credential)

    def draft_rows(self, game_id: str, round_number: int) -> list[DraftRow]:
        """The rows sent for that round (the page that already has the game reads only these)."""
        return seats.rows_for(self, game_id, round_number)

    def draft(self, game_id: str, view: GameView | None = None) -> seats.Draft:
        return seats.draft(self, game_id, view)

    # reverting (app.games.reverts)

    def revert_change(self, game_id: str, change_id: int, credential: Credential, **options: Any) -> Outcome:
        return reverts.revert_change(self, game_id, change_id, credential, **options)

    # keeping (app.games.keeping)

    def rotate_key(self, game_id: str, credential: Credential, **options: Any) -> Outcome:
        return keeping.rotate_key(self.writer, game_id, credential, **options)

    def take_over(self, game_id: str, token: str, **options: Any) -> Outcome:
        return keeping.take_over(self.writer, game_id, token, **options)

    def delete_game(self, game_id: str, credential: Credential, *, if_match: str | None = None) -> None:
        keeping.delete_game(self.writer, game_id, credential, if_match=if_match)
