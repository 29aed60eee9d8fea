"""A game's rules and players as a request sends them, read into what the rules engine judges: a new
game (`new_game`, the one check of a new game, for the API and the start page alike), changed
house rules (`changed_rules`), and what every change to a round checks (`round_of`, `checked_round`,
`still_possible`). Each returns or raises every problem at once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from app.errors import GameNotFound, InvalidInput, PilesDiffer
from app.games.views import GameView, rule_players, rules_of
from app.games.writes import CALLER_FIELD
from app.i18n import _
from app.models import Game
from app.rules import cards, scoring
from app.rules.base import is_half
from app.rules.names import clean_name, game_name_problem
from app.rules.scoring import Played
from app.schemas import GameCreate, RoundIn, RulesCreate, RulesUpdate

__all__ = ["changed_rules", "checked_round", "new_game", "new_rules", "round_of", "rounds_under", "still_possible"]


def new_game(data: GameCreate) -> tuple[str, list[scoring.Player], scoring.Rules]:
    """A new game's name, players and rules as the rules engine sees them, or InvalidInput with every
    problem at once. The one check of a new game: `Games.create` calls it, and so does the start page
    for the fields it could read when it could not read others."""
    name = clean_name(data.name)
    players = [
        scoring.Player(id=i, name=clean_name(p.name), starting_score=p.starting_score)
        for i, p in enumerate(data.players)
    ]
    rules, problems = new_rules(data.rules or RulesCreate())
    problems = scoring.validate_players(players, rules) + problems
    if reason := game_name_problem(name):
        problems.insert(0, scoring.name_refused(reason, field="game_name"))
    if problems:
        raise InvalidInput(problems)
    return name, players, rules


def new_rules(data: RulesUpdate) -> tuple[scoring.Rules, list[scoring.Problem]]:
    """A new game's rules: the preset asked for (or the kind's first, or Dutch Blitz) with the
    parameters sent, and what is wrong with them."""
    kinds = {name: rules.kind for name, rules in scoring.PRESETS.items()}
    preset = data.preset or next((n for n, k in kinds.items() if k == data.kind), scoring.DEFAULT_PRESET)
    problems: list[scoring.Problem] = []
    if data.kind is not None and kinds[preset] != data.kind:
        problems.append(scoring.Problem("preset_kind", field="preset", params={"preset": preset, "kind": data.kind}))
    return _with_params(scoring.PRESETS[preset], data, problems)


def _with_params(
    base: scoring.Rules, data: RulesUpdate, problems: list[scoring.Problem]
) -> tuple[scoring.Rules, list[scoring.Problem]]:
    params = data.params()
    allowed = scoring.PARAMS[base.kind]
    problems += [
        scoring.Problem("param_not_in_kind", field=name, params={"field": name})
        for name in params
        if name not in allowed
    ]
    rules = scoring.with_params(base, {name: value for name, value in params.items() if name in allowed})
    return rules, problems + scoring.validate_rules(rules)


def changed_rules(game: Game, data: RulesUpdate) -> tuple[scoring.Rules, list[scoring.Problem]]:
    """The game's rules with the parameters sent; the kind and preset can't change."""
    current = rules_of(game)
    problems = [
        scoring.Problem("kind_fixed", field=name)
        for name, now in (("kind", current.kind), ("preset", current.preset))
        if getattr(data, name) not in (None, now)
    ]
    return _with_params(current, data, problems)


def rounds_under(view: GameView, rules: scoring.Rules) -> list[scoring.Problem]:
    """Whether every round played is still possible under these rules (a smaller pile, fewer lives):
    a rules change, or the revert of one, is refused when one is not."""
    players = seats(view)
    rounds = [s for _, s in view.played()]
    if rules.kind == scoring.Kind.CARDS:
        for number, scores in enumerate(rounds, 1):
            if scoring.validate_round([p for p in players if p.sits_in(number)], scores, rules):
                return [scoring.Problem("rules_break_round", field="rules", params={"number": number})]
        return []
    if rules.kind == scoring.Kind.LIVES and not rules.thirty_and_a_half:
        # 31 without its 30½ rule: a round holding a 30½ would be refused by every later check of it
        # (a correction, a backup's import), so the rule stays on while one is stored.
        for number, scores in enumerate(rounds, 1):
            if any(is_half(score.hand) for score in scores):
                return [scoring.Problem("rules_break_round", field="rules", params={"number": number})]
    return scoring.check_later_rounds(players, rules, rounds)


# --- what every round change checks -------------------------------------------------------------


def round_of(view: GameView, number: int) -> int:
    """Round `number`'s id (404 when the game has no such round)."""
    if not 1 <= number <= len(view.round_ids):
        raise GameNotFound(
            _("This game has no round {number} (it has {count}).").format(number=number, count=len(view.round_ids))
        )
    return view.round_ids[number - 1]


def checked_round(
    view: GameView, data: RoundIn | Callable[[GameView], RoundIn], number: int, round_id: int | None = None
) -> RoundIn:
    """The round, read against the players just loaded when it comes as a parser (a page's form,
    which can only be read knowing the players), and checked by the rules as round `number`.
    `round_id`: a deleted round put back under its old id, which a leaver sat in if their mark is at or
    after it, and a latecomer if theirs is before it (the rounds left after the deletion can't say: it is
    not among them)."""
    scores = data if isinstance(data, RoundIn) else data(view)
    rules = view.rules
    own = CALLER_FIELD.get(rules.kind)
    problems = [
        scoring.Problem("round_field_not_in_kind", field=name, params={"field": name})
        for name in ("caller", "knocker")
        if name != own and getattr(scores, name) is not None
    ]
    players = seats(view)
    before = view.state
    if number <= len(view.round_ids):  # a correction: who was in before that round (and who came after it)
        if rules.kind == scoring.Kind.LIVES:
            before = scoring.score_game(players, rules, [s for _, s in view.played()[: number - 1]])
            before = replace(before, out=before.out | scoring.away(players, number))
        else:  # only a leave or coming later keeps anyone out of these kinds' rounds
            before = replace(before, out=scoring.away(players, number))
    if round_id is not None:
        marked = {
            p.id for p in view.players if p.left_after_round_id is not None or p.joined_after_round_id is not None
        }
        away = {
            p.id
            for p in view.players
            if (p.left_after_round_id is not None and p.left_after_round_id < round_id)
            or (p.joined_after_round_id is not None and p.joined_after_round_id >= round_id)
        }
        before = replace(before, out=frozenset((before.out - marked) | away))
    problems = (
        scoring.validate_round(
            players,
            [scoring.Score(s.player_id, s.dutch, s.blitz, s.hand) for s in scores.scores],
            rules,
            getattr(scores, own) if own else None,
            before,
        )
        + problems
    )
    cards_kind = rules.kind == scoring.Kind.CARDS
    if scores.piles is not None:  # "Check the piles": only the card games have centre piles
        problems += cards.piles_problems(scores.piles, len(scores.scores), rules)
    if problems:
        raise InvalidInput(problems)
    if cards_kind and scores.piles is not None and not scores.piles_anyway:
        rows = sum(s.dutch or 0 for s in scores.scores)
        if rows != scores.piles:
            raise PilesDiffer(scores.piles, rows)
    return scores


def still_possible(view: GameView, played: Played, first: int) -> None:
    """After a change to round `first + 1`, every later round still possible (`lives`: who is in)."""
    players = seats(view, played)
    problems = scoring.check_later_rounds(players, view.rules, [s for _, s in played], first)
    if not problems and view.rules.kind == scoring.Kind.LIVES:
        # Everyone still in put out at once while a leaver is spared: a game nobody can play or win.
        state = scoring.score_game(players, view.rules, [s for _, s in played])
        if not state.over and all(p.id in state.out for p in players):
            problems = [scoring.Problem("nobody_left_in", field="scores")]
    if problems:
        raise InvalidInput(problems)


def seats(view: GameView, played: Played | None = None) -> list[scoring.Player]:
    """The players as the rules see them, a leaver's rounds counted among the game's (or `played`'s)."""
    return rule_players(view.players, view.round_ids if played is None else [rid for rid, _ in played])
