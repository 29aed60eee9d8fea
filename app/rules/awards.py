"""Awards at the end of a game, derived from its scored rounds. Pure, like
app.rules.scoring, whose types it reads (tests/project/test_architecture.py checks that it imports nothing else).

Only a game that is over has awards: while it is on, the next round can change every one of them.
Ties share an award (the players in seating order). An award that would name every player says
nothing about anyone, so it is left out (two players who called Blitz twice each have no "most").

What each kind's rounds can say:

- `cards` (Dutch Blitz, Nerts, Ligretto): round points are cards played less cards left.
  - best round: the highest round points;
  - most calls: the rounds a player's pile was empty (`blitz` 0: they called Blitz, Nerts or
    Ligretto; when a Ligretto round may end stuck, or two piles empty at once, each counts); none
    when nobody called at all;
  - steadiest: the lowest population standard deviation of round points;
  - comeback: ranks by the running totals, highest first.
- `lowest` (Dutch): round points are added to a total that should stay low.
  - best round: the lowest round points (usually 0, so often shared or left out as everyone's);
  - most calls: the rounds a player called Dutch (`called`), whether or not the call paid off;
  - steadiest and comeback as in `cards`, ranked lowest first.
- `lives` (31): a round's points are only the lives lost (0, 1 or 2), so there is no best round
  and no steadiest player to speak of.
  - most calls: knocks (`called`), except in a void round, which counts for nothing;
  - comeback: ranks as the game's standings rank (the players still in by lives left, then those
    out, the later out the higher).

Steadiest needs a game of at least 3 rounds and counts only players who played 3 or more (the
spread of one or two rounds is luck, not steadiness). Exact ties are found with integer arithmetic;
the value shown is the standard deviation itself.

Biggest comeback: the winner's worst rank in the standings after any round, counting starting
scores (the standings do); none unless that rank is below first. With several winners (a shared
win) it goes to those who were lowest. Its round is the latest round after which every one of them
stood that low (the later the trough, the bigger the climb from it); None when no single round
found them all there. Best round's round is likewise the first round in which every player named
scored it, or None when they scored it in different rounds.

One pass over the rounds (a few sums per player and a rank per winner each round): cheaper than
scoring the game itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from app.rules.scoring import GameState, Kind

MIN_STEADY_ROUNDS = 3
CODES = ("best_round", "most_calls", "comeback", "steadiest")  # the order the banner lists them in


@dataclass(frozen=True, slots=True)
class Award:
    code: str  # one of CODES
    player_ids: tuple[int, ...]  # seating order; several when they tie
    value: int | float  # best round: its points; most calls: how many; comeback: the worst rank;
    # steadiest: the standard deviation of their round points
    round_number: int | None = None  # best round: when; comeback: the round after which they were lowest
    rank: int | None = None  # comeback: the worst rank (as `value`)


@dataclass(slots=True)
class _Tally:
    """One player's sums over the rounds they played."""

    rounds: int = 0
    points: int = 0
    squares: int = 0
    calls: int = 0
    worst_rank: int = 0  # winners only: their lowest place after any round so far
    worst_rounds: list[int] = field(default_factory=list)  # the rounds that left them there


def awards(state: GameState) -> tuple[Award, ...]:
    """The game's awards in CODES order; empty while the game is on."""
    if not state.over or not state.rounds:
        return ()
    kind = state.rules.kind
    lowest = kind == Kind.LOWEST
    seats = list(state.totals)  # every kind builds its totals in seating order
    tally = {pid: _Tally() for pid in seats}
    winners = set(state.winners)
    # `cards`, `lowest`: the total after the round; `lives`: lives left. From the start: a player who left
    # before playing a round has a place all the same.
    running = {
        s.player.id: state.rules.lives if kind == Kind.LIVES else s.player.starting_score for s in state.standings
    }
    # `lives`: the round that put each player out, from the final standings (a later round cannot
    # bring anyone back, so "out after round n" is out_in <= n).
    out_in = {s.player.id: s.out_in for s in state.standings if s.out_in is not None}
    best_points: int | None = None
    best_rounds: dict[int, list[int]] = {}  # player -> the rounds in which they scored best_points

    for scored in state.rounds:
        for score in scored.scores:
            t = tally[score.player_id]
            running[score.player_id] = score.total
            if kind == Kind.LIVES:
                # A void round counts for nothing (though a knock never voids one: someone keeps their lives).
                t.calls += score.called and not scored.void
                continue
            t.rounds += 1
            t.points += score.points
            t.squares += score.points * score.points
            t.calls += score.blitz == 0 if kind == Kind.CARDS else score.called
            if best_points is None or (score.points < best_points if lowest else score.points > best_points):
                best_points, best_rounds = score.points, {}
            if score.points == best_points:
                best_rounds.setdefault(score.player_id, []).append(scored.number)
        standing = _standing_after(kind, seats, scored.number, running, out_in)
        for pid in winners:
            # scoring.ranks' rule (1 + the number strictly ahead), for the winners alone: a long
            # game's rounds then cost a few comparisons each, not one per pair of players.
            rank = 1 + sum(other > standing[pid] for other in standing.values())
            t = tally[pid]
            if rank > t.worst_rank:
                t.worst_rank, t.worst_rounds = rank, []
            if rank == t.worst_rank:
                t.worst_rounds.append(scored.number)

    found = [
        _best_round(seats, best_points, best_rounds) if kind != Kind.LIVES else None,
        _most_calls(seats, tally),
        _comeback(seats, tally, winners),
        _steadiest(seats, tally, len(state.rounds)) if kind != Kind.LIVES else None,
    ]
    return tuple(award for award in found if award is not None)


def _standing_after(
    kind: Kind, seats: list[int], number: int, running: dict[int, int], out_in: dict[int, int]
) -> dict[int, int]:
    """Each player's place in the standings after round `number` as one number, higher for a better
    place and equal for a shared one, as the game ranks them."""
    if kind == Kind.CARDS:
        return running
    if kind == Kind.LOWEST:
        return {pid: -running[pid] for pid in seats}
    # `lives`: those still in by their lives left (0 or more); those out below every player in, the
    # later out the higher (their round, less enough to make it negative).
    below = number + 1
    return {pid: out_in[pid] - below if out_in.get(pid, below) <= number else running[pid] for pid in seats}


def _everyone(named: list[int], seats: list[int]) -> bool:
    return len(named) == len(seats)


def _common(rounds: list[list[int]]) -> set[int]:
    """The rounds every list holds."""
    return set(rounds[0]).intersection(*rounds[1:])


def _best_round(seats: list[int], points: int | None, rounds: dict[int, list[int]]) -> Award | None:
    named = [pid for pid in seats if pid in rounds]
    if points is None or _everyone(named, seats):
        return None
    together = _common([rounds[pid] for pid in named])
    return Award("best_round", tuple(named), points, min(together) if together else None)


def _most_calls(seats: list[int], tally: dict[int, _Tally]) -> Award | None:
    most = max(t.calls for t in tally.values())
    named = [pid for pid in seats if tally[pid].calls == most]
    if most == 0 or _everyone(named, seats):
        return None
    return Award("most_calls", tuple(named), most)


def _comeback(seats: list[int], tally: dict[int, _Tally], winners: set[int]) -> Award | None:
    worst = max(tally[pid].worst_rank for pid in winners)
    if worst <= 1:
        return None
    named = [pid for pid in seats if pid in winners and tally[pid].worst_rank == worst]
    together = _common([tally[pid].worst_rounds for pid in named])
    return Award("comeback", tuple(named), worst, max(together) if together else None, rank=worst)


def _steadiest(seats: list[int], tally: dict[int, _Tally], rounds: int) -> Award | None:
    if rounds < MIN_STEADY_ROUNDS:
        return None
    # n² × variance = n × Σx² − (Σx)², exact in integers; over n² as a Fraction, so ties are exact.
    spread = {
        pid: Fraction(t.rounds * t.squares - t.points * t.points, t.rounds * t.rounds)
        for pid, t in tally.items()
        if t.rounds >= MIN_STEADY_ROUNDS
    }
    if not spread:
        return None
    least = min(spread.values())
    named = [pid for pid in seats if spread.get(pid) == least]
    if _everyone(named, seats):
        return None
    return Award("steadiest", tuple(named), math.sqrt(least))
