"""The use cases: create a game, change its name or rules, start / add / correct / delete a round; with
those of app.games.keeping (a new key, a handover, the game's deletion) and app.games.changes (the correction log)
mixed in.

Each asks app.rules.scoring whether the change is allowed and makes it inside the write transaction that
every change shares (app.games.writes); they return domain results (Outcome), never HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from app.db import begin_write, serial_writes
from app.errors import (
    GameError,
    GameIsOver,
    GameNotFound,
    InvalidInput,
    TooManyRounds,
)
from app.games.changes import ChangeLog, settings_of
from app.games.game_rules import changed_rules, new_game, rounds_under
from app.games.keeping import Keeping
from app.games.views import GameView, load_view, missing_game, set_rules, version_and_start
from app.games.writes import CALLER_FIELD, Outcome, UrlsFor, WriteTransactions
from app.i18n import _, ngettext
from app.idempotency import CREATE, NEW_GAME_SCOPE, Idempotency, snapshot
from app.models import Game, Player, as_utc, utcnow
from app.rules import scoring, timing
from app.rules.names import clean_name, game_name_problem
from app.rules.scoring import Played
from app.schemas import GameCreate, GameUpdate, RoundIn
from app.security import Credential, hash_key, new_edit_key, new_game_id
from app.tables.roster import RematchOf, join_roster, table_for_game

# Reads a round from what was typed, against the game just loaded (raises when it can't).
RoundParser = Callable[[GameView], RoundIn]


# --- the use cases --------------------------------------------------------------------------------


class Games(Keeping, ChangeLog, WriteTransactions):
    """The use cases, each one write transaction (app.games.writes) or one read; what changes a past round
    or the rules is logged, and reverted, by app.games.changes."""

    # reading

    def get(self, game_id: str) -> GameView:
        game = self.session.get(Game, game_id)
        if game is None:
            raise missing_game(self.session, game_id)
        return load_view(self.session, game)

    def version(self, game_id: str) -> int | None:
        """The game's version alone (None when there is no such game): one small query, no rounds."""
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
        """The game's key hash and version alone (a keeper page's live refresh): one small query."""
        row = self.session.exec(select(Game.edit_key_hash, Game.version).where(Game.id == game_id)).first()
        return (row[0], row[1]) if row is not None else None

    def existing(self, game_ids: list[str]) -> list[Game]:
        if not game_ids:
            return []
        return list(self.session.exec(select(Game).where(Game.id.in_(game_ids))))

    # writing

    def create(
        self,
        data: GameCreate,
        urls_for: UrlsFor,
        idempotency: Idempotency | None = None,
        client: str = "",
        table_credential: Credential | None = None,
        rematch_of: RematchOf | None = None,
    ) -> Outcome:
        """A new game. `client` (the caller's address) scopes the Idempotency-Key: a retry from
        another client is a request of its own and never gets this game's edit key.

        At a table (`data.table_id`, with the table's key in `table_credential`): each player is the
        roster's person of that name (a new name joins the roster), and the table's version moves on.
        A rematch (`rematch_of`) may show its game's key instead of the table's, and keeps its people."""
        name, players, rules = new_game(data)
        replays, session = self.replays, self.session
        key = mac = ""
        if idempotency:
            # At a table, a retry must also present the table's key to get the game's key back.
            bound = f"{client}|{(table_credential or Credential(None)).key}" if data.table_id else client
            key = replays.lookup_key(CREATE, NEW_GAME_SCOPE, bound, idempotency)
            mac = replays.request_mac(CREATE, idempotency)

        def run() -> Outcome:
            with serial_writes(session):
                begin_write(session)
                try:
                    if idempotency and (record := replays.find(NEW_GAME_SCOPE, key, mac)):
                        outcome = self._replayed(record, idempotency, urls_for)
                        session.rollback()
                        return outcome
                    table = (
                        table_for_game(session, data.table_id, table_credential, rematch_of) if data.table_id else None
                    )
                    edit_key = new_edit_key()
                    game = Game(
                        id=new_game_id(),
                        name=name,
                        edit_key_hash=hash_key(edit_key),
                        table_id=table.id if table else None,
                    )
                    set_rules(game, rules)
                    session.add(game)
                    session.flush()
                    people = join_roster(session, table, [p.name for p in players], rematch_of) if table else []
                    for seat, (player, person) in enumerate(zip(players, people or [None] * len(players), strict=True)):
                        called, person_id = (person.name, person.id) if person else (player.name, None)
                        start = player.starting_score
                        session.add(
                            Player(game_id=game.id, seat=seat, name=called, starting_score=start, person_id=person_id)
                        )
                    session.flush()
                    view = load_view(session, game)
                    body = view.public() | {"edit_key": edit_key, "urls": urls_for(game.id, edit_key)}
                    if idempotency:
                        replays.remember(
                            NEW_GAME_SCOPE,
                            key,
                            mac,
                            CREATE,
                            201,
                            snapshot(game, view.players, []),
                            game.version,
                            edit_key=edit_key,
                            idempotency=idempotency,
                            game_id=game.id,
                        )
                    self._committing = True
                    session.commit()
                    return Outcome(201, body, view)
                except BaseException:
                    session.rollback()
                    raise

        try:
            return self._attempts(run)
        except IntegrityError:
            # Another request with the same Idempotency-Key committed first (PostgreSQL, where
            # nothing serialises two creations): its answer is now stored, so look again.
            if not idempotency:
                raise
            return self._attempts(run)

    def update(
        self,
        game_id: str,
        credential: Credential,
        data: GameUpdate,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        def change(view: GameView) -> None:  # the rounds stay as they are
            game = view.game
            before = settings_of(game)
            problems: list[scoring.Problem] = []
            if data.name is not None:
                name = clean_name(data.name)
                if reason := game_name_problem(name):
                    problems.append(scoring.name_refused(reason, field="name"))
                game.name = name
            if data.rules is not None:
                rules, refused = changed_rules(game, data.rules)
                problems += refused or rounds_under(view, rules)
                if not problems:
                    set_rules(game, rules)
            if problems:
                raise InvalidInput(problems)
            self._log_rules(view, before)

        return self._write(game_id, credential, change, if_match=if_match, idempotency=idempotency)

    def add_round(
        self,
        game_id: str,
        credential: Credential,
        data: RoundIn | RoundParser,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        limit = self.settings.max_rounds_per_game

        def change(view: GameView) -> Played:
            if view.state.over:
                raise GameIsOver(_("The game is over: no more rounds can be added. Correct or delete a round instead."))
            if len(view.round_ids) >= limit:
                raise TooManyRounds(
                    ngettext(
                        "A game can hold at most {limit} round, and this one has it: start a new game "
                        "(the totals can be carried over as starting scores).",
                        "A game can hold at most {limit} rounds, and this one has them all: start a new game "
                        "(the totals can be carried over as starting scores).",
                        limit,
                    ).format(limit=limit)
                )
            scores = self._check_round(view, data, len(view.round_ids) + 1)
            # The round takes the game's pending start (its "Blitz!"), which it uses up; not one still
            # counting down, which belongs to the next round (the countdown goes on on every page).
            pending = view.game.round_started_at and as_utc(view.game.round_started_at)
            now = utcnow()
            counting = pending is not None and pending > now
            time = timing.saved_round_time(None if counting else pending, now, scores.started_at, scores.duration_s)
            if not counting:
                view.game.round_started_at = None
            round_id = self._insert_round(view.game.id, now, time.started_at, time.duration_s)
            if time.started_at is not None or time.duration_s is not None:
                view.times[round_id] = time
            return [*view.played(), (round_id, self._add_scores(round_id, scores, view.rules))]

        return self._write(
            game_id,
            credential,
            change,
            if_match=if_match,
            idempotency=idempotency,
            status=201,
            view_on_refusal=True,
        )

    def replace_round(
        self,
        game_id: str,
        number: int,
        credential: Credential,
        data: RoundIn | RoundParser,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        def change(view: GameView) -> Played:
            round_id = self._round(view, number)
            scores = self._check_round(view, data, number)
            if scores.started_at is not None or scores.duration_s is not None:
                time = timing.corrected_round_time(view.times.get(round_id), scores.started_at, scores.duration_s)
                self._set_round_time(round_id, time)
                view.times[round_id] = time
            self._log_correction(view, number, scores)
            self._delete_scores(round_id)
            played = view.played()
            played[number - 1] = (round_id, self._add_scores(round_id, scores, view.rules))
            self._still_possible(view, played, number)
            return played

        return self._write(
            game_id, credential, change, if_match=if_match, idempotency=idempotency, view_on_refusal=True
        )

    def delete_round(
        self,
        game_id: str,
        number: int,
        credential: Credential,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        def change(view: GameView) -> Played:
            round_id = self._round(view, number)
            self._log_deletion(view, number)
            self._delete_round(round_id)
            played = view.played()
            del played[number - 1]
            self._still_possible(view, played, number - 1)
            return played

        return self._write(game_id, credential, change, if_match=if_match, idempotency=idempotency)

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

        return self._write(game_id, credential, change, if_match=if_match, idempotency=idempotency, starts_round=True)

    @staticmethod
    def _round(view: GameView, number: int) -> int:
        if not 1 <= number <= len(view.round_ids):
            raise GameNotFound(
                _("This game has no round {number} (it has {count}).").format(number=number, count=len(view.round_ids))
            )
        return view.round_ids[number - 1]

    @staticmethod
    def _check_round(view: GameView, data: RoundIn | RoundParser, number: int) -> RoundIn:
        """The round, read against the players just loaded when it comes as a parser (a page's form,
        which can only be read knowing the players), and checked by the rules as round `number`."""
        scores = data if isinstance(data, RoundIn) else data(view)
        rules = view.rules
        own = CALLER_FIELD.get(rules.kind)
        problems = [
            scoring.Problem("round_field_not_in_kind", field=name, params={"field": name})
            for name in ("caller", "knocker")
            if name != own and getattr(scores, name) is not None
        ]
        players = seats(view)
        before = view.state
        if rules.kind == scoring.Kind.LIVES and number <= len(view.round_ids):
            before = scoring.score_game(players, rules, [s for _, s in view.played()[: number - 1]])
        problems = (
            scoring.validate_round(
                players,
                [scoring.Score(s.player_id, s.dutch, s.blitz, s.hand) for s in scores.scores],
                rules,
                getattr(scores, own) if own else None,
                before,
            )
            + problems
        )
        if problems:
            raise InvalidInput(problems)
        return scores

    @staticmethod
    def _still_possible(view: GameView, played: Played, first: int) -> None:
        """After a change to round `first + 1`, every later round still possible (`lives`: who is in)."""
        problems = scoring.check_later_rounds(seats(view), view.rules, [s for _, s in played], first)
        if problems:
            raise InvalidInput(problems)


def seats(view: GameView) -> list[scoring.Player]:
    return [scoring.Player(p.id, p.name, p.starting_score) for p in view.players]
