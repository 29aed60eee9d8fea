"""What every game's rules share: players, a round as entered, problems and their messages, and what
a game comes to (GameState). Pure: nothing from the framework or the rest of app but app.rules.names.

A game is of a *kind* (a rule family: `cards`, `lowest`, `lives`, in app.rules.cards / lowest / lives)
and a *preset* (Dutch Blitz, Nerts, Ligretto, Dutch, 31: app.rules.presets), whose parameters the
table may change within the bounds in `PARAMS`.

The standings of the games decided by totals (who leads, who won, the tie-break) are app.rules.totals'.

A little past 400 lines, on purpose: the checks every family shares sit beside the types they check, and a
hand's one non-whole value (31's 30½: `is_half`, how a row stores it) beside `Score`, which carries it; the
families import them from one place.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as _field
from enum import StrEnum
from typing import Any

from app.rules.messages import MESSAGES
from app.rules.names import clean_name, name_message, name_problem

# A Dutch Blitz deck has 40 cards (1-10 in four colours); the Blitz pile starts with 10 of them.
DECK_SIZE = 40
BLITZ_PILE_SIZE = 10
MIN_PLAYERS = 2
MAX_PLAYERS = 8  # 2-4 with the base game, 5-8 with the expansion pack

# Limits for house rules and carried-over scores: wide enough for any table, narrow enough that
# nothing overflows a database integer or a chart.
TARGET_RANGE = (1, 10_000)
POINTS_RANGE = (-100, 100)
STARTING_SCORE_RANGE = (-10_000, 10_000)
PILE_RANGE = (1, 52)
DECK_RANGE = (1, 208)  # up to four 52-card decks a player
ROUNDS_RANGE = (1, 1_000)
LIVES_RANGE = (1, 9)
# Dutch: a hand's points (a black king is 13; penalty cards make a hand grow); 31: the best suit.
HAND_RANGE = (0, 250)
THIRTY_ONE = 31
# 31's house rule `thirty_and_a_half`: three of a kind counts 30½, beating every hand but a 31. The one hand
# that is not a whole number; stored as 30 with a mark (hand_to_store / hand_from_store).
HALF_HAND = 30.5


class Kind(StrEnum):
    CARDS = "cards"  # Dutch Blitz, Nerts, Ligretto: cards played to the centre and left in a pile
    LOWEST = "lowest"  # Dutch: hand points, lowest total wins
    LIVES = "lives"  # 31: lives lost by the lowest hand, last player in wins


class TieBreak(StrEnum):
    PLAY_ON = "play_on"  # the official rules are silent; by default the tied leaders play another round
    SHARED = "shared"  # house rule: everyone tied at the top wins together


class Win(StrEnum):
    """Who wins a `cards` game that ends at the target (the rules pages disagree: docs/rules.md)."""

    HIGHEST_TOTAL = "highest_total"  # the highest total once someone reaches the target; an equal top is a tie
    FIRST_TO_TARGET = "first_to_target"  # whoever reached the target in the earliest round; several: a tie


class End(StrEnum):
    TARGET = "target"  # the game ends after the round in which someone reaches the target
    ROUNDS = "rounds"  # the game ends after a fixed number of rounds


@dataclass(frozen=True, slots=True)
class Rules:
    """A game's rules: its kind, its preset and every parameter (those of other kinds are unused)."""

    target: int = 75
    dutch_points: int = 1
    blitz_points: int = -2
    tie_break: TieBreak = TieBreak.PLAY_ON
    kind: Kind = Kind.CARDS
    preset: str = "dutch_blitz"
    pile_size: int = BLITZ_PILE_SIZE
    deck_size: int = DECK_SIZE
    must_go_out: bool = True
    end: End = End.TARGET
    rounds: int = 10
    lives: int = 3
    county: bool = True
    thirty_and_a_half: bool = False
    win: Win = Win.HIGHEST_TOTAL


# The parameters each kind shows and takes, in the order the API lists them.
PARAMS: dict[Kind, tuple[str, ...]] = {
    Kind.CARDS: (
        "target",
        "dutch_points",
        "blitz_points",
        "tie_break",
        "pile_size",
        "deck_size",
        "must_go_out",
        "end",
        "rounds",
        "win",
    ),
    Kind.LOWEST: ("target", "tie_break"),
    Kind.LIVES: ("lives", "county", "thirty_and_a_half"),
}

# Each integer parameter's bounds.
BOUNDS: dict[str, tuple[int, int]] = {
    "target": TARGET_RANGE,
    "dutch_points": POINTS_RANGE,
    "blitz_points": POINTS_RANGE,
    "pile_size": PILE_RANGE,
    "deck_size": DECK_RANGE,
    "rounds": ROUNDS_RANGE,
    "lives": LIVES_RANGE,
}


def public_rules(rules: Rules) -> dict[str, Any]:
    """The rules as the API shows them: the kind, the preset and every parameter of the kind."""
    shown: dict[str, Any] = {"kind": rules.kind.value, "preset": rules.preset}
    for name in PARAMS[rules.kind]:
        value = getattr(rules, name)
        shown[name] = value.value if isinstance(value, StrEnum) else value
    return shown


@dataclass(frozen=True, slots=True)
class Player:
    id: int
    name: str
    starting_score: int = 0
    # A player who left the game: the number of rounds they sat in (the first ones); None while they play.
    left_after: int | None = None
    # A latecomer: the number of rounds played before they came (they sit in none of those); None: from the start.
    joined_after: int | None = None

    def sits_in(self, number: int) -> bool:
        """Whether they were at the table for round `number` (a leaver: only the rounds before they left; a
        latecomer: only the rounds after they came)."""
        return (self.left_after is None or number <= self.left_after) and number > (self.joined_after or 0)


def left_by(players: Sequence[Player], played: int) -> frozenset[int]:
    """The players who had left once `played` rounds were played (they sit in no later round)."""
    return frozenset(p.id for p in players if p.left_after is not None and p.left_after <= played)


def away(players: Sequence[Player], number: int) -> frozenset[int]:
    """The players not at the table for round `number`: who had left before it, or came after it."""
    return frozenset(p.id for p in players if not p.sits_in(number))


@dataclass(frozen=True, slots=True)
class Score:
    """What one player had at the end of a round, as entered. A `cards` round has `dutch` (cards
    played to the centre) and `blitz` (cards left in the player's own pile); a `lowest` or `lives`
    round has `hand` (the hand's points), and `called` marks the player who called Dutch or knocked.
    A field left out is None (the rules say which fields a kind needs). A hand is an int, or HALF_HAND
    (a float: 31's three of a kind) and never a whole number as a float."""

    player_id: int
    dutch: int | None = None
    blitz: int | None = None
    hand: int | float | None = None
    called: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input: a message code (of MESSAGES) and its parameters, which the web
    and API layers render in the reader's language (app.i18n.problem_text); `message` is the English.

    `player_id` and `field` ("dutch", "blitz", "hand", "caller", "name", "starting_score", "players",
    "target", ...) let a form show the message beside the right field; `index` is the position in the
    submitted list.
    """

    code: str
    field: str
    player_id: int | None = None
    index: int | None = None
    params: dict[str, Any] = _field(default_factory=dict, compare=True, hash=False)

    @property
    def message(self) -> str:
        return MESSAGES[self.code].format(**self.params)


def name_refused(code: str, field: str, **where: Any) -> Problem:
    """A Problem for a refused name (app.rules.names gives the code)."""
    _, params = name_message(code)
    return Problem(code, field, params=params, **where)


@dataclass(frozen=True, slots=True)
class ScoredScore:
    player_id: int
    dutch: int
    blitz: int
    points: int  # this round's points (`lives`: minus the lives lost)
    total: int  # running total after this round (`lives`: the lives left)
    hand: int | float | None = None  # an int, or HALF_HAND
    called: bool = False
    lives_lost: int = 0  # `lives` only


@dataclass(frozen=True, slots=True)
class ScoredRound:
    number: int  # 1-based, in the order the rounds were played
    scores: tuple[ScoredScore, ...]  # `lives`: only the players still in when it was played
    caller: int | None = None  # who called Dutch or knocked
    penalty: int | None = None  # `lowest`: a caller who did not have the lowest hand takes a penalty card
    void: bool = False  # `lives`: it would have put every player out, so it counts for nothing


@dataclass(frozen=True, slots=True)
class Standing:
    player: Player
    total: int  # `lives`: the lives left
    rank: int  # competition ranking: equal places share a rank (1, 1, 3)
    to_target: int  # points still needed to reach the target (0 once reached, or with no target)
    out: bool = False  # `lives`: out of the game
    out_in: int | None = None  # `lives`: the round that put them out
    left: bool = False  # left the game: listed after the players still in, and can't win


@dataclass(frozen=True, slots=True)
class GameState:
    rules: Rules
    rounds: tuple[ScoredRound, ...]
    standings: tuple[Standing, ...]  # best first; equal places keep the players' seating order
    totals: dict[int, int]
    leaders: tuple[int, ...]  # player ids in first place now
    over: bool
    winners: tuple[int, ...]  # empty while the game is on
    tie_break_due: bool  # play_on: first place is tied when the game would end, another round decides
    out: frozenset[int] = frozenset()  # the players out of the game (`lives`) or who left it: in no new round

    @property
    def status(self) -> str:
        return "finished" if self.over else "playing"

    def playing(self, players: Sequence[Player]) -> list[Player]:
        """The players still in, in seating order (everyone but those who left, and in `lives` those out)."""
        return [p for p in players if p.id not in self.out]


# --- checks every kind shares -------------------------------------------------------------------


def check_range(value: int, bounds: tuple[int, int], code: str, params: dict | None = None, **where) -> list[Problem]:
    low, high = bounds
    if not low <= value <= high:
        return [Problem(code, params={**(params or {}), "low": low, "high": high}, **where)]
    return []


def validate_players(players: Sequence[Player], rules: Rules | None = None) -> list[Problem]:
    """2-8 players, each named, names unique ignoring case, starting scores in range (and none in 31)."""
    problems: list[Problem] = []
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        problems.append(
            Problem(
                "player_count",
                field="players",
                params={"low": MIN_PLAYERS, "high": MAX_PLAYERS, "count": len(players)},
            )
        )
    lives = rules is not None and rules.kind == Kind.LIVES
    seen: dict[str, int] = {}
    for index, player in enumerate(players):
        # Judge the name as it will be stored, so "   " is blank and " Ana" / "ana" are one name.
        name = clean_name(player.name)
        reason = name_problem(name)
        if reason:
            problems.append(name_refused(reason, field="name", index=index))
        else:
            key = name.casefold()
            if key in seen:
                problems.append(Problem("name_twice", field="name", index=index, params={"name": name}))
            seen.setdefault(key, index)
        if (
            rules is not None and lives and player.joined_after is not None
        ):  # a latecomer's: the lives they came without
            problems += check_range(
                rules.lives + player.starting_score,
                (1, rules.lives),
                "late_lives_range",
                {"name": name},
                field="starting_score",
                index=index,
            )
            continue
        if lives and player.starting_score:
            problems.append(Problem("starting_score_lives", field="starting_score", index=index))
            continue
        problems += check_range(
            player.starting_score,
            STARTING_SCORE_RANGE,
            # A refused name is not repeated back in another message.
            "starting_score_range_unnamed" if reason else "starting_score_range",
            {} if reason else {"name": name},
            field="starting_score",
            index=index,
        )
    return problems


def check_seats(
    players: Sequence[Player], scores: Sequence[Score], playing: Sequence[Player] | None = None
) -> tuple[list[Problem], list[tuple[int, Player, Score]], list[Problem]]:
    """Who is in the round: unknown players, players twice (and, when `playing` is given, players who
    are out); each usable score with its position; and the players missing (reported after the
    scores' own problems)."""
    by_id = {p.id: p for p in players}
    in_game = {p.id for p in (players if playing is None else playing)}
    problems: list[Problem] = []
    counts = Counter(s.player_id for s in scores)
    for index, score in enumerate(scores):
        if score.player_id not in by_id:
            problems.append(
                Problem(
                    "no_such_player",
                    params={"player_id": score.player_id},
                    field="player_id",
                    player_id=score.player_id,
                    index=index,
                )
            )
    usable: list[tuple[int, Player, Score]] = []
    reported_twice: set[int] = set()
    for index, score in enumerate(scores):
        player = by_id.get(score.player_id)
        if player is None:
            continue
        if counts[score.player_id] > 1:
            if score.player_id not in reported_twice:
                reported_twice.add(score.player_id)
                problems.append(
                    Problem(
                        "player_twice",
                        params={"name": player.name},
                        field="player_id",
                        player_id=player.id,
                        index=index,
                    )
                )
            continue
        if player.id not in in_game:
            code = "player_left" if player.left_after is not None else "player_out"
            problems.append(
                Problem(code, params={"name": player.name}, field="player_id", player_id=player.id, index=index)
            )
            continue
        usable.append((index, player, score))
    missing = [
        Problem("player_missing", params={"name": player.name}, field="player_id", player_id=player.id)
        for player in (players if playing is None else playing)
        if counts[player.id] == 0
    ]
    return problems, usable, missing


def check_caller(
    players: Sequence[Player], caller: int | None, rules: Rules, playing: Sequence[Player] | None = None
) -> list[Problem]:
    """The round's caller (Dutch) or knocker (31): a player of the game, and still in it."""
    field = "knocker" if rules.kind == Kind.LIVES else "caller"
    if caller is None:
        return []
    if rules.kind == Kind.CARDS:
        return [Problem("round_field_not_in_kind", field=field, params={"field": field})]
    by_id = {p.id: p for p in players}
    if caller not in by_id:
        return [Problem("no_such_player", field=field, player_id=caller, params={"player_id": caller})]
    if playing is not None and caller not in {p.id for p in playing}:
        code = "caller_not_playing" if rules.kind == Kind.LIVES else "caller_not_in_round"  # Dutch: left, or came later
        return [Problem(code, field=field, player_id=caller, params={"name": by_id[caller].name})]
    return []


def is_half(hand: object) -> bool:
    """Whether a hand is 30½ (HALF_HAND, a float: never True, 30 or "30.5")."""
    return isinstance(hand, float) and hand == HALF_HAND


def hand_to_store(hand: int | float | None) -> tuple[int | None, bool]:
    """A hand as its row stores it: the whole points and whether a half comes on top (30½: 30, True)."""
    if is_half(hand):
        return int(hand), True  # type: ignore[arg-type]
    return hand, False  # type: ignore[return-value]


def hand_from_store(hand: int | None, half: bool | None) -> int | float | None:
    """A stored hand as the rules read it: its whole points, or 30.5 with the half mark."""
    return hand + 0.5 if half and hand is not None else hand


def check_hands(usable: list[tuple[int, Player, Score]], high: int, half: bool = False) -> list[Problem]:
    """A `lowest` or `lives` round: every player's hand, a whole number in range (or, with `half`, 31's
    30½), and no card counts."""
    problems: list[Problem] = []
    for index, player, score in usable:
        where = {"player_id": player.id, "index": index}
        for name in ("dutch", "blitz"):
            if getattr(score, name) is not None:
                problems.append(
                    Problem("not_in_kind", field=name, params={"name": player.name, "field": name}, **where)
                )
        if score.hand is None:
            problems.append(Problem("hand_missing", field="hand", params={"name": player.name}, **where))
        elif not (isinstance(score.hand, int) and not isinstance(score.hand, bool)) and not (
            half and is_half(score.hand)
        ):
            code = "hand_whole_or_half" if half else "hand_whole"
            problems.append(Problem(code, field="hand", params={"name": player.name, "high": high}, **where))
        elif not 0 <= score.hand <= high:
            problems.append(Problem("hand_range", field="hand", params={"name": player.name, "high": high}, **where))
    return problems
