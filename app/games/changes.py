"""The correction log: every change to a past round or to the rules, kept so the whole table can see
who changed what, and undone with one tap (revert).

History, not state: scores are derived from the rounds, never from this log. A new round and the
game's creation are play, not changes, and are not logged; nor is a correction or a rules "change"
that changes nothing. Each entry is written by the use case (app.games.usecases) inside the write transaction
of the change itself, so a change and its entry commit together or not at all.

A revert puts back what the change replaced through the same write paths, and so the same rule
checks, as the scorekeeper's own edits (`Games.replace_round`, `Games.update`, `Games.delete_round`),
and is itself logged, naming the change it undid (`reverts`):

- a correction: the round gets its old cards back (a new correction);
- a deletion: the round comes back in its place in the order of play, and the rounds after it move
  down a number ("restoration"). Refused when it was the last round and the table has played on
  since (the round was most likely entered again), or when the database can't put it between its
  neighbours any more (SQLite reuses the highest row id: only after the rounds after it went too);
- a restoration: the round is deleted again;
- a rules change: the old settings.

A revert is refused (409 `cant-revert`, nothing changed) unless what the change touched is still as
the change left it: a round corrected again, or a setting changed again, is put back by reverting the
later change first. This is checked again under the write lock.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlmodel import Session, select

from app.errors import CantRevert, GameNotFound, InvalidInput, TooManyRounds
from app.games.game_rules import rounds_under
from app.games.views import GameView, rules_of
from app.i18n import N_, _, ngettext, problem_text
from app.idempotency import Idempotency
from app.models import Game, Round, RoundChange, as_utc, utcnow
from app.rules import scoring
from app.rules.scoring import Played
from app.rules.timing import RoundTime
from app.schemas import GameUpdate, RoundIn, RulesUpdate, ScoreIn
from app.security import Credential

CORRECTION, DELETION, RESTORATION, RULES = "correction", "deletion", "restoration", "rules"
# The log's rows, written as plain Core in the change's write (no ORM flush); every column named.
CHANGE_INSERT = RoundChange.__table__.insert()  # type: ignore[attr-defined]
FIELDS_UNSET = {"round_number": None, "round_id": None, "old": None, "new": None}
KINDS = (CORRECTION, DELETION, RESTORATION, RULES)
# The name and every rule parameter of any kind (app.rules.base.PARAMS), in the API's order.
SETTINGS = ("name", *dict.fromkeys(name for params in scoring.PARAMS.values() for name in params))
# Why a rules change can't be reverted, per setting: whole sentences, translated where said.
CHANGED_AGAIN = {
    "name": N_("The game's name was changed again since: revert the later change first."),
    "target": N_("The target was changed again since: revert the later change first."),
    "dutch_points": N_("Points per Dutch card was changed again since: revert the later change first."),
    "blitz_points": N_("Points per Blitz card was changed again since: revert the later change first."),
    "tie_break": N_("The tie rule was changed again since: revert the later change first."),
    "pile_size": N_("The pile size was changed again since: revert the later change first."),
    "deck_size": N_("The deck size was changed again since: revert the later change first."),
    "must_go_out": N_("“Someone must go out” was changed again since: revert the later change first."),
    "end": N_("The end of the game was changed again since: revert the later change first."),
    "rounds": N_("The number of rounds was changed again since: revert the later change first."),
    "lives": N_("The starting lives were changed again since: revert the later change first."),
    "county": N_("The county rule was changed again since: revert the later change first."),
}


class _Cards(Protocol):
    player_id: int
    dutch: int | None
    blitz: int | None
    hand: int | None


def cards(scores: Iterable[_Cards], seats: list[int]) -> list[dict[str, int]]:
    """A round's cards as logged: one {player_id, dutch, blitz} (or {player_id, hand}) per player, in
    seating order."""
    by_player = {s.player_id: s for s in scores}
    return [_logged(by_player[pid]) for pid in seats if pid in by_player]


def _logged(score: _Cards) -> dict[str, int]:
    if score.hand is not None:
        return {"player_id": score.player_id, "hand": score.hand}
    return {"player_id": score.player_id, "dutch": score.dutch or 0, "blitz": score.blitz or 0}


def played_round(view: GameView, number: int) -> dict[str, Any]:
    """Round `number` of the game as logged: its cards, and who called Dutch or knocked (if anyone)."""
    scored = view.state.rounds[number - 1]
    logged: dict[str, Any] = {"scores": cards(scored.scores, [p.id for p in view.players])}
    if scored.caller is not None:
        logged["caller"] = scored.caller
    return logged


def entered_round(view: GameView, data: RoundIn) -> dict[str, Any]:
    """A round as sent, logged the same way."""
    logged: dict[str, Any] = {"scores": cards(data.scores, [p.id for p in view.players])}
    caller = data.caller if view.rules.kind == scoring.Kind.LOWEST else data.knocker
    if caller is not None:
        logged["caller"] = caller
    return logged


def settings_of(game: Game) -> dict[str, Any]:
    rules = scoring.public_rules(rules_of(game))
    return {"name": game.name} | {name: rules[name] for name in SETTINGS if name in rules}


@dataclass(frozen=True, slots=True)
class Change:
    """A logged change as plain values (it outlives the transaction that read it)."""

    id: int
    at: datetime
    kind: str
    round_number: int | None
    round_id: int | None
    reverts: int | None
    old: dict[str, Any] | None
    new: dict[str, Any] | None

    @classmethod
    def of(cls, row: RoundChange) -> Change:
        assert row.id is not None
        return cls(row.id, as_utc(row.at), row.kind, row.round_number, row.round_id, row.reverts, row.old, row.new)


def why_not(change: Change, view: GameView) -> str | None:
    """Why the change can't be reverted on the game as it stands; None when it can."""
    if change.kind == RULES:
        return _rules_moved(change, settings_of(view.game)) or _rules_break_rounds(change, view)
    number = change.round_number
    if change.kind == DELETION:
        # Its row id back with its cards: restored (SQLite may give its id to a new round instead).
        if change.round_id in view.round_ids and played_round(
            view, view.round_ids.index(change.round_id) + 1
        ) == _entry(change.old):
            return _("Round {number} is back already.").format(number=number)
        if (change.old or {}).get("last") and any(rid >= (change.round_id or 0) for rid in view.round_ids):
            return _(
                "Round {number} was the last round and the table has played on since: "
                "enter it again as a new round if it counts."
            ).format(number=number)
        return None
    if change.round_id not in view.round_ids:
        return _deleted_since(number)
    index = view.round_ids.index(change.round_id)
    if played_round(view, index + 1) != _entry(change.new):
        return _("Round {number} was corrected again since: revert the later change first.").format(number=index + 1)
    return None


def _entry(logged: dict[str, Any] | None) -> dict[str, Any]:
    """A logged round's cards and caller (a deletion's entry also says whether it was last, and its time)."""
    return {name: value for name, value in (logged or {}).items() if name in ("scores", "caller")}


def _rules_break_rounds(change: Change, view: GameView) -> str | None:
    """Why the old rules can't come back: a round played since that they don't allow (31: a player out
    who would still be in; a pile smaller than the cards left in it)."""
    old = {name: value for name, value in (change.old or {}).items() if name in scoring.PARAMS[view.rules.kind]}
    if not old:
        return None
    problems = rounds_under(view, scoring.with_params(view.rules, old))
    return problem_text(problems[0]) if problems else None


def _deleted_since(number: int | None) -> str:
    return _("Round {number} was deleted since: there is nothing to revert.").format(number=number)


def _rules_moved(change: Change, now: dict[str, Any]) -> str | None:
    moved = [name for name, value in (change.new or {}).items() if now.get(name) != value]
    if moved:
        if moved[0] in CHANGED_AGAIN:
            return _(CHANGED_AGAIN[moved[0]])
        return _("{setting} was changed again since: revert the later change first.").format(setting=moved[0])
    return None


def public(change: Change, view: GameView) -> dict[str, Any]:
    """A change as the API answers it (answers.ChangePublic)."""

    def values(logged: dict[str, Any] | None) -> dict[str, Any] | None:
        if logged is None:
            return None
        if change.kind == RULES:
            return {name: logged[name] for name in SETTINGS if name in logged}
        return {name: logged[name] for name in ("scores", "caller") if name in logged}

    return {
        "id": change.id,
        "at": change.at.isoformat().replace("+00:00", "Z"),
        "kind": change.kind,
        "round": change.round_number,
        "reverts": change.reverts,
        "revertable": why_not(change, view) is None,
        "old": values(change.old),
        "new": values(change.new),
    }


class ChangeLog:
    """The log's side of the use cases, mixed into app.games.usecases.Games: recording (called by the use
    cases inside their write), reading, and reverting."""

    session: Session
    _reverting: Change | None = None  # set while a revert runs: its entry names the change undone

    # --- recording ------------------------------------------------------------------------------

    def _log(self, view: GameView, kind: str, **fields: Any) -> None:
        reverts = self._reverting.id if self._reverting else None
        row = {"game_id": view.game.id, "kind": kind, "reverts": reverts, "at": utcnow()} | FIELDS_UNSET | fields
        self.session.connection().execute(CHANGE_INSERT, row)

    def _log_correction(self, view: GameView, number: int, data: RoundIn) -> None:
        old, new = played_round(view, number), entered_round(view, data)
        if old != new:
            round_id = view.round_ids[number - 1]
            self._log(view, CORRECTION, round_number=number, round_id=round_id, old=old, new=new)

    def _log_deletion(self, view: GameView, number: int) -> None:
        if self._reverting and (reason := why_not(self._reverting, view)):
            raise CantRevert(reason)
        old = played_round(view, number) | {"last": number == len(view.round_ids)}  # where it can go back (why_not)
        took = view.times.get(view.round_ids[number - 1])
        if took is not None and (took.started_at is not None or took.duration_s is not None):
            # Its time, so that a revert puts the round back whole (the round timer's start and duration).
            old["time"] = {
                "started_at": took.started_at.isoformat() if took.started_at else None,
                "duration_s": took.duration_s,
            }
        # When it was saved: a revert puts it back at that moment, so a finished game at a table still
        # finished when it did (app.games.results takes the last round's) and its standings stay in their period.
        saved = self.session.exec(select(Round.created_at).where(Round.id == view.round_ids[number - 1])).first()
        if saved is not None:
            old["saved"] = as_utc(saved).isoformat()
        self._log(view, DELETION, round_number=number, round_id=view.round_ids[number - 1], old=old)

    def _log_rules(self, view: GameView, before: dict[str, Any]) -> None:
        if self._reverting and (reason := _rules_moved(self._reverting, before)):
            raise CantRevert(reason)
        after = settings_of(view.game)
        if moved := [name for name in SETTINGS if name in before and before[name] != after.get(name)]:
            self._log(view, RULES, old={n: before[n] for n in moved}, new={n: after[n] for n in moved})

    # --- reading --------------------------------------------------------------------------------

    def changes(self, game_id: str, limit: int | None = None) -> list[Change]:
        """The game's changes, newest first (all of them, or the latest `limit`)."""
        query = select(RoundChange).where(RoundChange.game_id == game_id).order_by(RoundChange.id.desc())  # type: ignore[union-attr]
        if limit is not None:
            query = query.limit(limit)
        return [Change.of(row) for row in self.session.exec(query)]

    # --- reverting ------------------------------------------------------------------------------

    def revert_change(
        self,
        game_id: str,
        change_id: int,
        credential: Credential,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Any:
        """Undo one change (see the module's notes); answers the game as the other writes do (Outcome)."""
        session = self.session
        writes: Any = self  # app.games.usecases.Games: the use cases this one goes through
        row = session.get(RoundChange, change_id)
        if row is None or row.game_id != game_id:
            if session.get(Game, game_id) is None:
                raise writes.missing(game_id)
            raise GameNotFound(_("This game has no change {change_id}.").format(change_id=change_id))
        change = Change.of(row)
        round_ids = list(session.exec(select(Round.id).where(Round.game_id == game_id).order_by(Round.id)))
        session.rollback()  # the write takes its own lock and reads the game again under it
        # The round's number now (a retry finds the first answer before the number matters).
        number = round_ids.index(change.round_id) + 1 if change.round_id in round_ids else len(round_ids) + 1
        options = {"if_match": if_match, "idempotency": idempotency}
        self._reverting = change
        try:
            if change.kind == RULES:
                try:
                    return writes.update(game_id, credential, _rules_update(change.old or {}), **options)
                except InvalidInput as error:  # the old rules don't allow a round played since
                    raise CantRevert(error.detail) from error
            if change.kind == DELETION:
                return self._restore(game_id, change, credential, **options)
            if change.kind == RESTORATION:
                return writes.delete_round(game_id, number, credential, **options)

            def old_cards(view: GameView) -> RoundIn:
                if reason := why_not(change, view):
                    raise CantRevert(reason)
                # Under the lock: the number read before it must still name the change's round (another
                # phone may have deleted or put back an earlier round meanwhile).
                if number > len(view.round_ids) or view.round_ids[number - 1] != change.round_id:
                    raise CantRevert(_("The rounds were renumbered meanwhile: look again and revert from there."))
                return _round_in(change.old, view)

            return writes.replace_round(game_id, number, credential, old_cards, **options)
        except GameNotFound as error:  # the round went between the read above and the write's lock
            raise CantRevert(_deleted_since(change.round_number)) from error
        finally:
            self._reverting = None

    def _restore(
        self,
        game_id: str,
        change: Change,
        credential: Credential,
        *,
        if_match: str | None,
        idempotency: Idempotency | None,
    ) -> Any:
        """A deleted round back in its place: by its old row id, as rounds are numbered by their row order."""
        writes: Any = self
        session = writes.session
        limit = writes.settings.max_rounds_per_game

        def put_back(view: GameView) -> Played:
            if reason := why_not(change, view):
                raise CantRevert(reason)
            if len(view.round_ids) >= limit:
                raise TooManyRounds(
                    ngettext(
                        "A game can hold at most {limit} round, and this one has it.",
                        "A game can hold at most {limit} rounds, and this one has them all.",
                        limit,
                    ).format(limit=limit)
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
            data = writes._check_round(view, _round_in(change.old, view), place + 1)
            # Its old id puts it between the rounds it was between; when another game's round has
            # that id now, nothing of this game comes after it, so a new id (the last) is its place.
            took = (change.old or {}).get("time") or {}
            time = RoundTime(
                datetime.fromisoformat(took["started_at"]) if took.get("started_at") else None, took.get("duration_s")
            )
            saved = (change.old or {}).get("saved")
            at = datetime.fromisoformat(saved) if saved else utcnow()
            round_id = writes._insert_round(
                view.game.id, at, time.started_at, time.duration_s, round_id=None if taken else old_id
            )
            if time.started_at is not None or time.duration_s is not None:
                view.times[round_id] = time
            position = sum(1 for rid in view.round_ids if rid < round_id)
            played = view.played()
            played.insert(position, (round_id, writes._add_scores(round_id, data, view.rules)))
            writes._still_possible(view, played, position)
            self._log(view, RESTORATION, round_number=position + 1, round_id=round_id, new=entered_round(view, data))
            return played

        return writes._write(
            game_id, credential, put_back, if_match=if_match, idempotency=idempotency, view_on_refusal=True
        )


def _round_in(logged: dict[str, Any] | None, view: GameView) -> RoundIn:
    logged = logged or {}
    scores = [ScoreIn(**score) for score in logged.get("scores", [])]
    caller = logged.get("caller")
    if view.rules.kind == scoring.Kind.LIVES:
        return RoundIn(scores=scores, knocker=caller)
    return RoundIn(scores=scores, caller=caller)


def _rules_update(old: dict[str, Any]) -> GameUpdate:
    # Unchecked (model_construct) as the rules page does: the use case judges them with its messages.
    rules = {name: old[name] for name in SETTINGS if name != "name" and name in old}
    return GameUpdate.model_construct(
        name=old.get("name"), rules=RulesUpdate.model_construct(**rules) if rules else None
    )
