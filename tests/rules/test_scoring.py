"""The rules engine: round points, validation, standings, winner and tie-break.

Table-driven tests pin the rules of the design guide (the worked example, the tie-break, house rules, every
validation message); hypothesis properties check the invariants on many generated valid games.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.scoring import (
    BLITZ_PILE_SIZE,
    DECK_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    POINTS_RANGE,
    TARGET_RANGE,
    GameState,
    Player,
    Rules,
    Score,
    TieBreak,
    ranks,
    round_points,
    score_game,
    validate_players,
    validate_round,
    validate_rules,
)

ANA, BEN, CY, DEE = 1, 2, 3, 4
HOUSE_RULES = Rules(target=100, dutch_points=2, blitz_points=-1)


@dataclass(frozen=True)
class Problem:
    """A problem as a person reads it (in English): equal to an app.rules.scoring.Problem with the same
    wording, field, player and position, whatever its code and parameters."""

    message: str
    field: str
    player_id: int | None = None
    index: int | None = None

    def __eq__(self, other: object) -> bool:
        return (self.message, self.field, self.player_id, self.index) == (
            getattr(other, "message", None),
            getattr(other, "field", None),
            getattr(other, "player_id", None),
            getattr(other, "index", None),
        )

    __hash__ = None  # type: ignore[assignment]


def worked_example_players() -> list[Player]:
    return [
        Player(ANA, "Ana", starting_score=58),
        Player(BEN, "Ben", starting_score=70),
        Player(CY, "Cy", starting_score=30),
        Player(DEE, "Dee", starting_score=20),
    ]


WORKED_EXAMPLE_ROUND = [Score(ANA, 22, 0), Score(BEN, 14, 3), Score(CY, 11, 5), Score(DEE, 9, 7)]


def three_players() -> list[Player]:
    return [Player(ANA, "Ana"), Player(BEN, "Ben"), Player(CY, "Cy")]


def rank_by_id(state: GameState) -> dict[int, int]:
    return {standing.player.id: standing.rank for standing in state.standings}


# --- the worked example ---------------------------------------------------------------------------


def test_worked_example():
    players = worked_example_players()
    assert validate_round(players, WORKED_EXAMPLE_ROUND) == []

    state = score_game(players, Rules(), [WORKED_EXAMPLE_ROUND])

    (only_round,) = state.rounds
    assert only_round.number == 1
    assert [(s.player_id, s.points) for s in only_round.scores] == [(ANA, 22), (BEN, 8), (CY, 1), (DEE, -5)]
    assert [s.total for s in only_round.scores] == [80, 78, 31, 15]
    assert state.totals == {ANA: 80, BEN: 78, CY: 31, DEE: 15}
    assert [(s.player.name, s.total, s.rank, s.to_target) for s in state.standings] == [
        ("Ana", 80, 1, 0),
        ("Ben", 78, 2, 0),
        ("Cy", 31, 3, 44),
        ("Dee", 15, 4, 60),
    ]
    assert state.leaders == (ANA,)
    assert state.over is True
    assert state.winners == (ANA,)
    assert state.tie_break_due is False
    assert state.status == "finished"


def test_worked_example_score_order_in_the_round_does_not_matter():
    players = worked_example_players()
    shuffled = [WORKED_EXAMPLE_ROUND[i] for i in (3, 1, 0, 2)]
    state = score_game(players, Rules(), [shuffled])
    # Scores come back in seating order whatever order they were entered in.
    assert [s.player_id for s in state.rounds[0].scores] == [ANA, BEN, CY, DEE]
    assert state.totals == {ANA: 80, BEN: 78, CY: 31, DEE: 15}
    assert state.winners == (ANA,)


# --- round points ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dutch", "blitz", "rules", "expected"),
    [
        (22, 0, Rules(), 22),
        (14, 3, Rules(), 8),
        (11, 5, Rules(), 1),
        (9, 7, Rules(), -5),
        (0, 0, Rules(), 0),
        (0, 10, Rules(), -20),  # the worst round: nothing played, whole Blitz pile left
        (40, 0, Rules(), 40),
        (30, 10, Rules(), 10),
        (3, 10, Rules(), -17),
        (22, 0, HOUSE_RULES, 44),
        (14, 3, HOUSE_RULES, 25),
        (9, 7, HOUSE_RULES, 11),
        (0, 10, HOUSE_RULES, -10),
        (2, 10, HOUSE_RULES, -6),
        (20, 5, Rules(dutch_points=0, blitz_points=0), 0),
        (20, 5, Rules(dutch_points=-1, blitz_points=3), -5),
    ],
)
def test_round_points(dutch, blitz, rules, expected):
    assert round_points(Score(ANA, dutch, blitz), rules) == expected


def test_negative_round_lowers_the_total():
    players = [Player(ANA, "Ana", starting_score=10), Player(BEN, "Ben")]
    state = score_game(players, Rules(), [[Score(ANA, 1, 8), Score(BEN, 20, 0)]])
    assert state.rounds[0].scores[0].points == -15
    assert state.totals == {ANA: -5, BEN: 20}
    assert [s.player.id for s in state.standings] == [BEN, ANA]


# --- reaching the target, ties and the tie-break ------------------------------------------------


TIED_AT_75 = [Score(ANA, 5, 0), Score(BEN, 5, 0)]
ANA_PULLS_AHEAD = [Score(ANA, 3, 0), Score(BEN, 2, 1)]


def tied_players() -> list[Player]:
    return [Player(ANA, "Ana", starting_score=70), Player(BEN, "Ben", starting_score=70)]


def test_tie_at_the_top_under_play_on_means_another_round():
    state = score_game(tied_players(), Rules(tie_break=TieBreak.PLAY_ON), [TIED_AT_75])
    assert state.totals == {ANA: 75, BEN: 75}
    assert state.leaders == (ANA, BEN)
    assert state.over is False
    assert state.tie_break_due is True
    assert state.winners == ()
    assert state.status == "playing"
    assert [s.rank for s in state.standings] == [1, 1]


def test_tie_break_round_decides_the_game():
    state = score_game(tied_players(), Rules(tie_break=TieBreak.PLAY_ON), [TIED_AT_75, ANA_PULLS_AHEAD])
    assert state.totals == {ANA: 78, BEN: 75}
    assert state.leaders == (ANA,)
    assert state.over is True
    assert state.tie_break_due is False
    assert state.winners == (ANA,)
    assert rank_by_id(state) == {ANA: 1, BEN: 2}


def test_tie_break_round_that_ties_again_plays_on():
    still_tied = [Score(ANA, 4, 0), Score(BEN, 6, 1)]
    state = score_game(tied_players(), Rules(), [TIED_AT_75, still_tied])
    assert state.totals == {ANA: 79, BEN: 79}
    assert (state.over, state.tie_break_due, state.winners) == (False, True, ())


def test_tie_at_the_top_under_shared_ends_with_both_winners():
    state = score_game(tied_players(), Rules(tie_break=TieBreak.SHARED), [TIED_AT_75])
    assert state.totals == {ANA: 75, BEN: 75}
    assert state.over is True
    assert state.winners == (ANA, BEN)
    assert state.tie_break_due is False
    assert state.status == "finished"


@pytest.mark.parametrize("tie_break", list(TieBreak))
def test_tie_below_the_target_is_just_a_game_in_progress(tie_break):
    players = [Player(ANA, "Ana", starting_score=60), Player(BEN, "Ben", starting_score=60)]
    state = score_game(players, Rules(tie_break=tie_break), [TIED_AT_75])
    assert state.totals == {ANA: 65, BEN: 65}
    assert state.leaders == (ANA, BEN)
    assert (state.over, state.tie_break_due, state.winners) == (False, False, ())


def test_tie_below_the_top_does_not_stop_the_leader_winning():
    players = [Player(ANA, "Ana", 80), Player(BEN, "Ben", 76), Player(CY, "Cy", 76)]
    state = score_game(players, Rules(), [[Score(ANA, 0, 0), Score(BEN, 0, 0), Score(CY, 0, 0)]])
    assert (state.over, state.tie_break_due, state.winners) == (True, False, (ANA,))
    assert [(s.player.id, s.rank) for s in state.standings] == [(ANA, 1), (BEN, 2), (CY, 2)]


@pytest.mark.parametrize(
    ("dutch", "total", "over", "to_target"),
    [
        (5, 75, True, 0),  # reaching the target exactly counts
        (4, 74, False, 1),
        (6, 76, True, 0),
    ],
)
def test_reaching_the_target_exactly_counts(dutch, total, over, to_target):
    players = [Player(ANA, "Ana", starting_score=70), Player(BEN, "Ben")]
    state = score_game(players, Rules(), [[Score(ANA, dutch, 0), Score(BEN, 0, 0)]])
    assert state.totals[ANA] == total
    assert state.over is over
    assert state.winners == ((ANA,) if over else ())
    assert state.standings[0].to_target == to_target


@pytest.mark.parametrize("tie_break", list(TieBreak))
@pytest.mark.parametrize("starting", [(80, 60), (90, 90), (75, 75)])
def test_game_with_no_rounds_is_never_over(tie_break, starting):
    players = [Player(ANA, "Ana", starting[0]), Player(BEN, "Ben", starting[1])]
    state = score_game(players, Rules(tie_break=tie_break), [])
    assert state.rounds == ()
    assert state.totals == {ANA: starting[0], BEN: starting[1]}
    assert state.over is False
    assert state.tie_break_due is False
    assert state.winners == ()
    assert state.status == "playing"
    assert state.standings[0].total == max(starting)


def test_house_rules_target_100_with_2_per_dutch_and_minus_1_per_blitz():
    assert validate_rules(HOUSE_RULES) == []
    players = [Player(ANA, "Ana"), Player(BEN, "Ben")]
    round_1 = [Score(ANA, 40, 0), Score(BEN, 20, 10)]
    round_2 = [Score(ANA, 10, 0), Score(BEN, 30, 0)]

    after_one = score_game(players, HOUSE_RULES, [round_1])
    assert after_one.totals == {ANA: 80, BEN: 30}
    assert after_one.over is False  # 80 would have won with the official target of 75
    assert score_game(players, Rules(dutch_points=2, blitz_points=-1), [round_1]).winners == (ANA,)

    after_two = score_game(players, HOUSE_RULES, [round_1, round_2])
    assert [s.points for s in after_two.rounds[1].scores] == [20, 60]
    assert after_two.totals == {ANA: 100, BEN: 90}
    assert after_two.over is True
    assert after_two.winners == (ANA,)
    assert [s.to_target for s in after_two.standings] == [0, 10]


# --- player count and names -------------------------------------------------------------------


def test_two_player_game():
    players = [Player(ANA, "Ana"), Player(BEN, "Ben")]
    assert validate_players(players) == []
    rounds = [[Score(ANA, 30, 0), Score(BEN, 25, 2)], [Score(ANA, 28, 1), Score(BEN, 35, 0)]]
    for game_round in rounds:
        assert validate_round(players, game_round) == []
    state = score_game(players, Rules(), rounds)
    assert state.totals == {ANA: 56, BEN: 56}
    assert state.tie_break_due is False  # tied but nobody has 75 yet
    state = score_game(players, Rules(), [*rounds, [Score(ANA, 20, 0), Score(BEN, 19, 4)]])
    assert state.totals == {ANA: 76, BEN: 67}
    assert (state.over, state.winners) == (True, (ANA,))


def test_eight_player_game():
    names = ["Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal"]
    players = [Player(i, name) for i, name in enumerate(names, start=1)]
    assert validate_players(players) == []
    game_round = [Score(i, 5 * i, 8 - i) for i in range(1, 9)]  # Hal called Blitz
    assert validate_round(players, game_round) == []
    state = score_game(players, Rules(), [game_round, game_round])
    # per round: 5i - 2(8 - i) = 7i - 16
    assert state.totals == {i: 2 * (7 * i - 16) for i in range(1, 9)}
    assert [s.player.name for s in state.standings] == names[::-1]
    assert [s.rank for s in state.standings] == list(range(1, 9))
    assert state.totals[8] == 80
    assert (state.over, state.winners) == (True, (8,))


def n_players(count: int) -> list[Player]:
    return [Player(i, f"Player {i}") for i in range(1, count + 1)]


@pytest.mark.parametrize("count", [0, 1, 9, 12])
def test_validate_players_rejects_wrong_player_count(count):
    assert validate_players(n_players(count)) == [
        Problem(f"A game has 2 to 8 players; this one has {count}.", field="players")
    ]


@pytest.mark.parametrize("count", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_validate_players_accepts_2_to_8_players(count):
    assert validate_players(n_players(count)) == []


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Enter a name."),
        ("   ", "Enter a name."),
        ("\t \n", "Enter a name."),
        ("x" * 41, "A name can have at most 40 characters."),
        ("Ana\x00", "A name can't contain control characters."),
        ("Ana\nBen", "A name can't contain control characters."),
        ("A\x1bB", "A name can't contain control characters."),
        ("A\x7fB", "A name can't contain control characters."),
        ("\u202eanA", "A name can't contain text-direction control characters."),
        ("Ana\u2066", "A name can't contain text-direction control characters."),
        ("Ana\u200f", "A name can't contain text-direction control characters."),
        ("Ana\u061c", "A name can't contain text-direction control characters."),
        ("Ana\ud800", "A name can't contain broken characters (lone surrogates)."),
        ("\udfff", "A name can't contain broken characters (lone surrogates)."),
        ("\u200b", "A name needs at least one visible character."),  # zero-width space
        ("\u200b\u200b\u200b", "A name needs at least one visible character."),
        ("\u200c\u200d", "A name needs at least one visible character."),  # zero-width (non-)joiner
        ("\u2060\ufeff", "A name needs at least one visible character."),  # word joiner, BOM
        ("\u00ad", "A name needs at least one visible character."),  # soft hyphen
        ("\ufe0f\ufe0e", "A name needs at least one visible character."),  # variation selectors
        ("\U000e0041\U000e0042", "A name needs at least one visible character."),  # tag characters
        ("\u0301\u0308", "A name needs at least one visible character."),  # combining marks alone
        ("\u3164", "A name needs at least one visible character."),  # Hangul filler
        ("\u115f\u1160", "A name needs at least one visible character."),  # Hangul choseong/jungseong fillers
        ("\u2800", "A name needs at least one visible character."),  # blank Braille pattern
        ("\u3000\u200b\u2003", "A name needs at least one visible character."),  # ideographic + em space
    ],
)
def test_validate_players_rejects_bad_names(name, message):
    players = [Player(ANA, "Ana Two"), Player(BEN, name)]
    assert validate_players(players) == [Problem(message, field="name", index=1)]


@pytest.mark.parametrize(
    "name",
    [
        "Zoë",
        "Юлия",
        "🃏 Jo",
        "José",
        "李雷",
        "Ana-María O'Neil",
        "عائشة",
        "x" * 40,
        "  Padded  ",
        "👩\u200d👩\u200d👧",  # an emoji family: joiners between visible characters
        "❤\ufe0f",  # a variation selector after a visible character
        "한\u200b글",  # a zero-width space inside a visible name
        "\u0915\u094d\u0937",  # Devanagari conjunct with a virama (a mark) between letters
        "\U0001fa77",  # pink heart (Unicode 15): unassigned in older Python tables, still a name
        "\ue000",  # private use: a font's own glyph
    ],
)
def test_validate_players_accepts_names_in_any_script(name):
    assert validate_players([Player(ANA, "Ana"), Player(BEN, name)]) == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Ana", "ana"),
        ("Ana", "ANA"),
        ("Ana", " Ana "),
        ("Straße", "STRASSE"),
        ("Zo\u00eb", "Zoe\u0308"),  # the same "ë", composed and decomposed
    ],
)
def test_validate_players_rejects_duplicate_names_ignoring_case(first, second):
    players = [Player(ANA, first), Player(BEN, "Ben"), Player(CY, second)]
    assert validate_players(players) == [
        Problem(
            f"Two players are called {unicodedata.normalize('NFC', second.strip())}; "
            "give each player a different name.",
            field="name",
            index=2,
        )
    ]


def test_validate_players_checks_starting_scores():
    players = [Player(ANA, "Ana", starting_score=10_001), Player(BEN, "Ben", starting_score=-10_000)]
    assert validate_players(players) == [
        Problem("Ana's starting score must be between -10000 and 10000.", field="starting_score", index=0)
    ]


def test_a_starting_score_message_does_not_repeat_a_refused_name():
    spoof = "\u202eAna"  # a text-direction control: refused, and not shown back in the next message
    problems = validate_players([Player(ANA, spoof, starting_score=99_999), Player(BEN, "Ben")])
    assert [(p.field, p.message) for p in problems] == [
        ("name", "A name can't contain text-direction control characters."),
        ("starting_score", "This player's starting score must be between -10000 and 10000."),
    ]


def test_validate_players_reports_every_problem():
    problems = validate_players([Player(ANA, "")])
    assert [(p.field, p.index) for p in problems] == [("players", None), ("name", 0)]


# --- validate_round -----------------------------------------------------------------------------


VALID_ROUND = [Score(ANA, 22, 0), Score(BEN, 14, 3), Score(CY, 11, 5)]


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        pytest.param(
            [Score(ANA, 22, 0), Score(BEN, 14, 3)],
            [Problem("Cy is missing from this round.", field="player_id", player_id=CY)],
            id="player-missing",
        ),
        pytest.param(
            [Score(ANA, 22, 0), Score(BEN, 14, 3), Score(CY, 11, 5), Score(ANA, 1, 0)],
            [Problem("Ana is in this round more than once.", field="player_id", player_id=ANA, index=0)],
            id="player-twice",
        ),
        pytest.param(
            [*VALID_ROUND, Score(99, 5, 5)],
            [Problem("There is no player 99 in this game.", field="player_id", player_id=99, index=3)],
            id="unknown-player",
        ),
        pytest.param(
            [Score(ANA, 22, 0), Score(BEN, -1, 3), Score(CY, 11, 5)],
            [Problem("Ben: Dutch cards must be between 0 and 40.", field="dutch", player_id=BEN, index=1)],
            id="dutch-minus-1",
        ),
        pytest.param(
            [Score(ANA, 22, 0), Score(BEN, 41, 0), Score(CY, 11, 5)],
            [Problem("Ben: Dutch cards must be between 0 and 40.", field="dutch", player_id=BEN, index=1)],
            id="dutch-41",
        ),
        pytest.param(
            [Score(ANA, 22, 0), Score(BEN, 14, -1), Score(CY, 11, 5)],
            [Problem("Ben: Blitz cards left must be between 0 and 10.", field="blitz", player_id=BEN, index=1)],
            id="blitz-minus-1",
        ),
        pytest.param(
            [Score(ANA, 22, 0), Score(BEN, 14, 3), Score(CY, 11, 11)],
            [Problem("Cy: Blitz cards left must be between 0 and 10.", field="blitz", player_id=CY, index=2)],
            id="blitz-11",
        ),
        pytest.param(
            [Score(ANA, 22, 0), Score(BEN, 35, 8), Score(CY, 11, 5)],
            [
                Problem(
                    "Ben: 35 Dutch cards and 8 Blitz cards left make 43, but a deck has only 40 cards.",
                    field="dutch",
                    player_id=BEN,
                    index=1,
                )
            ],
            id="dutch-plus-blitz-over-40",
        ),
        pytest.param(
            [Score(ANA, 31, 10), Score(BEN, 14, 0), Score(CY, 11, 5)],
            [
                Problem(
                    "Ana: 31 Dutch cards and 10 Blitz cards left make 41, but a deck has only 40 cards.",
                    field="dutch",
                    player_id=ANA,
                    index=0,
                )
            ],
            id="dutch-plus-blitz-41",
        ),
        pytest.param(
            [Score(ANA, 22, 1), Score(BEN, 14, 3), Score(CY, 11, 5)],
            [Problem("Nobody called Blitz: at least one player must have 0 Blitz cards left.", field="blitz")],
            id="nobody-called-blitz",
        ),
    ],
)
def test_validate_round_problems(scores, expected):
    problems = validate_round(three_players(), scores)
    assert problems == expected
    for problem in problems:
        if problem.player_id in (ANA, BEN, CY):
            name = {ANA: "Ana", BEN: "Ben", CY: "Cy"}[problem.player_id]
            assert problem.message.startswith(name)


@pytest.mark.parametrize(
    "scores",
    [
        pytest.param(VALID_ROUND, id="typical"),
        pytest.param([Score(CY, 11, 5), Score(ANA, 22, 0), Score(BEN, 14, 3)], id="any-order"),
        pytest.param([Score(ANA, 40, 0), Score(BEN, 30, 10), Score(CY, 0, 10)], id="limits"),
        pytest.param([Score(ANA, 0, 0), Score(BEN, 0, 0), Score(CY, 0, 0)], id="all-zero"),
    ],
)
def test_validate_round_accepts_valid_rounds(scores):
    assert validate_round(three_players(), scores) == []


def test_validate_round_reports_several_problems_at_once():
    scores = [Score(ANA, 41, 11), Score(BEN, 14, 3)]
    assert validate_round(three_players(), scores) == [
        Problem("Ana: Dutch cards must be between 0 and 40.", field="dutch", player_id=ANA, index=0),
        Problem("Ana: Blitz cards left must be between 0 and 10.", field="blitz", player_id=ANA, index=0),
        Problem("Cy is missing from this round.", field="player_id", player_id=CY),
        Problem("Nobody called Blitz: at least one player must have 0 Blitz cards left.", field="blitz"),
    ]


# --- validate_rules -----------------------------------------------------------------------------

TARGET_MESSAGE = "The target must be between 1 and 10000 points."
DUTCH_MESSAGE = "Points per Dutch card must be between -100 and 100."
BLITZ_MESSAGE = "Points per Blitz card must be between -100 and 100."


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (Rules(), []),
        (HOUSE_RULES, []),
        (Rules(target=1), []),
        (Rules(target=10_000), []),
        (Rules(target=0), [Problem(TARGET_MESSAGE, field="target")]),
        (Rules(target=-75), [Problem(TARGET_MESSAGE, field="target")]),
        (Rules(target=10_001), [Problem(TARGET_MESSAGE, field="target")]),
        (Rules(dutch_points=-100, blitz_points=100), []),
        (Rules(dutch_points=100, blitz_points=-100), []),
        (Rules(dutch_points=101), [Problem(DUTCH_MESSAGE, field="dutch_points")]),
        (Rules(dutch_points=-101), [Problem(DUTCH_MESSAGE, field="dutch_points")]),
        (Rules(blitz_points=101), [Problem(BLITZ_MESSAGE, field="blitz_points")]),
        (Rules(blitz_points=-101), [Problem(BLITZ_MESSAGE, field="blitz_points")]),
        (
            Rules(target=0, dutch_points=500, blitz_points=-500),
            [
                Problem(TARGET_MESSAGE, field="target"),
                Problem(DUTCH_MESSAGE, field="dutch_points"),
                Problem(BLITZ_MESSAGE, field="blitz_points"),
            ],
        ),
    ],
)
def test_validate_rules(rules, expected):
    assert validate_rules(rules) == expected


# --- ranks --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("totals", "expected"),
    [
        ([], []),
        ([5], [1]),
        ([10, 10, 5], [1, 1, 3]),
        ([5, 10, 10], [3, 1, 1]),
        ([1, 2, 3], [3, 2, 1]),
        ([7, 7, 7], [1, 1, 1]),
        ([3, 1, 3, 2], [1, 4, 1, 3]),
        ([-5, 0, 0, 10], [4, 2, 2, 1]),
        ([80, 78, 31, 15], [1, 2, 3, 4]),
    ],
)
def test_ranks(totals, expected):
    assert ranks(totals) == expected


def test_standings_share_places_and_keep_seating_order_for_ties():
    players = [Player(ANA, "Ana", 5), Player(BEN, "Ben", 10), Player(CY, "Cy", 10)]
    state = score_game(players, Rules(), [])
    assert [(s.player.id, s.total, s.rank) for s in state.standings] == [
        (BEN, 10, 1),
        (CY, 10, 1),
        (ANA, 5, 3),
    ]


# --- editing the past ---------------------------------------------------------------------------


def edit_game() -> tuple[list[Player], list[list[Score]]]:
    players = [Player(ANA, "Ana", 40), Player(BEN, "Ben", 40), Player(CY, "Cy")]
    rounds = [
        [Score(ANA, 10, 0), Score(BEN, 12, 2), Score(CY, 20, 4)],  # Ana 50, Ben 48, Cy 12
        [Score(ANA, 8, 4), Score(BEN, 20, 0), Score(CY, 5, 1)],  # Ana 50, Ben 68, Cy 15
        [Score(ANA, 18, 0), Score(BEN, 15, 0), Score(CY, 9, 2)],  # Ana 68, Ben 83, Cy 20
    ]
    return players, rounds


def test_deleting_a_past_round_changes_the_outcome():
    players, rounds = edit_game()
    full = score_game(players, Rules(), rounds)
    assert full.totals == {ANA: 68, BEN: 83, CY: 20}
    assert (full.over, full.winners) == (True, (BEN,))

    remaining = [r for n, r in enumerate(rounds) if n != 1]
    without_round_2 = score_game(players, Rules(), remaining)
    assert without_round_2 == score_game(players, Rules(), [rounds[0], rounds[2]])
    assert without_round_2.totals == {ANA: 68, BEN: 63, CY: 17}
    assert [r.number for r in without_round_2.rounds] == [1, 2]
    assert [s.total for s in without_round_2.rounds[1].scores] == [68, 63, 17]
    assert without_round_2.leaders == (ANA,)
    assert (without_round_2.over, without_round_2.winners) == (False, ())

    without_round_3 = score_game(players, Rules(), rounds[:2])
    assert without_round_3 == score_game(players, Rules(), [rounds[0], rounds[1]])
    assert without_round_3.totals == {ANA: 50, BEN: 68, CY: 15}
    assert (without_round_3.over, without_round_3.winners) == (False, ())


def test_editing_a_past_round_changes_the_outcome():
    players, rounds = edit_game()
    edited = [rounds[0], [Score(ANA, 8, 4), Score(BEN, 12, 4), Score(CY, 5, 0)], rounds[2]]
    state = score_game(players, Rules(), edited)
    assert [s.total for s in state.rounds[1].scores] == [50, 52, 17]
    assert state.totals == {ANA: 68, BEN: 67, CY: 22}
    assert (state.over, state.winners, state.leaders) == (False, (), (ANA,))

    # An edit that lets Ana catch Ben turns Ben's win into a tie-break.
    tied = [rounds[0], rounds[1], [Score(ANA, 33, 0), Score(BEN, 15, 0), Score(CY, 9, 2)]]
    state = score_game(players, Rules(), tied)
    assert state.totals == {ANA: 83, BEN: 83, CY: 20}
    assert (state.over, state.tie_break_due, state.winners) == (False, True, ())


def test_changing_rules_mid_game_recomputes_every_round():
    players, rounds = edit_game()
    state = score_game(players, HOUSE_RULES, rounds)
    # Every round, not only the ones after the change, is scored with 2 per Dutch and -1 per Blitz card.
    assert [[s.points for s in r.scores] for r in state.rounds] == [[20, 22, 36], [12, 40, 9], [36, 30, 16]]
    assert state.totals == {ANA: 108, BEN: 132, CY: 61}
    assert (state.over, state.winners) == (True, (BEN,))

    state = score_game(players, Rules(target=90), rounds)
    assert state.totals == {ANA: 68, BEN: 83, CY: 20}
    assert (state.over, state.winners) == (False, ())

    state = score_game(players, Rules(target=50), rounds[:1])
    assert (state.over, state.winners) == (True, (ANA,))


# --- properties ---------------------------------------------------------------------------------

points_strategy = st.one_of(st.integers(-3, 3), st.integers(*POINTS_RANGE))
# Small, equal starting scores and level rounds make ties at the top (and so the tie-break) common.
starting_score_strategy = st.one_of(st.sampled_from([0, 60, 75]), st.integers(-20, 100), st.integers(-10_000, 10_000))


@st.composite
def valid_rounds(draw, player_ids: list[int]) -> list[Score]:
    caller = draw(st.sampled_from(player_ids))
    scores = []
    for player_id in player_ids:
        blitz = 0 if player_id == caller else draw(st.integers(0, BLITZ_PILE_SIZE))
        dutch = draw(st.integers(0, DECK_SIZE - blitz))
        scores.append(Score(player_id, dutch, blitz))
    return draw(st.permutations(scores))


@st.composite
def level_rounds(draw, player_ids: list[int]) -> list[Score]:
    """Everyone plays the same cards and empties their Blitz pile: nobody gains on anyone."""
    dutch = draw(st.integers(0, DECK_SIZE))
    return [Score(player_id, dutch, 0) for player_id in player_ids]


@st.composite
def games(draw) -> tuple[list[Player], Rules, list[list[Score]]]:
    count = draw(st.integers(MIN_PLAYERS, MAX_PLAYERS))
    ids = draw(st.lists(st.integers(1, 1_000_000), min_size=count, max_size=count, unique=True))
    if draw(st.booleans()):  # everyone starts level
        starting_scores = [draw(starting_score_strategy)] * count
    else:
        starting_scores = [draw(starting_score_strategy) for _ in ids]
    players = [
        Player(pid, f"Player {n}", score) for n, (pid, score) in enumerate(zip(ids, starting_scores, strict=True))
    ]
    no_rounds_yet = draw(st.integers(0, 9)) == 0
    rounds = [] if no_rounds_yet else draw(st.lists(valid_rounds(ids) | level_rounds(ids), min_size=1, max_size=6))
    dutch_points, blitz_points = draw(points_strategy), draw(points_strategy)
    top = max(
        p.starting_score
        + sum(s.dutch * dutch_points + s.blitz * blitz_points for r in rounds for s in r if s.player_id == p.id)
        for p in players
    )
    # Targets right at the highest total (and one past it) test "reaching the target exactly counts".
    near_top = st.sampled_from([top, top + 1]).map(lambda t: min(max(t, TARGET_RANGE[0]), TARGET_RANGE[1]))
    target = draw(st.one_of(near_top, st.integers(1, 150), st.integers(*TARGET_RANGE)))
    tie_break = draw(st.sampled_from(TieBreak))
    return players, Rules(target, dutch_points, blitz_points, tie_break), rounds


@settings(max_examples=200)
@given(games())
def test_property_total_is_starting_score_plus_points(game):
    players, rules, rounds = game
    state = score_game(players, rules, rounds)
    for player in players:
        own = [s for game_round in rounds for s in game_round if s.player_id == player.id]
        expected = player.starting_score + sum(s.dutch * rules.dutch_points + s.blitz * rules.blitz_points for s in own)
        assert state.totals[player.id] == expected
    assert len(state.rounds) == len(rounds)
    for scored in state.rounds:
        assert [s.player_id for s in scored.scores] == [p.id for p in players]
    if state.rounds:
        assert {s.player_id: s.total for s in state.rounds[-1].scores} == state.totals


@settings(max_examples=200)
@given(games(), st.randoms(use_true_random=False))
def test_property_order_of_players_and_scores_changes_nothing(game, random):
    players, rules, rounds = game
    shuffled_players = random.sample(players, len(players))
    shuffled_rounds = [random.sample(game_round, len(game_round)) for game_round in rounds]
    before = score_game(players, rules, rounds)
    after = score_game(shuffled_players, rules, shuffled_rounds)
    assert after.totals == before.totals
    assert rank_by_id(after) == rank_by_id(before)
    assert set(after.winners) == set(before.winners)
    assert set(after.leaders) == set(before.leaders)
    assert after.over == before.over
    assert after.tie_break_due == before.tie_break_due


@settings(max_examples=200)
@given(games())
def test_property_over_and_tie_break_due(game):
    players, rules, rounds = game
    state = score_game(players, rules, rounds)
    top = max(state.totals.values())
    leaders = [p.id for p in players if state.totals[p.id] == top]
    reached = bool(rounds) and top >= rules.target
    shared = rules.tie_break == TieBreak.SHARED
    assert state.over == (reached and (len(leaders) == 1 or shared))
    assert state.tie_break_due == (reached and len(leaders) > 1 and not shared)
    assert not (state.over and state.tie_break_due)
    assert list(state.leaders) == leaders
    assert list(state.winners) == (leaders if state.over else [])
    assert state.status == ("finished" if state.over else "playing")


@settings(max_examples=200)
@given(games())
def test_property_ranks_and_standings_order(game):
    players, rules, rounds = game
    state = score_game(players, rules, rounds)
    totals = [s.total for s in state.standings]
    assert sorted(s.player.id for s in state.standings) == sorted(p.id for p in players)
    assert totals == sorted(totals, reverse=True)
    for standing in state.standings:
        assert standing.total == state.totals[standing.player.id]
        assert standing.rank == 1 + sum(t > standing.total for t in state.totals.values())
        assert standing.to_target == max(0, rules.target - standing.total)
    seat = {p.id: n for n, p in enumerate(players)}
    for a, b in zip(state.standings, state.standings[1:], strict=False):
        if a.total == b.total:
            assert seat[a.player.id] < seat[b.player.id]


@settings(max_examples=200)
@given(games())
def test_property_generated_rounds_are_valid(game):
    players, rules, rounds = game
    assert validate_rules(rules) == []
    for game_round in rounds:
        assert validate_round(players, game_round) == []
