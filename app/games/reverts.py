"""Undoing a logged change (app.games.changes says what each kind puts back, and when it can't): through the
write that puts back what the change replaced, `Games.update`, `Games.replace_round`, `Games.delete_round` or
`Games.rename_player` / `Games.update_player` / `Games.take_out` (a latecomer's coming) handed the change as `reverting`, or for a deleted round `_restore`, back at its old
row id (so in its place). A use case like the others, on the game's writer; `Games.revert_change` offers it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlmodel import select

from app.errors import CantRevert, GameIsOver, GameNotFound, InvalidInput, TooManyRounds
from app.games.changes import (
    DELETION,
    JOIN,
    LEAVE,
    RENAME,
    RESTORATION,
    RULES,
    Change,
    deleted_since,
    log_restoration,
    round_in,
    rules_update,
    why_not,
)
from app.games.game_rules import checked_round, still_possible
from app.games.views import GameView
from app.games.writes import Guard, Outcome
from app.i18n import _, fill, ngettext
from app.idempotency import Idempotency
from app.models import Game, Round, RoundChange, utcnow
from app.rules.scoring import Played
from app.rules.timing import RoundTime
from app.schemas import RoundIn
from app.security import Credential

if TYPE_CHECKING:
    from app.games.usecases import Games


def revert_change(
    games: Games,
    game_id: str,
    change_id: int,
    credential: Credential,
    *,
    if_match: str | None = None,
    idempotency: Idempotency | None = None,
) -> Outcome:
    """Undo one logged change through the write that puts back what it replaced, handed the change."""
    session = games.session
    row = session.get(RoundChange, change_id)
    if row is None or row.game_id != game_id:
        if session.get(Game, game_id) is None:
            raise games.missing(game_id)
        raise GameNotFound(_("This game has no change {change_id}.").format(change_id=change_id))
    change = Change.of(row)
    round_ids = list(session.exec(select(Round.id).where(Round.game_id == game_id).order_by(Round.id)))
    session.rollback()  # the write takes its own lock and reads the game again under it
    # The round's number now (a retry finds the first answer before the number matters).
    number = round_ids.index(change.round_id) + 1 if change.round_id in round_ids else len(round_ids) + 1
    options: dict[str, Any] = {"if_match": if_match, "idempotency": idempotency, "reverting": change}
    try:
        if change.kind == RULES:
            try:
                return games.update(game_id, credential, rules_update(change.old or {}), **options)
            except InvalidInput as error:  # the old rules don't allow a round played since
                raise CantRevert(error.detail) from error
        if change.kind == RENAME:
            old = change.old or {}
            try:
                return games.rename_player(game_id, old.get("player_id", 0), credential, old.get("name", ""), **options)
            except InvalidInput as error:  # another player has the old name now
                raise CantRevert(error.detail) from error
        if change.kind == LEAVE:
            old = change.old or {}
            left = old.get("left_after_round_id") is not None
            try:
                return games.update_player(game_id, old.get("player_id", 0), credential, left=left, **options)
            except (InvalidInput, GameIsOver) as error:  # a round played since, or the game decided since
                raise CantRevert(error.detail) from error
        if change.kind == JOIN:
            return games.take_out(game_id, credential, **options)
        if change.kind == DELETION:
            return _restore(games, game_id, credential, **options)
        if change.kind == RESTORATION:
            return games.delete_round(game_id, number, credential, **options)

        def old_cards(view: GameView) -> RoundIn:
            if reason := why_not(change, view):
                raise CantRevert(reason)
            # Under the lock: the number read before it must still name the change's round (another
            # phone may have deleted or put back an earlier round meanwhile).
            if number > len(view.round_ids) or view.round_ids[number - 1] != change.round_id:
                raise CantRevert(_("The rounds were renumbered meanwhile: look again and revert from there."))
            return round_in(change.old, view)

        return games.replace_round(game_id, number, credential, old_cards, **options)
    except GameNotFound as error:  # the round went between the read above and the write's lock
        raise CantRevert(deleted_since(change.round_number)) from error


def _restore(
    games: Games,
    game_id: str,
    credential: Credential,
    *,
    if_match: str | None,
    idempotency: Idempotency | None,
    reverting: Change,
) -> Outcome:
    """A deleted round back in its place: by its old row id, as rounds are numbered by their row order."""
    writer, session, change = games.writer, games.session, reverting
    limit = games.settings.max_rounds_per_game

    def put_back(view: GameView) -> Played:
        if reason := why_not(change, view):
            raise CantRevert(reason)
        if len(view.round_ids) >= limit:
            raise TooManyRounds(
                fill(
                    ngettext(
                        "A game can hold at most {limit} round, and this one has it.",
                        "A game can hold at most {limit} rounds, and this one has them all.",
                        limit,
                    ),
                    limit=limit,
                )
            )
        old_id = change.round_id
        taken = session.exec(select(Round.id).where(Round.id == old_id)).first() is not None
        if taken and any(rid >= (old_id or 0) for rid in view.round_ids):
            raise CantRevert(
                _("Round {number} can't go back in its place any more: enter it again as a new round.").format(
                    number=change.round_number
                )
            )
        # Checked at its place (in 31, who is in depends on the rounds before it).
        place = len(view.round_ids) if taken else sum(1 for rid in view.round_ids if rid < (old_id or 0))
        try:
            data = checked_round(view, round_in(change.old, view), place + 1, None if taken else old_id)
        except InvalidInput as error:  # the round as it was can't be played now
            raise CantRevert(error.detail) from error
        # Its old id puts it between the rounds it was between; when another game's round has
        # that id now, nothing of this game comes after it, so a new id (the last) is its place.
        took = (change.old or {}).get("time") or {}
        time = RoundTime(
            datetime.fromisoformat(took["started_at"]) if took.get("started_at") else None, took.get("duration_s")
        )
        saved = (change.old or {}).get("saved")
        at = datetime.fromisoformat(saved) if saved else utcnow()
        round_id = writer.insert_round(
            view.game.id, at, time.started_at, time.duration_s, round_id=None if taken else old_id, piles=data.piles
        )
        if time.started_at is not None or time.duration_s is not None:
            view.times[round_id] = time
        if data.piles is not None:
            view.piles[round_id] = data.piles
        position = sum(1 for rid in view.round_ids if rid < round_id)
        played = view.played()
        played.insert(position, (round_id, writer.add_scores(round_id, data, view.rules)))
        still_possible(view, played, position)
        log_restoration(session, view, position + 1, round_id, data, change)
        return played

    return writer.write(game_id, Guard.key(credential), put_back, if_match=if_match, idempotency=idempotency)
