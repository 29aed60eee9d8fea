"""What the scorekeeper's page answers after each of its posts (app/routes/game_pages.py): a redirect
without JavaScript (`keeper_redirect`), else the fresh #game fragment (`keeper_fragment`), with the
confirmation of a round saved or corrected (`done_text`) and, after a new round, the round cards the
page already shows left out (htmx keeps them). The route reads what the fragment shows
(app.web.context.GameData) from the use case; nothing here reads or calls one."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from app.errors import GameError
from app.games.views import GameView
from app.i18n import _
from app.web.context import Done, GameData, Keeper, game_page
from app.web.render import keeper_headers, render


def done_text(*, saved: int | None = None, corrected: int | None = None, rounds: int) -> Done | None:
    """What the confirmation after a save says: "Round 4 saved" (with Undo: it is the last round), or
    "Round 2 corrected"."""
    if saved is not None and 1 <= saved == rounds:
        return Done(_("Round {number} saved.").format(number=saved), undo=saved)
    if corrected is not None and 1 <= corrected <= rounds:
        return Done(_("Round {number} corrected.").format(number=corrected))
    return None


def keeper_redirect(request: Request, game_id: str, done: dict[str, int] | None = None) -> Response:
    """A plain post's answer (no JavaScript): back to the scorekeeper's page. `done` names a round just
    saved or corrected, which the page confirms (the redirect carries it, with #game to land on the scores)."""
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
