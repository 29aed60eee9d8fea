"""The games Blitzboard knows, each a kind's parameters filled in: the table may change any of them
within the bounds (app.rules.base.BOUNDS). Pure.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.rules.base import (
    BOUNDS,
    PARAMS,
    End,
    Kind,
    Problem,
    Rules,
    TieBreak,
    Win,
    check_range,
)

# In the order the start page offers them: Dutch Blitz first.
PRESETS: dict[str, Rules] = {
    "dutch_blitz": Rules(),
    "dutch_blitz_100": Rules(preset="dutch_blitz_100", target=100),
    "nerts": Rules(preset="nerts", target=100, pile_size=13, deck_size=52),
    "ligretto": Rules(preset="ligretto", target=99, must_go_out=False),
    "dutch": Rules(kind=Kind.LOWEST, preset="dutch", target=100),
    "thirty_one": Rules(kind=Kind.LIVES, preset="thirty_one"),
}
DEFAULT_PRESET = "dutch_blitz"
# The presets that speak Dutch Blitz's words: "Dutch cards", "Blitz pile", "Blitz!" (the rules' problem
# codes, the round form, the history and the awards). The other card games say "centre" and "pile".
BLITZ_WORDS = frozenset({"dutch_blitz", "dutch_blitz_100"})
CHOICES: dict[str, tuple[str, ...]] = {
    "tie_break": tuple(t.value for t in TieBreak),
    "end": tuple(e.value for e in End),
    "win": tuple(w.value for w in Win),
}


def preset_of(name: str) -> Rules:
    return PRESETS[name]


def with_params(rules: Rules, params: dict[str, Any]) -> Rules:
    """The rules with these parameters changed (values already of the right type)."""
    changes = {name: value for name, value in params.items() if value is not None}
    if "tie_break" in changes:
        changes["tie_break"] = TieBreak(changes["tie_break"])
    if "end" in changes:
        changes["end"] = End(changes["end"])
    if "win" in changes:
        changes["win"] = Win(changes["win"])
    return replace(rules, **changes)


def validate_rules(rules: Rules) -> list[Problem]:
    """Every parameter of the game's kind within its bounds (the others are not used), and the win rule
    `first_to_target` only with `end: target`."""
    problems: list[Problem] = []
    for name in PARAMS[rules.kind]:
        if name in BOUNDS:
            problems += check_range(getattr(rules, name), BOUNDS[name], f"{name}_range", field=name)
    if rules.kind == Kind.CARDS and not problems and rules.pile_size > rules.deck_size:
        problems.append(
            Problem("pile_over_deck", field="pile_size", params={"pile": rules.pile_size, "deck": rules.deck_size})
        )
    if rules.kind == Kind.CARDS and rules.win == Win.FIRST_TO_TARGET and rules.end != End.TARGET:
        # First to the target needs a target that ends the game: after a set number of rounds nobody is first.
        problems.append(Problem("win_needs_target", field="win"))
    return problems


def describe() -> list[dict[str, Any]]:
    """Every preset with its kind, its parameters filled in and their bounds (GET /api/v1/presets)."""
    described = []
    for name, rules in PRESETS.items():
        params: dict[str, Any] = {}
        for param in PARAMS[rules.kind]:
            value = getattr(rules, param)
            entry: dict[str, Any] = {"default": value.value if isinstance(value, TieBreak | End | Win) else value}
            if param in BOUNDS:
                entry |= {"type": "integer", "minimum": BOUNDS[param][0], "maximum": BOUNDS[param][1]}
            elif param in CHOICES:
                entry |= {"type": "string", "enum": list(CHOICES[param])}
            else:
                entry |= {"type": "boolean"}
            params[param] = entry
        described.append({"name": name, "kind": rules.kind.value, "params": params})
    return described
