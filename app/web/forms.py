"""Reading the HTML forms: what was typed, kept as typed, and what is wrong with it, per field.

The rules fields (the start page's "House rules" and the game's rules form, both
templates/_rules_fields.html) show the parameters of one kind of game (scoring.PARAMS): `rules_fields`
is what the template renders, `read_rules` what a post of it says. The game's rules form is rendered
inside every keeper page, whose context only has the game and its rules, so `game_rules_form` is a
template global (set below, like render.py's own globals).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from fastapi import Request

from app.i18n import N_, _, problem_text
from app.rules import scoring
from app.rules.presets import BLITZ_WORDS
from app.web.presets import preset_aliases, preset_blurb, preset_name
from app.web.render import templates

FormDict = dict[str, str]

# The parameters by the field that shows them: a whole number, one of a few values (radio buttons), or
# a checkbox. An unchecked box sends nothing, so a box comes with a hidden marker (<name>_shown) that
# tells "unchecked" from "not on the form".
NUMBERS = ("target", "dutch_points", "blitz_points", "pile_size", "deck_size", "rounds", "lives")
CHOICES: dict[str, tuple[str, ...]] = {
    "tie_break": ("play_on", "shared"),
    "end": ("target", "rounds"),
    "win": ("highest_total", "first_to_target"),
}
FLAGS = ("must_go_out", "county", "thirty_and_a_half")
SHOWN = "_shown"
ALL_PARAMS = tuple(dict.fromkeys(name for names in scoring.PARAMS.values() for name in names))

# Nerts and Ligretto call what Dutch Blitz calls Dutch and Blitz cards what they are: cards played to
# the centre and cards left in the pile. Their fields, and what is said of them, use those words.
_CENTRE_KEY = {"dutch_points": "centre_points", "blitz_points": "pile_points"}

# What a number field of the start page or the rules form says when it can't be read: one whole
# sentence per field and per fault (English, for the catalogs; translated where said).
NOT_A_NUMBER = {
    "start": N_("A starting score must be a whole number."),
    "target": N_("The target must be a whole number."),
    "dutch_points": N_("Points per Dutch card must be a whole number."),
    "blitz_points": N_("Points per Blitz card must be a whole number."),
    "centre_points": N_("Points per centre card must be a whole number."),
    "pile_points": N_("Points per card left in the pile must be a whole number."),
    "pile_size": N_("The cards in each player's pile must be a whole number."),
    "deck_size": N_("The cards in each player's deck must be a whole number."),
    "rounds": N_("The number of rounds must be a whole number."),
    "lives": N_("The lives each player starts with must be a whole number."),
}
EMPTY = {
    "target": N_("The target can't be empty."),
    "dutch_points": N_("Points per Dutch card can't be empty."),
    "blitz_points": N_("Points per Blitz card can't be empty."),
    "centre_points": N_("Points per centre card can't be empty."),
    "pile_points": N_("Points per card left in the pile can't be empty."),
    "pile_size": N_("The cards in each player's pile can't be empty."),
    "deck_size": N_("The cards in each player's deck can't be empty."),
    "rounds": N_("The number of rounds can't be empty."),
    "lives": N_("The lives each player starts with can't be empty."),
}
# The rules engine's range messages name Dutch Blitz's cards; beside Nerts' and Ligretto's fields the
# same limits are said in their words.
CENTRE_RANGE = {
    "dutch_points_range": N_("Points per centre card must be between {low} and {high}."),
    "blitz_points_range": N_("Points per card left in the pile must be between {low} and {high}."),
}


async def read_form(request: Request) -> FormDict:
    data = await request.form()
    return {k: v for k, v in data.items() if isinstance(v, str)}


def whole_number(raw: str) -> int | None:
    """A typed whole number (a typographic minus too), or None when it is not one."""
    try:
        return int(raw.strip().replace("−", "-"))
    except ValueError:
        return None


def form_int(form: FormDict, name: str, default: int, message: str, errors: dict[str, list[str]]) -> int:
    """The field as a whole number (`default` when empty); when it is not one, `message` (English, from
    NOT_A_NUMBER) goes into `errors` in the request's language."""
    raw = form.get(name, "").strip()
    if not raw:
        return default
    value = whole_number(raw)
    if value is None:
        errors.setdefault(name, []).append(_(message))
        return default
    return value


def safe_int(raw: str | None, default: int) -> int:
    try:
        return int(raw or "")
    except ValueError:
        return default


def message_key(name: str, preset: str) -> str:
    """The key of a field's messages (NOT_A_NUMBER, EMPTY) in the words of the game's own fields."""
    return _CENTRE_KEY.get(name, name) if preset not in BLITZ_WORDS else name


def rules_problem_text(problem: scoring.Problem, preset: str) -> str:
    """A use case's Problem, in the request's language and in the words of the game's fields."""
    if preset not in BLITZ_WORDS and problem.code in CENTRE_RANGE:
        return _(CENTRE_RANGE[problem.code]).format(**problem.params)
    return problem_text(problem)


@dataclass
class TypedRules:
    """The rules fields of a post: the parameters read (for RulesCreate / RulesUpdate), what was typed
    (to show again), and the numbers that could not be read ("empty" or "number")."""

    params: dict[str, Any] = field(default_factory=dict)
    typed: FormDict = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)

    def messages(self, preset: str) -> dict[str, list[str]]:
        """What is said beside each field that could not be read, in the game's words."""
        said = {}
        for name, fault in self.unreadable.items():
            key = message_key(name, preset)
            message = EMPTY[key] if fault == "empty" else NOT_A_NUMBER[key]  # marked where defined (N_)
            said[name] = [_(message)]
        return said


def read_rules(form: FormDict, names: Iterable[str], *, required: bool = False) -> TypedRules:
    """The parameters `names` as the form has them. One left off the form is not sent (the preset's
    value on the start page, unchanged in a game), nor is a number left empty, unless `required` (the
    game's rules form, which shows every value): then it is refused as empty."""
    read = TypedRules()
    for name in names:
        if name in FLAGS:
            if name + SHOWN in form:
                read.params[name] = bool(form.get(name))
                read.typed[name] = "1" if read.params[name] else ""
        elif name in CHOICES:
            if form.get(name) in CHOICES[name]:
                read.params[name] = read.typed[name] = form[name]
        elif name in form:
            raw = form[name]
            read.typed[name] = raw[:20]  # shown again as typed (a page of digits is not a number anyway)
            value = whole_number(raw)
            if value is not None:
                read.params[name] = value
            elif raw.strip():
                read.unreadable[name] = "number"
            elif required:
                read.unreadable[name] = "empty"
    return read


def beside_the_fields(errors: dict[str, list[str]], rules: scoring.Rules) -> dict[str, list[str]]:
    """The game's rules form's messages by the field they stand beside: the game's name and the
    parameters of its kind; what the form does not show (a played round the change breaks, a rule of
    another game in a crafted post) goes above the fields ("rules")."""
    shown = {"game_name", "rules", *scoring.PARAMS[rules.kind]}
    placed: dict[str, list[str]] = {}
    for name, messages in errors.items():
        placed.setdefault(name if name in shown else "rules", []).extend(messages)
    return placed


def rules_values(rules: scoring.Rules) -> FormDict:
    """Every parameter of the rules as the form shows it (a box: "1" when on, "" when off)."""
    return {name: _as_text(getattr(rules, name)) for name in ALL_PARAMS}


def changed_rules(form: FormDict, preset: str) -> bool:
    """Whether the rules fields, shown for `preset`, hold anything but that game's own rules."""
    read = read_rules(form, scoring.PARAMS[scoring.PRESETS[preset].kind])
    defaults = rules_values(scoring.PRESETS[preset])
    return bool(read.unreadable) or any(_as_text(value) != defaults[name] for name, value in read.params.items())


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else ""
    return value.value if isinstance(value, StrEnum) else str(value)


def rules_fields(preset: str, values: FormDict, errors: dict[str, list[str]]) -> dict[str, Any]:
    """What templates/_rules_fields.html renders: the fields of the preset's kind with `values` (as
    typed), the preset's own values as placeholders and defaults, and the messages by field."""
    rules = scoring.PRESETS[preset]
    return {
        "kind": rules.kind.value,
        "preset": preset,
        "name": preset_name(preset),
        "centre": preset not in BLITZ_WORDS,
        "values": values,
        "defaults": rules_values(rules),
        "errors": errors,
    }


def game_rules_form(game: Any, rules: scoring.Rules, posted: dict[str, Any] | None = None) -> dict[str, Any]:
    """The game's rules form (templates/_rules_form.html): the game's name and rules, or, back from a
    post (`posted`: "values" as typed, "errors"), what was typed over them, with the messages; open
    then."""
    values = rules_values(rules) | {"game_name": game.name or ""}
    if posted:
        values |= posted["values"]
    return rules_fields(rules.preset, values, posted["errors"] if posted else {}) | {"open": bool(posted)}


templates.env.globals["game_rules_form"] = game_rules_form


def new_game_form(
    preset: str = scoring.DEFAULT_PRESET,
    values: FormDict | None = None,
    players: int = 2,
    errors: dict[str, list[str]] | None = None,
    *,
    show_rules: bool = False,
    table: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The start page's form: the game picked (and the others), the players, their starting scores (none
    in a game of lives), the rules fields of the game; what was typed and the messages. The disclosures
    are open where something was typed or is wrong, and the house rules when asked (`show_rules`).
    At a `table` (app.web.tables.table_binding): its roster to tick, and `players` name fields for newcomers."""
    values = values or {}
    errors = errors or {}
    rules = rules_fields(preset, values, errors)
    kind_params = scoring.PARAMS[scoring.PRESETS[preset].kind]
    # A number left empty is the game's own (its placeholder); a box or a choice is what it shows.
    typed_rules = any(
        n in values and values[n] != rules["defaults"][n] and (n not in NUMBERS or values[n].strip())
        for n in kind_params
    )
    typed_starts = any(v.strip() for k, v in values.items() if k.startswith("start-"))  # a ticked person's too
    start_errors = any(k.startswith("start-") for k in errors)
    return {
        "values": values,
        "players": players,
        "errors": errors,
        "preset": preset,
        "games": [
            {"preset": p, "name": preset_name(p), "blurb": preset_blurb(p), "aliases": preset_aliases(p)}
            for p in scoring.PRESETS
        ],
        "rules": rules,
        "rules_open": show_rules or typed_rules or any(n in errors for n in kind_params),
        # 31 has no starting scores: the field shows only to say so, when one was typed all the same.
        "starts_shown": rules["kind"] != scoring.Kind.LIVES or typed_starts or start_errors,
        "starts_open": typed_starts or start_errors,
        "table": table,
        "min_players": 1 if table else scoring.MIN_PLAYERS,  # at a table, the people ticked play too
    }
