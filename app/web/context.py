"""What a game page shows: the view model built from a loaded game (standings, banner, chart, forms,
share links and QR codes)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from sqlmodel import Session, select

from app.games import viewcache
from app.games.handover import HANDOVER_MINUTES, handover_token
from app.games.views import GameView
from app.i18n import _, join_names, pgettext, signed
from app.models import CardTable, utcnow
from app.rules import scoring
from app.rules.awards import awards
from app.rules.outlook import what_it_takes
from app.rules.presets import BLITZ_WORDS
from app.rules.timing import COUNTDOWN_S, RoundTime, epoch_ms
from app.security import (
    cookie_key,
    csrf_token,
)
from app.urls import absolute_url, urls_for
from app.web.changes import SHOWN, ChangeLine
from app.web.chart import PHONE, TV, build_chart
from app.web.presets import preset_name
from app.web.render import is_htmx

# The history shows this many rounds, the latest first; older ones are a link away (`?page=2`, ...).
HISTORY_ROUNDS = 20


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """The rounds one page of the history shows: page 1 is the latest HISTORY_ROUNDS, page 2 the ones
    before them, and so on (as a feed pages back); a page past the last shows the last."""

    rounds: list[scoring.ScoredRound]  # newest first
    page: int
    pages: int
    first: int  # the oldest round shown (its number)
    last: int  # the newest round shown
    total: int

    @property
    def newer(self) -> int | None:
        return self.page - 1 if self.page > 1 else None

    @property
    def older(self) -> int | None:
        return self.page + 1 if self.page < self.pages else None


def history_page(state: scoring.GameState, page: int = 1) -> HistoryPage:
    total = len(state.rounds)
    pages = max(1, -(-total // HISTORY_ROUNDS))
    page = min(max(page, 1), pages)
    last = total - (page - 1) * HISTORY_ROUNDS
    first = max(1, last - HISTORY_ROUNDS + 1)
    return HistoryPage(state.rounds[first - 1 : last][::-1], page, pages, first, last, total)


@dataclass
class RoundForm:
    """The round entry form's state: what was typed, and what is wrong with it."""

    number: int | None = None  # None: a new round; n: correcting round n
    values: dict[str, str] = field(default_factory=dict)  # "dutch-<player id>" / "blitz-<player id>"
    errors: dict[str, list[str]] = field(default_factory=dict)  # field name or "round" -> messages
    request_id: str = field(default_factory=lambda: secrets.token_urlsafe(12))


def entry_players(view: GameView, number: int | None) -> list[Any]:
    """The players a round form asks about: everyone, but in 31 only those still in before the round
    (a new round: now; a correction of round n: before round n)."""
    if view.rules.kind != scoring.Kind.LIVES:
        return list(view.players)
    out = view.state.out
    if number is not None:
        seats = [scoring.Player(p.id, p.name, p.starting_score) for p in view.players]
        out = scoring.score_game(seats, view.rules, [s for _, s in view.played()[: number - 1]]).out
    return [p for p in view.players if p.id not in out]


def card_words(preset: str) -> dict[str, str]:
    """What the round form calls the two counts and the "went out" button, per game, in the request's
    language; the per-player phrases keep `%(name)s` for the template to fill."""
    if preset in BLITZ_WORDS:
        return {
            "centre_head": pgettext("column of Dutch cards", "Dutch"),
            "pile_head": _("Blitz left"),
            "centre": _("Dutch cards"),
            "pile": _("Blitz cards left"),
            "centre_fewer": _("One Dutch card fewer — %(name)s"),
            "centre_more": _("One Dutch card more — %(name)s"),
            "pile_fewer": _("One Blitz card fewer — %(name)s"),
            "pile_more": _("One Blitz card more — %(name)s"),
            "out": _("Blitz!"),
            "out_label": _("Blitz! — %(name)s"),
        }
    nerts = preset == "nerts"
    return {
        "centre_head": pgettext("column of cards played to the centre", "Centre"),
        "pile_head": _("Pile left"),
        "centre": _("Centre cards"),
        "pile": _("Nerts pile left") if nerts else _("Ligretto pile left"),
        "centre_fewer": _("One centre card fewer — %(name)s"),
        "centre_more": _("One centre card more — %(name)s"),
        "pile_fewer": _("One pile card fewer — %(name)s"),
        "pile_more": _("One pile card more — %(name)s"),
        "out": _("Nerts!") if nerts else _("Ligretto!"),
        "out_label": _("Nerts! — %(name)s") if nerts else _("Ligretto! — %(name)s"),
    }


def _banner(view: GameView) -> dict[str, Any] | None:
    state = view.state
    names = view.player_names()
    if state.over and state.rules.kind == scoring.Kind.LIVES:
        return {
            "kind": "last",
            "names": join_names(names[w] for w in state.winners),
            "total": state.totals[state.winners[0]],
        }
    if state.over:
        total = state.totals[state.winners[0]]
        return {
            "kind": "won" if len(state.winners) == 1 else "shared",
            "names": join_names(names[w] for w in state.winners),
            "total": total,
        }
    if state.tie_break_due:
        return {
            "kind": "tie",
            "names": join_names(names[w] for w in state.leaders),
            "total": state.totals[state.leaders[0]],
        }
    return None


def award_lines(view: GameView) -> list[dict[str, Any]]:
    """The awards of a finished game (app.rules.awards), each with its players' names joined in the
    request's language; the banner words them per game. Empty while the game is on, so a tie-break's
    banner has none."""
    names = view.player_names()
    found = viewcache.derived(view, "awards", lambda: tuple(awards(view.state)))  # every round, once per version
    return [
        {
            "code": award.code,
            "names": join_names(names[pid] for pid in award.player_ids),
            "value": award.value,
            "round": award.round_number,
            "rank": award.rank,
        }
        for award in found
    ]


def game_context(
    request: Request,
    view: GameView,
    *,
    keeper: bool,
    form: RoundForm | None = None,
    confirm_delete: int | None = None,
    handover: str | None = None,
    message: str | None = None,
    rules_form: dict[str, Any] | None = None,
    tv: bool = False,
    confirm_delete_game: bool = False,
    done: dict[str, Any] | None = None,
    changes: list[ChangeLine] | None = None,
    table: dict[str, Any] | None = None,
    page: int = 1,
) -> dict[str, Any]:
    """`page`: which page of the history to show (HistoryPage); the forms' answers show the first."""
    state = view.state
    fragment_only = is_htmx(request)  # render() answers htmx with the _game.html fragment alone
    colour = {p.id: i for i, p in enumerate(view.players)}
    seats = [scoring.Player(p.id, p.name, p.starting_score) for p in view.players]
    edit_key = cookie_key(request, view.game.id).key if keeper else None
    view_url = absolute_url(request, request.app.url_path_for("view_page", game_id=view.game.id))
    # The Share box's "Hand over scorekeeping": "share" shows the edit link (both phones keep score),
    # "move" a one-time handover link (the phone that takes it keeps score, this one stops).
    edit_url = (
        urls_for(request)(view.game.id, edit_key)["edit"] if keeper and handover == "share" and edit_key else None
    )
    handover_url = None
    if keeper and handover == "move" and edit_key:
        token = handover_token(request.app.state.sealer, view.game.id, view.game.edit_key_hash)
        handover_url = absolute_url(
            request, request.app.url_path_for("take_over_page", game_id=view.game.id, token=token)
        )
    if form is None and not state.over:
        form = RoundForm()
    cards = state.rules.kind == scoring.Kind.CARDS
    if form is not None and form.number is not None and not form.values:
        played = state.rounds[form.number - 1]
        for score in played.scores:
            if cards:
                form.values[f"dutch-{score.player_id}"] = str(score.dutch)
                form.values[f"blitz-{score.player_id}"] = str(score.blitz)
            else:
                form.values[f"hand-{score.player_id}"] = str(score.hand)
        if played.caller is not None:
            form.values["caller"] = str(played.caller)
    history = history_page(state, page)
    no_time = RoundTime()
    preview: dict[int, int | None] = {}
    if form is not None and cards:
        for p in view.players:
            try:
                score = scoring.Score(
                    p.id, int(form.values.get(f"dutch-{p.id}", "")), int(form.values.get(f"blitz-{p.id}", ""))
                )
            except ValueError:
                preview[p.id] = None
                continue
            rules = state.rules
            possible = 0 <= score.blitz <= rules.pile_size and 0 <= score.dutch <= rules.deck_size - score.blitz
            # No points for a count the rules refuse (41 Dutch cards is a typing mistake, not +41).
            preview[p.id] = scoring.round_points(score, state.rules) if possible else None
    return {
        "game": view.game,
        "view": view,
        "state": state,
        "rules": state.rules,
        "players": view.players,
        "colour": colour,
        "names": view.player_names(),
        "banner": _banner(view),
        "awards": award_lines(view),
        "chart": _chart(view, seats, TV if tv else PHONE),
        "history": history,
        "kind": state.rules.kind.value,
        "preset_name": preset_name,  # an unnamed game is called by its game ("Nerts")
        "words": card_words(state.rules.preset),
        # Dutch Blitz's own words (Dutch cards, Blitz pile, "Blitz!"); the other card games say
        # "centre" and "pile", and their countdown ends in "Go!".
        "blitz_words": state.rules.preset in BLITZ_WORDS,  # "cards", "lowest" or "lives": what the templates show
        # Who the round form asks about: in 31, the players still in before the round.
        "entry_players": entry_players(view, form.number) if keeper and form is not None else view.players,
        "chances": _chances(state, view),
        "keeper": keeper,
        "form": form if keeper else None,
        "preview": preview,
        "confirm_delete": confirm_delete,
        "confirm_delete_game": confirm_delete_game,
        "done": done,  # what the page confirms after a save (routes.game_pages)
        "changes": changes or [],  # the correction log's latest lines (app.web.changes)
        "shown_changes": SHOWN,
        "handover": handover,
        "message": message,
        "rules_form": rules_form,
        "csrf": csrf_token(edit_key) if edit_key else "",
        "view_url": view_url,
        "edit_url": edit_url,
        "handover_url": handover_url,
        "handover_minutes": HANDOVER_MINUTES,
        # The share box (QR codes) is part of the whole page only, never of the htmx fragment.
        "qr": None if fragment_only else _qr(view_url),
        "edit_qr": _qr(edit_url) if edit_url and not fragment_only else None,
        "handover_qr": _qr(handover_url) if handover_url and not fragment_only else None,
        "tv": tv,
        "table": table,  # the game's table ("Table: <name>", table_link), on the whole page only
        # The round timer (_timer.html): the running round's "Blitz!" and the server's clock now, both in
        # ms since 1970, from which the page's script works out its own clock's offset; and each round's
        # time by number for the history (`timings[r.number].duration_s`, `.duration_text`).
        "timer": _timer(view),
        "timings": {r.number: view.times.get(view.round_ids[r.number - 1], no_time) for r in history.rounds},
        # The history's per-player labels, translated once per page and filled in per cell with
        # Jinja's `format` filter: a thousand-round history has eight cells a round.
        "cell_labels": {
            "total": _("total %(total)s"),
            "cards": _("%(dutch)s Dutch, %(blitz)s Blitz")
            if state.rules.preset in BLITZ_WORDS
            else _("%(dutch)s in the centre, %(blitz)s left in the pile"),
            "hand": _("hand %(hand)s"),
            "lives": _("lives left: %(lives)s"),
        },
        "live_url": request.app.url_path_for("game_events", game_id=view.game.id),
        # What a live page asks for after each version event: the view page's fragment, or the keeper's.
        "fragment_url": request.app.url_path_for("keeper_page" if keeper else "view_page", game_id=view.game.id),
    }


def _chart(view: GameView, seats: list[scoring.Player], size: Any) -> Any:
    """The score chart: worked out once per version of a cached game, size and language (it goes over
    every round; a page shows it on every refresh)."""
    text = _("target {target}").format(target=view.rules.target)
    return viewcache.derived(
        view, ("chart", size, text), lambda: build_chart(seats, view.state, size, target_text=text)
    )


def _timer(view: GameView) -> dict[str, Any]:
    started = view.game.round_started_at
    return {
        "blitz_at": epoch_ms(started) if started is not None else None,
        "server_now": epoch_ms(utcnow()) if started is not None else None,
        "countdown_s": COUNTDOWN_S,
    }


def _chances(state: scoring.GameState, view: GameView) -> list[str]:
    """ "Ana wins next round with +9 or more", "Ben needs +21 and Ana under +9", per player in reach, in
    the request's language."""
    names = view.player_names()
    lines = []
    for chance in what_it_takes(state, [p.id for p in view.players]):
        name, needs = names[chance.player_id], signed(chance.needs)
        if not chance.others_under:
            lines.append(_("{name} wins next round with {points} or more").format(name=name, points=needs))
        else:
            others = join_names(
                _("{name} under {points}").format(name=names[pid], points=signed(under))
                for pid, under in chance.others_under
            )
            lines.append(_("{name} needs {points} and {others}").format(name=name, points=needs, others=others))
    return lines


def table_link(request: Request, session: Session, view: GameView) -> dict[str, Any] | None:
    """The link from a game at a table to the table's page (its name and version, which the view page's
    ETag takes in); None for a game of its own, and in the htmx fragment, which never shows it (a live
    refresh reads nothing more than before)."""
    table_id = view.game.table_id
    if table_id is None or is_htmx(request):
        return None
    row = session.exec(select(CardTable.name, CardTable.version).where(CardTable.id == table_id)).first()
    if row is None:
        return None
    return {"name": row[0], "version": row[1], "url": request.app.url_path_for("table_page", table_id=table_id)}


def _qr(url: str) -> str:
    import segno  # imported here: only pages that show a QR code pay for it

    # A viewBox instead of a fixed size: the CSS box (.qr svg) then scales the whole code into it,
    # however long the link (a longer link means more modules, which a fixed size would crop).
    return segno.make(url, error="m").svg_inline(scale=4, omitsize=True)


def qr_code(url: str) -> str:
    """A QR code of `url` as inline SVG, for the other share boxes (a table's page, app.web.tables)."""
    return _qr(url)
