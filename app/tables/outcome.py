"""What a write to a table did, in the table's terms (app.tables.usecases, app.backup.usecases): the routes
turn it into JSON (app.routes.outcomes) or a page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class TableOutcome:
    """What a write to a table did: the routes turn it into JSON or a page."""

    table: dict[str, Any]  # the table as it now stands: its name, version and roster (app.tables.roster.public_table)
    created: bool = False  # a new table, or a person added (the API answers 201)
    replayed: bool = False  # the first answer to this Idempotency-Key, again: nothing changed now
    edit_key: str | None = None  # a new edit key (a creation, a rotation, an import): shown only here
    game_keys: tuple[tuple[str, str], ...] | None = None  # an import's games: (id, edit key), in the document's order

    @property
    def version(self) -> int:
        return int(self.table["version"])

    @property
    def table_id(self) -> str:
        return str(self.table["id"])
