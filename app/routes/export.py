"""A game's rounds as CSV, for a spreadsheet or the club's records (public: same as the view link)."""

from __future__ import annotations

import csv
import io

from fastapi import APIRouter
from fastapi.responses import Response

from app.http.problems import problem_responses
from app.routes.deps import GameId, GamesDep, operation_id
from app.rules import scoring
from app.spreadsheet import spreadsheet_safe

router = APIRouter(generate_unique_id_function=operation_id)


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
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    kind = view.rules.kind
    names = {p.id: spreadsheet_safe(p.name) for p in view.players}
    if kind == scoring.Kind.CARDS:
        header = ["round"]
        for player in view.players:
            name = names[player.id]
            header += [f"{name} dutch", f"{name} blitz", f"{name} points", f"{name} total"]
        writer.writerow(header)
        writer.writerow(["start"] + [x for p in view.players for x in ("", "", "", p.starting_score)])
        for round_ in view.state.rounds:
            by_player = {s.player_id: s for s in round_.scores}
            cells: list[object] = [round_.number]
            for player in view.players:  # a player who had left: empty cells
                s = by_player.get(player.id)
                cells += ["", "", "", ""] if s is None else [s.dutch, s.blitz, s.points, s.total]
            writer.writerow(cells)
    else:
        lives = kind == scoring.Kind.LIVES
        columns = ("hand", "lives lost", "lives") if lives else ("hand", "points", "total")
        writer.writerow(
            ["round", "knocker" if lives else "caller"] + [f"{names[p.id]} {c}" for p in view.players for c in columns]
        )
        start = view.rules.lives if lives else None
        writer.writerow(
            ["start", ""] + [x for p in view.players for x in ("", "", start if lives else p.starting_score)]
        )
        for round_ in view.state.rounds:
            by_player = {s.player_id: s for s in round_.scores}
            row: list[object] = [round_.number, names.get(round_.caller, "") if round_.caller is not None else ""]
            for player in view.players:
                s = by_player.get(player.id)
                if s is None:  # out of the game, or left it
                    row += ["", "", ""]
                else:
                    row += [s.hand, s.lives_lost, s.total] if lives else [s.hand, s.points, s.total]
            writer.writerow(row)
    filename = f"blitzboard-{view.game.id}.csv"
    return Response(
        "\ufeff" + out.getvalue(),  # a BOM, so spreadsheets read the names as UTF-8
        media_type="text/csv; charset=utf-8",
        # The columns are a data format programs read ("round", "Ana dutch", ...): English in every
        # language, and the answer says so whatever the reader's language.
        headers={"Content-Disposition": f'attachment; filename="{filename}"', "Content-Language": "en"},
    )
