"""Who keeps a game, and its end: a new edit key, a handover to another phone (a one-time link), and
the game's deletion. Use cases handed the game's writer (app.games.writes.GameWriter); app.games.usecases.Games
offers them beside the others. Each runs in the write transaction every change shares.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.db import write_transaction
from app.errors import HandoverRefused
from app.games.handover import handover_problem
from app.games.removal import remove_games
from app.games.views import GameView
from app.games.writes import GameWriter, Guard, Outcome, check_key, check_version
from app.idempotency import Idempotency
from app.models import DeletedGame, Game
from app.security import Credential, hash_key, new_edit_key


def rotate_key(
    writer: GameWriter,
    game_id: str,
    credential: Credential,
    *,
    if_match: str | None = None,
    idempotency: Idempotency | None = None,
) -> Outcome:
    """Give the game a new edit key; the old key and every edit link and cookie made from it stop working.

    The outcome carries the new key. A retry with the same Idempotency-Key and the same old key gets it
    again, so a lost response does not lock the scorekeeper out; but only for
    Settings.rotation_replay_minutes and only while nothing else changed the game, so an old key that
    leaked can't fetch the new one later (app.idempotency).
    """
    return _new_key(writer, game_id, Guard.key(credential), if_match=if_match, idempotency=idempotency)


def take_over(
    writer: GameWriter,
    game_id: str,
    token: str,
    *,
    idempotency: Idempotency | None = None,
    now: float | None = None,
) -> Outcome:
    """Hand over: a handover link (app.games.handover) gives a new edit key to the phone that opens it, and
    the old key stops working, in one transaction. A rotation in all but the guard: the token stands in
    for the old key, so a retry whose answer was lost gets the same new key back (bound to the token,
    while nothing else changed the game) rather than locking every phone out."""
    sealer = writer.replays.sealer

    def link_works(game: Game) -> None:
        if problem := handover_problem(sealer, game.id, game.edit_key_hash, token, now=now):
            raise HandoverRefused(problem)

    return _new_key(writer, game_id, Guard(link_works, "handover:" + token), idempotency=idempotency)


def _new_key(
    writer: GameWriter, game_id: str, guard: Guard, *, if_match: str | None = None, idempotency: Idempotency | None
) -> Outcome:
    new_key = new_edit_key()

    def change(view: GameView) -> None:
        view.game.edit_key_hash = hash_key(new_key)

    return writer.write(game_id, guard, change, if_match=if_match, idempotency=idempotency, rotate_to=new_key)


@dataclass(frozen=True, slots=True)
class Deleted:
    version: int  # the last version, which every viewer hears of
    replayed: bool = False


def delete_game(writer: GameWriter, game_id: str, credential: Credential, *, if_match: str | None = None) -> None:
    """Delete the game and everything of it; its id stays behind so its links answer 410 Gone.
    Every viewer hears of it (a last version event), and their pages find it gone."""
    session = writer.session

    def work() -> Deleted:
        game = writer.locked(game_id)
        check_key(game, credential)
        check_version(game, if_match)
        remove_games(session, [game_id])
        session.merge(DeletedGame(id=game_id))  # an id deleted before (ids are never reused)
        return Deleted(game.version + 1)

    deleted = write_transaction(session, work)
    writer.broker.publish(game_id, deleted.version)
