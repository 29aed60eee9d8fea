"""The round form: its state (`RoundForm`), what the scorekeeper's page shows of it (`round_form_part`:
the form filled in for a correction, who it asks about, each player's points as typed), and reading it:
the counts (or hands) as typed, kept as typed, and what is wrong, per field."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request

from app.errors import PILES_DIFFER, GameError, InvalidInput
from app.games.views import GameView, rule_players
from app.i18n import N_, _, problem_text
from app.i18n import number as written
from app.models import DraftRow, Player
from app.rules import cards, scoring
from app.rules.presets import BLITZ_WORDS
from app.rules.timing import EARLIEST_YEAR, LATEST_YEAR, MAX_ROUND_SECONDS
from app.schemas import RoundIn, ScoreIn
from app.web.forms import FormDict
from app.web.wording import card_words


@dataclass
class RoundForm:
    """The round entry form's state: what was typed, and what is wrong with it."""

    number: int | None = None  # None: a new round; n: correcting round n
    values: dict[str, str] = field(default_factory=dict)  # "dutch-<player id>" / "blitz-<player id>"
    errors: dict[str, list[str]] = field(default_factory=dict)  # field name or "round" -> messages
    request_id: str = field(default_factory=lambda: secrets.token_urlsafe(12))


def entry_players(view: GameView, number: int | None) -> list[Player]:
    """The players a round form asks about: those still in before the round (a new round: now; a
    correction of round n: before round n): everyone but who left (or came after it), and in 31 who is out."""
    out = view.state.out
    if number is not None:
        seats = rule_players(view.players, view.round_ids)
        if view.rules.kind == scoring.Kind.LIVES:
            out = scoring.score_game(seats, view.rules, [s for _, s in view.played()[: number - 1]]).out
        out = (out if view.rules.kind == scoring.Kind.LIVES else frozenset()) | scoring.away(seats, number)
    return [p for p in view.players if p.id not in out]


@dataclass(frozen=True, slots=True)
class RoundFormPart:
    form: RoundForm | None  # the scorekeeper's only
    preview: dict[int, int | None]  # each player's points as typed (None: not a count the rules allow)
    words: dict[str, str]
    entry_players: list[Player]  # who the form asks about: the players still in before the round
    from_phone: frozenset[int] = frozenset()  # the rows filled in from a player's own phone (their seat)


def round_form_part(view: GameView, form: RoundForm | None, draft: Sequence[DraftRow] = ()) -> RoundFormPart:
    """The scorekeeper's round form: a new round's while the game is on, or a correction's, filled in
    with the round as played; with each player's points as typed. None on a finished game's page. A new
    round's form untouched is filled in with the rows the players sent from their own phones (`draft`:
    app.games.seats), each marked as theirs."""
    state = view.state
    words = card_words(state.rules.preset)
    if form is None and state.over:
        return RoundFormPart(None, {}, words, list(view.players))
    form = form or RoundForm()
    cards = state.rules.kind == scoring.Kind.CARDS
    if form.number is not None and not form.values:
        played = state.rounds[form.number - 1]
        for score in played.scores:
            if cards:
                form.values[f"dutch-{score.player_id}"] = str(score.dutch)
                form.values[f"blitz-{score.player_id}"] = str(score.blitz)
            else:
                form.values[f"hand-{score.player_id}"] = written(score.hand)  # 30½: "30.5", "30,5"
        if played.caller is not None:
            form.values["caller"] = str(played.caller)
        if (piles := view.piles.get(view.round_ids[form.number - 1])) is not None:
            form.values["piles"] = str(piles)  # "Check the piles" as counted: emptied, the correction clears it
    phoned: set[int] = set()
    if form.number is None and not form.values and not form.errors:
        number = len(view.round_ids) + 1
        for row in draft:
            if row.round_number != number:
                continue
            phoned.add(row.player_id)
            if cards:
                form.values[f"dutch-{row.player_id}"] = "" if row.dutch is None else str(row.dutch)
                form.values[f"blitz-{row.player_id}"] = "" if row.blitz is None else str(row.blitz)
            else:
                form.values[f"hand-{row.player_id}"] = "" if row.points is None else written(row.points)
                if row.called:
                    form.values["caller"] = str(row.player_id)
    preview = _preview(view, form) if cards else {}
    return RoundFormPart(form, preview, words, entry_players(view, form.number), frozenset(phoned))


def _preview(view: GameView, form: RoundForm) -> dict[int, int | None]:
    rules = view.state.rules
    preview: dict[int, int | None] = {}
    for p in view.players:
        try:
            score = scoring.Score(
                p.id, int(form.values.get(f"dutch-{p.id}", "")), int(form.values.get(f"blitz-{p.id}", ""))
            )
        except ValueError:
            preview[p.id] = None
            continue
        possible = 0 <= score.blitz <= rules.pile_size and 0 <= score.dutch <= rules.deck_size - score.blitz
        # No points for a count the rules refuse (41 Dutch cards is a typing mistake, not +41).
        preview[p.id] = scoring.round_points(score, rules) if possible else None
    return preview


class RoundFormInvalid(GameError):
    """What was typed can't be read as a round (a field empty, not a number): see the form's errors. Raised
    inside the write (the form is read against the game it locked), so it carries that game (`view`)."""

    status, slug, title = 422, "invalid-input", N_("Invalid input")

    def __init__(self) -> None:
        super().__init__("")


def round_form(form: FormDict, number: int | None) -> RoundForm:
    """The round form as posted, before it is read against the game's players."""
    return RoundForm(number=number, request_id=form.get("request_id") or secrets.token_urlsafe(12))


def kept_time(form: FormDict) -> dict[str, Any]:
    """A round kept offline (static/rounds.js) brings its own time from the phone's round timer:
    `started_at_ms` (its "Blitz!", ms since 1970 in the server's clock) and `duration_s`, so it is not
    timed from the start to its late arrival. Anything else is left out (the server then times the round
    as any save: from a start it was given, if any)."""
    started, duration = form.get("started_at_ms", "").strip(), form.get("duration_s", "").strip()
    if not (re.fullmatch(r"[0-9]{1,15}", started) and re.fullmatch(r"[0-9]{1,6}", duration)):
        return {}
    try:
        moment = datetime.fromtimestamp(int(started) / 1000, UTC)
    except (ValueError, OverflowError, OSError):
        return {}
    if not (EARLIEST_YEAR <= moment.year <= LATEST_YEAR and int(duration) <= MAX_ROUND_SECONDS):
        return {}
    return {"started_at": moment, "duration_s": int(duration)}


def typed_counts(form: FormDict) -> dict[str, str]:
    """The card counts (or hands, and who called) as typed (what a retry of the same post sends again)."""
    return {
        k: v.strip() for k, v in sorted(form.items()) if k.startswith(("dutch-", "blitz-", "hand-")) or k == "caller"
    }


# A round's card counts: (field, said when empty, said when not a number); Dutch Blitz's words, and
# those of the other card games.
_COUNT_MESSAGES = (
    ("dutch", N_("Enter {name}'s Dutch cards."), N_("{name}: Dutch cards must be a whole number.")),
    ("blitz", N_("Enter {name}'s Blitz cards left."), N_("{name}: Blitz cards left must be a whole number.")),
)
_CENTRE_MESSAGES = (
    ("dutch", N_("Enter {name}'s centre cards."), N_("{name}: centre cards must be a whole number.")),
    (
        "blitz",
        N_("Enter {name}'s cards left in the pile."),
        N_("{name}: cards left in the pile must be a whole number."),
    ),
)


_HAND_MESSAGES = (N_("Enter {name}'s hand."), N_("{name}: a hand must be a whole number."))
# With 31's `thirty_and_a_half`: what a hand that is neither a whole number nor a half says.
_HAND_OR_HALF = N_("{name}: a hand must be a whole number, or 30½ for three of a kind.")
# A hand with a half, as people type it: "30.5", "30,5" (the decimal mark of any of our languages), "30½".
_HALF_TYPED = re.compile(r"(\d{1,9})\s*(?:[.,]5|½)")


def typed_hand(raw: str) -> int | float:
    """A hand as typed: a whole number, or one with a half ("30.5", "30,5", "30½": 30.5), which the rules
    judge (only 31's three of a kind, under its house rule, takes one). ValueError: anything else."""
    try:
        return _bounded(int(raw))
    except ValueError:
        half = _HALF_TYPED.fullmatch(raw)
        if half is None:
            raise
        return int(half.group(1)) + 0.5


def parse_round(state: RoundForm, view: GameView, form: FormDict) -> RoundIn:
    """Read the typed counts against the game's players, keeping what was typed in `state`; raises
    RoundFormInvalid (with the messages in state.errors) when a field is empty or not a number."""
    if view.rules.kind != scoring.Kind.CARDS:
        return _parse_hands(state, view, form)
    messages = _COUNT_MESSAGES if view.rules.preset in BLITZ_WORDS else _CENTRE_MESSAGES
    scores = []
    for player in entry_players(view, state.number):  # not who had left
        counts = {}
        for kind, empty, not_a_number in messages:
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
    counted: dict[str, Any] = {}  # the piles as counted, kept with the round
    if (typed := form.get("piles", "").strip()[:100]) and not state.errors:
        piles = _check_piles(state, view, typed, scores, anyway=form.get("piles_anyway") == "1")
        # Checked here (equal, or the house said "Save anyway"): the use case need not ask again.
        counted = {"piles": piles, "piles_anyway": True}
    elif not typed and state.number is not None:
        counted = {"piles": None}  # a correction with the field emptied: no count any more
    if state.errors:
        raise RoundFormInvalid()
    return RoundIn(scores=scores, **counted, **kept_time(form))


PILE_MESSAGES = {
    "piles_unreadable": N_("Type the top card of each centre pile (10 7 5 …), or their sum."),
    "pile_top_range": N_("A pile's top card is between 1 and {top}."),
}


def _check_piles(state: RoundForm, view: GameView, typed: str, scores: list[ScoreIn], *, anyway: bool) -> int | None:
    """ "Check the piles": the cards on the centre piles against the sum of the rows' centre counts. A
    difference is said beside the field before anything is saved; "Save anyway" (`anyway`) saves the round
    as typed (the house decides). The cards the piles hold (None: what was typed can't be read)."""
    state.values["piles"] = typed
    top = cards.pile_top(view.rules.preset)
    piles, problem = cards.piles_typed(typed, top)
    if problem is not None:
        state.errors["piles"] = [_(PILE_MESSAGES[problem]).format(top=top)]
        return None
    rows = sum(s.dutch or 0 for s in scores)
    if piles != rows and not anyway:
        state.values["piles_differ"] = "1"
        state.errors["piles"] = [_(PILES_DIFFER).format(piles=piles, rows=rows)]
    return piles


def _parse_hands(state: RoundForm, view: GameView, form: FormDict) -> RoundIn:
    """A round of Dutch or 31: each hand (of the players still in), and who called or knocked."""
    playing = entry_players(view, state.number)
    empty, not_a_number = _HAND_MESSAGES
    if view.rules.kind == scoring.Kind.LIVES and view.rules.thirty_and_a_half:
        not_a_number = _HAND_OR_HALF
    scores = []
    for player in playing:
        name = f"hand-{player.id}"
        raw = form.get(name, "").strip()
        state.values[name] = raw[:20]
        if not raw:
            state.errors.setdefault(name, []).append(_(empty).format(name=player.name))
            continue
        try:
            scores.append(ScoreIn(player_id=player.id, hand=typed_hand(raw)))
        except ValueError:
            state.errors.setdefault(name, []).append(_(not_a_number).format(name=player.name))
    raw_caller = form.get("caller", "").strip()
    state.values["caller"] = raw_caller[:20]
    caller = next((p.id for p in playing if str(p.id) == raw_caller), None)
    if raw_caller and caller is None:
        state.errors.setdefault("caller", []).append(
            _("Choose who knocked from the players in this round.")
            if view.rules.kind == scoring.Kind.LIVES
            else _("Choose who called from the players in this round.")
        )
    if state.errors:
        raise RoundFormInvalid()
    if view.rules.kind == scoring.Kind.LIVES:
        return RoundIn(scores=scores, knocker=caller, **kept_time(form))
    return RoundIn(scores=scores, caller=caller, **kept_time(form))


def _bounded(value: int) -> int:
    return max(-1_000_000, min(1_000_000, value))


def round_errors(state: RoundForm, error: InvalidInput) -> None:
    for problem in error.problems:
        if problem.field in ("dutch", "blitz", "hand") and problem.player_id:
            key = f"{problem.field}-{problem.player_id}"
        elif problem.field in ("caller", "knocker"):
            key = "caller"
        elif problem.field == "piles":
            key = "piles"
        else:
            key = "round"
        state.errors.setdefault(key, []).append(problem_text(problem))


SHOWN = re.compile(r"(\d{1,12}) (\d{1,9})-(\d{1,9})")


def unchanged_rounds(request: Request, version: int, rounds: int) -> range:
    """After a new round (its number `rounds`, the game now at `version`): the rounds the page that
    saved it already shows as they still are, which the answer leaves out (`Blitzboard-Shown:
    <version> <first>-<last>`, sent by static/app.js with the keeper's posts). Only when the page
    showed the game as this save found it (one version before) and its latest rounds: a new round
    changes no earlier one. Anything else, or no header (no JavaScript, rounds.js): none left out."""
    shown = (
        SHOWN.fullmatch(request.headers.get("blitzboard-shown", ""))
        if request.headers.get("hx-request") == "true"
        else None
    )
    if shown is None:
        return range(0)
    seen_version, first, last = (int(part) for part in shown.groups())
    if seen_version != version - 1 or last != rounds - 1 or first < 1 or first > last:
        return range(0)
    return range(first, last + 1)
