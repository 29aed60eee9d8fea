"""What a game page shows: its view model, `GamePage`, built by `game_page` from what the route read
(`GameData`: the game, its latest logged changes, its table) and who reads the page (a `Viewer`, or a
`Keeper` with what the scorekeeper's page has open or says). It is composed of one small typed part per
partial, each made by its own builder: `_timer` (_timer.html), `_banner` (_banner.html), `_scoreboard`
(_scoreboard.html), `_round_form` (_round_form.html, _hand_form.html: app.web.entry), `_chart` (_chart.html),
`_history` (_history.html), `_changes` (_changes.html), and app.web.share's `share_part` (_share.html).

A render reads nothing and calls no use case: the route hands the data in. The templates read flat
names (`GamePage.context()`): each part's fields are named as its partial reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from fastapi import Request

from app.games import viewcache
from app.games.changes import Change
from app.games.views import GameTable, GameView, rule_players
from app.i18n import _, join_names
from app.models import DraftRow, utcnow
from app.rules import scoring
from app.rules.awards import awards
from app.rules.presets import BLITZ_WORDS
from app.rules.timing import COUNTDOWN_S, RoundTime, epoch_ms
from app.security import cookie_key, csrf_token
from app.tables.nights import Lead
from app.web.changes import SHOWN, ChangeLine, change_lines
from app.web.chart import PHONE, TV, Chart, Size, build_chart
from app.web.entry import RoundForm, RoundFormPart, round_form_part
from app.web.presets import preset_name
from app.web.share import Share, share_part
from app.web.wording import card_words, cell_labels, chance_lines

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


# --- what the page is built from ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameData:
    """What a game page shows, as its route read it from the use case: the game, its latest logged
    changes (newest first, app.web.changes.SHOWN of them), and the table it is at (None for a game of
    its own, and for the htmx fragment, which never shows it: a live refresh reads nothing more); for a
    game over at a table, who leads tonight there (app.tables.nights.night_lead: its banner says it)."""

    view: GameView
    changes: Sequence[Change] = ()
    table: GameTable | None = None
    tonight: Lead | None = None
    draft: Sequence[DraftRow] = ()  # the rows players sent from their own phones (app.games.seats)
    seats_taken: frozenset[int] | None = None  # "Players enter their own" open: whose seat a phone holds


@dataclass(frozen=True, slots=True)
class Done:
    """What the page confirms after a keeper's tap: "Round 4 saved." (with Undo: the last round, `undo`,
    deleted), "Round 2 corrected." (with Undo: `revert`, the logged change it reverts), "Round 4 undone."
    (with Redo: `revert`, the deletion's, `redo`), what a revert did."""

    text: str
    undo: int | None = None
    revert: int | None = None
    redo: bool = False


@dataclass(frozen=True, slots=True)
class Keeper:
    """The scorekeeper reads the page: what it has open (a correction's form, a confirmation), what it
    says after a post (`message`, `done`, a refused revert beside its change), and, after a new round,
    the round cards the page already shows (`preserved`: left out, htmx keeps them)."""

    form: RoundForm | None = None
    confirm_delete: int | None = None  # the round whose deletion is asked to confirm
    confirm_delete_game: bool = False
    handover: str | None = None  # the share box's "share" (the edit link) or "move" (a handover link)
    message: str | None = None
    rules_form: dict[str, Any] | None = None  # the rules form back with what was typed and the messages
    # A refused rename {"player_id", "name" as typed, "error"}, or a refused latecomer {"join": True, "name",
    # "start" as typed, "error", "field": "name" or "start"}.
    players_form: dict[str, Any] | None = None
    done: Done | None = None
    refused: tuple[int, str] | None = None  # (change id, why)
    preserved: range | tuple[()] = ()


@dataclass(frozen=True, slots=True)
class Viewer:
    """Anyone with the view link reads the page: as it is, or the TV layout; `handed_over` says above the
    game why a keeper's page became this one."""

    tv: bool = False
    handed_over: str | None = None


# --- the parts, one per partial -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Timer:
    """_timer.html: the running round's "Blitz!" and the server's clock now, both in ms since 1970, from
    which the page's script works out its own clock's offset."""

    blitz_at: int | None
    server_now: int | None
    countdown_s: int


@dataclass(frozen=True, slots=True)
class Banner:
    kind: str  # "won", "shared", "tie" (a tie-break is due) or "last" (31: the last one in)
    names: str
    total: int  # `first`: the target
    first: bool = False  # shared or tied under `first_to_target`: they reached the target in the same round


@dataclass(frozen=True, slots=True)
class AwardLine:
    """One award of a finished game (app.rules.awards) with its players' names joined in the request's
    language; _award_list.html words it per game."""

    code: str
    names: str
    value: int | float
    round: int | None
    rank: int | None


@dataclass(frozen=True, slots=True)
class Tonight:
    """The game-over banner's "Tonight: Ana leads with 2 wins" at a table, and its link to tonight's standings."""

    names: str  # joined in the request's language
    wins: int
    shared: bool  # several share the lead
    url: str


@dataclass(frozen=True, slots=True)
class BannerPart:
    banner: Banner | None
    awards: list[AwardLine]
    tonight: Tonight | None = None


@dataclass(frozen=True, slots=True)
class Scoreboard:
    colour: dict[int, int]  # each player's colour: their seat
    names: dict[int, str]
    chances: list[str]  # "Ana wins next round with +9 or more", per player in reach
    last_points: dict[int, int]  # each player's points in the last round (none before the first)
    # Dutch Blitz's own words (Dutch cards, Blitz pile, "Blitz!"); the other card games say "centre"
    # and "pile", and their countdown ends in "Go!".
    blitz_words: bool


@dataclass(frozen=True, slots=True)
class HistoryPart:
    history: HistoryPage
    timings: dict[int, RoundTime]  # each round's time by number (`.duration_s`, `.duration_text`)
    cell_labels: dict[str, str]
    preserved_rounds: range | tuple[()]
    piles: dict[int, int]  # the centre piles as counted ("Check the piles"), by round number; a round not in it: none


@dataclass(frozen=True, slots=True)
class ChangesPart:
    changes: list[ChangeLine]
    shown_changes: int


@dataclass(frozen=True, slots=True)
class TableLink:
    name: str
    version: int
    url: str


@dataclass(frozen=True, slots=True)
class GamePage:
    """A game page: the game, who reads it, and its parts. Built by `game_page`; templates read `context()`."""

    view: GameView
    keeper: Keeper | None  # None: a viewer's page
    viewer: Viewer
    csrf: str
    live_url: str
    fragment_url: str  # what a live page asks for after each version event: its own fragment
    table: TableLink | None
    timer: Timer
    banner: BannerPart
    scoreboard: Scoreboard
    round_form: RoundFormPart
    chart: Chart
    history: HistoryPart
    changes: ChangesPart
    share: Share

    def context(self) -> dict[str, Any]:
        """The names game.html, _game.html and their partials read."""
        view, keeper = self.view, self.keeper or Keeper()
        return {
            "game": view.game,
            "view": view,
            "state": view.state,
            "rules": view.state.rules,
            "players": view.players,
            "kind": view.state.rules.kind.value,  # "cards", "lowest" or "lives": what the templates show
            "preset_name": preset_name,  # an unnamed game is called by its game ("Nerts")
            "keeper": self.keeper is not None,
            "tv": self.viewer.tv,
            "handed_over": self.viewer.handed_over,
            "csrf": self.csrf,
            "live_url": self.live_url,
            "fragment_url": self.fragment_url,
            "table": self.table,
            "message": keeper.message,
            "done": keeper.done,
            "confirm_delete": keeper.confirm_delete,
            "confirm_delete_game": keeper.confirm_delete_game,
            "rules_form": keeper.rules_form,
            "players_form": keeper.players_form,
            # The latecomer form's value unless typed: last place's total (31: lives), and whether one more fits.
            "late_start": scoring.latecomer_start(view.state),
            "seat_free": len(view.players) < scoring.MAX_PLAYERS,
            "timer": self.timer,
            "chart": self.chart,
            **_flat(self.banner),
            **_flat(self.scoreboard),
            **_flat(self.round_form),
            **_flat(self.history),
            **_flat(self.changes),
            **_flat(self.share),
        }


def _flat(part: Any) -> dict[str, Any]:
    """A part's fields by name: each is named as its partial reads it."""
    return {f.name: getattr(part, f.name) for f in fields(part)}


def game_page(request: Request, data: GameData, reader: Keeper | Viewer, *, page: int = 1) -> GamePage:
    """`page`: which page of the history to show (HistoryPage); the forms' answers show the first."""
    view = data.view
    keeper = reader if isinstance(reader, Keeper) else None
    viewer = reader if isinstance(reader, Viewer) else Viewer()
    edit_key = cookie_key(request, view.game.id).key if keeper else None
    return GamePage(
        view=view,
        keeper=keeper,
        viewer=viewer,
        csrf=csrf_token(edit_key) if edit_key else "",
        live_url=request.app.url_path_for("game_events", game_id=view.game.id),
        fragment_url=request.app.url_path_for("keeper_page" if keeper else "view_page", game_id=view.game.id),
        table=_table_link(request, data.table),
        timer=_timer(view),
        banner=_banner(view, _tonight(request, view, data.tonight)),
        scoreboard=_scoreboard(view),
        round_form=_round_form(view, keeper, data.draft),
        chart=_chart(view, TV if viewer.tv else PHONE),
        history=_history(view, page, keeper.preserved if keeper else ()),
        changes=_changes(data, keeper.refused if keeper else None),
        share=share_part(request, view, edit_key, keeper.handover if keeper else None, data.seats_taken),
    )


def _table_link(request: Request, table: GameTable | None) -> TableLink | None:
    if table is None:
        return None
    return TableLink(table.name, table.version, request.app.url_path_for("table_page", table_id=table.id))


def _timer(view: GameView) -> Timer:
    started = view.game.round_started_at
    return Timer(
        blitz_at=epoch_ms(started) if started is not None else None,
        server_now=epoch_ms(utcnow()) if started is not None else None,
        countdown_s=COUNTDOWN_S,
    )


def _tonight(request: Request, view: GameView, lead: Lead | None) -> Tonight | None:
    if lead is None or view.game.table_id is None or not view.state.over:
        return None
    url = request.app.url_path_for("table_page", table_id=view.game.table_id) + "?period=tonight"
    return Tonight(join_names(lead.names), lead.wins, len(lead.names) > 1, url)


def _banner(view: GameView, tonight: Tonight | None = None) -> BannerPart:
    state = view.state
    names = view.player_names()
    banner = None
    # Under first_to_target several who reached the target in one round are tied whatever their totals.
    first = state.rules.kind == scoring.Kind.CARDS and state.rules.win == scoring.Win.FIRST_TO_TARGET
    if state.over:
        kind = "last" if state.rules.kind == scoring.Kind.LIVES else "won" if len(state.winners) == 1 else "shared"
        together = first and kind == "shared"
        total = state.rules.target if together else state.totals[state.winners[0]]
        banner = Banner(kind, join_names(names[w] for w in state.winners), total, together)
    elif state.tie_break_due:
        total = state.rules.target if first else state.totals[state.leaders[0]]
        banner = Banner("tie", join_names(names[w] for w in state.leaders), total, first)
    return BannerPart(banner, award_lines(view), tonight)


def award_lines(view: GameView) -> list[AwardLine]:
    """The awards of a finished game (app.rules.awards), each with its players' names joined in the
    request's language; the banner words them per game. Empty while the game is on, so a tie-break's
    banner has none."""
    names = view.player_names()
    found = viewcache.derived(view, "awards", lambda: tuple(awards(view.state)))  # every round, once per version
    return [
        AwardLine(
            code=award.code,
            names=join_names(names[pid] for pid in award.player_ids),
            value=award.value,
            round=award.round_number,
            rank=award.rank,
        )
        for award in found
    ]


def _scoreboard(view: GameView) -> Scoreboard:
    return Scoreboard(
        colour={p.id: i for i, p in enumerate(view.players)},
        names=view.player_names(),
        chances=chance_lines(view.state, [p.id for p in view.players], view.player_names()),
        last_points={s.player_id: s.points for s in view.state.rounds[-1].scores} if view.state.rounds else {},
        blitz_words=view.rules.preset in BLITZ_WORDS,
    )


def _round_form(view: GameView, keeper: Keeper | None, draft: Sequence[DraftRow] = ()) -> RoundFormPart:
    if keeper is None:  # a viewer's page shows no round form
        return RoundFormPart(None, {}, card_words(view.rules.preset), list(view.players))
    return round_form_part(view, keeper.form, draft)


def _chart(view: GameView, size: Size) -> Chart:
    """The score chart: worked out once per version of a cached game, size and language (it goes over
    every round; a page shows it on every refresh)."""
    seats = rule_players(view.players, view.round_ids)
    text = _("target {target}").format(target=view.rules.target)
    return viewcache.derived(
        view, ("chart", size, text), lambda: build_chart(seats, view.state, size, target_text=text)
    )


def _history(view: GameView, page: int, preserved: range | tuple[()]) -> HistoryPart:
    history = history_page(view.state, page)
    no_time = RoundTime()
    timings = {r.number: view.times.get(view.round_ids[r.number - 1], no_time) for r in history.rounds}
    piles = {
        r.number: view.piles[round_id]
        for r in history.rounds
        if (round_id := view.round_ids[r.number - 1]) in view.piles
    }
    return HistoryPart(history, timings, cell_labels(view.rules.preset), preserved, piles)


def _changes(data: GameData, refused: tuple[int, str] | None) -> ChangesPart:
    return ChangesPart(change_lines(data.changes, data.view, refused=refused), SHOWN)
