"""The standings of a game decided by totals (`cards`: the highest wins; `lowest`: the lowest): places,
leaders, the winner or a tie-break, with the players who left listed after those still in. Pure, like
the rest of app.rules; the two families that end by totals (app.rules.cards, lowest) call `by_totals`.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.base import GameState, Player, Rules, ScoredRound, Standing, TieBreak, left_by


def by_totals(
    players: Sequence[Player],
    rules: Rules,
    rounds: Sequence[ScoredRound],
    totals: dict[int, int],
    *,
    lowest: bool,
    ends: bool,
    to_target: bool,
) -> GameState:
    """A game decided by totals (`cards`: the highest wins; `lowest`: the lowest): the standings, first
    place, and, once the game `ends` after a round, the winner, or a tie for first place that plays
    another round (play_on) or shares the win (shared). A game with no rounds yet is never over.
    Players who left are listed after those still in (ranked among themselves) and are never first."""
    sign = 1 if lowest else -1
    gone = left_by(players, len(rounds))
    order = sorted(range(len(players)), key=lambda i: (players[i].id in gone, sign * totals[players[i].id]))
    staying = [p for p in players if p.id not in gone]
    places = dict(zip((p.id for p in staying), ranks([-sign * totals[p.id] for p in staying]), strict=True))
    leavers = [p for p in players if p.id in gone]
    places |= zip(
        (p.id for p in leavers), (len(staying) + r for r in ranks([-sign * totals[p.id] for p in leavers])), strict=True
    )
    standings = tuple(
        Standing(
            player=players[i],
            total=totals[players[i].id],
            rank=places[players[i].id],
            to_target=max(0, rules.target - totals[players[i].id]) if to_target else 0,
            left=players[i].id in gone,
        )
        for i in order
    )
    first = (min if lowest else max)((totals[p.id] for p in staying), default=0)
    leaders = tuple(p.id for p in staying if totals[p.id] == first)
    over = tie_break_due = False
    winners: tuple[int, ...] = ()
    if rounds and ends:
        if len(leaders) == 1 or rules.tie_break == TieBreak.SHARED:
            over, winners = True, leaders
        else:
            tie_break_due = True
    return GameState(rules, tuple(rounds), standings, totals, leaders, over, winners, tie_break_due, gone)


def ranks(totals: Sequence[int]) -> list[int]:
    """Competition ranking: 1 + the number of strictly higher totals, so ties share a place."""
    return [1 + sum(other > total for other in totals) for total in totals]
