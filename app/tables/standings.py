"""A table's standings and head-to-head: aggregate SQL over `game_result` (one row per player
of each finished game at the table, app.games.results) and the rounds of those games, never the games loaded
and scored again in Python. The same queries on SQLite and PostgreSQL (window functions included);
averages are cast to float in SQL and rounded to 4 places here, so both databases answer alike.

What is counted: the finished games of the table (a game that is not over has no result rows)
whose `finished_at` (the moment its last round was saved) is in the period, `since` included and
`until` excluded, and whose rule family (`cards`, `lowest`, `lives`) or preset (`dutch_blitz`,
`nerts`, ...) is `kind`, when one is given. Standings are per preset: points mean different things
in different games.

Per person and preset:
- games: finished games played; wins: games won, shared wins included; shared_wins: how many of
  those wins were shared (tie_break "shared"); win_rate: wins / games, rounded to 4 places.
- rounds: rounds they played in those games (in 31, the rounds they were still in, void ones too).
- average_points: the mean of their points per round, starting scores left out. `cards`: dutch ×
  the game's dutch_points + blitz × its blitz_points; `lowest` (Dutch): the hand as the round scored
  it (0 for a caller with the lowest hand; when the caller does not have it, 0 for the lowest hands
  and the caller scores their hand), which SQL derives with window functions over the round's hands
  exactly as app.rules.lowest does; `lives`: null (a round costs lives, it scores no points).
- best_round: `cards` their most points in a round, `lowest` their fewest; `lives` null.
- highest_total / lowest_total: their highest and lowest final total (starting score included;
  `lives`: lives left at the end, 0 once out).
- calls: rounds they went out: `cards` rounds they ended with 0 cards left in their pile ("Blitz!"),
  `lowest` rounds they called Dutch, `lives` rounds they knocked.
- average_cards_left: `cards` the mean of the cards left in their pile per round; otherwise null.
- streak: their current winning streak: how many of their most recent finished games (in the period
  and the preset) they won in a row, newest first (games finished at the same moment: the larger
  game id counts as the later).
People are sorted by wins, then win rate (both highest first), then name (ignoring case).

Head-to-head, for every two people (a < b by person id) who finished a game together in the period:
the games, how often each finished ahead of the other (a lower `place`: 1 for every winner, then
competition ranks), and how often they finished level (the same place). All kinds together unless
`kind` is given.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Float, FromClause, Select, and_, case, cast, func, not_, select
from sqlmodel import Session

from app.models import CardTable, Game, GameResult, Person, Round, RoundScore
from app.rules.base import Kind
from app.rules.presets import PRESETS
from app.tables.roster import missing_table

# Up to this many games, the queries that join rounds and scores name the games that count: the planner
# then knows how few they are and looks their rows up by index. Left to its statistics, PostgreSQL takes a
# small table of a large database for a bigger one and scans whole tables, so a 10-game table's figures
# cost as much as the database is large (bench/tables.py). Past it, a subquery: a table with that many
# games in the period is a large part of any database, and its rows are best read in bulk anyway.
NAMED_GAMES = 500

KINDS = tuple(kind.value for kind in Kind)
# What `kind` may be: a rule family or a preset.
STATS_KINDS: tuple[str, ...] = KINDS + tuple(PRESETS)
_PRESET_ORDER = {name: index for index, name in enumerate(PRESETS)}

_results = GameResult.__table__  # type: ignore[attr-defined]
_rounds = Round.__table__  # type: ignore[attr-defined]
_scores = RoundScore.__table__  # type: ignore[attr-defined]
_games = Game.__table__  # type: ignore[attr-defined]
_people = Person.__table__  # type: ignore[attr-defined]


def table_stats(
    session: Session,
    table_id: str,
    since: datetime | None = None,
    until: datetime | None = None,
    kind: str | None = None,
) -> dict[str, Any]:
    """The table's standings: one group per preset with finished games in the period (module docstring)."""
    _check(session, table_id, kind)
    where = _picked(_results, table_id, since, until, kind)
    counted = _counted_games(session, where)
    none = isinstance(counted, list) and not counted
    games = {} if none else _game_figures(session, where)
    rounds = {} if none else _round_figures(session, where, counted)
    names = _names(session, {person_id for person_id, _ in games})
    groups: dict[str, dict[str, Any]] = {}
    for (person_id, preset), row in games.items():
        group = groups.setdefault(preset, {"preset": preset, "kind": row["kind"], "people": []})
        played = rounds.get((person_id, preset), {})
        group["people"].append(
            {
                "person_id": person_id,
                "name": names[person_id],
                "games": row["games"],
                "wins": row["wins"],
                "shared_wins": row["shared_wins"],
                "win_rate": round(row["wins"] / row["games"], 4),
                "rounds": played.get("rounds", 0),
                "average_points": _rounded(played.get("average_points")),
                "best_round": played.get("best_round"),
                "highest_total": row["highest_total"],
                "lowest_total": row["lowest_total"],
                "calls": played.get("calls", 0),
                "average_cards_left": _rounded(played.get("average_cards_left")),
                "streak": row["streak"],
            }
        )
    for group in groups.values():
        group["people"].sort(key=lambda p: (-p["wins"], -p["win_rate"], p["name"].casefold(), p["person_id"]))
    ordered = sorted(groups.values(), key=lambda g: (_PRESET_ORDER.get(g["preset"], len(_PRESET_ORDER)), g["preset"]))
    return _head(table_id, since, until, kind) | {"groups": ordered}


def head_to_head(
    session: Session,
    table_id: str,
    since: datetime | None = None,
    until: datetime | None = None,
    kind: str | None = None,
) -> dict[str, Any]:
    """Every two people who finished a game together in the period: the games, who finished ahead how often."""
    _check(session, table_id, kind)
    head = _head(table_id, since, until, kind)
    counted = _counted_games(session, _picked(_results, table_id, since, until, kind))
    if isinstance(counted, list) and not counted:
        return head | {"people": [], "pairs": []}
    a = _results.alias("a")
    b = _results.alias("b")
    named = [a.c.game_id.in_(counted), b.c.game_id.in_(counted)] if isinstance(counted, list) else []
    query = (
        select(
            a.c.person_id,
            b.c.person_id,
            func.count(),
            _count_if(a.c.place < b.c.place),
            _count_if(b.c.place < a.c.place),
            _count_if(a.c.place == b.c.place),
        )
        # b: the same game's other rows (the primary key's game_id leads), each pair once.
        .select_from(a.join(b, and_(b.c.game_id == a.c.game_id, b.c.person_id > a.c.person_id)))
        .where(*_picked(a, table_id, since, until, kind), *named)
        .group_by(a.c.person_id, b.c.person_id)
        .order_by(a.c.person_id, b.c.person_id)
    )
    pairs = [
        {"a": pa, "b": pb, "games": n, "a_ahead": int(a_ahead), "b_ahead": int(b_ahead), "level": int(level)}
        for pa, pb, n, a_ahead, b_ahead, level in session.exec(query)  # type: ignore[call-overload]
    ]
    played = select(_results.c.person_id).where(*_picked(_results, table_id, since, until, kind))
    people = session.exec(
        select(_people.c.id, _people.c.name).where(_people.c.id.in_(played))  # type: ignore[call-overload]
    ).all()
    listed = sorted(({"person_id": pid, "name": name} for pid, name in people), key=_by_name)
    return head | {"people": listed, "pairs": pairs}


# --- the queries ------------------------------------------------------------------------------------


def _check(session: Session, table_id: str, kind: str | None) -> None:
    if kind is not None and kind not in STATS_KINDS:
        raise ValueError(f"kind must be one of {STATS_KINDS}, not {kind!r}")
    if session.get(CardTable, table_id) is None:
        raise missing_table(table_id)


def _picked(
    results: FromClause, table_id: str, since: datetime | None, until: datetime | None, kind: str | None
) -> list[ColumnElement[bool]]:
    """The result rows that count: the table's (the index on table_id, finished_at), in the period and kind."""
    where = [results.c.table_id == table_id]
    # UTC, because SQLite stores timestamps as text without their zone: every one of ours is UTC.
    if since is not None:
        where.append(results.c.finished_at >= since.astimezone(UTC))
    if until is not None:
        where.append(results.c.finished_at < until.astimezone(UTC))
    if kind is not None:
        where.append((results.c.kind if kind in KINDS else results.c.preset) == kind)
    return where


def _counted_games(session: Session, where: list[ColumnElement[bool]]) -> list[str] | Select:
    """The games that count: their ids (NAMED_GAMES at most), or the subquery that finds them; empty: none."""
    query = select(_results.c.game_id).where(*where).distinct()
    ids = list(session.exec(query.limit(NAMED_GAMES + 1)).scalars())  # type: ignore[call-overload]
    return ids if len(ids) <= NAMED_GAMES else query


def _game_figures(session: Session, where: list[ColumnElement[bool]]) -> dict[tuple[int, str], dict[str, Any]]:
    """Per (person, preset): games, wins, shared wins, highest and lowest total, current streak."""
    recent = func.row_number().over(
        partition_by=(_results.c.person_id, _results.c.preset),
        order_by=(_results.c.finished_at.desc(), _results.c.game_id.desc()),
    )
    picked = (
        select(
            _results.c.person_id,
            _results.c.preset,
            _results.c.kind,
            _results.c.total,
            _results.c.won,
            _results.c.shared,
            recent.label("recent"),
        )
        .where(*where)
        .subquery("picked")
    )
    p = picked.c
    # The streak: the newest game they did not win is number n (1 = their latest), so they won n - 1 in a
    # row before it; with no such game, every game counts.
    streak = func.coalesce(func.min(case((not_(p.won), p.recent))) - 1, func.count())
    query = select(
        p.person_id,
        p.preset,
        p.kind,
        func.count(),
        _count_if(p.won),
        _count_if(p.shared),
        func.max(p.total),
        func.min(p.total),
        streak,
    ).group_by(p.person_id, p.preset, p.kind)
    return {
        (person_id, preset): {
            "kind": kind_,
            "games": int(games),
            "wins": int(wins),
            "shared_wins": int(shared),
            "highest_total": int(highest),
            "lowest_total": int(lowest),
            "streak": int(streak_),
        }
        for person_id, preset, kind_, games, wins, shared, highest, lowest, streak_ in session.exec(query)  # type: ignore[call-overload]
    }


def _round_figures(
    session: Session, where: list[ColumnElement[bool]], games: list[str] | Select
) -> dict[tuple[int, str], dict[str, Any]]:
    """Per (person, preset), from the rounds of the games that count: rounds, average and best round,
    calls, average cards left."""
    hand = func.coalesce(_scores.c.hand, 0)
    # A Dutch round's points depend on the whole round (the lowest hand, the caller's hand): computed
    # over every score of the round before the rows are narrowed to the table's people.
    low = func.min(hand).over(partition_by=_scores.c.round_id)
    caller_hand = func.max(case((_scores.c.called, hand))).over(partition_by=_scores.c.round_id)
    scored = (
        select(
            _results.c.person_id,
            _games.c.preset,
            _games.c.kind,
            _scores.c.dutch,
            _scores.c.blitz,
            hand.label("hand"),
            _scores.c.called,
            _games.c.dutch_points,
            _games.c.blitz_points,
            low.label("low"),
            caller_hand.label("caller_hand"),
        )
        .select_from(
            _rounds.join(_scores, _scores.c.round_id == _rounds.c.id)
            .join(_games, _games.c.id == _rounds.c.game_id)
            # Outer: a player who is nobody on the roster still holds a hand in the round. The period's
            # conditions too (every result row of a game that counts meets them), so the planner can
            # reach these rows through the table's index rather than read them all.
            .outerjoin(
                _results,
                and_(_results.c.game_id == _rounds.c.game_id, _results.c.player_id == _scores.c.player_id, *where),
            )
        )
        .where(_rounds.c.game_id.in_(games))
        .subquery("scored")
    )
    s = scored.c
    dutch_points = case(
        (s.caller_hand.is_(None), s.hand),  # nobody called: everyone scores their hand
        (s.caller_hand == s.low, case((s.called, 0), else_=s.hand)),  # the caller was lowest: only they score 0
        else_=case((s.hand == s.low, 0), else_=s.hand),  # they were not: the lowest hands score 0
    )
    points = case(
        (s.kind == Kind.CARDS.value, s.dutch * s.dutch_points + s.blitz * s.blitz_points),
        (s.kind == Kind.LOWEST.value, dutch_points),
        else_=None,
    )
    went_out = case(
        (s.kind == Kind.CARDS.value, case((s.blitz == 0, 1), else_=0)),
        else_=case((s.called, 1), else_=0),
    )
    best = case((s.kind == Kind.CARDS.value, func.max(points)), (s.kind == Kind.LOWEST.value, func.min(points)))
    query = (
        select(
            s.person_id,
            s.preset,
            func.count(),
            cast(func.avg(points), Float),
            best,
            func.sum(went_out),
            cast(func.avg(case((s.kind == Kind.CARDS.value, s.blitz))), Float),
        )
        .where(s.person_id.is_not(None))
        .group_by(s.person_id, s.preset, s.kind)
    )
    return {
        (person_id, preset): {
            "rounds": int(rounds),
            "average_points": average,
            "best_round": None if best_ is None else int(best_),
            "calls": int(calls),
            "average_cards_left": cards_left,
        }
        for person_id, preset, rounds, average, best_, calls, cards_left in session.exec(query)  # type: ignore[call-overload]
    }


def _count_if(condition: ColumnElement[Any]) -> ColumnElement[Any]:
    # SUM of a CASE, not of the condition: PostgreSQL can't sum booleans.
    return func.sum(case((condition, 1), else_=0))


def _names(session: Session, person_ids: set[int]) -> dict[int, str]:
    if not person_ids:
        return {}
    rows = session.exec(select(_people.c.id, _people.c.name).where(_people.c.id.in_(sorted(person_ids))))  # type: ignore[call-overload]
    return dict(rows.all())


# --- the answer -------------------------------------------------------------------------------------


def _head(table_id: str, since: datetime | None, until: datetime | None, kind: str | None) -> dict[str, Any]:
    return {"table_id": table_id, "from": _timestamp(since), "to": _timestamp(until), "kind": kind}


def _timestamp(moment: datetime | None) -> str | None:
    # The shape of every other timestamp the API gives: UTC with a Z.
    return None if moment is None else moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(float(value), 4)


def _by_name(person: dict[str, Any]) -> tuple[str, int]:
    return person["name"].casefold(), person["person_id"]
