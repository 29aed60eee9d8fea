"""The use cases called directly, without HTTP: what each returns (a domain outcome: the game as the write
left it, whether it made something new or was a replay, a new key), what each refuses, and that a refusal
changes nothing."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from sqlmodel import Session

from app.errors import GameError, GameIsOver, GameNotFound, InvalidInput, KeyMissing, KeyWrong, VersionMismatch
from app.games.usecases import Games
from app.games.viewcache import ViewCache
from app.games.views import GameView
from app.games.writes import Outcome
from app.idempotency import Idempotency
from app.live import Broker
from app.schemas import GameCreate, GameUpdate, PlayerCreate, RoundIn, ScoreIn
from app.sealing import Sealer
from app.security import Credential
from tests.helpers import WORKED_EXAMPLE_PLAYERS, WORKED_EXAMPLE_ROUND


@pytest.fixture
def games(app: FastAPI) -> Iterator[Games]:
    with Session(app.state.engine, expire_on_commit=False) as session:
        yield Games(session, Broker(), app.state.settings, Sealer(os.urandom(32)), ViewCache())


def new_game(games: Games, target: int = 75) -> tuple[str, Credential, list[int]]:
    data = GameCreate(
        players=[PlayerCreate(**p) for p in WORKED_EXAMPLE_PLAYERS],
        rules={"target": target},
    )
    outcome = games.create(data)
    return outcome.game_id, Credential(outcome.edit_key), [p.id for p in outcome.view.players]


def round_in(player_ids: list[int], counts: list[tuple[int, int]]) -> RoundIn:
    return RoundIn(
        scores=[ScoreIn(player_id=p, dutch=d, blitz=b) for p, (d, b) in zip(player_ids, counts, strict=True)]
    )


def test_create_answers_the_game_and_its_key(games: Games):
    outcome = games.create(GameCreate(name="Friday", players=[PlayerCreate(name="Ana"), PlayerCreate(name="Ben")]))
    assert outcome.created and not outcome.replayed
    assert outcome.view.game.name == "Friday" and outcome.version == 1 and len(outcome.edit_key or "") >= 32
    assert [p.name for p in outcome.view.players] == ["Ana", "Ben"]


def test_an_outcome_speaks_of_the_game_not_of_http():
    # No status, no body, no links: the API route makes those (app.routes.outcomes).
    assert [field.name for field in dataclasses.fields(Outcome)] == [
        "view",
        "created",
        "replayed",
        "edit_key",
        "made",
        "unchanged",
    ]


def test_the_worked_example_through_the_use_cases(games: Games):
    game_id, key, ids = new_game(games)
    outcome = games.add_round(game_id, key, round_in(ids, WORKED_EXAMPLE_ROUND))
    assert outcome.created and outcome.edit_key is None
    state = outcome.view.state
    assert [state.totals[i] for i in ids] == [80, 78, 31, 15]
    assert state.over and list(state.winners) == [ids[0]]
    assert outcome.view.public() == games.get(game_id).public()  # the game as a read gives it


@pytest.mark.parametrize(
    ("credential", "error"),
    [(Credential(None), KeyMissing), (Credential("x" * 32), KeyWrong)],
    ids=["no-key", "wrong-key"],
)
def test_a_change_without_the_right_key_is_refused_and_changes_nothing(games: Games, credential, error):
    game_id, _, ids = new_game(games)
    before = games.get(game_id).public()
    with pytest.raises(error):
        games.add_round(game_id, credential, round_in(ids, WORKED_EXAMPLE_ROUND))
    assert games.get(game_id).public() == before


def test_refusals_change_nothing(games: Games):
    game_id, key, ids = new_game(games)
    before = games.get(game_id).public()
    with pytest.raises(InvalidInput) as invalid:
        games.add_round(game_id, key, round_in(ids, [(3, 1), (2, 4), (1, 6), (0, 8)]))  # nobody called Blitz
    assert any("Blitz" in p.message for p in invalid.value.problems)
    with pytest.raises(VersionMismatch):
        games.add_round(game_id, key, round_in(ids, WORKED_EXAMPLE_ROUND), if_match='"7"')
    with pytest.raises(GameNotFound):
        games.replace_round(game_id, 3, key, round_in(ids, WORKED_EXAMPLE_ROUND))
    with pytest.raises(InvalidInput):
        games.update(game_id, key, GameUpdate(name="x" * 81))  # a game's name has at most 80 characters
    assert games.get(game_id).public() == before


def test_a_finished_game_takes_no_round_but_can_be_corrected(games: Games):
    game_id, key, ids = new_game(games)
    games.add_round(game_id, key, round_in(ids, WORKED_EXAMPLE_ROUND))
    with pytest.raises(GameIsOver):
        games.add_round(game_id, key, round_in(ids, WORKED_EXAMPLE_ROUND))
    corrected = games.replace_round(game_id, 1, key, round_in(ids, [(3, 0), (2, 4), (1, 6), (0, 8)]))
    assert not corrected.created and not corrected.view.state.over and corrected.version == 3


def test_deleting_a_round_moves_the_later_ones_up(games: Games):
    game_id, key, ids = new_game(games, target=1000)
    for counts in ([(3, 0), (2, 4), (1, 6), (0, 8)], [(5, 0), (2, 4), (1, 6), (0, 8)]):
        games.add_round(game_id, key, round_in(ids, counts))
    outcome = games.delete_round(game_id, 1, key)
    rounds = outcome.view.public()["rounds"]
    assert [r["number"] for r in rounds] == [1] and rounds[0]["scores"][0]["dutch"] == 5


def test_a_repeated_idempotency_key_returns_the_first_outcome(games: Games):
    game_id, key, ids = new_game(games, target=1000)
    retry = Idempotency.of("tap-1", "round", round_in(ids, WORKED_EXAMPLE_ROUND).model_dump())
    first = games.add_round(game_id, key, round_in(ids, WORKED_EXAMPLE_ROUND), idempotency=retry)
    again = games.add_round(game_id, key, round_in(ids, WORKED_EXAMPLE_ROUND), idempotency=retry)
    assert again.replayed and again.current is None and again.created
    assert again.view.public() == first.view.public()  # the first answer, rebuilt from its record
    assert len(games.get(game_id).round_ids) == 1


def test_rotating_the_key_retires_the_old_one(games: Games):
    game_id, key, _ = new_game(games)
    outcome = games.rotate_key(game_id, key)
    new_key = Credential(outcome.edit_key)
    assert new_key.key != key.key
    with pytest.raises(KeyWrong):
        games.update(game_id, key, GameUpdate(name="Old key"))
    assert games.update(game_id, new_key, GameUpdate(name="New key")).view.game.name == "New key"


def test_a_round_read_from_a_form_is_read_against_the_game_the_write_loaded(games: Games):
    game_id, key, ids = new_game(games)
    seen: list[GameView] = []

    def parse(view: GameView) -> RoundIn:
        seen.append(view)
        return round_in([p.id for p in view.players], WORKED_EXAMPLE_ROUND)

    outcome = games.add_round(game_id, key, parse)
    assert len(seen) == 1 and [p.id for p in seen[0].players] == ids
    assert list(outcome.view.state.winners) == [ids[0]]

    class Unreadable(GameError):
        pass

    def unreadable(view: GameView) -> RoundIn:
        raise Unreadable("can't read it")

    game_id, key, ids = new_game(games)
    with pytest.raises(Unreadable) as refused:
        games.add_round(game_id, key, unreadable)
    # The game as the write loaded it goes up with the refusal, still readable after the rollback.
    assert [p.name for p in refused.value.view.players] == ["Ana", "Ben", "Cy", "Dee"]
    assert refused.value.view.game.version == 1
