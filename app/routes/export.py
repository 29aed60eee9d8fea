"""A game's rounds as CSV, for a spreadsheet or the club's records (public: same as the view link).

Two answers of the same rows: the API's (`/api/v1/games/{id}/export.csv`), a data format with English
column names, "," and "." in every language; and the page's "Download the scores" link
(`/g/{id}/export.csv`), a sheet in the page's language that its spreadsheet programs open in columns
(app.spreadsheet: ";" and "12,5" in Russian and German, the column heads translated)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter
from fastapi.responses import Response

from app import i18n
from app.games.views import GameView
from app.http.problems import problem_responses
from app.i18n import _, pgettext
from app.routes.deps import GameId, GamesDep, operation_id
from app.rules import scoring
from app.spreadsheet import DATA, Sheet, for_language, sheet_text, spreadsheet_safe
from app.web.wording import card_words

router = APIRouter(generate_unique_id_function=operation_id)
page_router = APIRouter(include_in_schema=False)

# What a column holds, as the API names it (after the player's name: "Ana dutch").
DATA_WORDS = {
    "round": "round",
    "start": "start",
    "caller": "caller",
    "knocker": "knocker",
    "dutch": "dutch",
    "blitz": "blitz",
    "points": "points",
    "total": "total",
    "hand": "hand",
    "lives lost": "lives lost",
    "lives": "lives",
}


def _data_head(name: str, column: str) -> str:
    return f"{name} {DATA_WORDS[column]}"


def _page_words(preset: str) -> dict[str, str]:
    """The column heads in the request's language; the card counts as the round form words them per game."""
    cards = card_words(preset)
    return {
        "round": pgettext("spreadsheet column", "Round"),
        "start": pgettext("spreadsheet row: the scores before the first round", "Start"),
        "caller": pgettext("spreadsheet column: the player who called Dutch", "Who called"),
        "knocker": pgettext("spreadsheet column: the player who knocked", "Who knocked"),
        "dutch": cards["centre"],
        "blitz": cards["pile"],
        "points": pgettext("spreadsheet column", "Points"),
        "total": pgettext("spreadsheet column", "Total"),
        "hand": pgettext("column of hand values", "Hand"),
        "lives lost": pgettext("spreadsheet column", "Lives lost"),
        "lives": _("Lives"),
    }


def game_rows(view: GameView, words: dict[str, str], head: Callable[[str, str], str]) -> list[list[object]]:
    """A header row, the starting scores, then one row per round (a player who had left, or is out: empty
    cells). `words` names the columns; `head(name, column)` makes a player's column head."""
    kind = view.rules.kind
    names = {p.id: p.name for p in view.players}
    rows: list[list[object]] = []
    if kind == scoring.Kind.CARDS:
        header = [words["round"]]
        for player in view.players:
            header += [head(names[player.id], c) for c in ("dutch", "blitz", "points", "total")]
        rows.append(header)
        rows.append([words["start"]] + [x for p in view.players for x in ("", "", "", p.starting_score)])
        for round_ in view.state.rounds:
            by_player = {s.player_id: s for s in round_.scores}
            cells: list[object] = [round_.number]
            for player in view.players:
                s = by_player.get(player.id)
                cells += ["", "", "", ""] if s is None else [s.dutch, s.blitz, s.points, s.total]
            rows.append(cells)
        return rows
    lives = kind == scoring.Kind.LIVES
    columns = ("hand", "lives lost", "lives") if lives else ("hand", "points", "total")
    rows.append(
        [words["round"], words["knocker" if lives else "caller"]]
        + [head(names[p.id], c) for p in view.players for c in columns]
    )
    start = view.rules.lives if lives else None
    rows.append(
        [words["start"], ""] + [x for p in view.players for x in ("", "", start if lives else p.starting_score)]
    )
    for round_ in view.state.rounds:
        by_player = {s.player_id: s for s in round_.scores}
        caller = spreadsheet_safe(names.get(round_.caller, "")) if round_.caller is not None else ""
        row: list[object] = [round_.number, caller]
        for player in view.players:
            s = by_player.get(player.id)
            if s is None:  # out of the game, or left it
                row += ["", "", ""]
            else:
                row += [s.hand, s.lives_lost, s.total] if lives else [s.hand, s.points, s.total]
        rows.append(row)
    return rows


def _answer(view: GameView, text: str, language: str) -> Response:
    filename = f"blitzboard-{view.game.id}.csv"
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"', "Content-Language": language},
    )


@router.get(
    "/api/v1/games/{game_id}/export.csv",
    tags=["games"],
    summary="Download a game as CSV",
    description="One row per round (and the starting scores): each player's Dutch cards, Blitz cards left, "
    "points and running total. Dutch (`lowest`): who called, then each hand, its points and the total; 31 "
    "(`lives`): who knocked, then each hand, the lives lost and the lives left (empty once a player is out).",
    response_class=Response,
    responses={
        200: {"content": {"text/csv": {}}, "description": "The game as CSV"},
        **problem_responses(404, 410, 422),
    },
)
def export_csv(game_id: GameId, games: GamesDep) -> Response:
    view = games.get(game_id)
    rows = game_rows(view, DATA_WORDS, lambda name, column: _data_head(spreadsheet_safe(name), column))
    # The columns are a data format programs read ("round", "Ana dutch", ...): English in every
    # language, "," and ".", and the answer says so whatever the reader's language.
    return _answer(view, sheet_text(rows, DATA), "en")


@page_router.get("/g/{game_id}/export.csv", name="export_sheet_page")
def export_sheet_page(game_id: GameId, games: GamesDep) -> Response:
    """The page's download: the same rows for a spreadsheet in the page's language (its column heads, its
    separator and decimal mark)."""
    view = games.get(game_id)
    words = _page_words(view.game.preset)
    join = pgettext("spreadsheet column head: a player's name, then what the column holds", "%(name)s: %(column)s")
    sheet: Sheet = for_language(i18n.current())
    rows = game_rows(view, words, lambda name, column: spreadsheet_safe(join % {"name": name, "column": words[column]}))
    return _answer(view, sheet_text(rows, sheet), i18n.current())
