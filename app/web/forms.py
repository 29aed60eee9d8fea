"""Reading the HTML forms: what was typed, kept as typed, and what is wrong with it, per field."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from app.i18n import N_, _

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
