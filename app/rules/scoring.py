"""The rules of every game Blitzboard keeps, as pure functions: the front of app.rules.

Everything a game shows (points, running totals, lives, ranks, leaders, winner, tie-break) is derived
here from the players, the rules and the rounds, so a corrected or deleted round, or a house rule
changed mid-game, always gives the answer the game would have had if it had been played that way.

A game's kind picks the rule family (app.rules.cards, lowest, lives); its preset (app.rules.presets)
fills in the parameters. These modules must stay pure: they import nothing from fastapi, sqlmodel,
sqlalchemy or the app outside app.rules (tests/project/test_architecture.py checks), so the rules can be
tested and reused without a server.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.rules import cards, lives, lowest
from app.rules.base import (
    BLITZ_PILE_SIZE,
    BOUNDS,
    DECK_SIZE,
    HALF_HAND,
    HAND_RANGE,
    MAX_PLAYERS,
    MESSAGES,
    MIN_PLAYERS,
    PARAMS,
    POINTS_RANGE,
    STARTING_SCORE_RANGE,
    TARGET_RANGE,
    THIRTY_ONE,
    End,
    GameState,
    Kind,
    Player,
    Problem,
    Rules,
    Score,
    ScoredRound,
    ScoredScore,
    Standing,
    TieBreak,
    Win,
    away,
    hand_from_store,
    hand_to_store,
    is_half,
    left_by,
    name_refused,
    public_rules,
    validate_players,
)
from app.rules.cards import round_points
from app.rules.presets import DEFAULT_PRESET, PRESETS, validate_rules, with_params
from app.rules.totals import ranks

__all__ = [
    "BLITZ_PILE_SIZE",
    "BOUNDS",
    "DECK_SIZE",
    "DEFAULT_PRESET",
    "HALF_HAND",
    "HAND_RANGE",
    "MAX_PLAYERS",
    "MESSAGES",
    "MIN_PLAYERS",
    "PARAMS",
    "POINTS_RANGE",
    "PRESETS",
    "STARTING_SCORE_RANGE",
    "TARGET_RANGE",
    "THIRTY_ONE",
    "End",
    "GameState",
    "Kind",
    "Played",
    "Player",
    "Problem",
    "Rules",
    "Score",
    "ScoredRound",
    "ScoredScore",
    "Standing",
    "TieBreak",
    "Win",
    "away",
    "caller_of",
    "check_later_rounds",
    "check_row",
    "hand_from_store",
    "hand_to_store",
    "is_half",
    "latecomer_start",
    "left_by",
    "name_refused",
    "public_rules",
    "ranks",
    "round_points",
    "score_game",
    "validate_players",
    "validate_round",
    "validate_rules",
    "with_params",
]

_FAMILIES = {Kind.CARDS: cards, Kind.LOWEST: lowest, Kind.LIVES: lives}

# The rounds of a game as played: each round's id with its scores, in the order they were played.
Played = list[tuple[int, list[Score]]]


def latecomer_start(state: GameState) -> int:
    """What a latecomer starts with unless the keeper says otherwise: last place's total among the players
    still in (the lowest; in `lowest`, the highest), so joining never puts anyone who played all along
    behind a newcomer. In `lives`, the lives they come with: the fewest of those still in, at least one."""
    totals = [s.total for s in state.standings if s.player.id not in state.out]
    if state.rules.kind == Kind.LIVES:
        return max(1, min(totals, default=state.rules.lives))
    return (max if state.rules.kind == Kind.LOWEST else min)(totals, default=0)


def check_row(player: Player, score: Score, rules: Rules) -> list[Problem]:
    """One player's row alone, as their own phone sends it: what each field allows (the kind's fields, their
    ranges, a deck's size). The round's own checks (somebody went out, one caller) wait for the whole round."""
    problems = validate_round([player], [score], rules, player.id if score.called else None)
    return [p for p in problems if p.player_id == player.id and p.field in ("dutch", "blitz", "hand")]


def caller_of(scores: Sequence[Score]) -> int | None:
    """The player who called Dutch or knocked in a round as stored (its `called` flag), if any."""
    return next((s.player_id for s in scores if s.called), None)


def validate_round(
    players: Sequence[Player],
    scores: Sequence[Score],
    rules: Rules | None = None,
    caller: int | None = None,
    before: GameState | None = None,
) -> list[Problem]:
    """Everything that makes a round impossible in a real game, each named by player; empty when the
    round is valid. `caller`: who called Dutch or knocked; `before`: the game as it stood before this
    round (who is still in: not out in `lives`, nor left; everyone when left out)."""
    rules = rules or Rules()
    gone = before.out if before else frozenset()
    if rules.kind == Kind.LIVES:
        return lives.validate_round(players, scores, rules, caller, gone)
    return _FAMILIES[rules.kind].validate_round(players, scores, rules, caller, gone)


def score_game(players: Sequence[Player], rules: Rules, rounds: Iterable[Sequence[Score]]) -> GameState:
    """Replay the rounds in order and say what they mean under these rules."""
    return _FAMILIES[rules.kind].score_game(players, rules, rounds)


def check_later_rounds(
    players: Sequence[Player], rules: Rules, rounds: Sequence[Sequence[Score]], first: int = 0
) -> list[Problem]:
    """After a change to round `first + 1` (or to the rules: 0), whether every later round still has
    exactly the players who would be in it. Only `lives` rounds depend on earlier ones (who is out);
    in the other kinds every round stands alone and this is empty. One replay, however many rounds."""
    if rules.kind != Kind.LIVES:
        return []
    out_in = {s.player.id: s.out_in for s in lives.score_game(players, rules, rounds).standings if s.out}
    for number in range(first + 1, len(rounds) + 1):
        playing = [p for p in players if out_in.get(p.id, number) >= number and p.sits_in(number)]
        seated = {s.player_id for s in rounds[number - 1]}
        if len(playing) < 2:
            return [Problem("later_round_after_end", field="later_rounds", params={"number": number})]
        for player in players:
            if player.id in seated and player not in playing:
                return [
                    Problem(
                        "later_round_impossible", field="later_rounds", params={"number": number, "name": player.name}
                    )
                ]
            if player.id not in seated and player in playing:
                return [
                    Problem("later_round_missing", field="later_rounds", params={"number": number, "name": player.name})
                ]
    return []
