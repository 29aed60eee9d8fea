""" "Check the piles" on the view page, for anyone at the table while the scorekeeper lets them
(`seats_on_view`): the cards on the centre piles, as typed, against the rows. The rows are those sent for
the round being played when any were (players entering their own), else the last round saved, so a
table can count after the scorekeeper saved and tell them. It only reads: the scorekeeper corrects.

The keeper's own check, in the round form before saving, is app.web.entry's `_check_piles`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.games.views import GameView
from app.i18n import _, join_names
from app.models import DraftRow
from app.rules import cards
from app.web.entry import PILE_MESSAGES


@dataclass(frozen=True, slots=True)
class PileCheck:
    """_pile_check.html: what was typed, and what the check found ("same", "differ", "waiting" while rows
    are still to come, "none" with nothing to check against, "error" when it can't be read)."""

    typed: str = ""
    outcome: str | None = None
    message: str | None = None


def check_piles(view: GameView, draft: Sequence[DraftRow], typed: str) -> PileCheck:
    typed = typed.strip()[:100]
    if not typed:
        return PileCheck()
    top = cards.pile_top(view.rules.preset)
    piles, problem = cards.piles_typed(typed, top)
    if piles is None:
        unreadable = PILE_MESSAGES[problem or "piles_unreadable"]  # looked up first: Babel < 2.19 extracts a key in _()
        return PileCheck(typed, "error", _(unreadable).format(top=top))
    number = len(view.round_ids) + 1
    if draft:
        rows = sum(row.dutch or 0 for row in draft)
        sent = {row.player_id for row in draft}
        missing = [p.name for p in view.state.playing(view.players) if p.id not in sent]
        if missing:
            message = _(
                "The piles hold {piles} cards; the rows sent so far for round {number} say {rows}. "
                "Not sent yet: {names}."
            )
            return PileCheck(
                typed, "waiting", message.format(piles=piles, number=number, rows=rows, names=join_names(missing))
            )
    elif view.state.rounds:
        number -= 1
        rows = sum(score.dutch or 0 for score in view.state.rounds[-1].scores)
    else:
        return PileCheck(typed, "none", _("Nothing to check yet: no row of round 1 was sent."))
    if piles == rows:
        return PileCheck(
            typed, "same", _("The piles hold {piles} cards, as round {number} says.").format(piles=piles, number=number)
        )
    message = _("The piles hold {piles} cards; round {number} says {rows}. Tell the scorekeeper, who can correct it.")
    return PileCheck(typed, "differ", message.format(piles=piles, number=number, rows=rows))
