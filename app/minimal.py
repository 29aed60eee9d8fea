"""The minimal answer to a change (`Prefer: return=minimal`, RFC 7240): what changed, not the whole game.

Every write of the API answers the game (or table) whole by default, and a long game's answer is tens
of kilobytes that a scorekeeper's client already holds but for the change. With `Prefer:
return=minimal` the same write answers with the same status, ETag and Location and a body whose size
does not depend on the game's length: the new version, the status, winners, a due tie-break and the
leaders, each player's total and rank (and lives in 31), and for a round saved that round as the full
answer shows it. Its fields are named as in the full answer (app.answers.GamePublic), so a client reads
both alike. What the full answer shows only once (a new edit key and its links, an import's game keys)
is in the minimal answer too, or it would be lost.

The full body is a write's outcome as JSON (`game_body`, `table_body`: the game or table, with a new key
and its links where the write made one), built after COMMIT, outside the write's lock; the minimal body is
cut from it, and a replay of an Idempotency-Key is cut the same way: a retry gets the form it asks for
now, whichever the first request asked for. A round's minimal answer needs that round: a replay after the
round was deleted (the game as it now stands no longer holds it) is answered whole, without
Preference-Applied, as RFC 7240 lets a server do.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from fastapi import Request
from pydantic import BaseModel
from pydantic import Field as PField

from app.answers import (
    GameUrls,
    LivesRoundPublic,
    LowestRoundPublic,
    PersonPublic,
    RoundPublic,
    RoundStarted,
    TableUrls,
)
from app.backup.answers import GameKey
from app.games.writes import Outcome
from app.http.jsonanswer import JSONAnswer
from app.http.prefer import MINIMAL
from app.tables.outcome import TableOutcome
from app.urls import table_urls, urls_for

PREFER_TEXT = (
    "`return=minimal` (RFC 7240) answers with the same status, ETag and Location and a small body whose size "
    "does not depend on the game's length (the `…Minimal` schema, named as the full answer's fields); the "
    "answer then says `Preference-Applied: return=minimal`. Without it, or with `return=representation`, "
    "the whole answer. Other preferences are ignored."
)

# --- the answers' models (for the OpenAPI document; the bodies are cut from the full answer below) --


class PlayerTotal(BaseModel):
    """A player as the minimal answer shows them: the `players[]` of the full answer, without the name."""

    id: int = PField(description="The player's id in this game.")
    total: int = PField(description="Starting score plus every round's points (`lives`: the lives left).")
    rank: int = PField(description="1 for first place; equal places share a rank (1, 1, 3).")


class LivesPlayerTotal(PlayerTotal):
    """A player of a `lives` game (31)."""

    lives: int = PField(description="The lives left (0: on the county, or out).")
    out: bool = PField(description="Out of the game.")


class GameMinimal(BaseModel):
    """The answer to a change of a game sent with `Prefer: return=minimal`."""

    id: str = PField(description="The game's id, as in its links.")
    version: int = PField(description='The new version; the ETag is `"<version>"`.')
    status: Literal["playing", "finished"]
    winners: list[int] = PField(description="Player ids; more than one only with `tie_break: shared`.")
    tie_break: bool = PField(description="True while a tie-break round is due (play_on and first place is tied).")
    leaders: list[int] = PField(description="Player ids in first place now (`lowest`: the lowest total).")
    players: list[LivesPlayerTotal | PlayerTotal] = PField(description="In seating order.")


class RoundMinimal(GameMinimal):
    """The minimal answer to a round added or corrected: the game's minimal answer and that round."""

    round: RoundPublic | LowestRoundPublic | LivesRoundPublic = PField(
        description="The round as saved, as the full answer's `rounds[]` shows it (its number, each player's "
        "points and total after it)."
    )


def _said(field: str) -> str | None:
    return RoundStarted.model_fields[field].description


class RoundStartedMinimal(GameMinimal):
    """The minimal answer to a round's start."""

    round_started_at: datetime | None = PField(description=_said("round_started_at"))
    blitz_at: datetime = PField(description=_said("blitz_at"))
    server_now: datetime = PField(description=_said("server_now"))


class GameCreatedMinimal(GameMinimal):
    """The minimal answer to a new game or a new edit key: the key and links are in it too."""

    edit_key: str = PField(description="The secret that changes this game (Authorization: Bearer). Shown only here.")
    urls: GameUrls


class TableMinimal(BaseModel):
    """The answer to a change of a table sent with `Prefer: return=minimal`."""

    id: str = PField(description="The table's id, as in its links.")
    name: str
    version: int = PField(description='The new version (the ETag is `"<version>.<digest>"`).')


class PersonMinimal(TableMinimal):
    """The minimal answer to a person added or renamed: the table's minimal answer and that person."""

    person: PersonPublic


class TableCreatedMinimal(TableMinimal):
    """The minimal answer to a new table or a new table key: the key and links are in it too."""

    edit_key: str = PField(description="The secret that changes this table and starts games at it. Shown only here.")
    urls: TableUrls


class TableImportedMinimal(TableCreatedMinimal):
    """The minimal answer to a table's import: its key and links, and each game's new id and key."""

    game_keys: list[GameKey] = PField(description="Each imported game's new id and edit key, in the backup's order.")


# --- the bodies ------------------------------------------------------------------------------------

_SECRETS = ("edit_key", "urls", "game_keys")  # shown once: never left out
_STANDING = ("id", "total", "rank", "lives", "out")
_START = ("round_started_at", "blitz_at", "server_now")

Shape = Callable[[dict[str, Any]], dict[str, Any]]


def _secrets(body: dict[str, Any], out: dict[str, Any]) -> dict[str, Any]:
    for name in _SECRETS:
        if name in body:
            out[name] = body[name]
    return out


def game(body: dict[str, Any]) -> dict[str, Any]:
    """A game's minimal answer (GameMinimal; GameCreatedMinimal when the body holds a new key)."""
    out = {
        "id": body["id"],
        "version": body["version"],
        "status": body["status"],
        "winners": body["winners"],
        "tie_break": body["tie_break"],
        "leaders": body["leaders"],
        "players": [{name: p[name] for name in _STANDING if name in p} for p in body["players"]],
    }
    return _secrets(body, out)


class NotThere(LookupError):
    """What a shape cuts out is not in the answer (a replay's round, deleted since): answer it whole."""


def saved_round(number: int) -> Shape:
    """The shape of a round's save: RoundMinimal with round `number`."""

    def shape(body: dict[str, Any]) -> dict[str, Any]:
        rounds = body["rounds"]
        if not 1 <= number <= len(rounds):
            raise NotThere(number)
        return game(body) | {"round": rounds[number - 1]}

    return shape


def started(body: dict[str, Any]) -> dict[str, Any]:
    """A round's start: RoundStartedMinimal."""
    return game(body) | {name: body[name] for name in _START}


def table(body: dict[str, Any], person_id: int | None = None) -> dict[str, Any]:
    """A table's minimal answer (TableMinimal, with its secrets when it holds them; with `person_id`, that
    person as PersonMinimal)."""
    out: dict[str, Any] = {"id": body["id"], "name": body["name"], "version": body["version"]}
    if person_id is not None:
        out["person"] = next(p for p in body["people"] if p["id"] == person_id)
    return _secrets(body, out)


def newest_person(body: dict[str, Any]) -> int:
    """The id of the person who joined the table last (the roster lists them in the order they joined)."""
    return max(p["id"] for p in body["people"])


# --- the answer -------------------------------------------------------------------------------------


def answer(
    body: dict[str, Any], status: int, headers: dict[str, str], minimal: bool, shape: Shape = game
) -> JSONAnswer:
    """The full answer, or with `minimal` the body cut to `shape` (whole when the shape's part is not
    there); either way `Vary: Prefer`, since the same request may be answered in either form."""
    headers = headers | {"Vary": "Prefer"}
    if minimal:
        try:
            body = shape(body)
            headers["Preference-Applied"] = MINIMAL
        except NotThere:
            pass
    return JSONAnswer(body, status_code=status, headers=headers)


# --- the full answer: a write's outcome as JSON -------------------------------------------------


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
