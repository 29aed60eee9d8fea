"""SQLModel tables (the API's request and answer models are in app.schemas).

Tables hold only what was played and chosen: games (with their rules), players, rounds and each
player's cards in a round. Totals, ranks, round numbers and the winner are derived by app.rules.scoring
every time, so there is no second truth to drift.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, Boolean, Column, DateTime, ForeignKey, Index, Integer, LargeBinary, String, false, true
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    # SQLite hands timestamps back without a zone; every one we store is UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _timestamp(nullable: bool = False) -> Column:
    return Column(DateTime(timezone=True), nullable=nullable)


def _text(length: int, default: str) -> Column:
    # With a server default, so the games stored before the column existed have the value (migration 0006).
    return Column(String(length), nullable=False, server_default=default)


def _number(default: int) -> Column:
    return Column(Integer, nullable=False, server_default=str(default))


def _flag(default: bool) -> Column:
    return Column(Boolean, nullable=False, server_default=true() if default else false())


# --- tables -----------------------------------------------------------------------------------


class Game(SQLModel, table=True):
    id: str = Field(primary_key=True, max_length=32)  # public, random, in the view link
    name: str = Field(default="", max_length=200)
    version: int = Field(default=1)
    edit_key_hash: str = Field(max_length=64)  # sha256 of the secret edit key; the key is never stored
    target: int = Field(default=75)
    dutch_points: int = Field(default=1)
    blitz_points: int = Field(default=-2)
    tie_break: str = Field(default="play_on", max_length=16)
    # The game's kind and preset (app.rules) and the parameters of the other kinds; a game stored
    # before there were several is Dutch Blitz (the server defaults, migration 0006).
    kind: str = Field(default="cards", sa_column=_text(16, "cards"))
    preset: str = Field(default="dutch_blitz", sa_column=_text(24, "dutch_blitz"))
    pile_size: int = Field(default=10, sa_column=_number(10))
    deck_size: int = Field(default=40, sa_column=_number(40))
    must_go_out: bool = Field(default=True, sa_column=_flag(True))
    end_by: str = Field(default="target", sa_column=_text(8, "target"))  # app.rules' `end`
    round_limit: int = Field(default=10, sa_column=_number(10))  # app.rules' `rounds`
    lives: int = Field(default=3, sa_column=_number(3))
    county: bool = Field(default=True, sa_column=_flag(True))
    thirty_and_a_half: bool = Field(default=False, sa_column=_flag(False))  # 31: three of a kind counts 30½
    win_rule: str = Field(default="highest_total", sa_column=_text(16, "highest_total"))  # app.rules' `win`
    created_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    updated_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    # The table the game was played at; None for a game of its own, as every game before.
    table_id: str | None = Field(
        default=None,
        sa_column=Column(String(32), ForeignKey("card_table.id", ondelete="SET NULL"), nullable=True, index=True),
    )
    # The running round's "Blitz!" (the scorekeeper's "Start round" plus the countdown); None when no
    # round was started since the last save. The next saved round takes it as its start (app.rules.timing).
    round_started_at: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    # Players entering their own rows (app.games.seats): the round saves by itself once every seated player's
    # row is in and valid; the view page offers the seat link to everyone who follows the game.
    seats_save_round: bool = Field(default=False, sa_column=_flag(False))
    seats_on_view: bool = Field(default=False, sa_column=_flag(False))


class CardTable(SQLModel, table=True):
    """A table: the same people playing game after game. Like a game, a public id in its view
    link and a secret edit key stored only as a hash; its own version for ETag and If-Match."""

    __tablename__ = "card_table"
    id: str = Field(sa_column=Column(String(32), primary_key=True))
    name: str = Field(max_length=200)
    version: int = Field(default=1)
    edit_key_hash: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    updated_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())


class Person(SQLModel, table=True):
    """Someone on a table's roster. Their name is unique at the table ignoring case (`name_key`), and a
    game's player at the table carries it (renaming a person renames their players)."""

    __tablename__ = "person"
    __table_args__ = (Index("ux_person_table_name", "table_id", "name_key", unique=True),)
    id: int | None = Field(default=None, primary_key=True)
    table_id: str = Field(sa_column=Column(String(32), ForeignKey("card_table.id", ondelete="CASCADE"), nullable=False))
    name: str = Field(max_length=200)
    name_key: str = Field(max_length=200)  # app.rules.names.name_key: the name as compared (case folded)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())


class GameResult(SQLModel, table=True):
    """How each player of a finished game at a table ended: derived from the rounds by app.rules.scoring and
    rewritten in the same write transaction as every change to the game (app.games.results), never edited on
    its own, so it can't drift from them. It exists so a table's standings are SQL aggregates over a
    row per player and game instead of every game loaded and scored again."""

    __tablename__ = "game_result"
    __table_args__ = (
        Index("ix_game_result_table_finished", "table_id", "finished_at"),
        Index("ix_game_result_person_finished", "person_id", "finished_at"),
        # Deleting a player (a game's deletion, prune) looks up its rows here: without the index, a scan each
        # (migration 0008).
        Index("ix_game_result_player_id", "player_id"),
    )
    game_id: str = Field(sa_column=Column(String(32), ForeignKey("game.id", ondelete="CASCADE"), primary_key=True))
    player_id: int = Field(sa_column=Column(Integer, ForeignKey("player.id", ondelete="CASCADE"), primary_key=True))
    person_id: int = Field(sa_column=Column(Integer, ForeignKey("person.id", ondelete="CASCADE"), nullable=False))
    table_id: str = Field(sa_column=Column(String(32), ForeignKey("card_table.id", ondelete="CASCADE"), nullable=False))
    kind: str = Field(max_length=16)
    preset: str = Field(max_length=24)
    finished_at: datetime = Field(sa_column=_timestamp())  # when its last round was saved
    rounds: int  # rounds the game had
    total: int  # the final total (`lives`: lives left)
    place: int  # competition rank: 1 for every winner
    won: bool
    shared: bool  # a win shared with others (tie_break "shared")


class DeletedGame(SQLModel, table=True):
    """A game its scorekeeper deleted: only its id and when, so its links answer 410 Gone, not 404."""

    __tablename__ = "deleted_game"
    id: str = Field(sa_column=Column(String(32), primary_key=True))
    deleted_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())


class Player(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(
        sa_column=Column(String(32), ForeignKey("game.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    seat: int  # the order the players were entered in, which is the order the table sits in
    name: str = Field(max_length=200)
    starting_score: int = Field(default=0)
    # At a table: the person this player is (whose name it carries); None in a game of its own.
    person_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("person.id", ondelete="RESTRICT"), nullable=True, index=True),
    )
    # A player who left the game: the id of the game's last round when they left (0: before any round);
    # they sit in the rounds up to it and in none after. None while they play (migration 0009).
    left_after_round_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    # A latecomer: the id of the game's last round when they came (0: a game with no round then, which a
    # player added before the first round never gets: None); they sit in no round up to it (migration 0010).
    joined_after_round_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))


class Round(SQLModel, table=True):
    # Rounds are numbered by their order (id), not by a stored number, so deleting one moves the
    # later rounds up without rewriting them.
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(
        sa_column=Column(String(32), ForeignKey("game.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    created_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    # When the round started ("Blitz!") and how long it lasted; None when nobody timed it.
    started_at: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    duration_s: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    # The cards the Dutch piles held at the round's end as the table counted them ("Check the piles");
    # None when nobody counted.
    piles: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))


class RoundScore(SQLModel, table=True):
    __tablename__ = "round_score"
    # The primary key leads with round_id; deleting a player looks its scores up by player_id (migration 0008).
    __table_args__ = (Index("ix_round_score_player_id", "player_id"),)

    round_id: int = Field(sa_column=Column(Integer, ForeignKey("round.id", ondelete="CASCADE"), primary_key=True))
    player_id: int = Field(sa_column=Column(Integer, ForeignKey("player.id", ondelete="CASCADE"), primary_key=True))
    dutch: int  # `cards`; 0 in the other kinds
    blitz: int
    hand: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))  # `lowest`, `lives`
    half: bool = Field(default=False, sa_column=_flag(False))  # a half on top of `hand`: 31's 30½ (migration 0013)
    called: bool = Field(default=False, sa_column=_flag(False))  # called Dutch, or knocked


class Seat(SQLModel, table=True):
    """A player's own phone: the hash of its seat key, which fills in that player's row of the round being
    played and nothing else (app.games.seats; migration 0011)."""

    player_id: int = Field(sa_column=Column(Integer, ForeignKey("player.id", ondelete="CASCADE"), primary_key=True))
    game_id: str = Field(
        sa_column=Column(String(32), ForeignKey("game.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    key_hash: str = Field(max_length=64)
    claimed_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())


class DraftRow(SQLModel, table=True):
    """A player's row of the round being played, sent before the round is saved (from their seat, or typed by
    the keeper): not a round, so no total, version or history moves; a saved round clears the game's."""

    __tablename__ = "draft_row"

    player_id: int = Field(sa_column=Column(Integer, ForeignKey("player.id", ondelete="CASCADE"), primary_key=True))
    game_id: str = Field(
        sa_column=Column(String(32), ForeignKey("game.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    round_number: int  # the round it is for: the game's rounds then, plus one
    dutch: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))  # `cards`
    blitz: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    hand: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))  # `lowest`, `lives`
    half: bool = Field(default=False, sa_column=_flag(False))  # a half on top of `hand`: 31's 30½ (migration 0013)
    called: bool = Field(default=False, sa_column=_flag(False))
    by_seat: bool = Field(default=True, sa_column=_flag(True))  # from the player's own phone, or the keeper's
    sent_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())

    @property
    def points(self) -> int | float | None:
        """The hand as the rules read it: its whole points, or 30.5 with the half (app.rules.base.hand_from_store)."""
        return self.hand + 0.5 if self.half and self.hand is not None else self.hand


class RoundChange(SQLModel, table=True):
    """A change to a past round (corrected, deleted, restored) or to the rules, as the table saw it:
    when, which round, and the values before and after (app.games.changes). History only: scores are derived
    from the rounds, never from this log, and a game's creation and new rounds are play, not changes."""

    __tablename__ = "round_change"

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(
        sa_column=Column(String(32), ForeignKey("game.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    kind: str = Field(max_length=16)  # "correction", "deletion", "restoration", "rules", "rename" or "leave"
    round_number: int | None = None  # the round's number when it changed (None: the rules)
    round_id: int | None = None  # the round's row; no foreign key, as a deleted round's row is gone
    reverts: int | None = None  # the change this one undid (its id), if it was a revert
    old: dict | None = Field(default=None, sa_column=Column(JSON(none_as_null=True), nullable=True))
    new: dict | None = Field(default=None, sa_column=Column(JSON(none_as_null=True), nullable=True))


class IdempotencyRecord(SQLModel, table=True):
    """What a retry of a write sent with an Idempotency-Key needs to get the first answer back.

    Not the answer itself (a long game's answer is large, and a client can send many keys): in
    `snapshot`, a write's reference to what it made (app.idempotency.reference: its replay answers the
    game as it now stands), or a creation's or import's game inputs, compressed, from which
    app.idempotency rebuilds the same answer; and, for a creation or a key rotation, the new edit key sealed with
    AES-GCM under the server secret (`sealed_key`, app.sealing). The Idempotency-Key and the request's
    fingerprint are kept only as HMACs under that secret.

    `game_id` is the game a record is of, whatever its scope: a game's writes and rotations (scope: the
    game's id), its creation ("new-game") and its import from a backup ("import-game"), so a game's
    deletion finds all of them by an index (migration 0008 filled it in for the records before it).
    None for a table's records (its creation, writes and import): they belong to no one game.
    """

    __tablename__ = "idempotency_record"
    __table_args__ = (Index("ix_idempotency_record_created_at", "created_at"),)

    scope: str = Field(primary_key=True, max_length=40)  # the game's id, or "new-game" for creation
    key: str = Field(primary_key=True, max_length=64)  # HMAC of the Idempotency-Key (and client, for creation)
    request_mac: str = Field(max_length=64)  # HMAC of what was asked (and with which edit key)
    operation: str = Field(max_length=16)  # "create", "rotate", "write", "seat" or "row"
    status_code: int
    version: int  # the game's version the answer was built at
    snapshot: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    sealed_key: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    # No foreign key: the records go with their game explicitly (app.games.removal), like every other row.
    game_id: str | None = Field(default=None, sa_column=Column(String(32), nullable=True, index=True))
