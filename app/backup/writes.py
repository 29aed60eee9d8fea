"""Writing checked backups (app.backup.check) as new games: new ids and keys, the document's
timestamps, version 1, each round and score stored as the use cases store them, and at a table each
game's result rows (app.games.results), as if it had been played here.

In two steps, so the write lock is held only for the second: `prepare` makes each game's row, key and
players before it; `write_games` inserts them (a few statements for any number of rows) and scores them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert
from sqlmodel import Session

from app.backup.check import CheckedGame
from app.games.results import record_results
from app.games.views import GameView, scored_view, set_rules
from app.models import Game, Player, Round, RoundScore
from app.rules import scoring
from app.rules.timing import RoundTime
from app.security import hash_key, new_edit_key, new_game_id


@dataclass(slots=True)
class NewGame:
    checked: CheckedGame
    game: Game  # its row, with its new id
    edit_key: str
    players: list[Player]  # in seating order; ids (and people) given by write_games


PLAYERS = Player.__table__  # type: ignore[attr-defined]
# {"player_key", "left_after_round_id"} or {"player_key", "joined_after_round_id"}
LEFT_UPDATE = PLAYERS.update().where(PLAYERS.c.id == bindparam("player_key"))


def prepare(games: list[CheckedGame], table_id: str | None = None) -> list[NewGame]:
    """Each game's row, key and players, made before the write lock (building them is the slow part)."""
    made = []
    for checked, game_id in zip(games, _game_ids(games), strict=True):
        edit_key = new_edit_key()
        game = Game(
            id=game_id,
            name=checked.name,
            edit_key_hash=hash_key(edit_key),
            table_id=table_id,
            created_at=checked.created_at,
            updated_at=checked.updated_at,
            seats_save_round=checked.seats_save_round,
            seats_on_view=checked.seats_on_view,
        )
        set_rules(game, checked.rules)
        players = [
            Player(game_id=game_id, seat=p.id, name=p.name, starting_score=p.starting_score) for p in checked.players
        ]
        made.append(NewGame(checked, game, edit_key, players))
    return made


def _game_ids(games: list[CheckedGame]) -> list[str]:
    """New ids, one a game. Games created at the same moment are exported in the order of their ids (the
    export's tie-break), so theirs are handed out in ascending order: the next export lists them as
    this document does."""
    ids = [new_game_id() for _ in games]
    same_moment: dict[datetime, list[int]] = defaultdict(list)
    for index, game in enumerate(games):
        same_moment[game.created_at].append(index)
    for places in same_moment.values():
        for index, game_id in zip(places, sorted(ids[i] for i in places), strict=True):
            ids[index] = game_id
    return ids


def inserted(session: Session, model: Any, rows: list[dict[str, Any]]) -> list[int]:
    """Insert the rows (a few statements however many) and give back their new ids, in the rows' order,
    which is the ids' order too: rounds and people are ordered by id."""
    if not rows:
        return []
    # Core's insert of the table, not the ORM's bulk insert of the class: a table's backup has many
    # thousands of rows, and the ORM's bookkeeping of each costs more than the insert.
    table = model.__table__
    statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
    return list(session.exec(statement, params=rows).scalars())  # type: ignore[call-overload]


def write_games(session: Session, games: list[NewGame], person_ids: list[int] | None = None) -> list[GameView]:
    """The prepared games written (in the caller's write transaction), and what each now is. At a table
    (`person_ids`: the roster's new ids, in its order), each player is their person, and each game's
    result rows are written too (its standings)."""
    if games:
        session.exec(insert(Game.__table__), params=[new.game.model_dump() for new in games])  # type: ignore[call-overload,attr-defined]
    rows = []
    for new in games:
        people = new.checked.people
        for player in new.players:
            if person_ids is not None and people is not None:
                player.person_id = person_ids[people[player.seat]]
            rows.append({"game_id": player.game_id, "seat": player.seat, "name": player.name,
                         "starting_score": player.starting_score, "person_id": player.person_id})  # fmt: skip
    for player, player_id in zip(
        (p for new in games for p in new.players), inserted(session, Player, rows), strict=True
    ):
        player.id = player_id
    rounds = [
        {
            "game_id": new.game.id,
            "created_at": r.created_at,
            "started_at": r.started_at,
            "duration_s": r.duration_s,
            "piles": r.piles,
        }
        for new in games
        for r in new.checked.rounds
    ]
    round_ids = iter(inserted(session, Round, rounds))
    views: list[GameView] = []
    scores: list[dict[str, Any]] = []
    leavers: list[dict[str, Any]] = []  # each leaver's mark: the id of the last round they played
    latecomers: list[dict[str, Any]] = []  # each latecomer's: the id of the last round before they came
    for new in games:
        ids = [p.id for p in new.players]
        cards = new.checked.rules.kind == scoring.Kind.CARDS
        played: list[tuple[int, list[scoring.Score]]] = []
        times: dict[int, RoundTime] = {}
        piles: dict[int, int] = {}
        for checked in new.checked.rounds:
            round_id = next(round_ids)
            round_scores = [scoring.Score(ids[s.player_id], s.dutch, s.blitz, s.hand, s.called) for s in checked.scores]
            played.append((round_id, round_scores))
            for player, seat in zip(new.players, new.checked.players, strict=True):
                if seat.left_after == len(played):  # their last round
                    player.left_after_round_id = round_id
                if seat.joined_after == len(played):  # the last round before they came
                    player.joined_after_round_id = round_id
            if checked.started_at is not None or checked.duration_s is not None:
                times[round_id] = RoundTime(checked.started_at, checked.duration_s)
            if checked.piles is not None:
                piles[round_id] = checked.piles
            # As the use cases store them: the other kinds' counts 0, `cards` no hand and no caller.
            scores += [
                {"round_id": round_id, "player_id": s.player_id, "dutch": s.dutch if cards else 0,
                 "blitz": s.blitz if cards else 0, "hand": hand, "half": half, "called": s.called}
                for s in round_scores
                for hand, half in [scoring.hand_to_store(s.hand)]  # 31's 30½: its 30, and the half
            ]  # fmt: skip
        for player, seat in zip(new.players, new.checked.players, strict=True):
            if seat.left_after == 0:
                player.left_after_round_id = 0
            if seat.joined_after == 0:
                player.joined_after_round_id = 0
            if player.left_after_round_id is not None:
                leavers.append({"player_key": player.id, "left_after_round_id": player.left_after_round_id})
            if player.joined_after_round_id is not None:
                latecomers.append({"player_key": player.id, "joined_after_round_id": player.joined_after_round_id})
        views.append(scored_view(new.game, new.players, played, times, piles))
    if scores:
        session.exec(insert(RoundScore.__table__), params=scores)  # type: ignore[call-overload,attr-defined]
    if leavers:
        session.connection().execute(LEFT_UPDATE, leavers)
    if latecomers:
        session.connection().execute(LEFT_UPDATE, latecomers)
    for view in views:
        record_results(session, view.game, view.players, view)  # nothing for a game of its own
    return views
