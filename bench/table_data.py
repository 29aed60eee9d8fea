"""The tables bench/tables.py measures: seeded straight into the database, and crowded by other clubs.

Three tables with a roster of 12 and 10, 100 or 1,000 finished games of 4-8 of them (Dutch Blitz mostly,
some Nerts, Dutch and 31, ten games a night). Each game's rounds are drawn at random, each checked by
app.rules.scoring.validate_round, and played until the rules say the game is over; its result rows are written
by app.games.results.record_results itself, as every save does. Then other clubs: copies of a table with all
its rows under new ids, made in SQL, so the measured tables are a small part of the database.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, func, insert, literal
from sqlmodel import Session, SQLModel, select

from app.db import make_engine
from app.games.results import record_results
from app.games.views import scored_view, set_rules
from app.migrations import upgrade
from app.models import CardTable, Game, Person, Player, Round, RoundScore
from app.rules import scoring
from app.rules.names import name_key
from app.rules.presets import PRESETS
from app.security import hash_key, new_edit_key, new_game_id

SIZES = [10, 100, 1000]
ROSTER = ["Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ida", "Jo", "Kai", "Lea"]
# Dutch Blitz six games in ten, Nerts two, Dutch one, 31 one.
MIX = ["dutch_blitz"] * 6 + ["nerts"] * 2 + ["dutch", "thirty_one"]
GAMES_A_NIGHT = 10
FIRST_NIGHT = datetime(2026, 1, 2, 19, 0, tzinfo=UTC)
SAMPLE = 5  # games of each table read back through the API
MOVED, RENAMED = "moved", "renamed"


@dataclass
class Seeded:
    table_id: str
    games: int
    rounds: int = 0
    scores: int = 0
    last_night: datetime = FIRST_NIGHT
    sample: list[str] = field(default_factory=list)


def a_round(
    rules: scoring.Rules, players: list[scoring.Player], state: scoring.GameState, rng: random.Random
) -> list[scoring.Score]:
    """A round a real table could play: one player goes out, the others' cards or hands drawn at random."""
    playing = state.playing(players)
    if rules.kind == scoring.Kind.CARDS:
        out = rng.choice(playing)
        scores = []
        for player in playing:
            blitz = 0 if player is out else rng.randint(1, rules.pile_size)
            dutch = rng.randint(3 if player is out else 0, min(30, rules.deck_size - blitz))
            scores.append(scoring.Score(player.id, dutch, blitz))
        return scores
    high = 31 if rules.kind == scoring.Kind.LIVES else 40
    caller = rng.choice(playing).id if rng.random() < 0.6 else None
    return [scoring.Score(p.id, None, None, rng.randint(0, high), p.id == caller) for p in playing]


def seed_game(
    session: Session,
    table: CardTable,
    people: list[Person],
    number: int,
    rng: random.Random,
    finished: datetime | None = None,
) -> tuple[str, int, int]:
    """One finished game at the table, its rounds and its result rows: (its id, rounds, scores). It
    finishes on the `number`th game's evening from FIRST_NIGHT, or at `finished` (bench/table_page.py)."""
    rules = PRESETS[rng.choice(MIX)]
    seated = rng.sample(people, rng.randint(4, 8))
    if finished is None:
        finished = (
            FIRST_NIGHT + timedelta(days=number // GAMES_A_NIGHT) + timedelta(minutes=20 * (number % GAMES_A_NIGHT))
        )
    game = Game(id=new_game_id(), edit_key_hash=hash_key(new_edit_key()), table_id=table.id, updated_at=finished)
    set_rules(game, rules)
    game.created_at = finished - timedelta(minutes=15)
    session.add(game)
    session.flush()
    players = [Player(game_id=game.id, seat=seat, name=p.name, person_id=p.id) for seat, p in enumerate(seated)]
    session.add_all(players)
    session.flush()
    seats = [scoring.Player(p.id, p.name, p.starting_score) for p in players]
    rounds: list[list[scoring.Score]] = []
    state = scoring.score_game(seats, rules, rounds)
    while not state.over:
        scores = a_round(rules, seats, state, rng)
        caller = scoring.caller_of(scores)
        problems = scoring.validate_round(seats, scores, rules, caller, state)
        assert not problems, problems
        rounds.append(scores)
        state = scoring.score_game(seats, rules, rounds)
        assert len(rounds) < 500, "a game that never ends"
    times = [finished - timedelta(minutes=2 * (len(rounds) - 1 - n)) for n in range(len(rounds))]
    round_ids = list(
        session.exec(  # type: ignore[call-overload]
            insert(Round).returning(Round.id, sort_by_parameter_order=True),
            params=[{"game_id": game.id, "created_at": moment} for moment in times],
        ).scalars()
    )
    rows = [
        {
            "round_id": round_id,
            "player_id": s.player_id,
            "dutch": s.dutch or 0,
            "blitz": s.blitz or 0,
            "hand": s.hand,
            "called": s.called,
        }
        for round_id, scores in zip(round_ids, rounds, strict=True)
        for s in scores
    ]
    session.exec(insert(RoundScore), params=rows)  # type: ignore[call-overload]
    # The result rows as every save writes them: the same function, on the game its rounds make.
    record_results(session, game, players, scored_view(game, players, list(zip(round_ids, rounds, strict=True))))
    return game.id, len(rounds), len(rows)


def seed(database_url: str, seed_value: int = 16) -> dict[int, Seeded]:
    rng = random.Random(seed_value)
    engine = make_engine(database_url)
    upgrade(engine)
    tables: dict[int, Seeded] = {}
    try:
        with Session(engine) as session:
            for size in SIZES:
                table = CardTable(id=new_game_id(), name=f"{size} games", edit_key_hash=hash_key(new_edit_key()))
                session.add(table)
                session.flush()
                people = [Person(table_id=table.id, name=n, name_key=name_key(n)) for n in ROSTER]
                session.add_all(people)
                session.flush()
                seeded = Seeded(table.id, size)
                games = []
                for number in range(size):
                    game_id, rounds, scores = seed_game(session, table, people, number, rng)
                    seeded.rounds += rounds
                    seeded.scores += scores
                    games.append(game_id)
                    if number % 100 == 99:
                        session.commit()
                seeded.last_night = FIRST_NIGHT + timedelta(days=(size - 1) // GAMES_A_NIGHT)
                seeded.sample = rng.sample(games, min(SAMPLE, size))
                session.commit()
                tables[size] = seeded
        if engine.dialect.name == "postgresql":
            analyze(engine)
    finally:
        engine.dispose()
    return tables


def analyze(engine: Engine) -> None:
    """The statistics autovacuum gathers on a live server after this many new rows, which the planner needs.
    Outside a transaction: ANALYZE's statistics are rolled back with one."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql("ANALYZE")


def crowd(database_url: str, source: Seeded, copies: int) -> int:
    """Copies of a table with all its rows (people, games, players, rounds, scores, results) under new
    ids, in SQL: other clubs' games in the same database. The rows' count afterwards."""
    engine = make_engine(database_url)
    tables = {t.name: t for t in SQLModel.metadata.sorted_tables}
    card_table, person, game, player = tables["card_table"], tables["person"], tables["game"], tables["player"]
    round_, score, result = tables["round"], tables["round_score"], tables["game_result"]
    games = select(game.c.id).where(game.c.table_id == source.table_id)
    rounds = select(round_.c.id).where(round_.c.game_id.in_(games))
    try:
        with engine.begin() as connection:
            for k in range(1, copies + 1):
                # Integer ids moved past any real one (MOVED), text ids marked with the copy's number (RENAMED).
                offset, suffix = k * 10_000_000, literal(f"~{k}")
                for target, where, changes in (
                    (card_table, card_table.c.id == source.table_id, {"id": RENAMED}),
                    (person, person.c.table_id == source.table_id, {"id": MOVED, "table_id": RENAMED}),
                    (game, game.c.table_id == source.table_id, {"id": RENAMED, "table_id": RENAMED}),
                    (player, player.c.game_id.in_(games), {"id": MOVED, "game_id": RENAMED, "person_id": MOVED}),
                    (round_, round_.c.game_id.in_(games), {"id": MOVED, "game_id": RENAMED}),
                    (score, score.c.round_id.in_(rounds), {"round_id": MOVED, "player_id": MOVED}),
                    (
                        result,
                        result.c.table_id == source.table_id,
                        {"game_id": RENAMED, "player_id": MOVED, "person_id": MOVED, "table_id": RENAMED},
                    ),
                ):
                    values = [
                        c + (offset if changes[c.name] == MOVED else suffix) if c.name in changes else c
                        for c in target.columns
                    ]
                    columns = [c.name for c in target.columns]
                    connection.execute(insert(target).from_select(columns, select(*values).where(where)))
            if engine.dialect.name == "postgresql":
                for name in ("person", "player", "round"):  # the sequences past the copied ids
                    connection.exec_driver_sql(
                        f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), (SELECT max(id) FROM {name}))"
                    )
        if engine.dialect.name == "postgresql":
            analyze(engine)
        with engine.connect() as connection:
            return int(connection.execute(select(func.count()).select_from(score)).scalar_one())
    finally:
        engine.dispose()
