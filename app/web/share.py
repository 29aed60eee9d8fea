"""The game pages' Share box (_share.html): the view link, and on the scorekeeper's page the edit link or a
one-time handover link, with their QR codes (the whole page only, never the htmx fragment)."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from app.games.handover import HANDOVER_MINUTES, handover_token
from app.games.seatlink import seat_link_token
from app.games.views import GameView
from app.rules import scoring
from app.urls import absolute_url, urls_for
from app.web.render import is_htmx


@dataclass(frozen=True, slots=True)
class Share:
    """_share.html: the view link and, on the scorekeeper's page, the edit link ("share") or a one-time
    handover link ("move"); their QR codes on the whole page only, never in the htmx fragment."""

    view_url: str
    edit_url: str | None
    handover_url: str | None
    handover: str | None
    handover_minutes: int
    qr: str | None
    edit_qr: str | None
    handover_qr: str | None
    # "Players enter their own" (app.games.seats), when the scorekeeper opened it: the seat link, its QR code,
    # and which players' seats a phone holds; on the view page, the link and its QR code when the game offers
    # them there (`seats_on_view`).
    seat_url: str | None = None
    seat_qr: str | None = None
    seats_taken: frozenset[int] = frozenset()
    # "Check the piles" for anyone at the table, on the view page of a card game that lets them help
    # (`seats_on_view`, as the seat link; app.web.piles): where its form asks.
    piles_url: str | None = None


def share_part(
    request: Request,
    view: GameView,
    edit_key: str | None,
    handover: str | None,
    seats_taken: frozenset[int] | None = None,
) -> Share:
    """The Share box's "Hand over scorekeeping": "share" shows the edit link (both phones keep score),
    "move" a one-time handover link (the phone that takes it keeps score, this one stops)."""
    fragment_only = is_htmx(request)  # render() answers htmx with the _game.html fragment alone
    game = view.game
    view_url = absolute_url(request, request.app.url_path_for("view_page", game_id=game.id))
    edit_url = urls_for(request)(game.id, edit_key)["edit"] if handover == "share" and edit_key else None
    handover_url = None
    if handover == "move" and edit_key:
        token = handover_token(request.app.state.sealer, game.id, game.edit_key_hash)
        handover_url = absolute_url(request, request.app.url_path_for("take_over_page", game_id=game.id, token=token))
    seat_url = None
    # The scorekeeper's when they opened "Players enter their own"; everyone's on the view page while the
    # game lets them (`seats_on_view`) and a round is still to come.
    if (seats_taken is not None and edit_key) or (not edit_key and game.seats_on_view and not view.state.over):
        token = seat_link_token(request.app.state.sealer, game)
        seat_url = absolute_url(request, request.app.url_path_for("seat_link_page", game_id=game.id, token=token))
    piles_url = None
    if not edit_key and game.seats_on_view and view.rules.kind == scoring.Kind.CARDS:
        piles_url = request.app.url_path_for("pile_check_page", game_id=game.id)
    return Share(
        piles_url=piles_url,
        seat_url=seat_url,
        seat_qr=qr_code(seat_url) if seat_url and not fragment_only else None,
        seats_taken=seats_taken or frozenset(),
        view_url=view_url,
        edit_url=edit_url,
        handover_url=handover_url,
        handover=handover,
        handover_minutes=HANDOVER_MINUTES,
        qr=None if fragment_only else qr_code(view_url),
        edit_qr=qr_code(edit_url) if edit_url and not fragment_only else None,
        handover_qr=qr_code(handover_url) if handover_url and not fragment_only else None,
    )


def qr_code(url: str) -> str:
    """A QR code of `url` as inline SVG (the game pages' share box, and a table's: app.web.tables)."""
    import segno  # imported here: only pages that show a QR code pay for it

    # A viewBox instead of a fixed size: the CSS box (.qr svg) then scales the whole code into it,
    # however long the link (a longer link means more modules, which a fixed size would crop).
    return segno.make(url, error="m").svg_inline(scale=4, omitsize=True)
