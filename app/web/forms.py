"""Reading the HTML forms: what was typed, kept as typed, and what is wrong with it, per field."""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import Request

from app.errors import (
    InvalidInput,
)
from app.i18n import N_, _, problem_text
from app.schemas import RoundIn, ScoreIn
from app.views import GameView
from app.web.context import RoundForm

FormDict = dict[str, str]

# What a number field of the start page or the rules form says when it can't be read: one whole
# sentence per field and per fault (English, for the catalogs; translated where said).
NOT_A_NUMBER = {
    "start": N_("A starting score must be a whole number."),
    "target": N_("The target must be a whole number."),
    "dutch_points": N_("Points per Dutch card must be a whole number."),
    "blitz_points": N_("Points per Blitz card must be a whole number."),
}
EMPTY = {
    "target": N_("The target can't be empty."),
    "dutch_points": N_("Points per Dutch card can't be empty."),
    "blitz_points": N_("Points per Blitz card can't be empty."),
}


async def read_form(request: Request) -> FormDict:
    data = await request.form()
    return {k: v for k, v in data.items() if isinstance(v, str)}


def form_int(form: FormDict, name: str, default: int, message: str, errors: dict[str, list[str]]) -> int:
    """The field as a whole number (`default` when empty); when it is not one, `message` (English, from
    NOT_A_NUMBER) goes into `errors` in the request's language."""
    raw = form.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw.replace("−", "-"))
    except ValueError:
        errors.setdefault(name, []).append(_(message))
        return default


def rules_numbers(
    form: FormDict, defaults: dict[str, int], errors: dict[str, list[str]], *, required: bool = False
) -> dict[str, int]:
    """The house rules' numbers (target, points per card) as typed, `defaults` for those left empty,
    or refused as empty when `required` (the rules form, which shows every one)."""
    values = {}
    for key, default in defaults.items():
        values[key] = form_int(form, key, default, NOT_A_NUMBER[key], errors)
        if required and not form.get(key, "").strip():
            errors.setdefault(key, []).append(_(EMPTY[key]))
    return values


def safe_int(raw: str | None, default: int) -> int:
    try:
        return int(raw or "")
    except ValueError:
        return default


def new_game_form(values: FormDict | None = None, players: int = 2) -> dict[str, Any]:
    values = values or {}
    return {
        "values": values,
        "players": players,
        "errors": {},
        "rules_open": any(values.get(k) for k in ("target", "dutch_points", "blitz_points"))
        or values.get("tie_break") == "shared",
    }


class RoundFormInvalid(Exception):
    """What was typed can't be read as a round (a field empty, not a number): see the form's errors."""


def round_form(form: FormDict, number: int | None) -> RoundForm:
    """The round form as posted, before it is read against the game's players."""
    return RoundForm(number=number, request_id=form.get("request_id") or secrets.token_urlsafe(12))


def typed_counts(form: FormDict) -> dict[str, str]:
    """The card counts as typed (what a retry of the same post sends again)."""
    return {k: v.strip() for k, v in sorted(form.items()) if k.startswith(("dutch-", "blitz-"))}


# A round's card counts: (field, said when empty, said when not a number).
_COUNT_MESSAGES = (
    ("dutch", N_("Enter {name}'s Dutch cards."), N_("{name}: Dutch cards must be a whole number.")),
    ("blitz", N_("Enter {name}'s Blitz cards left."), N_("{name}: Blitz cards left must be a whole number.")),
)


def parse_round(state: RoundForm, view: GameView, form: FormDict) -> RoundIn:
    """Read the typed counts against the game's players, keeping what was typed in `state`; raises
    RoundFormInvalid (with the messages in state.errors) when a field is empty or not a number."""
    scores = []
    for player in view.players:
        counts = {}
        for kind, empty, not_a_number in _COUNT_MESSAGES:
            name = f"{kind}-{player.id}"
            raw = form.get(name, "").strip()
            state.values[name] = raw[:20]
            if not raw:
                state.errors.setdefault(name, []).append(_(empty).format(name=player.name))
                continue
            try:
                counts[kind] = int(raw)
            except ValueError:
                state.errors.setdefault(name, []).append(_(not_a_number).format(name=player.name))
        if len(counts) == 2:
            scores.append(
                ScoreIn(player_id=player.id, dutch=_bounded(counts["dutch"]), blitz=_bounded(counts["blitz"]))
            )
    if state.errors:
        raise RoundFormInvalid()
    return RoundIn(scores=scores)


def _bounded(value: int) -> int:
    return max(-1_000_000, min(1_000_000, value))


def round_errors(state: RoundForm, error: InvalidInput) -> None:
    for problem in error.problems:
        key = (
            f"{problem.field}-{problem.player_id}"
            if problem.field in ("dutch", "blitz") and problem.player_id
            else "round"
        )
        state.errors.setdefault(key, []).append(problem_text(problem))
