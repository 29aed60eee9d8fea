"""The players of a running game: renamed (a typo fixed), as a use case on the game's writer like the others
(`Games.rename_player` offers it), logged in the game's changes (app.games.changes, kind "rename") and
reverted by renaming back.

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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import bindparam
from sqlmodel import Session

from app.errors import CantRevert, GameNotFound, InvalidInput
from app.games.changes import Change, log_rename, renamed_since
from app.games.views import GameView
from app.games.writes import Guard, Outcome, Unchanged
from app.i18n import _
from app.idempotency import Idempotency
from app.models import Person, Player
from app.rules import scoring
from app.rules.names import clean_name, name_key, name_problem
from app.security import Credential
from app.tables.roster import roster_people

if TYPE_CHECKING:
    from app.games.usecases import Games

PLAYERS = Player.__table__  # type: ignore[attr-defined]
PLAYER_UPDATE = PLAYERS.update().where(PLAYERS.c.id == bindparam("player_key"))


def player_of(view: GameView, player_id: int) -> Player:
    """The game's player of that id (404 when the game has none)."""
    for player in view.players:
        if player.id == player_id:
            return player
    raise GameNotFound(_("This game has no player {player_id}.").format(player_id=player_id))


def checked_player_name(view: GameView, player_id: int, typed: str) -> str:
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
    session = games.session

    def change(view: GameView) -> None:  # the rounds stay as they are
        if reverting and (reason := renamed_since(reverting, view)):
            raise CantRevert(reason)
        player = player_of(view, player_id)
        new = checked_player_name(view, player_id, name)
        person_id = player.person_id
        if view.game.table_id is not None and player.person_id is not None:
            back_to = (reverting.old or {}).get("person_id") if reverting else None
            person = _person_called(session, view.game.table_id, new, back_to)
            if person.id == player.person_id and person.name != new and new != player.name:
                raise InvalidInput([scoring.Problem("roster_spelling", field="name", params={"name": person.name})])
            new, person_id = person.name, person.id
        if new == player.name and person_id == player.person_id:
            raise Unchanged
        log_rename(session, view, player, new, person_id, reverting)
        session.connection().execute(PLAYER_UPDATE, {"player_key": player_id, "name": new, "person_id": person_id})
        # A copy in a new list: the players before the change may be the view cache's (of the version before).
        renamed = Player(
            id=player.id,
            game_id=player.game_id,
            seat=player.seat,
            name=new,
            starting_score=player.starting_score,
            person_id=person_id,
        )
        view.players = [renamed if p.id == player_id else p for p in view.players]

    guard = Guard.key(credential)
    return games.writer.write(game_id, guard, change, if_match=if_match, idempotency=idempotency)


def _person_called(session: Session, table_id: str, name: str, back_to: int | None = None) -> Person:
    """The table's person of that name (ignoring case), or InvalidInput (field "name") when the roster has
    nobody of that name. A revert (`back_to`) finds the person the player was while they are on the roster,
    under their name now."""
    roster = roster_people(session, table_id)
    if back_to is not None and (person := next((p for p in roster.values() if p.id == back_to), None)):
        return person
    person = roster.get(name_key(name))
    if person is None:
        raise InvalidInput([scoring.Problem("not_on_roster", field="name", params={"name": name})])
    return person
