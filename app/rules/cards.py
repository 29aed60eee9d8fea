"""The `cards` family: Dutch Blitz, Nerts, Ligretto. Pure.

Each round every player counts the cards they played to the centre (`dutch`, × `dutch_points`) and
the cards left in their own pile (`blitz`, × `blitz_points`). A pile holds `pile_size` cards and a
player's deck `deck_size`; unless the rules allow a stuck round (Ligretto), someone emptied their
pile. The game ends after the round in which the highest total reaches the target (or after `rounds`
rounds); the highest total wins, and a tie for it plays another round (or is shared). Under the win
rule `first_to_target` (end: target only) the players who reached the target in that round win, and
several of them are a tie whatever their totals (`first_to_target` below).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from app.rules.base import (
    End,
    GameState,
    Kind,
    Player,
    Problem,
    Rules,
    Score,
    ScoredRound,
    ScoredScore,
    TieBreak,
    Win,
    check_caller,
    check_seats,
    left_by,
)
from app.rules.presets import BLITZ_WORDS
from app.rules.totals import by_totals


def validate_round(
    players: Sequence[Player],
    scores: Sequence[Score],
    rules: Rules,
    caller: int | None = None,
    gone: frozenset[int] = frozenset(),
) -> list[Problem]:
    """`gone`: the players who had left before this round (GameState.out)."""
    problems, usable, missing = check_seats(players, scores, [p for p in players if p.id not in gone] if gone else None)
    blitz_words = rules.preset in BLITZ_WORDS
    for index, player, score in usable:
        where = {"player_id": player.id, "index": index}
        if score.hand is not None:
            problems.append(
                Problem("not_in_kind", field="hand", params={"name": player.name, "field": "hand"}, **where)
            )
        if score.dutch is None or score.blitz is None:
            problems.append(
                Problem(
                    "count_missing",
                    field="dutch" if score.dutch is None else "blitz",
                    params={"name": player.name},
                    **where,
                )
            )
            continue
        bad_count = False
        if not 0 <= score.dutch <= rules.deck_size:
            bad_count = True
            problems.append(
                Problem(
                    "dutch_range" if blitz_words else "centre_range",
                    params={"name": player.name, "high": rules.deck_size},
                    field="dutch",
                    **where,
                )
            )
        if not 0 <= score.blitz <= rules.pile_size:
            bad_count = True
            problems.append(
                Problem(
                    "blitz_range" if blitz_words else "pile_range",
                    params={"name": player.name, "high": rules.pile_size},
                    field="blitz",
                    **where,
                )
            )
        if not bad_count and score.dutch + score.blitz > rules.deck_size:
            problems.append(
                Problem(
                    "over_deck" if blitz_words else "over_deck_centre",
                    params={
                        "name": player.name,
                        "dutch": score.dutch,
                        "blitz": score.blitz,
                        "sum": score.dutch + score.blitz,
                        "deck": rules.deck_size,
                    },
                    field="dutch",
                    **where,
                )
            )
    problems += missing + check_caller(players, caller, rules)
    if rules.must_go_out and scores and not any(s.blitz == 0 for s in scores):
        problems.append(Problem("nobody_blitzed" if blitz_words else "nobody_out", field="blitz"))
    return problems


def round_points(score: Score, rules: Rules) -> int:
    return (score.dutch or 0) * rules.dutch_points + (score.blitz or 0) * rules.blitz_points


def score_game(players: Sequence[Player], rules: Rules, rounds: Iterable[Sequence[Score]]) -> GameState:
    """Replay the rounds in order and say what they mean under these rules.

    The win check looks at the totals after the last round played: once the highest total has
    reached the target (or the rounds are all played), a sole leader wins; a tie at the top means
    another round (play_on) or co-winners (shared). A game with no rounds yet is never over. That is
    the win rule `highest_total`; `first_to_target` (with `end: target`) decides as `first_to_target` says.
    """
    totals = {p.id: p.starting_score for p in players}
    scored_rounds: list[ScoredRound] = []
    reached: dict[int, tuple[int, int]] = {}  # the round each player first had the target after, and that total
    for number, scores in enumerate(rounds, start=1):
        by_player = {s.player_id: s for s in scores}
        row = []
        for player in players:  # seating order, whatever order the scores came in
            if not player.sits_in(number):
                continue
            score = by_player.get(player.id) or Score(player.id, 0, 0)
            points = round_points(score, rules)
            totals[player.id] += points
            row.append(ScoredScore(player.id, score.dutch or 0, score.blitz or 0, points, totals[player.id]))
            if totals[player.id] >= rules.target and player.id not in reached:
                reached[player.id] = (number, totals[player.id])
        scored_rounds.append(ScoredRound(number, tuple(row)))

    by_target = rules.end == End.TARGET
    if by_target and rules.win == Win.FIRST_TO_TARGET:
        state = by_totals(players, rules, scored_rounds, totals, lowest=False, ends=False, to_target=True)
        return first_to_target(state, players, reached)
    # Someone who left doesn't end the game, whatever their total.
    top = max((totals[p.id] for p in players if p.sits_in(len(scored_rounds) + 1)), default=0)
    ends = top >= rules.target if by_target else len(scored_rounds) >= rules.rounds
    return by_totals(players, rules, scored_rounds, totals, lowest=False, ends=ends, to_target=by_target)


def first_to_target(state: GameState, players: Sequence[Player], reached: dict[int, tuple[int, int]]) -> GameState:
    """The win rule `first_to_target`: the game ends after the first round in which a player still in
    reached the target, as under `highest_total`; whoever reached it in that round wins, and several who
    reached it in it are tied whatever their totals. A tie is shared (`shared`) or played off (`play_on`):
    the tied players play on, and the most points scored since that round win (an equal most: another
    round). A player who left is never among them; the standings stay by totals. `reached`: each player's
    first round after which they had the target, with their total then."""
    gone = left_by(players, len(state.rounds))
    first = min((reached[p.id][0] for p in players if p.id in reached and p.id not in gone), default=None)
    if first is None:
        return state
    tied = [p.id for p in players if p.id not in gone and reached.get(p.id, (0, 0))[0] == first]
    if state.rules.tie_break == TieBreak.SHARED:  # every one of them, whatever they scored since
        return _won(state, tuple(tied))
    since = {pid: state.totals[pid] - reached[pid][1] for pid in tied}
    best = max(since.values())
    leaders = tuple(pid for pid in tied if since[pid] == best)
    if len(leaders) == 1:
        return _won(state, leaders)
    return replace(state, leaders=leaders, over=False, winners=(), tie_break_due=True)


def _won(state: GameState, winners: tuple[int, ...]) -> GameState:
    """The game over with these winners, ranked first (1) whatever their totals; the others after them in
    their order by totals (a player who passed a winner's total in a play-off did not win: they rank below
    the winners)."""
    others = [s for s in state.standings if s.player.id not in winners]
    standings = tuple(
        [replace(s, rank=1) for s in state.standings if s.player.id in winners]
        + [replace(s, rank=len(winners) + 1 + sum(o.rank < s.rank for o in others)) for s in others]
    )
    return replace(state, leaders=winners, over=True, winners=winners, tie_break_due=False, standings=standings)


# --- the piles check the count ---------------------------------------------------------------------
# Every centre pile runs up from its first card (1, 2, 3...), so the cards on a pile are its top card's
# value, and the tops of all piles together are the sum of every player's centre count.

PILE_TOP = {"nerts": 13}  # a pile's highest card: Nerts' foundations run A (1) to K (13); the others' 1 to 10


def pile_top(preset: str) -> int:
    return PILE_TOP.get(preset, 10)


def piles_problems(piles: int, players: int, rules: Rules) -> list[Problem]:
    """What is wrong with a count of the centre piles in a round of `players` rows: at most every card of
    their decks (each player's centre count is bounded by the deck, as validate_round checks it); only the
    card games have centre piles (a live round's and a backup's round alike)."""
    if rules.kind != Kind.CARDS:
        return [Problem("round_field_not_in_kind", field="piles", params={"field": "piles"})]
    high = players * rules.deck_size
    if not 0 <= piles <= high:
        return [Problem("piles_range", field="piles", params={"high": high})]
    return []


def piles_typed(typed: str, top: int) -> tuple[int | None, str | None]:
    """The cards on the centre piles from what was typed, and why not when it can't be read: one number is
    their total; several (spaces, commas or +) are each pile's top card, from 1 to `top`."""
    parts = [part for part in re.split(r"[\s,;+]+", typed.strip()) if part]
    # ASCII digits only: "²" and "①" are digits to str.isdigit but not to int().
    if not parts or not all(re.fullmatch(r"[0-9]{1,5}", part) for part in parts):
        return None, "piles_unreadable"
    numbers = [int(part) for part in parts]
    if len(numbers) == 1:
        return numbers[0], None
    if not all(1 <= n <= top for n in numbers):
        return None, "pile_top_range"
    return sum(numbers), None
