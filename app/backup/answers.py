"""The backup documents as models ("Backup you can hold"): what `GET .../export` answers and
`POST .../import` takes, for the OpenAPI document and for the import's first check of a document's
shape (app.backup.check, which then checks what the rules say); and the answer to a table's import.

A document holds no ids and no keys but the exported thing's own `id` at the top (ignored on import):
players are referred to by their place in the game's `players`, people by theirs in the table's
`people`. app.backup.usecases builds the exported JSON by hand in this shape (a long table has many thousands
of scores); tests/backup/test_backup.py checks it against these models.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, FailFast, Strict
from pydantic import Field as PField

from app.answers import TableCreated
from app.rules import scoring
from app.schemas import (
    KIND_TEXT,
    PRESET_TEXT,
    BlitzCount,
    DutchCount,
    Flag,
    Hand,
    KindName,
    Moment,
    PileCount,
    PresetName,
    RoundSeconds,
    RulesCreate,
    StartingScore,
    StrictModel,
)
from app.tables.usecases import MAX_PEOPLE

TABLE_FORMAT = "blitzboard-table"
GAME_FORMAT = "blitzboard-game"
FORMAT_VERSION = 1
MAX_IMPORT_GAMES = 5_000  # games one table's backup may hold (its size is bounded too: Settings.max_import_bytes)
# The most rounds a game's list is read to; each game's own limit is Settings.max_rounds_per_game.
ROUNDS_READ = 100_000

# FailFast: a list stops at its first wrong item, so a large document that is wrong throughout gets one
# error per list, not one per item (which could outweigh the document itself).
PlayerIndex = Annotated[int, Strict(), PField(ge=0, le=scoring.MAX_PLAYERS - 1)]
PersonIndex = Annotated[int, Strict(), PField(ge=0, le=MAX_PEOPLE - 1)]

FORMAT_TEXT = "What the document is: `blitzboard-table` (a table) or `blitzboard-game` (one game)."
FORMAT_VERSION_TEXT = "The version of the format; this server reads version 1."
ID_TEXT = "The id of what was exported. Ignored on import: what is imported gets a new id and a new key."
CREATED_TEXT = "When it was created (UTC); kept on import."
UPDATED_TEXT = "When it last changed (UTC); kept on import."
GAME_NAME_TEXT = "The game's name, up to 80 characters; empty for none."
PLAYERS_TEXT = f"In seating order: {scoring.MIN_PLAYERS}–{scoring.MAX_PLAYERS} players."
ROUNDS_TEXT = "In the order played; each is checked against the rounds before it, as a game checks a new round."


class RulesBackup(RulesCreate):
    """The game's rules as `rules` in the game's answer shows them: its kind, its preset and every
    parameter of the kind (and none of another kind's)."""

    kind: KindName = PField(description=KIND_TEXT)
    preset: PresetName = PField(description=PRESET_TEXT)


class ScoreBackup(StrictModel):
    """A player's part of a round, as entered: `cards` sends `dutch` and `blitz`; `lowest` and `lives`
    send `hand` and `called`."""

    player: PlayerIndex = PField(description="The player's place in the game's `players` (0 for the first).")
    # Each may be left out (a kind takes only its own), but not sent as null.
    dutch: DutchCount = PField(None, description="`cards`: cards the player played to the centre.")  # type: ignore[assignment]
    blitz: BlitzCount = PField(None, description="`cards`: cards left in the player's own pile.")  # type: ignore[assignment]
    hand: Hand = PField(None, description="`lowest` and `lives`: the points in the player's hand.")  # type: ignore[assignment]
    called: Flag = PField(  # type: ignore[assignment]
        None,
        description="`lowest`: this player called Dutch; `lives`: this player knocked. At most one a round; "
        "left out: false.",
    )


class RoundBackup(StrictModel):
    """A round: when it was saved, its time (when it was timed) and its scores."""

    created_at: Moment = PField(description="When the round was saved (UTC).")
    started_at: Moment | None = PField(None, description='When the round started (its "Blitz!"); null when unknown.')
    duration_s: RoundSeconds | None = PField(None, description="How long it lasted, in seconds; null when unknown.")
    piles: PileCount | None = PField(  # type: ignore[assignment]
        None,
        description='`cards`: the cards on the centre piles as the table counted them ("Check the piles"); null '
        "or left out when nobody counted.",
    )
    scores: Annotated[list[ScoreBackup], FailFast()] = PField(
        max_length=100,
        description="In seating order, one per player (`lives`: each player still in when it was played).",
    )


class SeatsBackup(StrictModel):
    """How players entering their own rows works in the game (`seats` in the game's answer)."""

    save_round: Flag = PField(False, description="The round saves by itself once every player still in sent their row.")  # type: ignore[assignment]
    on_view: Flag = PField(False, description="The view page offers the seat link to everyone who follows the game.")  # type: ignore[assignment]


SEATS_TEXT = "The game's seat settings; left out (an older backup): both off."


class PlayerBackup(StrictModel):
    name: str = PField(description="The player's name, unique in the game ignoring case.")
    starting_score: StartingScore = PField(description="Points carried over (always 0 in 31).")
    left_after_round: Annotated[int, PField(ge=0, le=100_000)] | None = PField(
        None,
        description="A player who left the game: the number of rounds they played (the first ones; 0: none), "
        "and they are in no later round. Left out (or null) for a player still in.",
    )
    joined_after_round: Annotated[int, PField(ge=0, le=100_000)] | None = PField(
        None,
        description="A latecomer: the number of rounds played before they came; they are in none of those and "
        "in every later one (in 31 their `starting_score` is the lives they came without, 0 or less). Left out "
        "(or null) for a player from the start.",
    )


class TablePlayerBackup(PlayerBackup):
    """A player of a game at a table: one of the table's people, whose name they carry."""

    person: PersonIndex = PField(description="The person this player is: their place in the table's `people`.")


class GameBackup(StrictModel):
    """One game, whole: `GET /games/{id}/export` answers it and `POST /games/import` makes a new game of it."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "format": GAME_FORMAT,
                    "format_version": FORMAT_VERSION,
                    "id": "Xb3kQ9mPz1RtYw7A",
                    "name": "Friday",
                    "created_at": "2026-11-27T20:01:12.5Z",
                    "updated_at": "2026-11-27T20:09:40Z",
                    "rules": {"kind": "cards", "preset": "dutch_blitz", "target": 75, "dutch_points": 1,
                              "blitz_points": -2, "tie_break": "play_on", "pile_size": 10, "deck_size": 40,
                              "must_go_out": True, "end": "target", "rounds": 10},
                    "players": [{"name": "Ana", "starting_score": 58}, {"name": "Ben", "starting_score": 70}],
                    "rounds": [
                        {"created_at": "2026-11-27T20:09:40Z", "started_at": "2026-11-27T20:05:02Z", "duration_s": 270,
                         "scores": [{"player": 0, "dutch": 22, "blitz": 0}, {"player": 1, "dutch": 14, "blitz": 3}]}
                    ],
                }
            ]
        },
    )  # fmt: skip

    format: Literal["blitzboard-game"] = PField(description=FORMAT_TEXT)
    format_version: Literal[1] = PField(description=FORMAT_VERSION_TEXT)
    id: str | None = PField(None, description=ID_TEXT)
    name: str = PField(description=GAME_NAME_TEXT)
    created_at: Moment = PField(description=CREATED_TEXT)
    updated_at: Moment = PField(description=UPDATED_TEXT)
    rules: RulesBackup = PField(description="The game's kind, preset and every parameter of the kind.")
    players: Annotated[list[PlayerBackup], FailFast()] = PField(max_length=100, description=PLAYERS_TEXT)
    rounds: Annotated[list[RoundBackup], FailFast()] = PField(max_length=ROUNDS_READ, description=ROUNDS_TEXT)
    seats: SeatsBackup = PField(default_factory=SeatsBackup, description=SEATS_TEXT)


class TableGameBackup(StrictModel):
    """A game of the table, whole (no id: games are listed in the order they were created)."""

    name: str = PField(description=GAME_NAME_TEXT)
    created_at: Moment = PField(description=CREATED_TEXT)
    updated_at: Moment = PField(description=UPDATED_TEXT)
    rules: RulesBackup = PField(description="The game's kind, preset and every parameter of the kind.")
    players: Annotated[list[TablePlayerBackup], FailFast()] = PField(max_length=100, description=PLAYERS_TEXT)
    rounds: Annotated[list[RoundBackup], FailFast()] = PField(max_length=ROUNDS_READ, description=ROUNDS_TEXT)
    seats: SeatsBackup = PField(default_factory=SeatsBackup, description=SEATS_TEXT)


class PersonBackup(StrictModel):
    name: str = PField(description="The person's name, unique at the table ignoring case.")
    created_at: Moment = PField(description="When they joined the roster (UTC).")


class TableBackup(StrictModel):
    """A table, whole: its roster, and every game played at it with its rounds and rules.
    `GET /tables/{id}/export` answers it and `POST /tables/import` makes a new table of it."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "format": TABLE_FORMAT,
                    "format_version": FORMAT_VERSION,
                    "id": "Tq8mVb2LsK0pXe4N",
                    "name": "The Millers",
                    "created_at": "2026-11-27T19:58:00Z",
                    "updated_at": "2026-11-27T20:01:12.5Z",
                    "people": [{"name": "Ana", "created_at": "2026-11-27T19:58:00Z"},
                               {"name": "Ben", "created_at": "2026-11-27T19:58:00Z"}],
                    "games": [
                        {
                            "name": "Dutch after dinner",
                            "created_at": "2026-11-27T20:01:12.5Z",
                            "updated_at": "2026-11-27T20:20:31Z",
                            "rules": {"kind": "lowest", "preset": "dutch", "target": 100, "tie_break": "play_on"},
                            "players": [{"name": "Ana", "starting_score": 0, "person": 0},
                                        {"name": "Ben", "starting_score": 0, "person": 1}],
                            "rounds": [
                                {"created_at": "2026-11-27T20:20:31Z", "started_at": None, "duration_s": None,
                                 "scores": [{"player": 0, "hand": 4, "called": True},
                                            {"player": 1, "hand": 17, "called": False}]}
                            ],
                        }
                    ],
                }
            ]
        },
    )  # fmt: skip

    format: Literal["blitzboard-table"] = PField(description=FORMAT_TEXT)
    format_version: Literal[1] = PField(description=FORMAT_VERSION_TEXT)
    id: str | None = PField(None, description=ID_TEXT)
    name: str = PField(description="The table's name, up to 80 characters, not empty.")
    created_at: Moment = PField(description=CREATED_TEXT)
    updated_at: Moment = PField(description=UPDATED_TEXT)
    people: Annotated[list[PersonBackup], FailFast()] = PField(
        max_length=MAX_PEOPLE, description=f"The roster in the order people joined it (at most {MAX_PEOPLE})."
    )
    games: Annotated[list[TableGameBackup], FailFast()] = PField(
        max_length=MAX_IMPORT_GAMES,
        description=f"Every game played at the table, in the order they were created (at most {MAX_IMPORT_GAMES:,}).",
    )


class GameKey(StrictModel):
    id: str = PField(description="An imported game's new id, in the order of the backup's `games`.")
    edit_key: str = PField(description="That game's own secret edit key. Shown only here.")


class TableImported(TableCreated):
    game_keys: list[GameKey] = PField(
        description="Each imported game's new id and edit key, in the order of the backup's `games`: every game "
        "keeps a key of its own (the table's key starts new games at it, not change these)."
    )
