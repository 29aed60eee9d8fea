"""Dependencies the route modules share: the use cases, the session, path parameters, headers, the bearer
credential.

Route modules import from here, never from each other, and reach the use cases and the database session
only through here (tests/project/test_architecture.py): `GamesDep`, `TablesDep`, `BackupsDep`, `SessionDep`, and
the use-case classes themselves for a helper's annotation.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Path, Query, Request
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.backup.usecases import Backups
from app.db import SessionDep
from app.games.usecases import Games
from app.http.prefer import wants_minimal
from app.minimal import PREFER_TEXT
from app.security import Credential
from app.tables.usecases import Tables

__all__ = ["Backups", "Games", "SessionDep", "Tables"]  # re-exported: the one door to the use cases


async def get_games(request: Request, session: SessionDep) -> Games:
    # async: building it does no I/O, and a sync dependency would cost a hop through the thread pool.
    state = request.app.state
    return Games(session, state.broker, state.settings, state.sealer, state.views)


GamesDep = Annotated[Games, Depends(get_games)]


async def get_tables(request: Request, session: SessionDep) -> Tables:
    return Tables(session, request.app.state.broker, request.app.state.settings, request.app.state.sealer)


TablesDep = Annotated[Tables, Depends(get_tables)]


async def get_backups(request: Request, session: SessionDep) -> Backups:
    return Backups(session, request.app.state.settings, request.app.state.sealer)


BackupsDep = Annotated[Backups, Depends(get_backups)]

TableId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
# "New game at this table" (the start page's `?table=`).
TableQuery = Annotated[str | None, Query(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
PersonId = Annotated[int, Path(ge=1, le=2**31 - 1, description="A person's `id`, as the table lists them.")]
GameId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
RoundNumber = Annotated[int, Path(ge=1, le=100_000)]
PlayerId = Annotated[int, Path(ge=1, le=2**31 - 1, description="A player's `id`, as the game lists them.")]
ChangeId = Annotated[int, Path(ge=1, le=2**31 - 1, description="A change's `id`, as the game's changes list it.")]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=255,
        description="Send the same key to retry a write safely: nothing changes twice, and the retry gets the "
        "first answer's status and Location with the game as it now stands (the first answer itself while nothing "
        "else changed the game). Keys are kept for at least 24 hours, per game.",
    ),
]
IfMatch = Annotated[
    str | None,
    Header(alias="If-Match", max_length=100, description='The ETag (`"<version>"`) the change was based on.'),
]

IfNoneMatch = Annotated[
    str | None,
    Header(
        alias="If-None-Match",
        description='The ETag (`"<version>"`) you have: 304 Not Modified, with no body, while it is current.',
    ),
]


async def prefers_minimal(
    request: Request, prefer: Annotated[str | None, Header(alias="Prefer", description=PREFER_TEXT)] = None
) -> bool:
    """True when the request prefers `return=minimal` (app.http.prefer; every Prefer header counts, not only
    the first that `prefer` holds)."""
    return prefer is not None and wants_minimal(request.headers.getlist("prefer"))


PreferMinimal = Annotated[bool, Depends(prefers_minimal)]

# Declared as HTTP bearer auth in the OpenAPI document (Swagger's "Authorize" sends it; generated
# clients take it as a token). auto_error=False: a missing key is the use case's 401, with
# WWW-Authenticate, and a wrong one its 403, as before.
_edit_key = HTTPBearer(
    auto_error=False,
    scheme_name="editKey",
    description="The game's edit key (`edit_key` in the answer that created the game, or its edit link's "
    "last part): `Authorization: Bearer <edit key>`.",
)


async def bearer_credential(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_edit_key)],
) -> Credential:
    key = credentials.credentials.strip() if credentials else ""
    return Credential(key or None)


BearerDep = Annotated[Credential, Depends(bearer_credential)]

_table_key = HTTPBearer(
    auto_error=False,
    scheme_name="tableKey",
    description="A table's edit key (`edit_key` in the answer that created the table, or its edit link's last "
    "part): `Authorization: Bearer <table key>`. It changes the table, and starts games at it.",
)


async def table_credential(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_table_key)],
) -> Credential:
    key = credentials.credentials.strip() if credentials else ""
    return Credential(key or None)


TableBearerDep = Annotated[Credential, Depends(table_credential)]

_seat_key = HTTPBearer(
    auto_error=False,
    scheme_name="seatKey",
    description="A player's seat key (`seat_key` in the answer that took the seat): `Authorization: Bearer <seat "
    "key>`. It sends that player's row of the round being played, and nothing else.",
)


async def row_credential(
    seat: Annotated[HTTPAuthorizationCredentials | None, Depends(_seat_key)],
    edit: Annotated[HTTPAuthorizationCredentials | None, Depends(_edit_key)],
) -> Credential:
    """A row's sender: the player's seat key, or the game's edit key (the same header, either scheme)."""
    credentials = seat or edit
    key = credentials.credentials.strip() if credentials else ""
    return Credential(key or None)


RowBearerDep = Annotated[Credential, Depends(row_credential)]


def operation_id(route: APIRoute) -> str:
    """Stable, human-named operationIds: the route function's name (create_game, add_round, ...)."""
    return route.name
