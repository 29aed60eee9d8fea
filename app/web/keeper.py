"""What the scorekeeper's page answers after each of its posts (app/routes/game_pages.py): a redirect
without JavaScript (`keeper_redirect`), else the fresh #game fragment (`keeper_fragment`), with the
confirmation of a round saved, corrected or undone, or of a revert (`done_text`, with its Undo or Redo),
the form refilled with a round just undone (`refilled`) and, after a new round, the round cards the
page already shows left out (htmx keeps them). The route reads what the fragment shows
(app.web.context.GameData) from the use case; nothing here reads or calls one."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from app.errors import GameError
from app.games.changes import CORRECTION, DELETION, Change, why_not
from app.games.views import GameView
from app.i18n import _
from app.i18n import number as written
from app.web.changes import describe
from app.web.context import Done, GameData, Keeper, game_page
from app.web.entry import RoundForm
from app.web.render import keeper_headers, render


def done_text(
    view: GameView,
    changes: Sequence[Change],
    *,
    saved: int | None = None,
    corrected: int | None = None,
    undone: int | None = None,
    reverted: int | None = None,
) -> Done | None:
    """What the confirmation after a keeper's tap says: "Round 4 saved." (with Undo: it is the last
    round), "Round 2 corrected." (with Undo: a revert of that correction, while it is the newest change
    and can be reverted), "Round 4 undone." (with Redo: a revert of the deletion), or what a revert
    did, in the change log's words ("Round 2 reverted."). `changes`: the latest, newest first, as the
    page shows them; the Undo and Redo name the logged change they revert (app.games.reverts)."""
    rounds = len(view.round_ids)
    if saved is not None and 1 <= saved == rounds:
        return Done(_("Round {number} saved.").format(number=saved), undo=saved)
    latest = changes[0] if changes else None
    if corrected is not None and 1 <= corrected <= rounds:
        text = _("Round {number} corrected.").format(number=corrected)
        # A save that changed nothing logs nothing: then the newest change is not this save's.
        if latest and latest.kind == CORRECTION and latest.reverts is None and latest.round_number == corrected:
            return Done(text, revert=latest.id if why_not(latest, view) is None else None)
        return Done(text)
    if undone is not None and (deletion := undone_round(changes, undone, rounds)):
        redo = deletion.id if why_not(deletion, view) is None else None
        return Done(_("Round {number} undone.").format(number=undone), revert=redo, redo=True)
    if reverted is not None:
        for change in changes:
            if change.reverts == reverted:
                return Done(describe(change, view).what + ".")
    return None


def undone_round(changes: Sequence[Change], number: int, rounds: int) -> Change | None:
    """The deletion an Undo of round `number` (the last) just made, while nothing happened since: the
    newest change, and the game one round short of it (a round saved since is not logged)."""
    latest = changes[0] if changes else None
    if (
        latest
        and latest.kind == DELETION
        and latest.reverts is None
        and latest.round_number == number == rounds + 1
        and (latest.old or {}).get("last")
    ):
        return latest
    return None


def refilled(changes: Sequence[Change], number: int, rounds: int) -> RoundForm | None:
    """The new round's form filled with the counts of the round just undone (`undone_round`), from
    its deletion's log entry: fixing one digit and saving again is one digit and Save."""
    deletion = undone_round(changes, number, rounds)
    if deletion is None:
        return None
    logged = deletion.old or {}
    values: dict[str, str] = {}
    for score in logged.get("scores", []):
        pid = score["player_id"]
        if "hand" in score:
            values[f"hand-{pid}"] = written(score["hand"])  # 31's 30½ as the language writes it
        else:
            values[f"dutch-{pid}"] = str(score.get("dutch", 0))
            values[f"blitz-{pid}"] = str(score.get("blitz", 0))
    if logged.get("caller") is not None:
        values["caller"] = str(logged["caller"])
    return RoundForm(values=values)


def keeper_redirect(request: Request, game_id: str, done: dict[str, int] | None = None) -> Response:
    """A plain post's answer (no JavaScript): back to the scorekeeper's page. `done` names a round just
    saved, corrected or undone, or a change reverted, which the page confirms (the redirect carries it,
    with #game to land on the scores; the page reads the rest from the change log)."""
    url = request.app.url_path_for("keeper_page", game_id=game_id)
    if done:
        url += "?" + urlencode(done) + "#game"
    return RedirectResponse(url, status_code=303)


def keeper_fragment(
    request: Request,
    data: GameData,
    keeper: Keeper,
    *,
    page: int = 1,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> Response:
    """The scorekeeper's page, or its #game fragment for htmx; `page`: the history's page."""
    context = game_page(request, data, keeper, page=page).context()
    return render(
        request, "game.html", context, fragment="_game.html", status=status, headers=keeper_headers() | (headers or {})
    )


def loaded_view(error: GameError) -> GameView | None:
    """The game as the refused write loaded it (app.games.writes), so showing the refusal loads nothing."""
    view: GameView | None = error.view
    return view
