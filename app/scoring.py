"""The rules of Dutch Blitz scoring, as pure functions.

Everything a game shows (points, running totals, ranks, leaders, winner, tie-break) is derived here
from the players, the rules and the rounds, so a corrected or deleted round, or a house rule changed
mid-game, always gives the answer the game would have had if it had been played that way.

This module must stay pure: it imports nothing from fastapi, sqlmodel, sqlalchemy or the rest of app
but app.names, which is as pure (tests/test_scoring.py checks both), so the rules can be tested and
reused without a server.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from dataclasses import field as _field
from enum import StrEnum
from typing import Any

from app.names import N_, NAME_MESSAGES, clean_name, name_message, name_problem

# A Dutch Blitz deck has 40 cards (1-10 in four colours); the Blitz pile starts with 10 of them.
DECK_SIZE = 40
BLITZ_PILE_SIZE = 10
MIN_PLAYERS = 2
MAX_PLAYERS = 8  # 2-4 with the base game, 5-8 with the expansion pack

# Limits for house rules and carried-over scores: wide enough for any table, narrow enough that
# nothing overflows a database integer or a chart.
TARGET_RANGE = (1, 10_000)
POINTS_RANGE = (-100, 100)
STARTING_SCORE_RANGE = (-10_000, 10_000)


class TieBreak(StrEnum):
    PLAY_ON = "play_on"  # the official rules are silent; by default the tied leaders play another round
    SHARED = "shared"  # house rule: everyone tied at the top wins together


@dataclass(frozen=True, slots=True)
class Rules:
    target: int = 75
    dutch_points: int = 1
    blitz_points: int = -2
    tie_break: TieBreak = TieBreak.PLAY_ON


@dataclass(frozen=True, slots=True)
class Player:
    id: int
    name: str
    starting_score: int = 0


@dataclass(frozen=True, slots=True)
class Score:
    """What one player had at the end of a round."""

    player_id: int
    dutch: int  # cards this player put on the shared Dutch piles
    blitz: int  # cards left in this player's Blitz pile


# What each problem says, by code, in English: the catalogs (app.i18n) translate these templates,
# and the web and API layers fill in the parameters in the reader's language.
MESSAGES: dict[str, str] = {
    "target_range": N_("The target must be between {low} and {high} points."),
    "dutch_points_range": N_("Points per Dutch card must be between {low} and {high}."),
    "blitz_points_range": N_("Points per Blitz card must be between {low} and {high}."),
    "player_count": N_("A game has {low} to {high} players; this one has {count}."),
    "name_twice": N_("Two players are called {name}; give each player a different name."),
    "starting_score_range": N_("{name}'s starting score must be between {low} and {high}."),
    "starting_score_range_unnamed": N_("This player's starting score must be between {low} and {high}."),
    "no_such_player": N_("There is no player {player_id} in this game."),
    "player_twice": N_("{name} is in this round more than once."),
    "dutch_range": N_("{name}: Dutch cards must be between 0 and {high}."),
    "blitz_range": N_("{name}: Blitz cards left must be between 0 and {high}."),
    "over_deck": N_(
        "{name}: {dutch} Dutch cards and {blitz} Blitz cards left make {sum}, but a deck has only {deck} cards."
    ),
    "player_missing": N_("{name} is missing from this round."),
    "nobody_blitzed": N_("Nobody called Blitz: at least one player must have 0 Blitz cards left."),
    **NAME_MESSAGES,
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input: a message code (of MESSAGES) and its parameters, which the web
    and API layers render in the reader's language (app.i18n.problem_text); `message` is the English.

    `player_id` and `field` ("dutch", "blitz", "name", "starting_score", "players", "target", ...) let a
    form show the message beside the right field; `index` is the position in the submitted list.
    """

    code: str
    field: str
    player_id: int | None = None
    index: int | None = None
    params: dict[str, Any] = _field(default_factory=dict, compare=True, hash=False)

    @property
    def message(self) -> str:
        return MESSAGES[self.code].format(**self.params)


def name_refused(code: str, field: str, **where: Any) -> Problem:
    """A Problem for a refused name (app.names gives the code)."""
    _, params = name_message(code)
    return Problem(code, field, params=params, **where)


@dataclass(frozen=True, slots=True)
class ScoredScore:
    player_id: int
    dutch: int
    blitz: int
    points: int
    total: int  # running total after this round


@dataclass(frozen=True, slots=True)
class ScoredRound:
    number: int  # 1-based, in the order the rounds were played
    scores: tuple[ScoredScore, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    player: Player
    total: int
    rank: int  # competition ranking: equal totals share a place (1, 1, 3)
    to_target: int  # points still needed to reach the target (0 once reached)


@dataclass(frozen=True, slots=True)
class GameState:
    rules: Rules
    rounds: tuple[ScoredRound, ...]
    standings: tuple[Standing, ...]  # best first; equal totals keep the players' seating order
    totals: dict[int, int]
    leaders: tuple[int, ...]  # player ids sharing the highest total
    over: bool
    winners: tuple[int, ...]  # empty while the game is on
    tie_break_due: bool  # play_on: the top is tied at or past the target, another round decides

    @property
    def status(self) -> str:
        return "finished" if self.over else "playing"


# --- validation -------------------------------------------------------------------------------


def _check_range(value: int, bounds: tuple[int, int], code: str, params: dict | None = None, **where) -> list[Problem]:
    low, high = bounds
    if not low <= value <= high:
        return [Problem(code, params={**(params or {}), "low": low, "high": high}, **where)]
    return []


def validate_rules(rules: Rules) -> list[Problem]:
    problems = _check_range(rules.target, TARGET_RANGE, "target_range", field="target")
    problems += _check_range(rules.dutch_points, POINTS_RANGE, "dutch_points_range", field="dutch_points")
    problems += _check_range(rules.blitz_points, POINTS_RANGE, "blitz_points_range", field="blitz_points")
    return problems


def validate_players(players: Sequence[Player]) -> list[Problem]:
    """2-8 players, each named, names unique ignoring case, starting scores in range."""
    problems: list[Problem] = []
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        problems.append(
            Problem(
                "player_count",
                field="players",
                params={"low": MIN_PLAYERS, "high": MAX_PLAYERS, "count": len(players)},
            )
        )
    seen: dict[str, int] = {}
    for index, player in enumerate(players):
        # Judge the name as it will be stored, so "   " is blank and " Ana" / "ana" are one name.
        name = clean_name(player.name)
        reason = name_problem(name)
        if reason:
            problems.append(name_refused(reason, field="name", index=index))
        else:
            key = name.casefold()
            if key in seen:
                problems.append(Problem("name_twice", field="name", index=index, params={"name": name}))
            seen.setdefault(key, index)
        problems += _check_range(
            player.starting_score,
            STARTING_SCORE_RANGE,
            # A refused name is not repeated back in another message.
            "starting_score_range_unnamed" if reason else "starting_score_range",
            {} if reason else {"name": name},
            field="starting_score",
            index=index,
        )
    return problems


def validate_round(players: Sequence[Player], scores: Sequence[Score]) -> list[Problem]:
    """Everything that makes a round impossible in a real game, each named by player.

    An empty list means the round is valid.
    """
    by_id = {p.id: p for p in players}
    problems: list[Problem] = []
    counts = Counter(s.player_id for s in scores)
    for index, score in enumerate(scores):
        if score.player_id not in by_id:
            problems.append(
                Problem(
                    "no_such_player",
                    params={"player_id": score.player_id},
                    field="player_id",
                    player_id=score.player_id,
                    index=index,
                )
            )
    reported_twice: set[int] = set()
    for index, score in enumerate(scores):
        player = by_id.get(score.player_id)
        if player is None:
            continue
        if counts[score.player_id] > 1:
            if score.player_id not in reported_twice:
                reported_twice.add(score.player_id)
                problems.append(
                    Problem(
                        "player_twice",
                        params={"name": player.name},
                        field="player_id",
                        player_id=player.id,
                        index=index,
                    )
                )
            continue
        where = {"player_id": player.id, "index": index}
        bad_count = False
        if not 0 <= score.dutch <= DECK_SIZE:
            bad_count = True
            problems.append(
                Problem(
                    "dutch_range",
                    params={"name": player.name, "high": DECK_SIZE},
                    field="dutch",
                    **where,
                )
            )
        if not 0 <= score.blitz <= BLITZ_PILE_SIZE:
            bad_count = True
            problems.append(
                Problem(
                    "blitz_range",
                    params={"name": player.name, "high": BLITZ_PILE_SIZE},
                    field="blitz",
                    **where,
                )
            )
        if not bad_count and score.dutch + score.blitz > DECK_SIZE:
            problems.append(
                Problem(
                    "over_deck",
                    params={
                        "name": player.name,
                        "dutch": score.dutch,
                        "blitz": score.blitz,
                        "sum": score.dutch + score.blitz,
                        "deck": DECK_SIZE,
                    },
                    field="dutch",
                    **where,
                )
            )
    for player in players:
        if counts[player.id] == 0:
            problems.append(
                Problem("player_missing", params={"name": player.name}, field="player_id", player_id=player.id)
            )
    if scores and not any(s.blitz == 0 for s in scores):
        problems.append(Problem("nobody_blitzed", field="blitz"))
    return problems


# --- scoring ----------------------------------------------------------------------------------


def round_points(score: Score, rules: Rules) -> int:
    return score.dutch * rules.dutch_points + score.blitz * rules.blitz_points


def ranks(totals: Sequence[int]) -> list[int]:
    """Competition ranking: 1 + the number of strictly higher totals, so ties share a place."""
    return [1 + sum(other > total for other in totals) for total in totals]


def score_game(players: Sequence[Player], rules: Rules, rounds: Iterable[Sequence[Score]]) -> GameState:
    """Replay the rounds in order and say what they mean under these rules.

    The win check looks at the totals after the last round played: once the highest total has
    reached the target, a sole leader wins; a tie at the top means another round (play_on) or
    co-winners (shared). A game with no rounds yet is never over, whatever the starting scores.
    """
    totals = {p.id: p.starting_score for p in players}
    scored_rounds: list[ScoredRound] = []
    for number, scores in enumerate(rounds, start=1):
        by_player = {s.player_id: s for s in scores}
        row = []
        for player in players:  # seating order, whatever order the scores came in
            score = by_player.get(player.id, Score(player.id, 0, 0))
            points = round_points(score, rules)
            totals[player.id] += points
            row.append(ScoredScore(player.id, score.dutch, score.blitz, points, totals[player.id]))
        scored_rounds.append(ScoredRound(number, tuple(row)))

    order = sorted(range(len(players)), key=lambda i: -totals[players[i].id])
    player_ranks = ranks([totals[p.id] for p in players])
    standings = tuple(
        Standing(
            player=players[i],
            total=totals[players[i].id],
            rank=player_ranks[i],
            to_target=max(0, rules.target - totals[players[i].id]),
        )
        for i in order
    )
    top = max(totals.values(), default=0)
    leaders = tuple(p.id for p in players if totals[p.id] == top) if players else ()

    over = False
    winners: tuple[int, ...] = ()
    tie_break_due = False
    if scored_rounds and top >= rules.target:
        if len(leaders) == 1 or rules.tie_break == TieBreak.SHARED:
            over, winners = True, leaders
        else:
            tie_break_due = True
    return GameState(
        rules=rules,
        rounds=tuple(scored_rounds),
        standings=standings,
        totals=totals,
        leaders=leaders,
        over=over,
        winners=winners,
        tie_break_due=tie_break_due,
    )
