"""Every player enters their own row, on their own phone: seats and the round's draft.

The game's seat link (one QR code and link for the whole table, app.games.seatlink: stored nowhere, ended
by a new edit key) lets a phone take a player's seat.

Taking a seat gives the phone a seat key (192 bits from `secrets`; stored only as its hash, in `seat`),
which can do exactly one thing: send that player's row of the round being played (`send_row`). It never
reveals the edit key and changes nothing else: every other write refuses it as a wrong edit key. One
phone a seat: a seat taken is refused to another phone (409) until the scorekeeper frees it.

The draft is each player's row of the round being played, sent from their seat (or typed by the
scorekeeper's key): checked field by field as the round form checks it (a count over the game's
maximum is refused there, in the sender's language), while the round's own checks (somebody went out,
one caller) wait for the save. A draft is not a round: no total, version or history moves; saving the
round clears the game's draft (app.games.usecases.add_round). A row sent for another round than the
one being played (the round was saved meanwhile) is refused with 409, never written over a saved round; the
problem says the round being played now and the game's version.

Both take an Idempotency-Key (app.idempotency), their records bound to the seat link or the key the row came
with: a claim's retry gets its seat key back (sealed in the record) while the key holds the seat; a row's
retry changes nothing and answers the draft as it now stands.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from sqlalchemy import delete
from sqlmodel import select

from app.db import write_transaction
from app.errors import (
    GameError,
    GameIsOver,
    GameNotFound,
    InvalidInput,
    ReplayUnavailable,
    RoundSavedMeanwhile,
    SeatKeyWrong,
    SeatLinkRefused,
    SeatTaken,
)
from app.games.seatlink import seat_link_token
from app.games.views import GameView, rule_players
from app.games.writes import Guard, check_key, check_version
from app.i18n import _
from app.idempotency import SEAT_CLAIM, SEAT_ROW, Idempotency, Record
from app.models import DraftRow, Game, Player, Seat, utcnow
from app.rules import scoring
from app.rules.timing import epoch_ms
from app.schemas import RoundIn
from app.sealing import SealBroken
from app.security import Credential, hash_key, key_matches, new_edit_key

if TYPE_CHECKING:
    from app.games.usecases import Games


@dataclass(frozen=True, slots=True)
class SeatState:
    """A player's seat as the scorekeeper sees it: taken (since when) or free."""

    player: Player
    claimed_at: datetime | None  # None: free


@dataclass(frozen=True, slots=True)
class Seats:
    token: str  # the seat link's last part
    seats: list[SeatState]


@dataclass(frozen=True, slots=True)
class SeatTakenOutcome:
    game_id: str
    player: Player
    seat_key: str
    replayed: bool = False  # the first answer to this Idempotency-Key, again: nothing changed now


@dataclass(frozen=True, slots=True)
class RowIn:
    """A player's row as sent: the counts of their game's kind (`cards`: dutch and blitz; the others: hand and
    whether they called or knocked)."""

    round_number: int
    dutch: int | None = None
    blitz: int | None = None
    hand: int | float | None = None  # an int, or 31's 30.5
    called: bool = False


@dataclass(frozen=True, slots=True)
class Draft:
    """The round being played, as far as it was sent: its number and each row (by seat order)."""

    game_id: str
    round_number: int
    rows: list[DraftRow]
    replayed: bool = False
    version: int = 0  # the game's, as the row was sent (a draft moves none)
    saved: int | None = None  # the round this row completed and that saved by itself (`seats_save_round`)


@dataclass(frozen=True, slots=True)
class Freed:
    replayed: bool = False


def seats(games: Games, game_id: str, credential: Credential) -> Seats:
    """The seat link and each player's seat (the scorekeeper's key)."""
    session = games.session
    view = games.get(game_id)
    check_key(view.game, credential)
    taken = {s.player_id: s for s in session.exec(select(Seat).where(Seat.game_id == game_id))}
    session.rollback()
    sealer = games.writer.replays.sealer
    states = [SeatState(p, taken[p.id].claimed_at if p.id in taken else None) for p in view.players]
    return Seats(seat_link_token(sealer, view.game), states)


def claim_seat(
    games: Games,
    game_id: str,
    player_id: int,
    token: str,
    idempotency: Idempotency | None = None,
    client: str = "",
) -> SeatTakenOutcome:
    """The phone with the seat link takes the player's seat: a new seat key, whose hash is stored.
    `idempotency`: a retry gets the same seat key back (sealed in its record) while it holds the seat, only
    from the same address (`client`) with the same link, as a new game's retry is: the link is shared by the
    whole table, so the link alone would hand a guessed Idempotency-Key's seat key to another phone."""
    session, writer = games.session, games.writer
    replay = writer.replay(idempotency, game_id, SEAT_CLAIM, f"{client}|{token}")

    def work() -> SeatTakenOutcome:
        game = writer.locked(game_id)
        # Bound to the link it was taken with: found only by who sent that link (a new edit key since
        # ends the link, not the seat it took).
        if replay and (record := writer.replays.find(game_id, replay.key, replay.mac)):
            return _claimed_again(games, record, replay.idempotency, game, player_id)
        if not key_matches(token, hash_key(seat_link_token(writer.replays.sealer, game))):
            raise SeatLinkRefused(_("This is not this game's seat link, or no longer: ask the scorekeeper for it."))
        view = writer.before(game)
        if view.state.over:
            raise GameIsOver(_("The game is over: there is no round to enter any more."))
        player = _playing(view, player_id)
        if session.get(Seat, player_id) is not None:
            raise SeatTaken(
                _("{name}'s seat is taken by another phone: the scorekeeper can free it.").format(name=player.name)
            )
        key = new_edit_key()
        session.add(Seat(player_id=player_id, game_id=game_id, key_hash=hash_key(key)))
        if replay:  # the seat key sealed (app.sealing), never in the clear
            writer.replays.remember(
                game_id,
                replay.key,
                replay.mac,
                SEAT_CLAIM,
                201,
                _CLAIMED,
                game.version,
                edit_key=key,
                idempotency=replay.idempotency,
                game_id=game_id,
            )
        return SeatTakenOutcome(game_id, player, key)

    return write_transaction(session, work)


_CLAIMED = b'{"seat":1}'  # a claim's record: the seat key is sealed beside it, the player in its request


def _claimed_again(
    games: Games, record: Record, idempotency: Idempotency, game: Game, player_id: int
) -> SeatTakenOutcome:
    """A claim's first answer again: its seat key, while the seat still holds it. A seat freed (or closed
    with the game) since gives no key back: the key would open nothing."""
    session, writer = games.session, games.writer
    try:
        key = writer.replays.edit_key(record, idempotency, game.id)
    except SealBroken:
        key = ""
    seat = session.get(Seat, player_id)
    if key and seat is not None and seat.game_id == game.id and key_matches(key, seat.key_hash):
        player = next(p for p in writer.before(game).players if p.id == player_id)
        return SeatTakenOutcome(game.id, player, key, replayed=True)
    if writer.before(game).state.over:
        raise GameIsOver(_("The game is over: there is no round to enter any more."))
    raise ReplayUnavailable(
        _("The first answer to this Idempotency-Key can't be given back; send the request with a new key.")
    )


def free_seat(games: Games, game_id: str, player_id: int, credential: Credential) -> None:
    """The scorekeeper frees a seat (a lost phone, or another phone for the player): its key stops working."""
    session, writer = games.session, games.writer

    def work() -> Freed:
        game = writer.locked(game_id)
        check_key(game, credential)
        session.exec(delete(Seat).where(Seat.player_id == player_id, Seat.game_id == game_id))  # type: ignore[arg-type]
        return Freed()

    write_transaction(session, work)


def send_row(
    games: Games,
    game_id: str,
    player_id: int,
    credential: Credential,
    row: RowIn,
    if_match: str | None = None,
    idempotency: Idempotency | None = None,
) -> Draft:
    """The player's row of the round being played, from their seat (its key) or the scorekeeper (the edit
    key); checked field by field; the draft as it now stands. `if_match`: the game's version the sender
    saw (412 when the game changed since; the row's `round_number` alone says whether its round is open).
    `idempotency`: a retry changes nothing and answers the draft as it now stands, `saved` as the first."""
    session, writer = games.session, games.writer
    kinds: list[scoring.Kind] = []
    # Bound to the key that sent it, so it is looked for before that key is judged (a seat the game's end
    # closed since, as a rotation's replay is): a record is found only with the key and the Idempotency-Key.
    replay = writer.replay(idempotency, game_id, SEAT_ROW, credential.key or "") if credential.key else None

    def work() -> Draft:
        game = writer.locked(game_id)
        view = writer.before(game)
        kinds[:] = [view.rules.kind]
        if replay and (record := writer.replays.find(game_id, replay.key, replay.mac)):
            sent = json.loads(record.snapshot)  # the round the row was for, and whether it completed it
            number = len(view.round_ids) + 1
            saved = sent["round"] if sent["saves"] and number > sent["round"] else None
            return replace(_draft(games, game_id, number), replayed=True, version=game.version, saved=saved)
        if view.state.over:  # its seats closed with it: said before any key is judged
            raise GameIsOver(_("The game is over: there is no round to enter any more."))
        by_seat = not key_matches(credential.key, game.edit_key_hash)
        if by_seat:
            seat = session.get(Seat, player_id)
            if seat is None or seat.game_id != game_id or not key_matches(credential.key, seat.key_hash):
                if not credential.key:
                    check_key(game, credential)  # says the key is missing
                raise SeatKeyWrong(
                    _("That key doesn't hold this player's seat: it fills in its own player's row only.")
                )
        check_version(game, if_match)
        number = len(view.round_ids) + 1
        if row.round_number != number:
            # A later round than the one being played: a round before it was deleted since (or a wrong number).
            why = (
                _("Round {sent} was saved already: this row is for round {number} now.")
                if row.round_number < number
                else _("The round being played is round {number}, not {sent}: the row is for round {number} now.")
            )
            raise RoundSavedMeanwhile(
                why.format(sent=row.round_number, number=number),
                sent=row.round_number,
                round_number=number,
                version=game.version,
            )
        player = _playing(view, player_id)
        if row.called and view.rules.kind == scoring.Kind.CARDS:  # nobody calls in the card games' rows
            params = {"name": player.name, "field": "called"}
            raise InvalidInput([scoring.Problem("not_in_kind", field="called", player_id=player_id, params=params)])
        seat = next(p for p in rule_players(view.players, view.round_ids) if p.id == player_id)
        score = scoring.Score(player_id, row.dutch, row.blitz, row.hand, row.called)
        if problems := scoring.check_row(seat, score, view.rules):
            raise InvalidInput(problems)
        session.exec(delete(DraftRow).where(DraftRow.player_id == player.id))  # type: ignore[arg-type]
        hand, half = scoring.hand_to_store(row.hand)  # 31's 30½: its 30, and the half
        session.add(
            DraftRow(
                player_id=player_id,
                game_id=game_id,
                round_number=number,
                dutch=row.dutch,
                blitz=row.blitz,
                hand=hand,
                half=half,
                called=row.called,
                by_seat=by_seat,
                sent_at=utcnow(),
            )
        )
        session.flush()
        sent = replace(_draft(games, game_id, number), version=game.version)
        complete = {p.id for p in view.state.playing(view.players)} <= {r.player_id for r in sent.rows}
        saves = game.seats_save_round and complete
        if replay:
            blob = json.dumps({"round": number, "saves": saves}, separators=(",", ":")).encode()
            writer.replays.remember(
                game_id,
                replay.key,
                replay.mac,
                SEAT_ROW,
                200,
                blob,
                game.version,
                idempotency=replay.idempotency,
                game_id=game_id,
            )
        return replace(sent, saved=number if saves else None)

    draft = write_transaction(session, work)
    if draft.replayed:  # nothing changed: nobody to tell, nothing to save
        return draft
    # After COMMIT: every page of the game hears that a row came (the scorekeeper's fills it in), in this
    # process and, on PostgreSQL, in every other; the version stays as it was.
    writer.broker.publish(game_id, draft.version, draft=epoch_ms(utcnow()))
    if draft.saved is not None:
        return _save_by_itself(games, draft, kinds[0])
    return draft


# A round its players' seats completed saves with no edit key: each row's seat key was checked as it came
# (send_row). The game's version the last row saw guards the rest: a round saved or changed since (the
# scorekeeper's tap, another seat's row on another process) leaves the rows as a draft.
_BY_THE_SEATS = Guard(lambda game: None, "")


def _save_by_itself(games: Games, draft: Draft, kind: scoring.Kind) -> Draft:
    """The draft saved as the round (`seats_save_round`, every row in): the next round's empty draft, with
    `saved` its number; the draft as sent, `saved` None, when the rows don't make a valid round (nobody went
    out, two callers) or the game moved on meanwhile: the scorekeeper sees them and decides."""
    scores: list[dict[str, Any]] = []
    body: dict[str, Any] = {"scores": scores}
    for row in draft.rows:
        if kind == scoring.Kind.CARDS:
            scores.append({"player_id": row.player_id, "dutch": row.dutch, "blitz": row.blitz})
        else:
            scores.append({"player_id": row.player_id, "hand": row.points})
            if row.called:
                body["caller" if kind == scoring.Kind.LOWEST else "knocker"] = row.player_id
    try:
        data = RoundIn.model_validate(body)
        saved = games.add_round(
            draft.game_id, Credential(None), data, if_match=f'"{draft.version}"', guard=_BY_THE_SEATS
        )
    except (ValidationError, GameError):
        return replace(draft, saved=None)
    return Draft(draft.game_id, draft.round_number + 1, [], version=saved.version, saved=draft.round_number)


def taken_seats(games: Games, game_id: str) -> list[int]:
    """The players whose seat a phone holds."""
    taken = list(games.session.exec(select(Seat.player_id).where(Seat.game_id == game_id)))
    games.session.rollback()
    return taken


def seat_of(games: Games, view: GameView, credential: Credential) -> Player | None:
    """The player of the game just read (`view`) whose seat this key holds (None: no seat of this game)."""
    if not credential.key:
        return None
    seats = games.session.exec(select(Seat).where(Seat.game_id == view.game.id)).all()
    games.session.rollback()
    player_id = next((s.player_id for s in seats if key_matches(credential.key, s.key_hash)), None)
    return next((p for p in view.players if p.id == player_id), None)


def draft(games: Games, game_id: str, view: GameView | None = None) -> Draft:
    """The round being played as far as it was sent (anyone with the view link reads it, as the game);
    `view`: the game just read, when the caller has it."""
    view = view or games.get(game_id)
    result = _draft(games, game_id, len(view.round_ids) + 1)
    games.session.rollback()
    return result


def rows_for(games: Games, game_id: str, number: int) -> list[DraftRow]:
    return _draft(games, game_id, number).rows


def _draft(games: Games, game_id: str, number: int) -> Draft:
    rows = games.session.exec(
        select(DraftRow).where(DraftRow.game_id == game_id, DraftRow.round_number == number)  # type: ignore[arg-type]
    ).all()
    return Draft(game_id, number, sorted(rows, key=lambda r: r.player_id))


def _playing(view: GameView, player_id: int) -> Player:
    """The player, when they are in the round being played (not left, out, or gone)."""
    player = next((p for p in view.players if p.id == player_id), None)
    if player is None:
        raise GameNotFound(_("This game has no player {player_id}.").format(player_id=player_id))
    if player_id in view.state.out:
        raise InvalidInput(
            [scoring.Problem("player_out", field="player_id", player_id=player_id, params={"name": player.name})]
        )
    return player
