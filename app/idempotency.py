"""Idempotency-Key replays: what a retry needs to get the first answer back, stored small and sealed.

A record never keeps the answer, and what it keeps is bounded by what was sent, not by the game:
- a write to a game (a round, a correction, a start, a rules change, a rotation) keeps a reference:
  the version the write left and, for a new round, its number (`reference`, a few bytes). A replay
  answers the game as it now stands, which is the first answer itself while nothing else has changed
  the game (the version is the record's), and the newer game once something has; a rotation's replay
  is only ever given while the version is the record's;
- a creation or an import keeps the inputs of the game it made (name, rules, players, each round's
  cards; compressed, `snapshot`): no bigger than what was sent, and the first answer is rebuilt from
  them by the same scoring that built it, even after the game moved on;
- records of writes made before references (a compressed snapshot of the whole game, 48 hours at
  most) still replay from their snapshot.

What identifies a record, and what it answers to (Stripe scopes its keys to the account the same way):
- a write: the game and the Idempotency-Key; it is looked up only after the edit key was checked;
- a creation: the client's address and the Idempotency-Key, so another client using the same key
  makes a game of its own and never sees this one's edit key;
- a key rotation: the game, the old edit key and the Idempotency-Key; it is looked up before the
  key check (the retry still presents the old key) and answers only within a few minutes and only
  while nothing else has changed the game;
- a seat taken and a row sent (app.games.seats): the game, the seat link or the key the row came with,
  and the Idempotency-Key, looked up before the link or key check as a rotation's is. A seat's record
  keeps the seat key sealed, given back only while it holds the seat; a row's, its round.
The Idempotency-Key and the request's fingerprint are stored as HMACs under the server secret and
new edit keys sealed with AES-GCM (app.sealing).
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session

from app.errors import IdempotencyKeyReused
from app.i18n import _
from app.models import Game, IdempotencyRecord, Player, as_utc, utcnow
from app.rules import scoring
from app.rules.scoring import Played
from app.rules.timing import RoundTime
from app.sealing import Sealer

NEW_GAME_SCOPE = "new-game"
# The replays of imports (app.backup.usecases): a game's snapshot, like a creation's; a table's, its answer.
IMPORT_GAME_SCOPE, IMPORT_TABLE_SCOPE = "import-game", "import-table"
CREATE, ROTATE, WRITE = "create", "rotate", "write"
# A seat taken and a row sent (app.games.seats): records of their own, bound to the seat link or the key sent.
SEAT_CLAIM, SEAT_ROW = "seat", "row"
# How a table's scope begins (app.tables.usecases.table_scope); a game's id never does.
TABLE_SCOPE_PREFIX = "t:"


@dataclass(frozen=True, slots=True)
class Idempotency:
    """An Idempotency-Key and the request it came with, in a canonical form."""

    key: str
    request: str

    @classmethod
    def of(cls, key: str | None, *parts: Any) -> Idempotency | None:
        if not key:
            return None
        return cls(key, json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str))


# --- snapshots: the inputs an answer is built from ------------------------------------------------


def snapshot(
    game: Game,
    players: list[Player],
    rounds: list[list[scoring.Score]],
    times: list[RoundTime] | None = None,
    left: list[int | None] | None = None,
    joined: list[int | None] | None = None,
    piles: list[int | None] | None = None,
) -> bytes:
    """`times`: each round's time, in the order of `rounds` (None: no round is timed); `left`: each player's
    rounds played when they left the game (None: still in; left out: nobody left); `joined`: the rounds
    played before each latecomer came (None: from the start; left out: nobody came late); `piles`: each
    round's centre piles as counted (None: not counted; left out: none was)."""
    data: dict[str, Any] = {
        "id": game.id,
        "name": game.name,
        "version": game.version,
        "created": as_utc(game.created_at).isoformat(),
        "updated": as_utc(game.updated_at).isoformat(),
        "rules": [game.target, game.dutch_points, game.blitz_points, game.tie_break],
        "players": [[p.id, p.name, p.starting_score] for p in players],
        # Each round as [player id, dutch, blitz, player id, dutch, blitz, ...] (`cards`), or
        # [player id, hand, called (0 or 1), ...] in the other kinds.
        "rounds": [[n for s in scores for n in _flat(s)] for scores in rounds],
    }
    family = [getattr(game, name) for name in FAMILY]
    if family != FAMILY_DEFAULTS:  # left out for Dutch Blitz, so its records are as they always were
        data["family"] = family
    # Left out when empty, so the records of untimed games are as they always were.
    timed = [
        [i, t.started_at and as_utc(t.started_at).isoformat(), t.duration_s]
        for i, t in enumerate(times or [])
        if t.started_at is not None or t.duration_s is not None
    ]
    if timed:
        data["times"] = timed
    if game.table_id is not None:  # left out for a game of its own, as every record before tables
        data["table"] = game.table_id
        data["people"] = [p.person_id for p in players]
    if left and any(n is not None for n in left):  # left out when nobody left, as every record before leavers
        data["left"] = left
    if joined and any(n is not None for n in joined):  # left out when nobody came late, as every record before
        data["joined"] = joined
    if piles and any(n is not None for n in piles):  # left out when none was counted, as every record before
        data["piles"] = [[i, n] for i, n in enumerate(piles) if n is not None]
    if game.seats_save_round or game.seats_on_view:  # left out when both are off, as every record before them
        data["seats"] = [game.seats_save_round, game.seats_on_view]
    if game.round_started_at is not None:
        data["pending"] = as_utc(game.round_started_at).isoformat()
    return zlib.compress(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode(), 9)


# The game's columns of the other rule parameters (a storage format: this order, whatever the model's;
# a new one only at the end), and their values in a Dutch Blitz game.
FAMILY = (
    "kind",
    "preset",
    "pile_size",
    "deck_size",
    "must_go_out",
    "end_by",
    "round_limit",
    "lives",
    "county",
    "thirty_and_a_half",
    "win_rule",
)
FAMILY_DEFAULTS = [getattr(Game(id="", edit_key_hash=""), name) for name in FAMILY]  # the model's: Dutch Blitz


@dataclass(frozen=True, slots=True)
class Made:
    """What a write made that its answer names, whatever happened to the game since: the round it added
    (its id, which a deletion of an earlier round does not change, as it does the numbers), the round
    start it set (a start's `blitz_at`)."""

    round_id: int | None = None
    started_at: datetime | None = None

    def round_number(self, round_ids: list[int]) -> int | None:
        """The number the round it added has in the game as it now stands (None: deleted since)."""
        return round_ids.index(self.round_id) + 1 if self.round_id in round_ids else None


NOTHING_MADE = Made()


def reference(made: Made) -> bytes:
    """A write's record: no copy of the game, only what it made. Plain JSON, where a snapshot is a zlib
    stream (which never begins with "{")."""
    started = made.started_at and as_utc(made.started_at).isoformat()
    return json.dumps({"round": made.round_id, "start": started}, separators=(",", ":")).encode()


def referenced(blob: bytes) -> Made | None:
    """What a record by reference holds (`reference`), or None when it holds a snapshot."""
    if bytes(blob[:1]) != b"{":
        return None
    data = json.loads(blob)
    return Made(data["round"], datetime.fromisoformat(data["start"]) if data["start"] else None)


def _flat(score: scoring.Score) -> tuple[int, ...]:
    if score.hand is not None:
        return (score.player_id, score.hand, int(score.called))
    return (score.player_id, score.dutch or 0, score.blitz or 0)


def restore(blob: bytes) -> tuple[Game, list[Player], Played, dict[int, RoundTime]]:
    """The game, its players, rounds and their times as they were (detached objects, never added to a
    session). The rounds get stand-in ids, ascending as real ones are (-n, ..., -1), which the times are keyed
    by and a leaver's mark names."""
    data = json.loads(zlib.decompress(blob))
    # A record made before a parameter was added lists fewer: the model's default fills in the rest.
    family = data.get("family", FAMILY_DEFAULTS)
    family = [*family, *FAMILY_DEFAULTS[len(family) :]]
    target, dutch_points, blitz_points, tie_break = data["rules"]
    game = Game(
        id=data["id"],
        name=data["name"],
        version=data["version"],
        edit_key_hash="",
        target=target,
        dutch_points=dutch_points,
        blitz_points=blitz_points,
        tie_break=tie_break,
        created_at=datetime.fromisoformat(data["created"]),
        updated_at=datetime.fromisoformat(data["updated"]),
        round_started_at=datetime.fromisoformat(data["pending"]) if data.get("pending") else None,
        **dict(zip(FAMILY, family, strict=True)),
    )
    game.table_id = data.get("table")
    game.seats_save_round, game.seats_on_view = data.get("seats", [False, False])
    people = data.get("people") or [None] * len(data["players"])
    count = len(data["rounds"])
    left = data.get("left") or [None] * len(data["players"])
    joined = data.get("joined") or [None] * len(data["players"])
    players = [
        Player(
            id=pid,
            game_id=game.id,
            seat=seat,
            name=name,
            starting_score=start,
            person_id=person,
            left_after_round_id=None if gone is None else gone - count - 1,  # the stand-in id of their last round
            joined_after_round_id=None if came is None else came - count - 1,  # of the last round before they came
        )
        for seat, ((pid, name, start), person, gone, came) in enumerate(
            zip(data["players"], people, left, joined, strict=True)
        )
    ]
    cards = game.kind == "cards"
    played: Played = [
        (
            n - count,
            [
                scoring.Score(*flat[i : i + 3])
                if cards
                else scoring.Score(flat[i], None, None, flat[i + 1], bool(flat[i + 2]))
                for i in range(0, len(flat), 3)
            ],
        )
        for n, flat in enumerate(data["rounds"])
    ]
    times = {
        n - count: RoundTime(datetime.fromisoformat(started) if started else None, duration)
        for n, started, duration in data.get("times", [])
    }
    return game, players, played, times


def restored_piles(blob: bytes) -> dict[int, int]:
    """The centre piles a snapshot kept (an import's: its rounds were counted), by the stand-in round ids
    `restore` gives; empty for every other record."""
    data = json.loads(zlib.decompress(blob))
    count = len(data["rounds"])
    return {n - count: piles for n, piles in data.get("piles", [])}


def snapshot_game_id(blob: bytes) -> str:
    """The id of the game a snapshot is of (a creation's record names its game nowhere else)."""
    return str(json.loads(zlib.decompress(blob))["id"])


# The store's writes, built once and run as plain Core on the write's connection (no ORM flush).
RECORDS = IdempotencyRecord.__table__  # type: ignore[attr-defined]
RECORD_INSERT = RECORDS.insert()
RECORD_DELETE = RECORDS.delete().where(RECORDS.c.scope == bindparam("s"), RECORDS.c.key == bindparam("k"))
RECORDS_PURGE = RECORDS.delete().where(RECORDS.c.created_at < bindparam("before"))
RECORD_GET = RECORDS.select().where(RECORDS.c.scope == bindparam("s"), RECORDS.c.key == bindparam("k"))
# A record as read: a plain row with the model's fields as attributes (`record.snapshot`, ...).
Record = Any


# --- the store --------------------------------------------------------------------------------------


class Replays:
    """Records of first answers, in the session's write transaction."""

    def __init__(self, session: Session, sealer: Sealer, hours: int, rotation_minutes: int):
        self.session = session
        self.sealer = sealer
        self.hours = hours
        self.rotation_minutes = rotation_minutes

    def lookup_key(self, operation: str, scope: str, binding: str, idempotency: Idempotency) -> str:
        """The record's key: an HMAC of the Idempotency-Key and what it is bound to (client or old key)."""
        return self.sealer.mac(operation, scope, binding, idempotency.key)

    def request_mac(self, operation: str, idempotency: Idempotency) -> str:
        return self.sealer.mac(operation, idempotency.request)

    def _get(self, scope: str, key: str) -> Record | None:
        return self.session.connection().execute(RECORD_GET, {"s": scope, "k": key}).first()

    def find(self, scope: str, key: str, request_mac: str) -> Record | None:
        """The live record for this key; 422 when the key was used for another request."""
        record = self._get(scope, key)
        if record is None:
            return None
        if as_utc(record.created_at) < utcnow() - timedelta(hours=self.hours):
            self.session.connection().execute(RECORD_DELETE, {"s": scope, "k": key})
            return None
        if record.request_mac != request_mac:
            raise IdempotencyKeyReused(
                _("This Idempotency-Key was already used with a different request; use a new key for a new request.")
            )
        return record

    def find_rotation(self, scope: str, key: str, request_mac: str, version: int) -> Record | None:
        """A rotation's record, only while it may still be answered (else the request goes on as new)."""
        record = self._get(scope, key)
        if record is None or record.operation != ROTATE or record.request_mac != request_mac:
            return None
        if as_utc(record.created_at) < utcnow() - timedelta(minutes=self.rotation_minutes):
            return None
        if record.version != version:  # the game moved on (the new key was used): no replay
            return None
        return record

    def remember(
        self,
        scope: str,
        key: str,
        request_mac: str,
        operation: str,
        status: int,
        blob: bytes,
        version: int,
        *,
        edit_key: str | None = None,
        idempotency: Idempotency,
        game_id: str,
    ) -> None:
        now = utcnow()
        connection = self.session.connection()
        # Forget keys past their time now and then.
        connection.execute(RECORDS_PURGE, {"before": now - timedelta(hours=self.hours)})
        sealed = None
        if edit_key is not None:
            sealed = self.sealer.seal(edit_key, salt=idempotency.key, scope=seal_scope(operation, game_id, key))
        connection.execute(
            RECORD_INSERT,
            {
                "scope": scope,
                "key": key,
                "request_mac": request_mac,
                "operation": operation,
                "status_code": status,
                "version": version,
                "snapshot": blob,
                "sealed_key": sealed,
                "created_at": now,
                "game_id": record_game_id(game_id),
            },
        )

    def edit_key(self, record: Record, idempotency: Idempotency, game_id: str) -> str:
        """The sealed edit key of a creation or rotation record (SealBroken when it does not open)."""
        return self.sealer.open(
            record.sealed_key or b"",
            salt=idempotency.key,
            scope=seal_scope(record.operation, game_id, record.key),
        )


def record_game_id(game_id: str) -> str | None:
    """What a record stores as its game (IdempotencyRecord.game_id, which a game's deletion finds its
    records by): the game's id; None for a table's records, which `remember` is handed as "t:<table id>"
    (app.tables.usecases.table_scope: its seal scope, never a game's id) and which belong to no one game."""
    return None if game_id.startswith(TABLE_SCOPE_PREFIX) else game_id


def seal_scope(operation: str, game_id: str, record_key: str) -> tuple[str, ...]:
    """The associated data a sealed key is bound to: the operation, the game and the record's key
    (which is itself bound to the client or the old edit key)."""
    return ("blitzboard-replay", operation, game_id, record_key)
