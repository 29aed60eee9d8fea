"""What the scorekeeper's page answers after each of its posts (app/routes/game_pages.py): a redirect
without JavaScript, else the fresh #game fragment, with the confirmation of a round saved or corrected
and, after a new round, the round cards the page already shows left out (htmx keeps them)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from app.games.usecases import Games
from app.games.views import GameView
from app.i18n import _
from app.web.changes import change_lines
from app.web.context import RoundForm, game_context, table_link
from app.web.render import is_htmx, keeper_headers, render


def done_text(*, saved: int | None = None, corrected: int | None = None, rounds: int) -> dict[str, Any] | None:
    """What the confirmation after a save says: "Round 4 saved" (with Undo: it is the last round), or
    "Round 2 corrected"."""
    if saved is not None and 1 <= saved == rounds:
        return {"text": _("Round {number} saved.").format(number=saved), "undo": saved}
    if corrected is not None and 1 <= corrected <= rounds:
        return {"text": _("Round {number} corrected.").format(number=corrected), "undo": None}
    return None


def keeper_answer(
    request: Request,
    games: Games,
    game_id: str,
    *,
    form: RoundForm | None = None,
    message: str | None = None,
    status: int = 200,
    rules_form: dict[str, Any] | None = None,
    view: GameView | None = None,
    done: dict[str, int] | None = None,
    refused: tuple[int, str] | None = None,
    preserved: range | tuple[()] = (),
) -> Response:
    """After a keeper's post: redirect (no JavaScript), or the fresh fragment (htmx), rendered from
    `view` when the use case already has the game as it now stands. `done` names a round just saved
    or corrected, which the page confirms (the redirect carries it, with #game to land on the scores).
    `refused`: a revert refused, (change id, why), said beside that change."""
    if status == 200 and form is None and message is None and rules_form is None and not is_htmx(request):
        url = request.app.url_path_for("keeper_page", game_id=game_id)
        if done:
            url += "?" + urlencode(done) + "#game"
        return RedirectResponse(url, status_code=303)
    view = view or games.get(game_id)
    confirmed = done_text(**done, rounds=len(view.round_ids)) if done else None
    context = game_context(
        request,
        view,
        keeper=True,
        form=form,
        message=message,
        rules_form=rules_form,
        done=confirmed,
        changes=change_lines(games, view, refused=refused),
        table=table_link(request, games.session, view),
    )
    context["preserved_rounds"] = preserved  # rounds the page shows as they are: left out (htmx keeps them)
    return render(request, "game.html", context, fragment="_game.html", status=status, headers=keeper_headers())


def loaded_view(error: Exception) -> GameView | None:
    """The game as the refused write loaded it (app.games.writes), so showing the refusal loads nothing."""
    return getattr(error, "view", None)
