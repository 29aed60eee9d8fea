"""Reading the round form: the counts (or hands) as typed, kept as typed, and what is wrong, per field."""

from __future__ import annotations

import secrets

from app.errors import InvalidInput
from app.i18n import N_, _, problem_text
from app.schemas import RoundIn, ScoreIn
from app.views import GameView
from app.web.context import RoundForm
from app.web.forms import FormDict


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
