"""The players of a running game: renamed (a typo fixed) or marked as having left, as a use case on the
game's writer like the others (`Games.update_player` offers both, in one write), logged in the game's changes
(app.games.changes, kinds "rename" and "leave") and reverted by renaming back or coming back.

A leaver keeps the rounds they played and sits in no later one (`player.left_after_round_id`: the game's
last round when they left, 0 before any; app.games.views.rule_players counts their rounds from it). The
rules list them after the players still in and never make them first (app.rules.totals.by_totals,
app.rules.lives). Refused on a finished game, for a player out of a game of 31, and when fewer than two
players would stay in. Coming back (`left: false`, or the leave's revert) only while no round was played
since: they would be missing from it.

A rename changes no score: the player keeps their id, seat and rounds. Their name is checked as a new game's
names are (app.rules.names: trimmed, visible, at most 40 characters) and must differ (ignoring case) from
every other player's.

At a table the player is a person of its roster, whose name the player carries: a rename links the player
to the roster's person of the new name (ignoring case; the player takes the roster's spelling). The game's
key changes the game, never the roster: a name the roster doesn't have is refused beside the field (the
table's page adds people, with the table's key), and so is a change of capitals only (the roster's
spelling is the table's: its page renames the person). The person the player was stays on the roster with
their other games; a table's finished game moves its result to the new person, so a typo fixed counts for
the right person in the table's standings. The log keeps both people, so a revert links the player back to
the person they were, under that person's name now. Renaming someone in every game of the table is the
table's own rename (app.tables.usecases.Tables.rename_person).

A rename to the name the player has changes nothing: no version, no log, nobody told (`Unchanged`).

A latecomer (`add_player`) takes the next seat and sits in every round after the game's last one when they
came (`player.joined_after_round_id`; 0 when no round was played yet, so they sit in every round and, in 31,
come with the lives given). Their
starting score is the keeper's choice, by default last place's total (`scoring.latecomer_start`): the lowest total of
those still in (Dutch, lowest wins: the highest; 31: the fewest lives, at least one), so joining never puts
anyone who played all along behind a newcomer, and the table can give more. In 31 the keeper gives lives
(1 to the rules' lives), kept as the lives they came without. Refused on a finished game and in a full
one; the name checked as a rename's (at a table: someone on the roster). Logged ("join") and reverted,
while they have played no round, by taking them out again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import bindparam
from sqlmodel import Session

from app.errors import CantRevert, GameIsOver, GameNotFound, InvalidInput
from app.games.changes import Change, came_and_played, leave_moved, log_join, log_leave, log_rename, renamed_since
from app.games.views import GameView
from app.games.writes import Guard, Outcome, Unchanged
from app.i18n import _
from app.idempotency import Idempotency
from app.models import DraftRow, Person, Player, Seat
from app.rules import scoring
from app.rules.names import clean_name, name_key, name_problem
from app.security import Credential
from app.tables.roster import roster_people

if TYPE_CHECKING:
    from app.games.usecases import Games

PLAYERS = Player.__table__  # type: ignore[attr-defined]
PLAYER_UPDATE = PLAYERS.update().where(PLAYERS.c.id == bindparam("player_key"))
LEFT_UPDATE = PLAYER_UPDATE  # with {"player_key", "left_after_round_id"}


def player_of(view: GameView, player_id: int) -> Player:
    """The game's player of that id (404 when the game has none)."""
    for player in view.players:
        if player.id == player_id:
            return player
    raise GameNotFound(_("This game has no player {player_id}.").format(player_id=player_id))


def checked_player_name(view: GameView, player_id: int | None, typed: str) -> str:
    """The name as stored, or InvalidInput (field "name") when it is refused or another player has it."""
    name = clean_name(typed)
    if reason := name_problem(name):
        raise InvalidInput([scoring.name_refused(reason, field="name")])
    if any(p.id != player_id and name_key(p.name) == name_key(name) for p in view.players):
        raise InvalidInput([scoring.Problem("name_taken", field="name", params={"name": name})])
    return name


def rename_player(
    games: Games,
    game_id: str,
    player_id: int,
    credential: Credential,
    name: str,
    *,
    if_match: str | None = None,
    idempotency: Idempotency | None = None,
    reverting: Change | None = None,
) -> Outcome:
    """The player called `name` from now on (`reverting`: the logged rename this puts back)."""
    return update_player(
        games, game_id, player_id, credential, name, if_match=if_match, idempotency=idempotency, reverting=reverting
    )


def update_player(
    games: Games,
    game_id: str,
    player_id: int,
    credential: Credential,
    name: str | None = None,
    left: bool | None = None,
    *,
    if_match: str | None = None,
    idempotency: Idempotency | None = None,
    reverting: Change | None = None,
) -> Outcome:
    """The player renamed (`name`), gone (`left` true) or back (`left` false), in one write; `reverting`: the
    logged rename or leave this puts back."""
    session = games.session
    if name is None and left is None:
        raise InvalidInput([scoring.Problem("player_update_empty", field="name")])

    def change(view: GameView) -> None:  # the rounds stay as they are
        if reverting and (reason := (renamed_since if name is not None else leave_moved)(reverting, view)):
            raise CantRevert(reason)
        player = player_of(view, player_id)
        before = player
        if name is not None:
            player = _rename(session, view, player, name, reverting)
        if left is not None:
            player = _leave(session, view, player, left, reverting)
        if player is before:
            raise Unchanged  # nothing to change: no version, no log, nobody told
        view.players = [player if p.id == player_id else p for p in view.players]

    guard = Guard.key(credential)
    return games.writer.write(game_id, guard, change, if_match=if_match, idempotency=idempotency)


def add_player(
    games: Games,
    game_id: str,
    credential: Credential,
    name: str,
    starting_score: int | None = None,
    lives: int | None = None,
    *,
    if_match: str | None = None,
    idempotency: Idempotency | None = None,
) -> Outcome:
    """A latecomer in the next seat, in every round from the next one; `starting_score` (31: `lives`) the
    keeper's, or `scoring.latecomer_start`'s."""
    session = games.session

    def change(view: GameView) -> None:
        if view.state.over:
            raise GameIsOver(_("The game is over: nobody can join it any more."))
        if len(view.players) >= scoring.MAX_PLAYERS:
            raise InvalidInput([scoring.Problem("table_full", field="name", params={"high": scoring.MAX_PLAYERS})])
        new = checked_player_name(view, None, name)
        person_id = None
        if view.game.table_id is not None:
            person = _person_called(session, view.game.table_id, new, code="not_on_roster_join")
            new, person_id = person.name, person.id
        start = _checked_start(view, new, starting_score, lives)
        mark = view.round_ids[-1] if view.round_ids else 0  # 0: before any round (their start counts as given)
        seat = max((p.seat for p in view.players), default=-1) + 1
        row = {"game_id": view.game.id, "seat": seat, "name": new, "starting_score": start, "person_id": person_id}
        row |= {"left_after_round_id": None, "joined_after_round_id": mark}
        player_id = session.connection().execute(PLAYERS.insert(), row).inserted_primary_key[0]
        player = Player(id=player_id, **row)
        log_join(session, view, player)
        view.players = [*view.players, player]

    guard = Guard.key(credential)
    return games.writer.write(game_id, guard, change, if_match=if_match, idempotency=idempotency, created=True)


def take_out(
    games: Games,
    game_id: str,
    credential: Credential,
    *,
    reverting: Change,
    if_match: str | None = None,
    idempotency: Idempotency | None = None,
) -> Outcome:
    """A latecomer's coming reverted: they are taken out again, while they have played no round."""
    session = games.session

    def change(view: GameView) -> None:
        if reason := came_and_played(reverting, view):
            raise CantRevert(reason)
        player = player_of(view, (reverting.new or {}).get("player_id", 0))
        log_join(session, view, player, taken_out=reverting)
        for table in (DraftRow, Seat):  # theirs, if they took a seat already
            session.connection().execute(table.__table__.delete().where(table.__table__.c.player_id == player.id))  # type: ignore[attr-defined]
        session.connection().execute(PLAYERS.delete().where(PLAYERS.c.id == player.id))
        view.players = [p for p in view.players if p.id != player.id]

    return games.writer.write(game_id, Guard.key(credential), change, if_match=if_match, idempotency=idempotency)


def _checked_start(view: GameView, name: str, starting_score: int | None, lives: int | None) -> int:
    """The latecomer's starting score as stored (31: the lives they come without), or InvalidInput."""
    rules = view.rules
    if rules.kind == scoring.Kind.LIVES:
        if starting_score:
            raise InvalidInput([scoring.Problem("starting_score_lives", field="starting_score")])
        came_with = scoring.latecomer_start(view.state) if lives is None else lives
        start = came_with - rules.lives
    else:
        if lives is not None:
            raise InvalidInput([scoring.Problem("lives_not_in_kind", field="late_lives")])
        start = scoring.latecomer_start(view.state) if starting_score is None else starting_score
    seat = scoring.Player(0, name, start, joined_after=len(view.round_ids))
    problems = [p for p in scoring.validate_players([seat], rules) if p.field == "starting_score"]
    if problems:
        field = "late_lives" if rules.kind == scoring.Kind.LIVES else "starting_score"
        raise InvalidInput([scoring.Problem(p.code, field=field, params=p.params) for p in problems])
    return start


def _copy(player: Player, **changed: object) -> Player:
    """A copy in a new list: the players before the change may be the view cache's (of the version before)."""
    fields = (
        "id", "game_id", "seat", "name", "starting_score", "person_id", "left_after_round_id", "joined_after_round_id"
    )  # fmt: skip
    return Player(**({name: getattr(player, name) for name in fields} | changed))


def _rename(session: Session, view: GameView, player: Player, name: str, reverting: Change | None) -> Player:
    new = checked_player_name(view, player.id, name)
    person_id = player.person_id
    if view.game.table_id is not None and player.person_id is not None:
        back_to = (reverting.old or {}).get("person_id") if reverting else None
        person = _person_called(session, view.game.table_id, new, back_to)
        if person.id == player.person_id and person.name != new and new != player.name:
            raise InvalidInput([scoring.Problem("roster_spelling", field="name", params={"name": person.name})])
        new, person_id = person.name, person.id
    if new == player.name and person_id == player.person_id:
        return player
    log_rename(session, view, player, new, person_id, reverting)
    session.connection().execute(PLAYER_UPDATE, {"player_key": player.id, "name": new, "person_id": person_id})
    return _copy(player, name=new, person_id=person_id)


def _leave(session: Session, view: GameView, player: Player, left: bool, reverting: Change | None) -> Player:
    if left == (player.left_after_round_id is not None):
        return player  # already so: nothing to change or log
    state = view.state
    if left:
        if state.over:
            raise GameIsOver(_("The game is over: nobody can leave it any more."))
        if player.id in state.out:
            problem = scoring.Problem(
                "player_out_already", field="left", player_id=player.id, params={"name": player.name}
            )
            raise InvalidInput([problem])
        if len([p for p in view.players if p.id not in state.out and p.id != player.id]) < scoring.MIN_PLAYERS:
            raise InvalidInput([scoring.Problem("too_few_stay", field="left", params={"low": scoring.MIN_PLAYERS})])
        mark: int | None = view.round_ids[-1] if view.round_ids else 0
    else:
        if any(round_id > (player.left_after_round_id or 0) for round_id in view.round_ids):
            problem = scoring.Problem(
                "played_since_left", field="left", player_id=player.id, params={"name": player.name}
            )
            raise InvalidInput([problem])
        mark = None
    log_leave(session, view, player.id, player.left_after_round_id, mark, reverting)
    session.connection().execute(LEFT_UPDATE, {"player_key": player.id, "left_after_round_id": mark})
    return _copy(player, left_after_round_id=mark)


def leavers_before(session: Session, view: GameView, round_id: int) -> None:
    """A new round's id taken by a leaver's or a latecomer's mark (SQLite gives a deleted last round's id to
    the next round): the mark moves before it, so the new round is not the leaver's and is the latecomer's
    (the round it named is gone)."""
    for column in ("left_after_round_id", "joined_after_round_id"):
        marked = [p for p in view.players if (getattr(p, column) or 0) >= round_id]
        for player in marked:
            session.connection().execute(PLAYER_UPDATE, {"player_key": player.id, column: round_id - 1})
        if marked:
            view.players = [_copy(p, **{column: round_id - 1}) if p in marked else p for p in view.players]


def _person_called(
    session: Session, table_id: str, name: str, back_to: int | None = None, code: str = "not_on_roster"
) -> Person:
    """The table's person of that name (ignoring case), or InvalidInput (field "name") when the roster has
    nobody of that name. A revert (`back_to`) finds the person the player was while they are on the roster,
    under their name now."""
    roster = roster_people(session, table_id)
    if back_to is not None and (person := next((p for p in roster.values() if p.id == back_to), None)):
        return person
    person = roster.get(name_key(name))
    if person is None:
        raise InvalidInput([scoring.Problem(code, field="name", params={"name": name})])
    return person
