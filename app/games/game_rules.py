"""A game's rules and players as a request sends them, read into what the rules engine judges: a new
game (`new_game`, the one check of a new game, for the API and the start page alike) and changed
house rules (`changed_rules`). Each returns every problem at once."""

from __future__ import annotations

from app.errors import InvalidInput
from app.games.views import GameView, rules_of
from app.models import Game
from app.rules import scoring
from app.rules.names import clean_name, game_name_problem
from app.schemas import GameCreate, RulesCreate, RulesUpdate

__all__ = ["changed_rules", "new_game", "new_rules", "rounds_under"]


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
    players = [scoring.Player(p.id, p.name, p.starting_score) for p in view.players]
    rounds = [s for _, s in view.played()]
    if rules.kind == scoring.Kind.CARDS:
        for number, scores in enumerate(rounds, 1):
            if scoring.validate_round(players, scores, rules):
                return [scoring.Problem("rules_break_round", field="rules", params={"number": number})]
        return []
    return scoring.check_later_rounds(players, rules, rounds)
