"""The use cases: create a game, change its name or rules, add / correct / delete a round, rotate its key.

Each write is one transaction that: takes the write lock (BEGIN IMMEDIATE on SQLite, the game's row
lock on PostgreSQL), checks the edit key, answers a repeated Idempotency-Key with the first answer,
checks If-Match, asks app.scoring whether the change is allowed, writes it, bumps the game's version,
stores the answer for later retries, commits, and only then publishes "game X is at version N".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, delete, insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from app import scoring
from app.config import Settings
from app.db import begin_write, serial_writes
from app.live import Broker
from app.live_pg import notify_in_transaction
from app.models import (
    Game,
    GameCreate,
    GameUpdate,
    IdempotencyRecord,
    Player,
    Round,
    RoundIn,
    RoundScore,
    utcnow,
)
from app.security import Credential, hash_key, key_matches, new_edit_key, new_game_id

GAME_NAME_MAX_LENGTH = 80
NEW_GAME_SCOPE = "new-game"


# --- errors: each names its HTTP status so the API and the pages can say it the same way -------


class GameError(Exception):
    status = 400
    slug = "bad-request"
    title = "Bad request"

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


class GameNotFound(GameError):
    status, slug, title = 404, "not-found", "Not found"


class KeyMissing(GameError):
    status, slug, title = 401, "edit-key-missing", "Edit key missing"


class KeyWrong(GameError):
    status, slug, title = 403, "edit-key-wrong", "Wrong edit key"


class GameIsOver(GameError):
    status, slug, title = 409, "game-over", "The game is over"


class VersionMismatch(GameError):
    status, slug, title = 412, "version-mismatch", "The game has changed"


class IdempotencyKeyReused(GameError):
    status, slug, title = 422, "idempotency-key-reused", "Idempotency-Key reused"


class InvalidInput(GameError):
    status, slug, title = 422, "invalid-input", "Invalid input"

    def __init__(self, problems: list[scoring.Problem]):
        super().__init__(" ".join(p.message for p in problems))
        self.problems = problems


# --- a loaded game and what it means -------------------------------------------------------------


# Rounds as stored: (round id, each player's cards), in the order played.
Played = list[tuple[int, list[scoring.Score]]]


@dataclass(slots=True)
class GameView:
    game: Game
    players: list[Player]
    round_ids: list[int]  # in the order played: round n is round_ids[n - 1]
    state: scoring.GameState

    @property
    def rules(self) -> scoring.Rules:
        return self.state.rules

    def player_names(self) -> dict[int, str]:
        return {p.id: p.name for p in self.players}

    def public(self) -> dict[str, Any]:
        return to_public(self)

    def played(self) -> Played:
        """The rounds as stored: (round id, each player's cards), in order."""
        return [
            (round_id, [scoring.Score(s.player_id, s.dutch, s.blitz) for s in scored.scores])
            for round_id, scored in zip(self.round_ids, self.state.rounds, strict=True)
        ]


def rules_of(game: Game) -> scoring.Rules:
    return scoring.Rules(
        target=game.target,
        dutch_points=game.dutch_points,
        blitz_points=game.blitz_points,
        tie_break=scoring.TieBreak(game.tie_break),
    )


def _aware(moment: datetime) -> datetime:
    # SQLite hands timestamps back without a zone; every one we store is UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _timestamp(moment: datetime) -> str:
    # The same text pydantic gives a UTC datetime (models.GamePublic documents the shape).
    return _aware(moment).isoformat().replace("+00:00", "Z")


def to_public(view: GameView) -> dict[str, Any]:
    """The game as the API answers it: the shape of models.GamePublic, built as plain JSON-ready data.

    Built by hand rather than through the pydantic models: a long game has thousands of scores,
    and every save answers the whole game (tests/test_api.py checks it against the documented schema).
    """
    state = view.state
    game = view.game
    ranks = {s.player.id: s.rank for s in state.standings}
    return {
        "id": game.id,
        "name": game.name,
        "version": game.version,
        "created_at": _timestamp(game.created_at),
        "updated_at": _timestamp(game.updated_at),
        "status": state.status,
        "winners": list(state.winners),
        "tie_break": state.tie_break_due,
        "leaders": list(state.leaders),
        "rules": {
            "target": game.target,
            "dutch_points": game.dutch_points,
            "blitz_points": game.blitz_points,
            "tie_break": game.tie_break,
        },
        "players": [
            {
                "id": p.id,
                "name": p.name,
                "starting_score": p.starting_score,
                "total": state.totals[p.id],
                "rank": ranks[p.id],
            }
            for p in view.players
        ],
        "rounds": [
            {
                "number": r.number,
                "scores": [
                    {"player_id": s.player_id, "dutch": s.dutch, "blitz": s.blitz, "points": s.points, "total": s.total}
                    for s in r.scores
                ],
            }
            for r in state.rounds
        ],
    }


def load_view(session: Session, game: Game) -> GameView:
    return load_views(session, [game])[0]


def load_views(session: Session, games: list[Game]) -> list[GameView]:
    """Games, their players and what their rounds mean: three queries however many games and rounds.

    Rounds and scores are read as plain rows, not ORM objects: a long game has thousands of them.
    """
    ids = [game.id for game in games]
    players: dict[str, list[Player]] = {game_id: [] for game_id in ids}
    for player in session.exec(select(Player).where(Player.game_id.in_(ids)).order_by(Player.seat)):
        players[player.game_id].append(player)
    rounds: dict[str, list[int]] = {game_id: [] for game_id in ids}
    for game_id, round_id in session.exec(
        select(Round.game_id, Round.id).where(Round.game_id.in_(ids)).order_by(Round.id)
    ):
        rounds[game_id].append(round_id)
    scores: dict[int, list[scoring.Score]] = {
        round_id: [] for game_rounds in rounds.values() for round_id in game_rounds
    }
    for round_id, player_id, dutch, blitz in session.exec(
        select(RoundScore.round_id, RoundScore.player_id, RoundScore.dutch, RoundScore.blitz)
        .join(Round, RoundScore.round_id == Round.id)
        .where(Round.game_id.in_(ids))
    ):
        scores[round_id].append(scoring.Score(player_id, dutch, blitz))
    return [
        scored_view(game, players[game.id], [(round_id, scores[round_id]) for round_id in rounds[game.id]])
        for game in games
    ]


def current_versions(engine: Engine, game_ids: list[str]) -> dict[str, int]:
    """The version of each game that exists (for event streams, which outlive any request's session)."""
    with Session(engine) as session:
        return dict(session.exec(select(Game.id, Game.version).where(Game.id.in_(game_ids))).all())


def scored_view(game: Game, players: list[Player], played: Played) -> GameView:
    state = scoring.score_game(
        [scoring.Player(p.id, p.name, p.starting_score) for p in players],
        rules_of(game),
        [scores for _, scores in played],
    )
    return GameView(game, players, [round_id for round_id, _ in played], state)


# --- inputs -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Idempotency:
    """An Idempotency-Key and a fingerprint of the request it came with."""

    key: str
    request_hash: str

    @classmethod
    def of(cls, key: str | None, *parts: Any) -> Idempotency | None:
        if not key:
            return None
        canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
        return cls(key, hashlib.sha256(canonical.encode()).hexdigest())

    @property
    def stored_key(self) -> str:
        """What the database keeps of the key: its hash (the key itself unseals a new game's edit key)."""
        return hashlib.sha256(self.key.encode("utf-8", "surrogatepass")).hexdigest()

    def _pad(self, size: int) -> bytes:
        return hashlib.shake_256(b"blitzboard-edit-key\0" + self.key.encode("utf-8", "surrogatepass")).digest(size)

    def seal(self, secret: str) -> str:
        """`secret` made unreadable to anyone without the Idempotency-Key (which is stored only hashed)."""
        data = secret.encode()
        return bytes(a ^ b for a, b in zip(data, self._pad(len(data)), strict=True)).hex()

    def unseal(self, sealed: str) -> str:
        data = bytes.fromhex(sealed)
        return bytes(a ^ b for a, b in zip(data, self._pad(len(data)), strict=True)).decode()


def _seal_created(body: dict[str, Any], idempotency: Idempotency) -> dict[str, Any]:
    """The creation answer as stored for retries: the edit key (also in the edit link) sealed.

    The edit key is stored only as a hash; the retry of a creation must still answer it, so the stored
    answer keeps it sealed with the Idempotency-Key, which only the client knows.
    """
    key = body["edit_key"]
    sealed = idempotency.seal(key)
    urls = body["urls"] | {"edit": body["urls"]["edit"].replace(key, sealed)}
    return body | {"edit_key": sealed, "urls": urls}


def _unseal_created(outcome: Outcome, idempotency: Idempotency) -> Outcome:
    body = outcome.body
    sealed = body["edit_key"]
    key = idempotency.unseal(sealed)
    body = body | {"edit_key": key, "urls": body["urls"] | {"edit": body["urls"]["edit"].replace(sealed, key)}}
    return Outcome(outcome.status, body, outcome.view, replayed=outcome.replayed)


@dataclass(slots=True)
class Outcome:
    status: int
    body: dict[str, Any]  # the API's answer (GamePublic, plus edit_key and urls on creation)
    view: GameView | None  # None when this is a replay of an earlier answer
    replayed: bool = False

    @property
    def version(self) -> int:
        return int(self.body["version"])


def game_name_problem(name: str) -> str | None:
    if len(name) > GAME_NAME_MAX_LENGTH:
        return f"A game's name can have at most {GAME_NAME_MAX_LENGTH} characters."
    if name:
        reason = scoring.name_problem(name[: scoring.NAME_MAX_LENGTH])
        if reason and reason != "Enter a name.":
            return reason.replace("A name", "A game's name")
    return None


def etag_matches(if_match: str, version: int) -> bool:
    """True when an If-Match header names this version (or is "*")."""
    for candidate in if_match.split(","):
        candidate = candidate.strip()
        if candidate == "*":
            return True
        candidate = candidate.removeprefix("W/").strip('"')
        if candidate == str(version):
            return True
    return False


# --- the use cases --------------------------------------------------------------------------------

UrlsFor = Callable[[str, str], dict[str, str]]  # (game id, edit key) -> {"view": ..., "edit": ...}


class Games:
    def __init__(self, session: Session, broker: Broker, settings: Settings):
        self.session = session
        self.broker = broker
        self.settings = settings

    # reading

    def get(self, game_id: str) -> GameView:
        game = self.session.get(Game, game_id)
        if game is None:
            raise GameNotFound(f"There is no game {game_id!r}.")
        return load_view(self.session, game)

    def key_hash(self, game_id: str) -> str | None:
        return self.session.exec(select(Game.edit_key_hash).where(Game.id == game_id)).first()

    def existing(self, game_ids: list[str]) -> list[Game]:
        if not game_ids:
            return []
        return list(self.session.exec(select(Game).where(Game.id.in_(game_ids))))

    # writing

    def create(self, data: GameCreate, urls_for: UrlsFor, idempotency: Idempotency | None = None) -> Outcome:
        name = scoring.clean_name(data.name)
        players = [
            scoring.Player(id=i, name=scoring.clean_name(p.name), starting_score=p.starting_score)
            for i, p in enumerate(data.players)
        ]
        rules = scoring.Rules(
            target=data.rules.target,
            dutch_points=data.rules.dutch_points,
            blitz_points=data.rules.blitz_points,
            tie_break=scoring.TieBreak(data.rules.tie_break),
        )
        problems = scoring.validate_players(players) + scoring.validate_rules(rules)
        if reason := game_name_problem(name):
            problems.insert(0, scoring.Problem(reason, field="game_name"))
        if problems:
            raise InvalidInput(problems)

        for attempt in range(2):
            with serial_writes(self.session):
                session = self.session
                begin_write(session)
                try:
                    if idempotency and (replay := self._replay(NEW_GAME_SCOPE, idempotency)):
                        session.rollback()
                        return _unseal_created(replay, idempotency)
                    edit_key = new_edit_key()
                    game = Game(
                        id=new_game_id(),
                        name=name,
                        edit_key_hash=hash_key(edit_key),
                        target=rules.target,
                        dutch_points=rules.dutch_points,
                        blitz_points=rules.blitz_points,
                        tie_break=rules.tie_break.value,
                    )
                    session.add(game)
                    session.flush()
                    for seat, player in enumerate(players):
                        session.add(
                            Player(game_id=game.id, seat=seat, name=player.name, starting_score=player.starting_score)
                        )
                    session.flush()
                    view = load_view(session, game)
                    body = view.public() | {"edit_key": edit_key, "urls": urls_for(game.id, edit_key)}
                    if idempotency:
                        self._remember(NEW_GAME_SCOPE, idempotency, 201, _seal_created(body, idempotency))
                    session.commit()
                    return Outcome(201, body, view)
                except IntegrityError:
                    # Another request with the same Idempotency-Key committed first (PostgreSQL, where
                    # nothing serialises two creations): its answer is now stored, so look again.
                    session.rollback()
                    if attempt or not idempotency:
                        raise
                except BaseException:
                    session.rollback()
                    raise
        raise AssertionError("unreachable")

    def update(
        self,
        game_id: str,
        credential: Credential,
        data: GameUpdate,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        def change(view: GameView) -> None:  # the rounds stay as they are
            game = view.game
            problems: list[scoring.Problem] = []
            if data.name is not None:
                name = scoring.clean_name(data.name)
                if reason := game_name_problem(name):
                    problems.append(scoring.Problem(reason, field="name"))
                game.name = name
            if data.rules is not None:
                for field, value in data.rules.model_dump(exclude_none=True).items():
                    setattr(game, field, value)
                problems += scoring.validate_rules(rules_of(game))
            if problems:
                raise InvalidInput(problems)

        return self._write(game_id, credential, change, if_match=if_match, idempotency=idempotency)

    def add_round(
        self,
        game_id: str,
        credential: Credential,
        data: RoundIn,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        def change(view: GameView) -> Played:
            if view.state.over:
                raise GameIsOver("The game is over: no more rounds can be added. Correct or delete a round instead.")
            self._check_round(view, data)
            round_ = Round(game_id=view.game.id)
            self.session.add(round_)
            self.session.flush()
            return [*view.played(), (round_.id, self._add_scores(round_.id, data))]

        return self._write(game_id, credential, change, if_match=if_match, idempotency=idempotency, status=201)

    def replace_round(
        self,
        game_id: str,
        number: int,
        credential: Credential,
        data: RoundIn,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        def change(view: GameView) -> Played:
            round_id = self._round(view, number)
            self._check_round(view, data)
            self.session.exec(delete(RoundScore).where(RoundScore.round_id == round_id))
            played = view.played()
            played[number - 1] = (round_id, self._add_scores(round_id, data))
            return played

        return self._write(game_id, credential, change, if_match=if_match, idempotency=idempotency)

    def delete_round(
        self,
        game_id: str,
        number: int,
        credential: Credential,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        def change(view: GameView) -> Played:
            round_id = self._round(view, number)
            self.session.exec(delete(RoundScore).where(RoundScore.round_id == round_id))
            self.session.exec(delete(Round).where(Round.id == round_id))
            played = view.played()
            del played[number - 1]
            return played

        return self._write(game_id, credential, change, if_match=if_match, idempotency=idempotency)

    def rotate_key(
        self,
        game_id: str,
        credential: Credential,
        urls_for: UrlsFor,
        *,
        if_match: str | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Give the game a new edit key; the old key and every edit link and cookie made from it stop working.

        The answer carries the new key (and edit link). A retry with the same Idempotency-Key and the
        same old key gets that answer again, so a lost response does not lock the scorekeeper out.
        """
        new_key = new_edit_key()

        def change(view: GameView) -> None:
            view.game.edit_key_hash = hash_key(new_key)

        def answer(view: GameView) -> dict[str, Any]:
            return view.public() | {"edit_key": new_key, "urls": urls_for(game_id, new_key)}

        return self._write(
            game_id, credential, change, if_match=if_match, idempotency=idempotency, answer=answer, secret_answer=True
        )

    # the machinery every write shares

    def _write(
        self,
        game_id: str,
        credential: Credential,
        change: Callable[[GameView], Played | None],
        *,
        if_match: str | None,
        idempotency: Idempotency | None,
        status: int = 200,
        answer: Callable[[GameView], dict[str, Any]] = GameView.public,
        secret_answer: bool = False,
    ) -> Outcome:
        """The write transaction every change shares.

        `secret_answer`: the answer holds a new edit key, so it is stored sealed with the
        Idempotency-Key; and it is replayed before the key check, since after a key rotation the
        retry still presents the old key (the request fingerprint includes that key, so only its
        holder gets the answer back).
        """
        with serial_writes(self.session):
            return self._write_now(
                game_id,
                credential,
                change,
                if_match=if_match,
                idempotency=idempotency,
                status=status,
                answer=answer,
                secret_answer=secret_answer,
            )

    def _write_now(
        self,
        game_id: str,
        credential: Credential,
        change: Callable[[GameView], Played | None],
        *,
        if_match: str | None,
        idempotency: Idempotency | None,
        status: int,
        answer: Callable[[GameView], dict[str, Any]],
        secret_answer: bool,
    ) -> Outcome:
        session = self.session
        begin_write(session)
        try:
            game = session.exec(select(Game).where(Game.id == game_id).with_for_update()).first()
            if game is None:
                raise GameNotFound(f"There is no game {game_id!r}.")
            if secret_answer and idempotency and (replay := self._replay(game_id, idempotency)):
                session.rollback()
                return _unseal_created(replay, idempotency)
            if not credential.key:
                raise KeyMissing("Changing a game needs its edit key (Authorization: Bearer <edit key>).")
            if not key_matches(credential.key, game.edit_key_hash):
                raise KeyWrong("That is not this game's edit key.")
            if idempotency and (replay := self._replay(game_id, idempotency)):
                session.rollback()
                return replay
            if if_match is not None and not etag_matches(if_match, game.version):
                raise VersionMismatch(
                    f"The game is at version {game.version}, not {if_match}: load it again and retry."
                )
            before = load_view(session, game)
            played = change(before)  # the rounds after the change (None: unchanged)
            game.version += 1
            game.updated_at = utcnow()
            session.add(game)
            session.flush()
            # What the game means now, from the rounds just written (not read back: the same rows).
            view = scored_view(game, before.players, before.played() if played is None else played)
            body = answer(view)
            if idempotency:
                stored = _seal_created(body, idempotency) if secret_answer else body
                self._remember(game_id, idempotency, status, stored)
            notify_in_transaction(session, game_id, game.version)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        self.broker.publish(game_id, game.version)
        return Outcome(status, body, view)

    def _replay(self, scope: str, idempotency: Idempotency) -> Outcome | None:
        record = self.session.get(IdempotencyRecord, (scope, idempotency.stored_key))
        if record is None:
            return None
        if _aware(record.created_at) < self._idempotency_cutoff():
            self.session.delete(record)
            self.session.flush()
            return None
        if record.request_hash != idempotency.request_hash:
            raise IdempotencyKeyReused(
                "This Idempotency-Key was already used with a different request; use a new key for a new request."
            )
        return Outcome(record.status_code, json.loads(record.body), None, replayed=True)

    def _remember(self, scope: str, idempotency: Idempotency, status: int, body: dict[str, Any]) -> None:
        session = self.session
        # Forget keys past their time now and then, a bounded batch at a time.
        session.exec(delete(IdempotencyRecord).where(IdempotencyRecord.created_at < self._idempotency_cutoff()))
        session.add(
            IdempotencyRecord(
                scope=scope,
                key=idempotency.stored_key,
                request_hash=idempotency.request_hash,
                status_code=status,
                body=json.dumps(body, separators=(",", ":")),
            )
        )
        session.flush()

    def _idempotency_cutoff(self) -> datetime:
        return utcnow() - timedelta(hours=self.settings.idempotency_hours)

    @staticmethod
    def _round(view: GameView, number: int) -> int:
        if not 1 <= number <= len(view.round_ids):
            raise GameNotFound(f"This game has no round {number} (it has {len(view.round_ids)}).")
        return view.round_ids[number - 1]

    @staticmethod
    def _check_round(view: GameView, data: RoundIn) -> None:
        problems = scoring.validate_round(
            [scoring.Player(p.id, p.name, p.starting_score) for p in view.players],
            [scoring.Score(s.player_id, s.dutch, s.blitz) for s in data.scores],
        )
        if problems:
            raise InvalidInput(problems)

    def _add_scores(self, round_id: int, data: RoundIn) -> list[scoring.Score]:
        rows = [
            {"round_id": round_id, "player_id": s.player_id, "dutch": s.dutch, "blitz": s.blitz} for s in data.scores
        ]
        self.session.exec(insert(RoundScore).values(rows))
        return [scoring.Score(s.player_id, s.dutch, s.blitz) for s in data.scores]
