"""The `lives` family: 31 (Scat, also called Blitz), played for lives. Pure.

Every player starts with `lives` lives (pennies). Each round every player still in shows a hand of
0-31 (the best suit); one of them may have knocked.
- A hand of 31 (declared): every other player loses a life, the knocker included. Two players
  holding 31 are both safe.
- Otherwise the lowest hand loses a life. A knocker who is the sole lowest loses two; a knocker tied
  for lowest is safe and the others tied lose one; several non-knockers tied for lowest each lose one.
- With the house rule `thirty_and_a_half`, three of a kind counts 30½: it beats every hand but a 31.
- With the county rule, a player with no lives left is "on the county" and still plays; losing
  again puts them out (so does losing two with one left). Without it, the last life lost is out.
- A round that would put every remaining player out at once counts for nothing: nobody loses a
  life and they play another hand (it is kept, marked void).
- The last player in wins. Standings: the players still in by lives left, then the players who are
  out, the later out the higher (out in the same round: the same place).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.rules.base import (
    THIRTY_ONE,
    GameState,
    Player,
    Problem,
    Rules,
    Score,
    ScoredRound,
    ScoredScore,
    Standing,
    check_caller,
    check_hands,
    check_seats,
    left_by,
)


def validate_round(
    players: Sequence[Player],
    scores: Sequence[Score],
    rules: Rules,
    caller: int | None = None,
    out: frozenset[int] = frozenset(),
) -> list[Problem]:
    """`out`: the players already out of the game, or who left it, before this round (GameState.out)."""
    playing = [p for p in players if p.id not in out]
    problems, usable, missing = check_seats(players, scores, playing)
    return (
        problems
        + check_hands(usable, THIRTY_ONE, rules.thirty_and_a_half)
        + missing
        + check_caller(players, caller, rules, playing)
    )


def lives_lost(hands: dict[int, int | float], knocker: int | None) -> dict[int, int]:
    """How many lives each player showing a hand loses this round (before the county and the
    everyone-out rule)."""
    if any(hand == THIRTY_ONE for hand in hands.values()):
        return {pid: 0 if hand == THIRTY_ONE else 1 for pid, hand in hands.items()}
    low = min(hands.values(), default=0)
    lowest = {pid for pid, hand in hands.items() if hand == low}
    if knocker in lowest:
        if lowest == {knocker}:
            return {pid: 2 if pid == knocker else 0 for pid in hands}
        return {pid: 1 if pid in lowest and pid != knocker else 0 for pid in hands}
    return {pid: 1 if pid in lowest else 0 for pid in hands}


def is_out(lives_left: int, county: bool) -> bool:
    """On the county (0 lives) a player still plays; below it, or at 0 without the county, they're out."""
    return lives_left < 0 if county else lives_left <= 0


def score_game(players: Sequence[Player], rules: Rules, rounds: Iterable[Sequence[Score]]) -> GameState:
    # A latecomer comes with the lives the keeper gave them: their starting score is the lives they came
    # without (0 or less; at least one life whatever the rules say since).
    lives = {
        p.id: max(1, rules.lives + p.starting_score) if p.joined_after is not None else rules.lives for p in players
    }
    out_in: dict[int, int] = {}  # player id -> the round that put them out
    scored_rounds: list[ScoredRound] = []
    for number, scores in enumerate(rounds, start=1):
        seated = {p.id for p in players if p.sits_in(number)}
        shown = [s for s in scores if s.player_id in seated and s.player_id not in out_in]
        hands = {s.player_id: s.hand or 0 for s in shown}
        knocker = next((s.player_id for s in shown if s.called), None)
        lost = lives_lost(hands, knocker)
        left = {pid: lives[pid] - lost[pid] for pid in hands}
        void = bool(hands) and all(is_out(left[pid], rules.county) for pid in hands)
        if void:
            lost = dict.fromkeys(hands, 0)
            left = {pid: lives[pid] for pid in hands}
        row = []
        for player in players:  # seating order
            if player.id not in hands:
                continue
            lives[player.id] = left[player.id]
            if is_out(left[player.id], rules.county):
                out_in[player.id] = number
            row.append(
                ScoredScore(
                    player.id,
                    0,
                    0,
                    -lost[player.id],
                    max(0, left[player.id]),
                    hands[player.id],
                    player.id == knocker,
                    lost[player.id],
                )
            )
        scored_rounds.append(ScoredRound(number, tuple(row), caller=knocker, void=void))

    # Still in: more lives first; out: out later first (leaving counts as going out after their last
    # round, but after those put out in it). A key where equal means the same place.
    gone = left_by(players, len(scored_rounds))

    def place(player: Player) -> tuple[int, int, int]:
        if player.id in out_in:
            return (1, -out_in[player.id], 0)
        if player.id in gone:
            return (1, -(player.left_after or 0), 1)
        return (0, -lives[player.id], 0)

    order = sorted(players, key=place)  # sorted is stable: equal places keep the seating order
    standings = tuple(
        Standing(
            player=player,
            total=max(0, lives[player.id]) if player.id not in out_in else 0,
            rank=1 + sum(place(other) < place(player) for other in players),
            to_target=0,
            out=player.id in out_in,
            out_in=out_in.get(player.id),
            left=player.id in gone,
        )
        for player in order
    )
    totals = {p.id: max(0, lives[p.id]) if p.id not in out_in else 0 for p in players}
    still_in = [p.id for p in players if p.id not in out_in and p.id not in gone]
    best = min((place(p) for p in players), default=(0, 0, 0))
    leaders = tuple(p.id for p in players if place(p) == best and p.id not in gone)
    over = bool(scored_rounds) and len(still_in) == 1
    return GameState(
        rules=rules,
        rounds=tuple(scored_rounds),
        standings=standings,
        totals=totals,
        leaders=leaders,
        over=over,
        winners=tuple(still_in) if over else (),
        tie_break_due=False,
        out=frozenset(out_in) | gone,
    )
