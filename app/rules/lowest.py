"""The `lowest` family: Dutch, the 52-card memory game where the lowest total wins. Pure.

Each round every player counts the points in their hand (`hand`: red kings 0, black kings 13, queens
12, jacks 11, other cards face value; penalty cards add to a hand). A player may have called "Dutch":
- the caller has the lowest hand (alone, or tied with others): the caller scores 0, everyone else
  their hand (those tied with the caller too);
- the caller does not: every player with the lowest hand scores 0 (several, when they tie), everyone
  else their hand, the caller included, and the caller takes a penalty card next round;
- nobody called (someone went out): everyone scores their hand.
The game ends after the round in which someone's total reaches the target; the lowest total wins,
and a tie for it plays another round (or is shared).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.rules.base import (
    HAND_RANGE,
    GameState,
    Player,
    Problem,
    Rules,
    Score,
    ScoredRound,
    ScoredScore,
    check_caller,
    check_hands,
    check_seats,
)
from app.rules.totals import by_totals


def validate_round(
    players: Sequence[Player],
    scores: Sequence[Score],
    rules: Rules,
    caller: int | None = None,
    gone: frozenset[int] = frozenset(),
) -> list[Problem]:
    """`gone`: the players who had left before this round (GameState.out)."""
    playing = [p for p in players if p.id not in gone] if gone else None
    problems, usable, missing = check_seats(players, scores, playing)
    return problems + check_hands(usable, HAND_RANGE[1]) + missing + check_caller(players, caller, rules, playing)


def round_points(hands: dict[int, int], caller: int | None) -> tuple[dict[int, int], int | None]:
    """Each player's points for the round and the caller who takes a penalty card (or None)."""
    low = min(hands.values(), default=0)
    if caller is not None and caller in hands:
        if hands[caller] == low:
            return {pid: 0 if pid == caller else hand for pid, hand in hands.items()}, None
        return {pid: 0 if hand == low else hand for pid, hand in hands.items()}, caller
    return dict(hands), None


def score_game(players: Sequence[Player], rules: Rules, rounds: Iterable[Sequence[Score]]) -> GameState:
    totals = {p.id: p.starting_score for p in players}
    scored_rounds: list[ScoredRound] = []
    for number, scores in enumerate(rounds, start=1):
        by_player = {s.player_id: s for s in scores}
        seated = [p for p in players if p.sits_in(number)]
        hands = {p.id: (by_player[p.id].hand or 0) if p.id in by_player else 0 for p in seated}
        caller = next((s.player_id for s in scores if s.called and s.player_id in hands), None)
        points, penalty = round_points(hands, caller)
        row = []
        for player in seated:
            totals[player.id] += points[player.id]
            row.append(
                ScoredScore(
                    player.id, 0, 0, points[player.id], totals[player.id], hands[player.id], player.id == caller
                )
            )
        scored_rounds.append(ScoredRound(number, tuple(row), caller=caller, penalty=penalty))

    # Someone still in reached it (a leaver's total ends nothing): the lowest total wins.
    ends = max((totals[p.id] for p in players if p.sits_in(len(scored_rounds) + 1)), default=0) >= rules.target
    return by_totals(players, rules, scored_rounds, totals, lowest=True, ends=ends, to_target=True)
