"""More than one game, through the API: every game family (cards, lowest, lives) and GET /api/v1/presets.

Every expected number is worked out by hand from the rules (app/rules/*.py docstrings), never by calling
the engine. cards: points = dutch × dutch_points + blitz × blitz_points (+1, −2 in every preset).
lowest (Dutch): a caller with the lowest hand scores 0, the rest their hand; a caller without it scores
their hand and takes a penalty while the lowest hands score 0; nobody called: everyone their hand.
lives (31): a 31 costs everyone else a life; else the lowest hand loses one (a sole-lowest knocker two, a
knocker tied for lowest none); on the county (0 lives) a player is in, below it out.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.answers import GameCreated, GamePublic, PresetPublic
from tests.helpers import API, GameHandle, assert_problem, game_url

NAMES = ("Ana", "Ben", "Cy", "Dee")
CARDS = {
    "kind": "cards",
    "preset": "dutch_blitz",
    "target": 75,
    "dutch_points": 1,
    "blitz_points": -2,
    "tie_break": "play_on",
    "pile_size": 10,
    "deck_size": 40,
    "must_go_out": True,
    "end": "target",
    "rounds": 10,
    "win": "highest_total",
}
DUTCH = {"kind": "lowest", "preset": "dutch", "target": 100, "tie_break": "play_on"}
THIRTY_ONE = {"kind": "lives", "preset": "thirty_one", "lives": 3, "county": True, "thirty_and_a_half": False}
NERTS, DUTCH_RULES, T31 = {"preset": "nerts"}, {"preset": "dutch"}, {"preset": "thirty_one"}
SUDDEN_31 = {"preset": "thirty_one", "lives": 1, "county": False}  # the first life lost is out
TWO_LIVES_31 = {"preset": "thirty_one", "lives": 2, "county": False}


def players(count: int) -> list[dict[str, Any]]:
    return [{"name": name} for name in NAMES[:count]]


def cards(ids: list[int], counts: list[tuple[int, int]]) -> dict[str, Any]:
    return {"scores": [{"player_id": p, "dutch": d, "blitz": b} for p, (d, b) in zip(ids, counts, strict=True)]}


def hands(ids: list[int], values: tuple[int | None, ...], **who: int | None) -> dict[str, Any]:
    """A Dutch or 31 round: each player's hand in seat order (None: not in the round), and caller/knocker."""
    body: dict[str, Any] = {
        "scores": [{"player_id": p, "hand": h} for p, h in zip(ids, values, strict=True) if h is not None]
    }
    return body | {name: pid for name, pid in who.items() if pid is not None}


def with_field(body: dict[str, Any], index: int, **extra: Any) -> dict[str, Any]:
    body["scores"][index] |= extra
    return body


def post(game: GameHandle, body: dict[str, Any], **headers: str):
    return game.client.post(game_url(game.id, "/rounds"), json=body, headers=game.auth | headers)


def play(game: GameHandle, body: dict[str, Any]) -> dict[str, Any]:
    response = post(game, body)
    assert response.status_code == 201, response.text
    return response.json()


def assert_errors(body: dict[str, Any], expected: list[tuple[str | None, list[str]]]) -> None:
    """Each (field, message fragments) is among the errors; field None: any field."""
    for field, fragments in expected:
        assert any(
            field in (None, e["field"]) and all(f.lower() in e["message"].lower() for f in fragments)
            for e in body["errors"]
        ), f"no error at {field} saying {fragments}: {body['errors']}"


def of_players(body: dict[str, Any], name: str) -> list[Any]:
    return [p[name] for p in body["players"]]


# --- the presets and the rules a new game shows ------------------------------------------------------


def test_presets_lists_all_six_dutch_blitz_first_with_kinds_defaults_and_bounds(client: TestClient):
    response = client.get(f"{API}/presets")
    assert response.status_code == 200, response.text
    presets = response.json()
    assert [(p["name"], p["kind"]) for p in presets] == [
        ("dutch_blitz", "cards"),
        ("dutch_blitz_100", "cards"),
        ("nerts", "cards"),
        ("ligretto", "cards"),
        ("dutch", "lowest"),
        ("thirty_one", "lives"),
    ]
    assert all(PresetPublic.model_validate(p).model_dump(mode="json", exclude_none=True) == p for p in presets)
    by_name = {p["name"]: p["params"] for p in presets}
    integer = {"type": "integer"}
    assert by_name["dutch_blitz"] == {
        "target": integer | {"default": 75, "minimum": 1, "maximum": 10_000},
        "dutch_points": integer | {"default": 1, "minimum": -100, "maximum": 100},
        "blitz_points": integer | {"default": -2, "minimum": -100, "maximum": 100},
        "tie_break": {"default": "play_on", "type": "string", "enum": ["play_on", "shared"]},
        "pile_size": integer | {"default": 10, "minimum": 1, "maximum": 52},
        "deck_size": integer | {"default": 40, "minimum": 1, "maximum": 208},
        "must_go_out": {"default": True, "type": "boolean"},
        "end": {"default": "target", "type": "string", "enum": ["target", "rounds"]},
        "rounds": integer | {"default": 10, "minimum": 1, "maximum": 1000},
        "win": {"default": "highest_total", "type": "string", "enum": ["highest_total", "first_to_target"]},
    }
    defaults = {name: {k: v["default"] for k, v in params.items()} for name, params in by_name.items()}
    assert defaults["dutch_blitz_100"] == {k: v for k, v in CARDS.items() if k not in ("kind", "preset")} | {
        "target": 100
    }
    assert {k: defaults["nerts"][k] for k in ("target", "pile_size", "deck_size", "must_go_out")} == {
        "target": 100,
        "pile_size": 13,
        "deck_size": 52,
        "must_go_out": True,
    }
    assert (defaults["ligretto"]["target"], defaults["ligretto"]["must_go_out"]) == (99, False)
    assert defaults["dutch"] == {"target": 100, "tie_break": "play_on"}
    assert defaults["thirty_one"] == {"lives": 3, "county": True, "thirty_and_a_half": False}
    assert by_name["thirty_one"]["lives"] == integer | {"default": 3, "minimum": 1, "maximum": 9}


RULES_SHOWN = [
    pytest.param(None, CARDS, id="no-rules"),
    pytest.param({"target": 90}, CARDS | {"target": 90}, id="v1-rules"),
    pytest.param({"preset": "dutch_blitz_100"}, CARDS | {"preset": "dutch_blitz_100", "target": 100}, id="db-100"),
    pytest.param(
        {"preset": "nerts"}, CARDS | {"preset": "nerts", "target": 100, "pile_size": 13, "deck_size": 52}, id="nerts"
    ),
    pytest.param(
        {"preset": "ligretto", "target": 50},
        CARDS | {"preset": "ligretto", "target": 50, "must_go_out": False},
        id="ligretto-50",
    ),
    pytest.param({"kind": "cards", "end": "rounds", "rounds": 5}, CARDS | {"end": "rounds", "rounds": 5}, id="rounds"),
    pytest.param({"kind": "lowest"}, DUTCH, id="lowest-kind-alone"),
    pytest.param({"preset": "dutch", "tie_break": "shared"}, DUTCH | {"tie_break": "shared"}, id="dutch-shared"),
    pytest.param({"kind": "lives"}, THIRTY_ONE, id="lives-kind-alone"),
    pytest.param(SUDDEN_31, THIRTY_ONE | {"lives": 1, "county": False}, id="31-sudden"),
]


@pytest.mark.parametrize(("rules", "shown"), RULES_SHOWN)
def test_a_new_game_shows_its_kind_preset_and_every_parameter_of_its_family(make_game, rules, shown):
    game = make_game(players(2), rules)
    assert game.body["rules"] == shown
    assert game.get()["rules"] == shown
    lives = shown["kind"] == "lives"
    assert all(("lives" in p, "out" in p) == (lives, lives) for p in game.body["players"])
    if lives:
        assert [(p["lives"], p["out"], p["total"], p["rank"]) for p in game.body["players"]] == [
            (shown["lives"], False, shown["lives"], 1)
        ] * 2


CREATE_REFUSALS = [
    pytest.param({"rules": {"kind": "lives", "preset": "nerts"}}, [("rules.preset", ["nerts", "lives"])], id="mixed"),
    pytest.param({"rules": DUTCH_RULES | {"pile_size": 12}}, [("rules.pile_size", ["pile_size"])], id="pile-dutch"),
    pytest.param({"rules": {"preset": "thirty_one", "target": 50}}, [("rules.target", ["target"])], id="target-31"),
    pytest.param({"rules": {"kind": "cards", "lives": 5}}, [("rules.lives", ["lives"])], id="lives-in-cards"),
    pytest.param({"rules": {"preset": "thirty_one", "lives": 10}}, [("rules.lives", ["9"])], id="lives-10"),
    pytest.param({"rules": {"preset": "thirty_one", "lives": 0}}, [("rules.lives", ["1"])], id="lives-0"),
    pytest.param(
        {"rules": NERTS | {"pile_size": 20, "deck_size": 15}}, [("rules.pile_size", ["20", "15"])], id="20>15"
    ),
    pytest.param({"rules": {"kind": "poker"}}, [("rules.kind", [])], id="unknown-kind"),
    pytest.param({"rules": {"preset": "uno"}}, [("rules.preset", [])], id="unknown-preset"),
    pytest.param({"rules": {"end": "never"}}, [("rules.end", [])], id="unknown-end"),
    pytest.param({"rules": {"must_go_out": 1}}, [("rules.must_go_out", ["bool"])], id="must-go-out-not-bool"),
    pytest.param(
        {"rules": {"preset": "thirty_one"}, "players": [{"name": "Ana", "starting_score": 2}, {"name": "Ben"}]},
        [("players[0].starting_score", ["31", "lives"])],
        id="starting-score-in-31",
    ),
]


@pytest.mark.parametrize(("extra", "expected"), CREATE_REFUSALS)
def test_a_new_game_with_impossible_rules_is_422(client: TestClient, extra, expected):
    response = client.post(f"{API}/games", json={"players": players(2)} | extra)
    assert_errors(assert_problem(response, 422), expected)


# --- rounds that can't happen ------------------------------------------------------------------------

CY_OUT = [lambda i: hands(i, (20, 25, 10))]  # SUDDEN_31: Cy's hand is the lowest, Cy is out
NINE_LEFT = [lambda i: cards(i, [(12, 0), (5, 9), (8, 4)])]
BLITZ3 = [(9, 0), (5, 2), (1, 3)]


def refusal(rules, build, *expected, before=(), id: str):
    return pytest.param(rules, list(before), build, list(expected), id=id)


ROUND_REFUSALS = [
    refusal(NERTS, lambda i: cards(i, [(20, 0), (10, 14), (5, 3)]), ("scores[1].blitz", ["Ben", "13"]), id="14th"),
    refusal(NERTS, lambda i: cards(i, [(50, 3), (10, 0), (5, 3)]), ("scores[0].dutch", ["Ana", "53", "52"]), id="53"),
    refusal(NERTS, lambda i: cards(i, [(20, 1), (10, 2), (5, 3)]), ("scores", ["Nobody went out"]), id="nobody-out"),
    refusal({}, lambda i: cards(i, BLITZ3) | {"caller": i[0]}, ("caller", ["caller"]), id="caller-in-cards"),
    refusal({}, lambda i: cards(i, BLITZ3) | {"knocker": i[0]}, ("knocker", ["knocker"]), id="knocker-in-cards"),
    refusal(
        {"preset": "ligretto"},
        lambda i: {"scores": [{"player_id": i[0], "hand": 5}, *cards(i[1:], [(1, 0), (2, 2)])["scores"]]},
        ("scores[0].hand", ["Ana", "hand"]),
        ("scores[0].dutch", ["Ana", "required"]),
        id="hand-in-cards",
    ),
    refusal(DUTCH_RULES, lambda i: hands(i, (5, 9, 1), knocker=i[0]), ("knocker", ["knocker"]), id="knocker"),
    refusal(
        DUTCH_RULES,
        lambda i: with_field(hands(i, (5, 9, 12)), 1, dutch=3),
        ("scores[1].dutch", ["Ben", "dutch"]),
        id="dutch-count-in-dutch",
    ),
    refusal(DUTCH_RULES, lambda i: hands(i, (5, 251, 1)), ("scores[1].hand", ["Ben", "250"]), id="hand-251"),
    refusal(DUTCH_RULES, lambda i: hands(i, (5, 9, 1), caller=987654), ("caller", ["987654"]), id="who-called"),
    refusal(
        DUTCH_RULES,
        lambda i: {"scores": [{"player_id": i[0], "hand": 5}, {"player_id": i[1]}, {"player_id": i[2], "hand": 1}]},
        ("scores[1].hand", ["Ben", "required"]),
        id="hand-missing",
    ),
    refusal(T31, lambda i: hands(i, (20, 32, 25)), ("scores[1].hand", ["Ben", "31"]), id="32-in-31"),
    refusal(T31, lambda i: with_field(hands(i, (20, 30, 25)), 2, dutch=3), ("scores[2].dutch", ["Cy"]), id="dutch-31"),
    refusal(T31, lambda i: hands(i, (20, 30, 25), caller=i[0]), ("caller", ["caller"]), id="caller-in-31"),
    refusal(
        SUDDEN_31, lambda i: hands(i, (20, 30, 25)), ("scores[2].player_id", ["Cy", "out"]), before=CY_OUT, id="out"
    ),
    refusal(
        SUDDEN_31, lambda i: hands(i, (20, 30, None), knocker=i[2]), ("knocker", ["Cy", "out"]), before=CY_OUT, id="ko"
    ),
    refusal(SUDDEN_31, lambda i: hands(i, (20, None, None)), ("scores", ["Ben", "missing"]), before=CY_OUT, id="gone"),
]


@pytest.mark.parametrize(("rules", "before", "build", "expected"), ROUND_REFUSALS)
def test_an_impossible_round_is_422_naming_the_player_and_field(make_game, rules, before, build, expected):
    game = make_game(players(3), rules)
    for round_ in before:
        play(game, round_(game.player_ids))
    seen = game.get()
    assert_errors(assert_problem(post(game, build(game.player_ids)), 422), expected)
    assert game.get() == seen


# --- full games, preset by preset ---------------------------------------------------------------------

CARD_GAMES = [
    pytest.param(
        "dutch_blitz_100",
        [
            ([(40, 0), (20, 5)], (40, 10), (40, 10)),
            ([(40, 0), (25, 3)], (40, 19), (80, 29)),  # past 75 but short of 100: on
            ([(21, 0), (30, 2)], (21, 26), (101, 55)),
        ],
        0,
        (1, 2),
        id="dutch_blitz_100",
    ),
    pytest.param(
        "nerts",
        [
            ([(30, 0), (20, 13), (25, 4)], (30, -6, 17), (30, -6, 17)),  # a full 13-card pile left
            ([(40, 2), (45, 0), (28, 5)], (36, 45, 18), (66, 39, 35)),
            ([(20, 5), (52, 0), (30, 6)], (10, 52, 18), (76, 91, 53)),  # the whole 52-card deck
            ([(20, 0), (12, 0), (10, 13)], (20, 12, -16), (96, 103, 37)),
        ],
        1,
        (2, 1, 3),
        id="nerts",
    ),
    pytest.param(
        "ligretto",
        [
            ([(15, 2), (12, 4), (10, 3)], (11, 4, 4), (11, 4, 4)),  # stuck: nobody went out
            ([(30, 0), (28, 1), (20, 5)], (30, 26, 10), (41, 30, 14)),
            ([(35, 0), (38, 0), (25, 2)], (35, 38, 21), (76, 68, 35)),
            ([(24, 0), (30, 3), (10, 1)], (24, 24, 8), (100, 92, 43)),
        ],
        0,
        (1, 2, 3),
        id="ligretto",
    ),
]


@pytest.mark.parametrize(("preset", "rounds", "winner", "ranks"), CARD_GAMES)
def test_a_cards_preset_played_to_its_winner(make_game, preset, rounds, winner, ranks):
    game = make_game(players(len(rounds[0][0])), {"preset": preset})
    ids = game.player_ids
    for number, (counts, points, totals) in enumerate(rounds, 1):
        body = play(game, cards(ids, counts))
        scores = body["rounds"][-1]["scores"]
        assert body["rounds"][-1]["number"] == number
        assert [(s["dutch"], s["blitz"], s["points"], s["total"]) for s in scores] == [
            (*c, p, t) for c, p, t in zip(counts, points, totals, strict=True)
        ]
        assert of_players(body, "total") == list(totals)
        assert body["status"] == ("finished" if number == len(rounds) else "playing")
    assert (body["winners"], body["leaders"], body["tie_break"]) == ([ids[winner]], [ids[winner]], False)
    assert of_players(body, "rank") == list(ranks)
    assert_problem(post(game, cards(ids, rounds[0][0])), 409)


def test_a_cards_game_that_ends_after_its_rounds(make_game):
    game = make_game(players(2), {"end": "rounds", "rounds": 2, "target": 10})
    ids = game.player_ids
    body = play(game, cards(ids, [(20, 0), (30, 2)]))
    assert (of_players(body, "total"), body["status"]) == ([20, 26], "playing")  # both past the target: on
    body = play(game, cards(ids, [(40, 0), (10, 3)]))
    assert (of_players(body, "total"), body["status"], body["winners"]) == ([60, 30], "finished", [ids[0]])
    assert_problem(post(game, cards(ids, [(1, 0), (1, 0)])), 409)

    tied = make_game(players(2), {"end": "rounds", "rounds": 1})
    body = play(tied, cards(tied.player_ids, [(10, 0), (12, 1)]))
    assert (of_players(body, "total"), body["status"], body["tie_break"]) == ([10, 10], "playing", True)
    body = play(tied, cards(tied.player_ids, [(5, 0), (3, 0)]))
    assert (of_players(body, "total"), body["status"], body["winners"]) == ([15, 13], "finished", [tied.player_ids[0]])


# (hands, caller seat, points, totals, penalty seat, leaders' seats, ranks); Dutch to 100, lowest wins.
DUTCH_GAME = [
    ((3, 10, 20), 0, (0, 10, 20), (0, 10, 20), None, (0,), (1, 2, 3)),  # the caller was lowest
    ((15, 2, 30), 0, (15, 0, 30), (15, 10, 50), 0, (1,), (2, 1, 3)),  # it wasn't: Ben's 0, Ana's penalty
    ((20, 20, 40), 1, (20, 0, 40), (35, 10, 90), None, (1,), (2, 1, 3)),  # caller tied for lowest: only they score 0
    ((10, 35, 12), None, (10, 35, 12), (45, 45, 102), None, (0, 1), (1, 1, 3)),  # Cy past 100; Ana and Ben tied
    ((7, 4, 9), 1, (7, 0, 9), (52, 45, 111), None, (1,), (2, 1, 3)),
]


def test_dutch_played_through_a_tie_at_the_lowest_total_to_its_winner(make_game):
    game = make_game(players(3), DUTCH_RULES)
    ids = game.player_ids
    for number, (hand, caller, points, totals, penalty, leaders, ranks) in enumerate(DUTCH_GAME, 1):
        body = play(game, hands(ids, hand, caller=None if caller is None else ids[caller]))
        last = body["rounds"][-1]
        assert last["scores"] == [
            {"player_id": pid, "hand": h, "points": p, "total": t}
            for pid, h, p, t in zip(ids, hand, points, totals, strict=True)
        ]
        assert (last["caller"], last["penalty"]) == (
            None if caller is None else ids[caller],
            None if penalty is None else ids[penalty],
        )
        assert (of_players(body, "total"), of_players(body, "rank")) == (list(totals), list(ranks))
        assert body["leaders"] == [ids[s] for s in leaders]
        if number == 4:  # the game would end with Ana and Ben tied lowest: another round
            assert (body["status"], body["tie_break"], body["winners"]) == ("playing", True, [])
    assert (body["status"], body["tie_break"], body["winners"]) == ("finished", False, [ids[1]])
    assert_problem(post(game, hands(ids, (1, 2, 3))), 409)


def test_dutch_with_shared_ties_ends_with_co_winners(make_game, client: TestClient):
    game = make_game(players(3), {"preset": "dutch", "target": 30})
    ids = game.player_ids
    body = play(game, hands(ids, (8, 8, 30)))
    assert (body["status"], body["tie_break"], body["leaders"]) == ("playing", True, ids[:2])
    response = client.patch(game_url(game.id), json={"rules": {"tie_break": "shared"}}, headers=game.auth)
    assert response.status_code == 200, response.text
    assert (response.json()["status"], response.json()["winners"]) == ("finished", ids[:2])


# (hands in seat order, None: out; knocker seat; lives lost; lives after, "out"; ranks); 31 with 3 lives and the county.
OUT = "out"
THIRTY_ONE_GAME = [
    ((25, 18, 22, 30), None, (0, 1, 0, 0), (3, 2, 3, 3), (1, 4, 1, 1)),
    ((20, 24, 15, 27), 2, (0, 0, 2, 0), (3, 2, 1, 3), (1, 3, 4, 1)),  # the knocker alone lowest: two lives
    ((20, 19, 28, 31), None, (1, 1, 1, 0), (2, 1, 0, 3), (2, 3, 4, 1)),  # a 31: everyone else loses one
    ((25, 26, 10, 29), None, (0, 0, 1, 0), (2, 1, OUT, 3), (2, 3, 4, 1)),  # Cy loses on the county: out
    ((20, 20, None, 25), 0, (0, 1, None, 0), (2, 0, OUT, 3), (2, 3, 4, 1)),  # the knocker tied lowest: safe
    ((22, 12, None, 28), None, (0, 1, None, 0), (2, OUT, OUT, 3), (2, 3, 4, 1)),
    ((20, None, None, 12), 3, (0, None, None, 2), (2, OUT, OUT, 1), (1, 3, 4, 2)),
    ((15, None, None, 15), None, (1, None, None, 1), (1, OUT, OUT, 0), (1, 3, 4, 2)),  # tied lowest: both lose
    ((20, None, None, 31), None, (1, None, None, 0), (0, OUT, OUT, 0), (1, 3, 4, 1)),  # both on the county
    ((9, None, None, 9), None, (0, None, None, 0), (0, OUT, OUT, 0), (1, 3, 4, 1)),  # would put both out: void
    ((10, None, None, 20), 0, (2, None, None, 0), (OUT, OUT, OUT, 0), (2, 3, 4, 1)),  # Ana out last: Dee wins
]


def test_thirty_one_played_to_the_last_player_in(make_game):
    game = make_game(players(4), T31)
    ids = game.player_ids
    for number, (hand, knocker, lost, lives, ranks) in enumerate(THIRTY_ONE_GAME, 1):
        body = play(game, hands(ids, hand, knocker=None if knocker is None else ids[knocker]))
        last = body["rounds"][-1]
        assert last["scores"] == [
            {"player_id": pid, "hand": h, "lives_lost": n, "lives": 0 if left == OUT else left}
            for pid, h, n, left in zip(ids, hand, lost, lives, strict=True)
            if h is not None
        ]
        assert (last["number"], last["knocker"], last["void"]) == (
            number,
            None if knocker is None else ids[knocker],
            number == 10,
        )
        assert of_players(body, "out") == [left == OUT for left in lives]
        assert of_players(body, "lives") == of_players(body, "total") == [0 if n == OUT else n for n in lives]
        assert of_players(body, "rank") == list(ranks)
        assert (body["status"], body["winners"]) == (("finished", [ids[3]]) if number == 11 else ("playing", []))
        assert body["tie_break"] is False
    assert body["leaders"] == [ids[3]]
    assert_problem(post(game, hands(ids, (None, None, None, 20))), 409)


def test_thirty_one_void_round_then_two_out_at_once_share_a_place(make_game):
    game = make_game(players(3), SUDDEN_31)
    ids = game.player_ids
    body = play(game, hands(ids, (10, 10, 10)))  # everyone would be out: counts for nothing
    assert (body["rounds"][0]["void"], body["status"]) == (True, "playing")
    assert [s["lives_lost"] for s in body["rounds"][0]["scores"]] == [0, 0, 0]
    assert (of_players(body, "lives"), of_players(body, "out")) == ([1, 1, 1], [False] * 3)
    body = play(game, hands(ids, (10, 10, 20)))
    assert (of_players(body, "out"), of_players(body, "rank")) == ([True, True, False], [2, 2, 1])
    assert (body["status"], body["winners"], body["rounds"][1]["void"]) == ("finished", [ids[2]], False)


# --- changing the rules -------------------------------------------------------------------------------

# Cy's hand is the lowest twice (with 2 lives and no county, or 1 life and the county: out), then Ana and Ben play.
LIVES_GAME = [lambda i: hands(i, (20, 25, 10)), lambda i: hands(i, (20, 25, 10)), lambda i: hands(i, (20, 25, None))]

STUCK = [lambda i: cards(i, [(5, 1), (4, 2), (3, 3)])]
CANT = ["can't change"]

PATCH_REFUSALS = [
    refusal({}, {"kind": "lowest"}, ("rules.kind", CANT), id="kind"),
    refusal({}, {"preset": "nerts"}, ("rules.preset", CANT), id="preset"),
    refusal(T31, {"kind": "cards", "preset": "dutch_blitz"}, ("rules.kind", CANT), ("rules.preset", CANT), id="both"),
    refusal({}, {"lives": 2}, ("rules.lives", ["lives", "not a rule"]), id="lives-in-cards"),
    refusal(NERTS, {"county": False}, ("rules.county", ["county"]), id="county-in-cards"),
    refusal(DUTCH_RULES, {"pile_size": 12}, ("rules.pile_size", ["pile_size"]), id="pile-in-dutch"),
    refusal(T31, {"target": 50}, ("rules.target", ["target"]), id="target-in-31"),
    refusal(T31, {"lives": 10}, ("rules.lives", ["9"]), id="lives-10"),
    refusal({}, {"pile_size": 8}, ("rules", ["Round 1"]), before=NINE_LEFT, id="pile-8-after-9-left"),
    refusal({}, {"deck_size": 13}, ("rules", ["Round 1"]), before=NINE_LEFT, id="deck-under-a-round"),
    refusal({"preset": "ligretto"}, {"must_go_out": True}, ("rules", ["Round 1"]), before=STUCK, id="stuck-round"),
    refusal(TWO_LIVES_31, {"lives": 1}, (None, ["round 2", "Cy", "out"]), before=LIVES_GAME, id="fewer-lives"),
    refusal(T31 | {"lives": 1}, {"county": False}, (None, ["round 2", "Cy", "out"]), before=LIVES_GAME, id="county"),
]


@pytest.mark.parametrize(("rules", "before", "change", "expected"), PATCH_REFUSALS)
def test_a_rules_change_that_cant_be_is_422_and_changes_nothing(
    client: TestClient, make_game, rules, before, change, expected
):
    game = make_game(players(3), rules)
    for round_ in before:
        play(game, round_(game.player_ids))
    seen = game.get()
    response = client.patch(game_url(game.id), json={"rules": change}, headers=game.auth)
    assert_errors(assert_problem(response, 422), expected)
    assert game.get() == seen


def test_rules_changes_within_the_family_rescore_the_game(client: TestClient, make_game):
    blitz = make_game(players(3))
    play(blitz, NINE_LEFT[0](blitz.player_ids))  # 12, 5 − 18 = −13, 8 − 8 = 0
    same = {"kind": "cards", "preset": "dutch_blitz", "pile_size": 9, "blitz_points": -1}
    body = client.patch(game_url(blitz.id), json={"rules": same}, headers=blitz.auth).json()
    assert body["rules"] == CARDS | {"pile_size": 9, "blitz_points": -1}
    assert of_players(body, "total") == [12, 5 - 9, 8 - 4]

    dutch = make_game(players(3), DUTCH_RULES)
    play(dutch, hands(dutch.player_ids, (3, 10, 20), caller=dutch.player_ids[0]))  # 0, 10, 20
    body = client.patch(game_url(dutch.id), json={"rules": {"target": 20}}, headers=dutch.auth).json()
    assert body["rules"] == DUTCH | {"target": 20}
    assert (body["status"], body["winners"]) == ("finished", [dutch.player_ids[0]])

    lives = make_game(players(3), T31)
    play(lives, hands(lives.player_ids, (20, 25, 10)))
    body = client.patch(game_url(lives.id), json={"rules": {"lives": 5}}, headers=lives.auth).json()
    assert (body["rules"], of_players(body, "lives")) == (THIRTY_ONE | {"lives": 5}, [5, 5, 4])


# --- corrections and deletions in 31 ---------------------------------------------------------------


def cy_out_game(make_game) -> GameHandle:
    """31 with 2 lives and no county: Cy's hand is the lowest twice and he is out; round 3 is Ana and Ben's."""
    game = make_game(players(3), TWO_LIVES_31)
    for round_ in LIVES_GAME:
        play(game, round_(game.player_ids))
    return game


@pytest.mark.parametrize(
    ("method", "number", "build", "expected"),
    [
        pytest.param("PUT", 2, lambda i: hands(i, (5, 25, 10)), ["round 3", "Cy", "still"], id="put-saves-cy"),
        pytest.param("DELETE", 1, None, ["round 2", "Cy", "still"], id="delete-a-lost-life"),
        pytest.param("DELETE", 2, None, ["round 2", "Cy", "still"], id="delete-cy-out"),
        pytest.param("PUT", 3, lambda i: hands(i, (20, 10, 5)), ["Cy", "out"], id="put-cy-back"),
        pytest.param("PUT", 3, lambda i: hands(i, (20, 25, None), knocker=i[2]), ["Cy", "knock"], id="put-out-knocks"),
    ],
)
def test_a_31_correction_that_would_break_a_later_round_is_422_and_changes_nothing(
    client: TestClient, make_game, method, number, build, expected
):
    game = cy_out_game(make_game)
    seen = game.get()
    body = build(game.player_ids) if build else None
    response = client.request(method, game_url(game.id, f"/rounds/{number}"), json=body, headers=game.auth)
    assert_errors(assert_problem(response, 422), [(None, expected)])
    assert game.get() == seen
    assert client.get(game_url(game.id, "/changes")).json() == []


def test_a_31_correction_or_deletion_that_keeps_the_later_rounds_possible_is_taken(client: TestClient, make_game):
    game = cy_out_game(make_game)
    ids = game.player_ids
    fixed = client.put(game_url(game.id, "/rounds/1"), json=hands(ids, (31, 25, 10)), headers=game.auth)
    assert fixed.status_code == 200, fixed.text  # a 31: Ben and Cy lose one each; Cy is still out in round 2
    assert (of_players(fixed.json(), "lives"), of_players(fixed.json(), "out")) == ([1, 1, 0], [False, False, True])
    gone = client.delete(game_url(game.id, "/rounds/3"), headers=game.auth)
    assert (gone.status_code, of_players(gone.json(), "lives")) == (200, [2, 1, 0])


LATER_ROUND_BREAKERS = [("PUT", "/rounds/2", lambda i: hands(i, (5, 25, 10))), ("DELETE", "/rounds/1", None)]


@pytest.mark.parametrize(
    ("method", "url", "body"), [*LATER_ROUND_BREAKERS, ("PATCH", "", lambda i: {"rules": {"lives": 1}})]
)
def test_a_later_31_round_refusal_does_not_point_at_rules_rounds(client: TestClient, make_game, method, url, body):
    game = cy_out_game(make_game)
    payload = body(game.player_ids) if body else None
    errors = assert_problem(client.request(method, game_url(game.id, url), json=payload, headers=game.auth), 422)
    # The game's rounds, not the cards rule `rules.rounds` a game of 31 doesn't have.
    assert [e["field"] for e in errors["errors"]] == ["rounds"]


def test_reverting_the_deletion_of_an_earlier_31_round_puts_it_back(client: TestClient, make_game):
    game = make_game(players(3), T31)
    ids = game.player_ids
    for hand, knocker in [((5, 20, 25), None), ((20, 25, 10), ids[2]), ((20, 25, 10), None), ((20, 25, 10), None)]:
        play(game, hands(ids, hand, knocker=knocker))  # Ana loses one; then Cy two, one, and is out
    play(game, hands(ids, (20, 25, None)))
    seen = game.get()
    assert client.delete(game_url(game.id, "/rounds/1"), headers=game.auth).status_code == 200
    change = client.get(game_url(game.id, "/changes")).json()[0]
    response = client.post(game_url(game.id, f"/changes/{change['id']}/revert"), headers=game.auth)
    assert response.status_code == 200, response.text
    assert response.json()["rounds"] == seen["rounds"]


# --- replays, the documented models, the correction log --------------------------------------------

FAMILY_ROUNDS = [
    pytest.param(NERTS, lambda i: cards(i, [(30, 0), (20, 13), (3, 1)]), id="cards"),
    pytest.param(DUTCH_RULES, lambda i: hands(i, (5, 9, 2), caller=i[1]), id="lowest"),
    pytest.param(SUDDEN_31, lambda i: hands(i, (20, 25, 9), knocker=i[0]), id="lives"),
]


@pytest.mark.parametrize(("rules", "build"), FAMILY_ROUNDS)
def test_an_idempotent_retry_of_a_round_gets_the_same_answer(make_game, rules, build):
    game = make_game(players(3), rules)
    first = post(game, build(game.player_ids), **{"Idempotency-Key": "round-1"})
    again = post(game, build(game.player_ids), **{"Idempotency-Key": "round-1"})
    assert (first.status_code, again.status_code) == (201, 201), again.text
    assert again.json() == first.json()
    assert (again.headers["Idempotent-Replayed"], "Idempotent-Replayed" in first.headers) == ("true", False)
    assert len(game.get()["rounds"]) == 1


SHAPES = {
    "cards": (set(CARDS), {"player_id", "dutch", "blitz", "points", "total"}, {"piles"}, set()),
    "lowest": (set(DUTCH), {"player_id", "hand", "points", "total"}, {"caller", "penalty"}, set()),
    "lives": (set(THIRTY_ONE), {"player_id", "hand", "lives_lost", "lives"}, {"knocker", "void"}, {"lives", "out"}),
}


@pytest.mark.parametrize(("rules", "build"), FAMILY_ROUNDS)
def test_every_answer_of_each_family_matches_the_documented_game_model_exactly(
    client: TestClient, make_game, rules, build
):
    game = make_game(players(3), rules)
    assert GameCreated.model_validate(game.body).model_dump(mode="json") == game.body
    ids = game.player_ids
    answers = [play(game, build(ids)), game.get()]
    answers.append(client.put(game_url(game.id, "/rounds/1"), json=build(ids), headers=game.auth).json())
    answers.append(client.patch(game_url(game.id), json={"name": "Again"}, headers=game.auth).json())
    answers.append(client.delete(game_url(game.id, "/rounds/1"), headers=game.auth).json())
    rule_keys, score_keys, round_extra, player_extra = SHAPES[answers[0]["rules"]["kind"]]
    for body in answers:
        assert GamePublic.model_validate(body).model_dump(mode="json") == body
        assert set(body["rules"]) == rule_keys
        assert all(
            set(p)
            == {
                "id",
                "name",
                "starting_score",
                "total",
                "rank",
                "person_id",
                "left",
                "left_after_round",
                "joined_after_round",
            }
            | player_extra
            for p in body["players"]
        )
    last = answers[1]["rounds"][0]
    assert set(last) == {"number", "scores", "started_at", "duration_s"} | round_extra
    assert all(set(s) == score_keys for s in last["scores"])


def test_the_log_keeps_a_dutch_correction_with_hands_and_caller_and_a_revert_puts_them_back(
    client: TestClient, make_game
):
    game = make_game(players(3), DUTCH_RULES)
    ana, ben, cy = ids = game.player_ids
    before = play(game, hands(ids, (5, 9, 12), caller=ben))  # Ben called but Ana was lower: penalty
    assert (before["rounds"][0]["penalty"], of_players(before, "total")) == (ben, [0, 9, 12])
    fixed = client.put(game_url(game.id, "/rounds/1"), json=hands(ids, (6, 4, 12)), headers=game.auth).json()
    assert of_players(fixed, "total") == [6, 4, 12]
    assert (fixed["rounds"][0]["caller"], fixed["rounds"][0]["penalty"]) == (None, None)
    [change] = client.get(game_url(game.id, "/changes")).json()
    assert (change["kind"], change["round"], change["revertable"]) == ("correction", 1, True)
    old = [{"player_id": ana, "hand": 5}, {"player_id": ben, "hand": 9}, {"player_id": cy, "hand": 12}]
    assert change["old"] == {"scores": old, "caller": ben}
    assert change["new"] == {"scores": [s | {"hand": h} for s, h in zip(old, (6, 4, 12), strict=True)]}
    response = client.post(game_url(game.id, f"/changes/{change['id']}/revert"), headers=game.auth)
    assert response.status_code == 200, response.text
    assert response.json()["rounds"] == game.get()["rounds"] == before["rounds"]
    latest = client.get(game_url(game.id, "/changes")).json()[0]
    assert (latest["reverts"], latest["new"], latest["old"]) == (change["id"], change["old"], change["new"])


def test_a_rules_change_whose_old_rules_no_longer_fit_the_rounds_is_not_revertable(client: TestClient, make_game):
    """31 from 3 lives down to 1: Ana's first lost life puts her out and she plays no more. Three lives
    again would make her missing from round 2, so the log says the change can't be reverted, and a
    revert is refused (409) with that reason, changing nothing."""
    game = make_game(players(3), T31)
    ids = game.player_ids
    patched = client.patch(game_url(game.id), json={"rules": {"lives": 1, "county": False}}, headers=game.auth)
    assert patched.status_code == 200, patched.text
    play(game, hands(ids, (5, 20, 25)))  # Ana lowest: out
    play(game, hands(ids, (None, 20, 25)))  # Ben lowest: out, Cy wins
    change = client.get(game_url(game.id, "/changes")).json()[0]
    assert (change["kind"], change["old"]) == ("rules", {"lives": 3, "county": True})
    assert change["revertable"] is False
    before = game.get()
    refused = client.post(game_url(game.id, f"/changes/{change['id']}/revert"), headers=game.auth)
    body = assert_problem(refused, 409)
    assert "round 2" in body["detail"] and "Ana" in body["detail"]
    assert game.get() == before


def test_the_presets_answer_304_while_unchanged(client: TestClient):
    first = client.get(f"{API}/presets")
    etag = first.headers["etag"]
    assert etag.startswith('"presets-') and first.headers["cache-control"] == "public, max-age=3600"
    again = client.get(f"{API}/presets", headers={"If-None-Match": etag})
    assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", etag)
    assert client.get(f"{API}/presets", headers={"If-None-Match": '"presets-0"'}).status_code == 200
