"""A write's outcome as the API answers it: the game or table as JSON (app.games.views.to_public,
app.tables.roster.public_table), with a new edit key and its links where the write made one (shown only
in that answer), and an import's games' keys. Built after COMMIT, outside the write's lock."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from app.games.writes import Outcome
from app.tables.outcome import TableOutcome
from app.urls import table_urls, urls_for


def game_body(request: Request, outcome: Outcome) -> dict[str, Any]:
    """The game (GamePublic), plus `edit_key` and `urls` when the write made a key (GameCreated)."""
    body = outcome.view.public()
    if outcome.edit_key is not None:
        body |= {"edit_key": outcome.edit_key, "urls": urls_for(request)(outcome.game_id, outcome.edit_key)}
    return body


def table_body(request: Request, outcome: TableOutcome) -> dict[str, Any]:
    """The table (TablePublic), plus `edit_key` and `urls` when the write made a key, and an import's
    `game_keys` (TableImported)."""
    body = dict(outcome.table)
    if outcome.edit_key is not None:
        body |= {"edit_key": outcome.edit_key, "urls": table_urls(request)(outcome.table_id, outcome.edit_key)}
    if outcome.game_keys is not None:
        body["game_keys"] = [{"id": game_id, "edit_key": key} for game_id, key in outcome.game_keys]
    return body
