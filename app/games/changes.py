"""The correction log: every change to a past round or to the rules, kept so the whole table can see
who changed what, and undone with one tap (revert).

History, not state: scores are derived from the rounds, never from this log. A new round and the
game's creation are play, not changes, and are not logged; nor is a correction or a rules "change"
that changes nothing. Each entry is written by the use case (app.games.usecases) inside the write transaction
of the change itself, so a change and its entry commit together or not at all.

A revert puts back what the change replaced through the same write paths, and so the same rule
checks, as the scorekeeper's own edits (`Games.replace_round`, `Games.update`, `Games.delete_round`,
each handed the change it undoes), and is itself logged, naming the change it undid (`reverts`):

- a correction: the round gets its old cards back (a new correction);
- a deletion: the round comes back in its place in the order of play, and the rounds after it move
  down a number ("restoration"). Refused when it was the last round and the table has played on
  since (the round was most likely entered again), or when the database can't put it between its
  neighbours any more (SQLite reuses the highest row id: only after the rounds after it went too);
- a restoration: the round is deleted again;
- a rules change: the old settings;
- a player's rename: their old name (app.games.players; at a table, the person of that name again);
- a player's leave: they are back (only while no round was played since), and a coming back: gone again.

A revert is refused (409 `cant-revert`, nothing changed) unless what the change touched is still as
the change left it: a round corrected again, or a setting changed again, is put back by reverting the
later change first. This is checked again under the write lock.

A little past 400 lines, on purpose: each kind of change (corrections, deletions and restorations, rules,
renames, leaves, latecomers) has three small parts that must agree, what is logged, why it can't be
reverted now, and what the API shows of it, and they are kept side by side here so a new kind is added in
one place; what a change says in words is app.web.changes'.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlmodel import Session, select

from app.errors import CantRevert
from app.games.game_rules import rounds_under
from app.games.views import GameView, rules_of
from app.i18n import N_, _, problem_text
from app.models import Game, Player, Round, RoundChange, as_utc, utcnow
from app.rules import scoring
from app.schemas import GameUpdate, RoundIn, RulesUpdate, ScoreIn

CORRECTION, DELETION, RESTORATION, RULES = "correction", "deletion", "restoration", "rules"
RENAME = "rename"  # a player's name: old and new are {"player_id", "name"}
# A player left (or came back): old and new are {"player_id", "left_after_round_id"} (None: playing).
LEAVE = "leave"
# A latecomer came: new is {"player_id", "name", "starting_score", "joined_after_round_id"} and old None; its
# revert takes them out again (old the same, new None), which can't be reverted in turn (add them again).
JOIN = "join"
# The log's rows, written as plain Core in the change's write (no ORM flush); every column named.
CHANGE_INSERT = RoundChange.__table__.insert()  # type: ignore[attr-defined]
FIELDS_UNSET = {"round_number": None, "round_id": None, "old": None, "new": None}
KINDS = (CORRECTION, DELETION, RESTORATION, RULES, RENAME, LEAVE, JOIN)
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
    "thirty_and_a_half": N_("The 30½ rule was changed again since: revert the later change first."),
    "win": N_("The win rule was changed again since: revert the later change first."),
}


class _Cards(Protocol):
    player_id: int
    dutch: int | None
    blitz: int | None
    hand: int | float | None  # 31's 30½ is logged as 30.5


def cards(scores: Iterable[_Cards], seats: list[int]) -> list[dict[str, int | float]]:
    """A round's cards as logged: one {player_id, dutch, blitz} (or {player_id, hand}) per player, in
    seating order."""
    by_player = {s.player_id: s for s in scores}
    return [_logged(by_player[pid]) for pid in seats if pid in by_player]


def _logged(score: _Cards) -> dict[str, int | float]:
    if score.hand is not None:
        return {"player_id": score.player_id, "hand": score.hand}
    return {"player_id": score.player_id, "dutch": score.dutch or 0, "blitz": score.blitz or 0}


def played_round(view: GameView, number: int) -> dict[str, Any]:
    """Round `number` of the game as logged: its cards, who called Dutch or knocked (if anyone), and the
    centre piles as counted (if they were)."""
    scored = view.state.rounds[number - 1]
    logged: dict[str, Any] = {"scores": cards(scored.scores, [p.id for p in view.players])}
    if scored.caller is not None:
        logged["caller"] = scored.caller
    if (piles := view.piles.get(view.round_ids[number - 1])) is not None:
        logged["piles"] = piles
    return logged


def entered_round(view: GameView, data: RoundIn, number: int | None = None) -> dict[str, Any]:
    """A round as sent, logged the same way; a correction of round `number` that leaves `piles` out keeps
    the round's count."""
    logged: dict[str, Any] = {"scores": cards(data.scores, [p.id for p in view.players])}
    caller = data.caller if view.rules.kind == scoring.Kind.LOWEST else data.knocker
    if caller is not None:
        logged["caller"] = caller
    piles = data.piles
    if number is not None and "piles" not in data.model_fields_set:
        piles = view.piles.get(view.round_ids[number - 1])
    if piles is not None:
        logged["piles"] = piles
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
    if change.kind == RENAME:
        return renamed_since(change, view)
    if change.kind == LEAVE:
        return leave_moved(change, view)
    if change.kind == JOIN:
        return came_and_played(change, view)
    number = change.round_number
    if change.kind == DELETION:
        # Its row id back with its cards: restored (SQLite may give its id to a new round instead).
        if change.round_id in view.round_ids and played_round(
            view, view.round_ids.index(change.round_id) + 1
        ) == _entry(change.old):
            return _("Round {number} is back already.").format(number=number)
        played = {score.get("player_id") for score in (change.old or {}).get("scores", [])}
        came = [
            p.name
            for p in view.players
            if p.joined_after_round_id is not None and p.joined_after_round_id < (change.round_id or 0)
            and p.id not in played
        ]  # fmt: skip
        if came:  # a latecomer who came since: the round as it was has no row of theirs
            return _(
                "{name} came after round {number} was deleted: enter it again as a new round if it counts."
            ).format(name=came[0], number=number)
        if (change.old or {}).get("last") and any(rid >= (change.round_id or 0) for rid in view.round_ids):
            return _(
                "Round {number} was the last round and the table has played on since: "
                "enter it again as a new round if it counts."
            ).format(number=number)
        return None
    if change.round_id not in view.round_ids:
        return deleted_since(number)
    index = view.round_ids.index(change.round_id)
    if played_round(view, index + 1) != _entry(change.new):
        return _("Round {number} was corrected again since: revert the later change first.").format(number=index + 1)
    return None


def _entry(logged: dict[str, Any] | None) -> dict[str, Any]:
    """A logged round's cards and caller (a deletion's entry also says whether it was last, and its time)."""
    return {name: value for name, value in (logged or {}).items() if name in ("scores", "caller", "piles")}


def _rules_break_rounds(change: Change, view: GameView) -> str | None:
    """Why the old rules can't come back: a round played since that they don't allow (31: a player out
    who would still be in; a pile smaller than the cards left in it)."""
    old = {name: value for name, value in (change.old or {}).items() if name in scoring.PARAMS[view.rules.kind]}
    if not old:
        return None
    problems = rounds_under(view, scoring.with_params(view.rules, old))
    return problem_text(problems[0]) if problems else None


def renamed_since(change: Change, view: GameView) -> str | None:
    """Why a rename can't be reverted: the player is gone, or has another name now."""
    new = change.new or {}
    now = view.player_names().get(new.get("player_id", 0))
    if now is None:
        return _("That player is no longer in the game: there is nothing to revert.")
    if now != new.get("name"):
        person = next((p.person_id for p in view.players if p.id == new.get("player_id")), None)
        if person is not None and person == new.get("person_id"):  # the table's page renamed the person
            return _("{name} was renamed on the table's page since: rename them there.").format(name=now)
        return _("{name} was renamed again since: revert the later change first.").format(name=now)
    return None


def leave_moved(change: Change, view: GameView) -> str | None:
    """Why a leave (or a coming back) can't be reverted: the player is gone, left or came back since, or
    (to bring a leaver back) a round was played since they left, which they'd be missing from."""
    new = change.new or {}
    player = next((p for p in view.players if p.id == new.get("player_id")), None)
    if player is None:
        return _("That player is no longer in the game: there is nothing to revert.")
    if player.left_after_round_id != new.get("left_after_round_id"):
        return _("{name} left or came back again since: revert the later change first.").format(name=player.name)
    if player.left_after_round_id is not None and any(rid > player.left_after_round_id for rid in view.round_ids):
        return problem_text(
            scoring.Problem("played_since_left", field="left", player_id=player.id, params={"name": player.name})
        )
    return None


def came_and_played(change: Change, view: GameView) -> str | None:
    """Why a latecomer can't be taken out again: they played a round since they came (mark them as having
    left instead), they are gone already, or (a taking out) it is undone by adding them again."""
    if change.new is None:
        name = (change.old or {}).get("name", "")
        return _("{name} was taken out of the game: add them again if they play after all.").format(name=name)
    player = next((p for p in view.players if p.id == change.new.get("player_id")), None)
    # The player it logged: SQLite may give a taken-out latecomer's id to the next one, who is someone else.
    logged = (change.new.get("joined_after_round_id"), change.new.get("name"))
    if player is None or (player.joined_after_round_id, player.name) != logged:
        return _("That player is no longer in the game: there is nothing to revert.")
    if any(rid > (player.joined_after_round_id or 0) for rid in view.round_ids):
        return _("{name} has played since they came: mark them as having left instead.").format(name=player.name)
    if len([p for p in view.players if p.id not in view.state.out and p.id != player.id]) < scoring.MIN_PLAYERS:
        return problem_text(scoring.Problem("too_few_stay", field="left", params={"low": scoring.MIN_PLAYERS}))
    return None


def deleted_since(number: int | None) -> str:
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
        if change.kind == RENAME:
            return {name: logged[name] for name in ("player_id", "name") if name in logged}
        if change.kind == LEAVE:
            return {"player_id": logged.get("player_id"), "left": logged.get("left_after_round_id") is not None}
        if change.kind == JOIN:
            return {name: logged[name] for name in ("player_id", "name", "starting_score", "lives") if name in logged}
        return {name: logged[name] for name in ("scores", "caller", "piles") if name in logged}

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


# --- recording: called by the use cases inside their write, so a change and its entry commit together.
# `reverting`: the change a revert undoes, which the entry names (and which must still be undoable).


def _log(session: Session, view: GameView, kind: str, reverting: Change | None, **fields: Any) -> None:
    reverts = reverting.id if reverting else None
    row = {"game_id": view.game.id, "kind": kind, "reverts": reverts, "at": utcnow()} | FIELDS_UNSET | fields
    session.connection().execute(CHANGE_INSERT, row)


def log_correction(
    session: Session, view: GameView, number: int, data: RoundIn, reverting: Change | None = None
) -> None:
    old, new = played_round(view, number), entered_round(view, data, number)
    if old != new:
        round_id = view.round_ids[number - 1]
        _log(session, view, CORRECTION, reverting, round_number=number, round_id=round_id, old=old, new=new)


def log_deletion(session: Session, view: GameView, number: int, reverting: Change | None = None) -> None:
    if reverting and (reason := why_not(reverting, view)):
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
    saved = session.exec(select(Round.created_at).where(Round.id == view.round_ids[number - 1])).first()
    if saved is not None:
        old["saved"] = as_utc(saved).isoformat()
    _log(session, view, DELETION, reverting, round_number=number, round_id=view.round_ids[number - 1], old=old)


def log_restoration(
    session: Session, view: GameView, number: int, round_id: int, data: RoundIn, reverting: Change
) -> None:
    _log(session, view, RESTORATION, reverting, round_number=number, round_id=round_id, new=entered_round(view, data))


def log_rules(session: Session, view: GameView, before: dict[str, Any], reverting: Change | None = None) -> None:
    if reverting and (reason := _rules_moved(reverting, before)):
        raise CantRevert(reason)
    after = settings_of(view.game)
    if moved := [name for name in SETTINGS if name in before and before[name] != after.get(name)]:
        _log(session, view, RULES, reverting, old={n: before[n] for n in moved}, new={n: after[n] for n in moved})


def log_rename(
    session: Session, view: GameView, player: Player, new: str, person_id: int | None, reverting: Change | None = None
) -> None:
    """A player's rename; at a table with the person they were and the person they are now (a revert links
    the player back to that person)."""
    old_name: dict[str, Any] = {"player_id": player.id, "name": player.name}
    new_name: dict[str, Any] = {"player_id": player.id, "name": new}
    if player.person_id is not None:
        old_name["person_id"], new_name["person_id"] = player.person_id, person_id
    _log(session, view, RENAME, reverting, old=old_name, new=new_name)


def log_leave(
    session: Session, view: GameView, player_id: int, old: int | None, new: int | None, reverting: Change | None = None
) -> None:
    """A player left (`new`: the game's last round then, 0 before any) or came back (`new` None); the entry's
    round is the last one they played (None before any)."""
    last = sum(rid <= (new if new is not None else old or 0) for rid in view.round_ids) or None
    before, after = (
        {"player_id": player_id, "left_after_round_id": old},
        {"player_id": player_id, "left_after_round_id": new},
    )
    _log(session, view, LEAVE, reverting, round_number=last, old=before, new=after)


def log_join(session: Session, view: GameView, player: Player, taken_out: Change | None = None) -> None:
    """A latecomer came (the entry's round: the last one before they came, None before any), or (`taken_out`:
    the join this reverts) was taken out again."""
    came = {
        "player_id": player.id,
        "name": player.name,
        "starting_score": player.starting_score,
        "joined_after_round_id": player.joined_after_round_id,
    }
    if view.rules.kind == scoring.Kind.LIVES:  # 31: the lives they came with, as the log says it
        came["lives"] = view.rules.lives + player.starting_score
    last = sum(rid <= (player.joined_after_round_id or 0) for rid in view.round_ids) or None
    if taken_out is None:
        _log(session, view, JOIN, None, round_number=last, old=None, new=came)
    else:
        _log(session, view, JOIN, taken_out, round_number=last, old=came, new=None)


# --- reading ------------------------------------------------------------------------------------


def read_changes(session: Session, game_id: str, limit: int | None = None) -> list[Change]:
    """The game's changes, newest first (all of them, or the latest `limit`)."""
    query = select(RoundChange).where(RoundChange.game_id == game_id).order_by(RoundChange.id.desc())  # type: ignore[union-attr]
    if limit is not None:
        query = query.limit(limit)
    return [Change.of(row) for row in session.exec(query)]


def round_in(logged: dict[str, Any] | None, view: GameView) -> RoundIn:
    logged = logged or {}
    scores = [ScoreIn(**score) for score in logged.get("scores", [])]
    caller = logged.get("caller")
    if view.rules.kind == scoring.Kind.LIVES:
        return RoundIn(scores=scores, knocker=caller)
    if view.rules.kind == scoring.Kind.CARDS:  # its piles as they were (none: cleared), however they compare
        return RoundIn(scores=scores, piles=logged.get("piles"), piles_anyway=True)
    return RoundIn(scores=scores, caller=caller)


def rules_update(old: dict[str, Any]) -> GameUpdate:
    # Unchecked (model_construct) as the rules page does: the use case judges them with its messages.
    rules = {name: old[name] for name in SETTINGS if name != "name" and name in old}
    return GameUpdate.model_construct(
        name=old.get("name"), rules=RulesUpdate.model_construct(**rules) if rules else None
    )
