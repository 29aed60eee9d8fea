"""Who keeps a game, and its end: a new edit key, a handover to another phone (a one-time link), and
the game's deletion. Use cases like those in app.games.usecases (which mixes these in), split off by job to keep
that module readable; each runs in the write transaction every change shares (app.games.writes).
"""

from __future__ import annotations

from app.db import begin_write, serial_writes
from app.errors import HandoverRefused
from app.games.handover import handover_problem
from app.games.removal import creation_records, remove_games
from app.games.views import GameView
from app.games.writes import Outcome, UrlsFor, WriteTransactions, check_key, check_version
from app.idempotency import ROTATE, Idempotency
from app.models import DeletedGame, Game
from app.security import Credential, hash_key, new_edit_key


class Keeping(WriteTransactions):
    def rotate_key(
        self,
        game_id: str,
        credential: Credential,
        urls_for: UrlsFor,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Give the game a new edit key; the old key and every edit link and cookie made from it stop working.

        The answer carries the new key (and edit link). A retry with the same Idempotency-Key and the
        same old key gets that answer again, so a lost response does not lock the scorekeeper out; but
        only for Settings.rotation_replay_minutes and only while nothing else changed the game, so an
        old key that leaked can't fetch the new one later (app.idempotency).
        """
        new_key = new_edit_key()

        def change(view: GameView) -> None:
            view.game.edit_key_hash = hash_key(new_key)

        return self._write(
            game_id,
            credential,
            change,
            if_match=if_match,
            idempotency=idempotency,
            operation=ROTATE,
            new_key=new_key,
            urls_for=urls_for,
        )

    def take_over(
        self,
        game_id: str,
        token: str,
        urls_for: UrlsFor,
        *,
        idempotency: Idempotency | None = None,
        now: float | None = None,
    ) -> Outcome:
        """Hand over: a handover link (app.games.handover) gives a new edit key to the phone that opens it, and
        the old key stops working, in one transaction. A rotation in all but the credential: the token
        stands in for the old key, so a retry whose answer was lost gets the same new key back (bound
        to the token, while nothing else changed the game) rather than locking every phone out."""
        new_key = new_edit_key()
        sealer = self.replays.sealer

        def authorize(game: Game) -> None:
            if problem := handover_problem(sealer, game.id, game.edit_key_hash, token, now=now):
                raise HandoverRefused(problem)

        def change(view: GameView) -> None:
            view.game.edit_key_hash = hash_key(new_key)

        return self._write(
            game_id,
            Credential(None),
            change,
            if_match=None,
            idempotency=idempotency,
            operation=ROTATE,
            new_key=new_key,
            urls_for=urls_for,
            authorize=authorize,
            binding="handover:" + token,
        )

    def delete_game(self, game_id: str, credential: Credential, *, if_match: str | None = None) -> None:
        """Delete the game and everything of it; its id stays behind so its links answer 410 Gone.
        Every viewer hears of it (a last version event), and their pages find it gone."""
        session = self.session
        # Its creation's replay record is found by reading the new-game records' snapshots: done before
        # the write lock, as a game's creation can't happen again (or after it) meanwhile.
        creations = {game_id: creation_records(session).get(game_id, [])}
        session.rollback()

        def run() -> Outcome:
            with serial_writes(session):
                begin_write(session)
                try:
                    game = self._locked(game_id)
                    check_key(game, credential)
                    check_version(game, if_match)
                    last = game.version + 1
                    remove_games(session, [game_id], creations)
                    session.merge(DeletedGame(id=game_id))  # an id deleted before (ids are never reused)
                    self._committing = True
                    session.commit()
                except BaseException:
                    session.rollback()
                    raise
            self.broker.publish(game_id, last)
            return Outcome(204, {"version": last}, None)

        self._attempts(run)
