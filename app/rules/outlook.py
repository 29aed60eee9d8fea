"""What it takes to win next round: pure, like app.rules.scoring, whose rules it reads
(tests/project/test_architecture.py checks that it imports nothing else). In Dutch, where the lowest
total wins and reaching the target ends the game, it is who is near that limit (`near_the_limit`).

A game ends after a round in which the highest total reaches the target, so whoever wins next round
must reach it. Reaching it is also enough when nobody else does: the only total at or past the target
is then the highest, under either tie rule. So, for each player who can reach the target next round:
the least round score that gets them there ("needs"), and, for every other player who could also get
there, the score they must stay under ("others_under"). That pair is exactly the condition for a
win when nobody else is in reach; with others in reach it is the win that depends on nobody else
reaching the target (two at or past it: the higher total decides, as after any round; under the win
rule `first_to_target` they are tied whatever their totals). Either win rule, then: reaching the
target alone wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from app.rules.scoring import End, GameState, Kind, Rules


@dataclass(frozen=True, slots=True)
class Chance:
    player_id: int
    needs: int  # the least round score that reaches the target
    others_under: tuple[tuple[int, int], ...]  # (player id, score they must stay under), in seat order


def round_score_range(rules: Rules) -> tuple[int, int]:
    """The lowest and highest points one player can score in a round: Dutch cards and Blitz cards
    left, each within its pile, at most the deck together."""
    return _score_range(rules.dutch_points, rules.blitz_points, rules.deck_size, rules.pile_size)


@lru_cache(maxsize=64)
def _score_range(dutch_points: int, blitz_points: int, deck: int, pile: int) -> tuple[int, int]:
    # Every count the rules allow (a few hundred), once per set of rules, not on every page.
    scores = [
        dutch * dutch_points + blitz * blitz_points
        for dutch in range(deck + 1)
        for blitz in range(min(pile, deck - dutch) + 1)
    ]
    return min(scores), max(scores)


def what_it_takes(state: GameState, seats: list[int]) -> list[Chance]:
    """Each player in reach of the target next round (in seat order) and what it takes. Empty when
    the game is over, or when a tie past the target is being played off (the banner says that), for
    no one who left, and
    in games that don't end at a target the highest total reaches (`lowest`, `lives`, or a set
    number of rounds)."""
    rules = state.rules
    if state.over or state.tie_break_due or rules.kind != Kind.CARDS or rules.end != End.TARGET:
        return []
    _, high = round_score_range(state.rules)
    seats = [pid for pid in seats if pid not in state.out]  # who left plays no next round
    needs = {pid: state.rules.target - state.totals[pid] for pid in seats}
    in_reach = [pid for pid in seats if needs[pid] <= high]
    # Nobody is at or past the target here (the game would be over, or a tie played off), so every
    # "under" is above the lowest possible score: each of the others can stay under.
    return [
        Chance(pid, needs[pid], tuple((other, needs[other]) for other in in_reach if other != pid)) for pid in in_reach
    ]


# Dutch: the worst hand of the four cards a round starts with (two black kings, two queens: 13 + 13 +
# 12 + 12). A player this close to the limit can reach it next round without a penalty card.
WORST_FOUR_CARD_HAND = 50


@dataclass(frozen=True, slots=True)
class Limit:
    player_id: int
    to_go: int  # the points that take them to the limit (the target), which ends the game


def near_the_limit(state: GameState) -> list[Limit]:
    """Dutch (`lowest`): the players one bad round from the limit (at most a four-card hand to go),
    the closest first (ties in the standings' order). Empty when the game is over, while a tie is
    being played off (the banner says that), and in the other kinds."""
    rules = state.rules
    if state.over or state.tie_break_due or rules.kind != Kind.LOWEST:
        return []
    near = [
        Limit(s.player.id, rules.target - state.totals[s.player.id])
        for s in state.standings
        if not s.left and 0 < rules.target - state.totals[s.player.id] <= WORST_FOUR_CARD_HAND
    ]
    return sorted(near, key=lambda limit: limit.to_go)
