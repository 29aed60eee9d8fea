"""The read model: a game loaded once and what its rounds mean, shaped for the pages and the API.

One loader for one game or many (three queries however many games and rounds), the scoring of the
stored rounds by app.rules.scoring, and the API's JSON shape built in one place (to_public). A reader
begins its reads with read_snapshot, so the game's row and the loader's queries see one version of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Engine, bindparam
from sqlmodel import Session, select

from app.errors import GameError, GameGone, GameNotFound
from app.i18n import _
from app.models import CardTable, DeletedGame, Game, Player, Round, RoundScore, as_utc
from app.rules import scoring
from app.rules.timing import RoundTime

# Rounds as stored: (round id, each player's cards), in the order played.


@dataclass(slots=True)
class GameView:
    game: Game
    players: list[Player]
    round_ids: list[int]  # in the order played: round n is round_ids[n - 1]
    state: scoring.GameState
    # Each timed round's start and duration, by round id (app.rules.timing); a round not in it has neither.
    times: dict[int, RoundTime] = field(default_factory=dict)
    # The cards on the centre piles as the table counted them ("Check the piles"), by round id; a round
    # not in it was not counted.
    piles: dict[int, int] = field(default_factory=dict)
    # What pages work out from this view (app.games.viewcache.derived): a dict only on a view the app's view
    # cache shares, so it is made once per cached version; None on any other view (made every time).
    derived: dict[Any, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def rules(self) -> scoring.Rules:
        return self.state.rules

    def player_names(self) -> dict[int, str]:
        return {p.id: p.name for p in self.players}

    def public(self) -> dict[str, Any]:
        return to_public(self)

    def timings(self) -> dict[int, RoundTime]:
        """Each round's time by its number (1, 2, ...), for the pages: `timings[r.number].duration_s`."""
        return {n: self.times.get(round_id, RoundTime()) for n, round_id in enumerate(self.round_ids, 1)}

    def played(self) -> scoring.Played:
        """The rounds as stored: (round id, each player's cards), in order."""
        if self.state.rules.kind == scoring.Kind.CARDS:
            return [
                (round_id, [scoring.Score(s.player_id, s.dutch, s.blitz) for s in scored.scores])
                for round_id, scored in zip(self.round_ids, self.state.rounds, strict=True)
            ]
        return [
            (round_id, [scoring.Score(s.player_id, None, None, s.hand, s.called) for s in scored.scores])
            for round_id, scored in zip(self.round_ids, self.state.rounds, strict=True)
        ]


# Each rule (app.rules' name, in the order of scoring.Rules) and the game's column that stores it.
RULE_COLUMNS = {
    f.name: {"end": "end_by", "rounds": "round_limit", "win": "win_rule"}.get(f.name, f.name)
    for f in fields(scoring.Rules)
}
_ENUMS = {"tie_break": scoring.TieBreak, "kind": scoring.Kind, "end": scoring.End, "win": scoring.Win}


def rules_of(game: Game) -> scoring.Rules:
    values = {name: getattr(game, column) for name, column in RULE_COLUMNS.items()}
    for name, enum in _ENUMS.items():
        values[name] = enum(values[name])
    return scoring.Rules(**values)


def set_rules(game: Game, rules: scoring.Rules) -> None:
    """Store the rules on the game's row (every parameter, whatever the kind)."""
    for name, column in RULE_COLUMNS.items():
        value = getattr(rules, name)
        setattr(game, column, value.value if isinstance(value, StrEnum) else value)


# A round's part of the game's JSON, per kind: its scores (one comprehension a round, not a call a
# score: a long game has thousands) and what the round adds.
def _cards_round(r: scoring.ScoredRound) -> dict[str, Any]:
    # The round's `piles` is added by to_public (it is stored with the round, not scored).
    return {
        "number": r.number,
        "scores": [
            {"player_id": s.player_id, "dutch": s.dutch, "blitz": s.blitz, "points": s.points, "total": s.total}
            for s in r.scores
        ],
    }


def _lowest_round(r: scoring.ScoredRound) -> dict[str, Any]:
    return {
        "number": r.number,
        "scores": [{"player_id": s.player_id, "hand": s.hand, "points": s.points, "total": s.total} for s in r.scores],
        "caller": r.caller,
        "penalty": r.penalty,
    }


def _lives_round(r: scoring.ScoredRound) -> dict[str, Any]:
    return {
        "number": r.number,
        "scores": [
            {"player_id": s.player_id, "hand": s.hand, "lives_lost": s.lives_lost, "lives": s.total} for s in r.scores
        ],
        "knocker": r.caller,
        "void": r.void,
    }


_ROUND_PUBLIC = {scoring.Kind.CARDS: _cards_round, scoring.Kind.LOWEST: _lowest_round, scoring.Kind.LIVES: _lives_round}


def timestamp(moment: datetime) -> str:
    # The same text pydantic gives a UTC datetime (answers.GamePublic documents the shape).
    return as_utc(moment).isoformat().replace("+00:00", "Z")


def maybe_timestamp(moment: datetime | None) -> str | None:
    return None if moment is None else timestamp(moment)


def to_public(view: GameView) -> dict[str, Any]:
    """The game as the API answers it: the shape of answers.GamePublic, built as plain JSON-ready data.

    Built by hand rather than through the pydantic models: a long game has thousands of scores,
    and every save answers the whole game (tests/api/test_api.py checks it against the documented schema).
    """
    state = view.state
    game = view.game
    ranks = {s.player.id: s.rank for s in state.standings}
    seats = {s.player.id: s.player for s in state.standings}  # a leaver's last round, a latecomer's first
    kind = state.rules.kind
    lives = kind == scoring.Kind.LIVES
    round_public = _ROUND_PUBLIC[kind]
    no_time = RoundTime()
    times = [view.times.get(round_id, no_time) for round_id in view.round_ids]
    return {
        "id": game.id,
        "name": game.name,
        "version": game.version,
        "created_at": timestamp(game.created_at),
        "updated_at": timestamp(game.updated_at),
        "status": state.status,
        "winners": list(state.winners),
        "tie_break": state.tie_break_due,
        "leaders": list(state.leaders),
        "rules": scoring.public_rules(state.rules),
        "players": [
            {
                "id": p.id,
                "name": p.name,
                "starting_score": p.starting_score,
                "total": state.totals[p.id],
                "rank": ranks[p.id],
                "person_id": p.person_id,
            }
            | ({"lives": state.totals[p.id], "out": p.id in state.out} if lives else {})
            | {
                "left": seats[p.id].left_after is not None,
                "left_after_round": seats[p.id].left_after,
                "joined_after_round": seats[p.id].joined_after,
            }
            for p in view.players
        ],
        "rounds": [
            round_public(r) | {"started_at": maybe_timestamp(t.started_at), "duration_s": t.duration_s}
            for r, t in zip(state.rounds, times, strict=True)
        ]
        if kind != scoring.Kind.CARDS
        else [
            _cards_round(r)
            | {"started_at": maybe_timestamp(t.started_at), "duration_s": t.duration_s, "piles": view.piles.get(rid)}
            for r, t, rid in zip(state.rounds, times, view.round_ids, strict=True)
        ],
        "round_started_at": maybe_timestamp(game.round_started_at),
        "table_id": game.table_id,
        "seats": {"save_round": game.seats_save_round, "on_view": game.seats_on_view},
    }


# A read-only REPEATABLE READ transaction: every statement sees the snapshot its first one took. Set on the
# connection as it is taken (psycopg puts both in its BEGIN: no round trip of their own); the pool resets
# them when the connection goes back.
SNAPSHOT = {"isolation_level": "REPEATABLE READ", "postgresql_readonly": True}


def read_snapshot(session: Session) -> None:
    """What the session reads next is one snapshot of the database: call it before a reader reads a game's
    row (or several games' rows), so the row, its players, rounds and scores are one version of each.

    SQLite: nothing to do (a read transaction, BEGIN at its first read, already is one snapshot).
    PostgreSQL reads each statement afresh under READ COMMITTED, where a round saved or deleted between
    two statements made a view no version ever was: there, a read-only REPEATABLE READ transaction,
    begun here after ending the plain one the session read in before (reads only). A transaction begun
    with options of its own is left as it is: this snapshot, or a write (app.db.begin_write), whose lock
    on the game's row keeps the game at the version it reads.
    """
    if session.get_bind().dialect.name != "postgresql":
        return
    if session.in_transaction():
        if session.connection().get_execution_options():
            return
        session.commit()
    session.connection(execution_options=SNAPSHOT)


def load_view(session: Session, game: Game) -> GameView:
    return load_views(session, [game])[0]


def load_views(session: Session, games: list[Game]) -> list[GameView]:
    """Games, their players and what their rounds mean: three queries however many games and rounds.

    One version of each game when `games` were read in the same snapshot (read_snapshot before them, or
    inside a write). Rounds and scores are read as plain rows, not ORM objects: a long game has thousands of them.
    The statements are built once (module level) and take the ids as an expanding parameter.
    """
    ids = [game.id for game in games]
    players: dict[str, list[Player]] = {game_id: [] for game_id in ids}
    for player in session.exec(PLAYERS_OF, params={"ids": ids}):
        players[player.game_id].append(player)
    rounds: dict[str, list[int]] = {game_id: [] for game_id in ids}
    times: dict[int, RoundTime] = {}
    piles: dict[int, int] = {}
    # Core statements on the session's connection: plain rows without the ORM's per-statement work.
    connection = session.connection()
    for game_id, round_id, started_at, duration_s, counted in connection.execute(ROUNDS_OF, {"ids": ids}):
        rounds[game_id].append(round_id)
        if started_at is not None or duration_s is not None:
            times[round_id] = RoundTime(started_at and as_utc(started_at), duration_s)
        if counted is not None:
            piles[round_id] = counted
    scores: dict[int, list[scoring.Score]] = {
        round_id: [] for game_rounds in rounds.values() for round_id in game_rounds
    }
    for round_id, player_id, dutch, blitz, hand, called, half in connection.execute(SCORES_OF, {"ids": ids}):
        bucket = scores.get(round_id)
        if bucket is None:  # a round saved since the rounds were read: only outside a snapshot (read_snapshot)
            continue
        bucket.append(
            scoring.Score(player_id, dutch, blitz)
            if hand is None
            else scoring.Score(player_id, None, None, scoring.hand_from_store(hand, half), bool(called))
        )
    return [
        scored_view(
            game, players[game.id], [(round_id, scores[round_id]) for round_id in rounds[game.id]], times, piles
        )
        for game in games
    ]


_IDS = bindparam("ids", expanding=True)
PLAYERS_OF = select(Player).where(Player.game_id.in_(_IDS)).order_by(Player.seat)
ROUNDS_OF = (
    select(Round.game_id, Round.id, Round.started_at, Round.duration_s, Round.piles)
    .where(Round.game_id.in_(_IDS))
    .order_by(Round.id)
)
SCORES_OF = (
    select(
        RoundScore.round_id,
        RoundScore.player_id,
        RoundScore.dutch,
        RoundScore.blitz,
        RoundScore.hand,
        RoundScore.called,
        RoundScore.half,
    )
    .join(Round, RoundScore.round_id == Round.id)
    .where(Round.game_id.in_(_IDS))
)


def current_versions(engine: Engine, game_ids: list[str]) -> dict[str, int]:
    """The version of each game that exists (for event streams, which outlive any request's session)."""
    with Session(engine) as session:
        return dict(session.exec(select(Game.id, Game.version).where(Game.id.in_(game_ids))).all())


def version_and_start(session: Session, game_id: str) -> tuple[int, datetime | None] | None:
    """The game's version and running round's start (None when there is no such game): one small query."""
    row = session.exec(select(Game.version, Game.round_started_at).where(Game.id == game_id)).first()
    return None if row is None else (row[0], row[1] and as_utc(row[1]))


def version_start_and_table(session: Session, game_id: str) -> tuple[int, datetime | None, int | None] | None:
    """version_and_start, and the version of the game's table (None for a game of its own), in the same
    one query: the view page's ETag takes in the table its page links to (app.routes.view_pages). In the
    snapshot the page's read of the game takes next (read_snapshot), which then needs no other."""
    read_snapshot(session)
    row = session.exec(
        select(Game.version, Game.round_started_at, CardTable.version)
        .outerjoin(CardTable, CardTable.id == Game.table_id)  # type: ignore[arg-type]
        .where(Game.id == game_id)
    ).first()
    return None if row is None else (row[0], row[1] and as_utc(row[1]), row[2])


@dataclass(frozen=True, slots=True)
class GameTable:
    """The table a game is at, as its whole page names and links it ("Table: <name>"); its version goes
    into the view page's ETag."""

    id: str
    name: str
    version: int


def game_table(session: Session, game: Game) -> GameTable | None:
    """The game's table (None for a game of its own, or one whose table is gone): one small query, read
    by the page's route and handed to the page's view model (app.web.context), which reads nothing."""
    if game.table_id is None:
        return None
    row = session.exec(select(CardTable.name, CardTable.version).where(CardTable.id == game.table_id)).first()
    return None if row is None else GameTable(game.table_id, row[0], row[1])


def current_version_and_start(engine: Engine, game_id: str) -> tuple[int, datetime | None] | None:
    """For event streams, which outlive any request's session."""
    with Session(engine) as session:
        return version_and_start(session, game_id)


def rule_players(players: list[Player], round_ids: list[int]) -> list[scoring.Player]:
    """The players as the rules see them, with the rounds a leaver sat in counted among `round_ids` (those
    up to the last one when they left: rounds are numbered by their order, the mark is a round id), and
    the rounds played before a latecomer came counted the same way."""

    def upto(mark: int | None) -> int | None:
        return None if mark is None else sum(rid <= mark for rid in round_ids)

    return [
        scoring.Player(p.id, p.name, p.starting_score, upto(p.left_after_round_id), upto(p.joined_after_round_id))
        for p in players
    ]


def scored_view(
    game: Game,
    players: list[Player],
    played: scoring.Played,
    times: dict[int, RoundTime] | None = None,
    piles: dict[int, int] | None = None,
) -> GameView:
    round_ids = [round_id for round_id, _ in played]
    state = scoring.score_game(rule_players(players, round_ids), rules_of(game), [scores for _, scores in played])
    # Only this game's rounds (`times` may be shared by several games, or hold a deleted round's).
    own = {round_id: times[round_id] for round_id in round_ids if round_id in times} if times else {}
    counted = {round_id: piles[round_id] for round_id in round_ids if round_id in piles} if piles else {}
    return GameView(game, players, round_ids, state, own, counted)


def missing_game(session: Session, game_id: str) -> GameError:
    """What to say of a game that is not there: deleted by its scorekeeper (410), or never was (404)."""
    if session.get(DeletedGame, game_id) is not None:
        return GameGone(_("This game was deleted by its scorekeeper."))
    return GameNotFound(_("There is no game “{game_id}”.").format(game_id=game_id))


def was_deleted(engine: Engine, game_id: str) -> bool:
    """For event streams, which outlive any request's session."""
    with Session(engine) as session:
        return session.get(DeletedGame, game_id) is not None
