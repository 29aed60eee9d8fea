"""Checking a backup before anything of it is written (app.backup.usecases imports it), after its cheap
passes (app.backup.outline: the JSON, what it says it is, its counts): the whole document, every problem
found at once, each named by its JSON path (`games[3].rounds[12].scores[1].blitz`).

In passes, each only when the one before found nothing, so a message never follows from an earlier
one: its shape (types, fields, list lengths: the models of app.backup.answers); then what the rules say,
exactly as a live game would judge it: names (app.rules.names), rules (the presets' bounds), players
(`validate_players`), and each round by `scoring.validate_round` against the rounds before it (in 31,
who is still in).

Memory: a table's games are read into their models one at a time and each is kept only as what the
import writes (`CheckedGame`), its parsed JSON dropped as soon as it is read, so the peak is about
the parsed document, not the parsed document and every model of it at once (docs/performance.md,
"Importing a backup").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from app import i18n, validation
from app.backup.answers import (
    GameBackup,
    RoundBackup,
    RulesBackup,
    TableBackup,
    TableGameBackup,
)
from app.backup.outline import Draft, Findings
from app.errors import InvalidDocument
from app.i18n import _
from app.rules import cards, scoring
from app.rules.names import clean_name, game_name_problem, name_key, table_name_problem
from app.tables.usecases import checked_name, taken

M = TypeVar("M", bound=BaseModel)


@dataclass(slots=True)
class CheckedRound:
    created_at: datetime
    started_at: datetime | None
    duration_s: int | None
    scores: list[scoring.Score]  # player_id: the player's seat (their place in the game's players)
    piles: int | None = None  # the centre piles as counted (`cards`)


@dataclass(slots=True)
class CheckedGame:
    name: str
    created_at: datetime
    updated_at: datetime
    rules: scoring.Rules
    players: list[scoring.Player]  # id: the seat; names as stored
    rounds: list[CheckedRound]
    people: list[int] | None = None  # at a table: each player's person (their place in the table's people)
    seats_save_round: bool = False  # the seat settings (app.games.seats)
    seats_on_view: bool = False


@dataclass(slots=True)
class CheckedTable:
    name: str
    created_at: datetime
    updated_at: datetime
    people: list[tuple[str, datetime]]  # name as stored, when they joined
    games: list[CheckedGame]


# --- the shape: the document read into its models ---------------------------------------------------


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "body"


def shaped(document: dict[str, Any], model: type[M]) -> M:
    """The document read into its model, or every problem of its shape (the first of each list)."""
    try:
        return model.model_validate(document)
    except ValidationError as error:
        english = i18n.current() == i18n.DEFAULT
        findings = Findings()
        # pydantic words its messages in English: kept in English, said in our own words in other languages.
        for e in error.errors(include_url=False):
            findings.add(_path(tuple(e["loc"])), e["msg"] if english else validation.message(e))  # type: ignore[arg-type]
        findings.raise_any()
        raise AssertionError("unreachable") from None


def _shape(data: Any, model: type[M], at: tuple[Any, ...], findings: Findings) -> M | None:
    """`data` read into `model`, or None with its problems added, each path starting at `at`."""
    try:
        return shaped(data, model)
    except InvalidDocument as error:
        for loc, message in error.errors:
            findings.add(_path(at) + _inside(loc) if at else loc, message)
        return None


def _inside(path: str) -> str:
    """A path of `shaped` continued under another: `rounds[2]` → `.rounds[2]`; `body` (the thing itself) → ``."""
    return "" if path == "body" else f".{path}"


# --- the full check: the shape, then what the rules say -------------------------------------------


def check_game(draft: Draft) -> CheckedGame:
    data = shaped(draft.document, GameBackup)
    findings = Findings()
    game = _game(data, "", findings)
    findings.raise_any()
    return game


def check_table(draft: Draft) -> CheckedTable:
    """The table's own fields first, then its games one at a time, in order: the first game whose shape
    is wrong ends the reading (as a list read to its first wrong item), and its problems are listed
    after the table's own; the rules' problems are listed only when every shape was right."""
    document = draft.document
    games = document.get("games")
    if not isinstance(games, list):  # missing, or not a list: the model says so
        shaped(document, TableBackup)
        raise AssertionError("unreachable")
    shapes = Findings()
    top = _shape({**document, "games": []}, TableBackup, (), shapes)
    findings = Findings()
    people: list[tuple[str, datetime]] = []
    name = ""
    if top is not None:
        name = clean_name(top.name)
        if reason := table_name_problem(name):
            findings.rule("name", scoring.name_refused(reason, field="name"))
        seen: dict[str, str] = {}  # the names so far, by the key they are compared by
        for index, person in enumerate(top.people):
            cleaned, problems = checked_name(person.name)
            for problem in problems:
                findings.rule(f"people[{index}].name", problem)
            if not problems and (other := seen.setdefault(name_key(cleaned), cleaned)) is not cleaned:
                findings.rule(f"people[{index}].name", taken(other))
            people.append((cleaned, person.created_at))
    checked: list[CheckedGame] = []
    for index, game in enumerate(games):
        data = _shape(game, TableGameBackup, ("games", index), shapes)
        games[index] = None  # read: its JSON is no longer needed
        if data is None:
            break
        if not shapes.count:
            checked.append(_game(data, f"games[{index}].", findings, people))
    shapes.raise_any()
    findings.raise_any()
    assert top is not None
    return CheckedTable(name, top.created_at, top.updated_at, people, checked)


def _game(
    data: GameBackup | TableGameBackup,
    at: str,
    findings: Findings,
    people: list[tuple[str, datetime]] | None = None,
) -> CheckedGame:
    """One game checked as a live game checks its creation and then each round; `at`: its path's start."""
    before = findings.count
    name = clean_name(data.name)
    if reason := game_name_problem(name):
        findings.rule(f"{at}name", scoring.name_refused(reason, field="name"))
    rules = _rules(data.rules, f"{at}rules", findings)
    players = [
        scoring.Player(seat, clean_name(p.name), p.starting_score, p.left_after_round, p.joined_after_round)
        for seat, p in enumerate(data.players)
    ]
    for problem in scoring.validate_players(players, rules):
        where = f"{at}players[{problem.index}].{problem.field}" if problem.index is not None else f"{at}players"
        findings.rule(where, problem)
    if len(players) >= scoring.MIN_PLAYERS and sum(p.left_after is None for p in players) < scoring.MIN_PLAYERS:
        # as a live game keeps it: a leave is refused when fewer than two would stay
        findings.rule(
            f"{at}players", scoring.Problem("too_few_stay", field="left", params={"low": scoring.MIN_PLAYERS})
        )
    for seat, player in enumerate(players):
        if (player.left_after or 0) > len(data.rounds):
            findings.add(
                f"{at}players[{seat}].left_after_round",
                _("A player can't have left after round {number}: the game has {count} rounds.").format(
                    number=player.left_after, count=len(data.rounds)
                ),
            )
        if (player.joined_after or 0) > len(data.rounds):
            findings.add(
                f"{at}players[{seat}].joined_after_round",
                _("A player can't have come after round {number}: the game has {count} rounds.").format(
                    number=player.joined_after, count=len(data.rounds)
                ),
            )
        elif (
            player.joined_after is not None
            and player.left_after is not None
            and player.left_after < player.joined_after  # equal: they left having sat in no round
        ):
            findings.add(
                f"{at}players[{seat}].left_after_round",
                _("A player can't leave before they came: they came after round {number}.").format(
                    number=player.joined_after
                ),
            )
    persons = None
    if people is not None:
        persons = [p.person for p in data.players]  # type: ignore[union-attr]
        for seat, (player, person) in enumerate(zip(players, persons, strict=True)):
            if person >= len(people):
                findings.add(
                    f"{at}players[{seat}].person",
                    _("There is no person {index} among the backup's people.").format(index=person),
                )
            elif people[person][0] != player.name:
                findings.add(
                    f"{at}players[{seat}].name",
                    _("At a table a player carries their person's name: this one is {person}, not {name}.").format(
                        person=people[person][0], name=player.name
                    ),
                )
    rounds = [_round(r, f"{at}rounds[{n}]", rules, players, findings) for n, r in enumerate(data.rounds)]
    if rules is not None and findings.count == before:  # each round against the ones before it
        _play(rules, players, rounds, f"{at}rounds", findings)
    return CheckedGame(
        name,
        data.created_at,
        data.updated_at,
        rules or scoring.Rules(),
        players,
        rounds,
        persons,
        bool(data.seats.save_round),
        bool(data.seats.on_view),
    )


# The parameters added after backups began: a backup made before one lacks it and restores with it off (the
# preset's value), as the game was played.
ADDED_SINCE = frozenset({"thirty_and_a_half", "win"})


def _rules(data: RulesBackup, at: str, findings: Findings) -> scoring.Rules | None:
    """The rules, if they are a preset's kind with every parameter of the kind (one added since may be left
    out: ADDED_SINCE), in its bounds."""
    preset = scoring.PRESETS[data.preset]
    if preset.kind != data.kind:
        findings.rule(f"{at}.preset", scoring.Problem("preset_kind", field="preset", params=_kind(data)))
        return None
    params = data.params()
    allowed = scoring.PARAMS[preset.kind]
    wrong = [name for name in params if name not in allowed]
    for name in wrong:
        findings.rule(f"{at}.{name}", scoring.Problem("param_not_in_kind", field=name, params={"field": name}))
    missing = [name for name in allowed if name not in params and name not in ADDED_SINCE]
    for name in missing:
        findings.add(f"{at}.{name}", _("Field required"))
    if wrong or missing:
        return None
    rules = scoring.with_params(preset, params)
    problems = scoring.validate_rules(rules)
    for problem in problems:
        findings.rule(f"{at}.{problem.field}", problem)
    return None if problems else rules


def _kind(data: RulesBackup) -> dict[str, str]:
    return {"preset": data.preset, "kind": data.kind}


def _round(
    data: RoundBackup, at: str, rules: scoring.Rules | None, players: list[scoring.Player], findings: Findings
) -> CheckedRound:
    """The round's scores as the rules take them; the fields of another kind are left for the rules to refuse."""
    scores = [scoring.Score(s.player, s.dutch, s.blitz, s.hand, bool(s.called)) for s in data.scores]
    if rules is not None:
        names = {p.id: p.name for p in players}
        called = [i for i, s in enumerate(data.scores) if s.called is not None]
        if rules.kind == scoring.Kind.CARDS:
            for i in called:
                name = names.get(data.scores[i].player, str(data.scores[i].player))
                findings.rule(
                    f"{at}.scores[{i}].called",
                    scoring.Problem("not_in_kind", field="called", params={"name": name, "field": "called"}),
                )
        elif sum(s.called is True for s in data.scores) > 1:
            findings.add(f"{at}.scores", _("Only one player can call or knock in a round."))
        if data.piles is not None:  # as a live round's: only the card games count piles, within the decks
            for problem in cards.piles_problems(data.piles, len(data.scores), rules):
                findings.rule(f"{at}.piles", problem)
    return CheckedRound(data.created_at, data.started_at, data.duration_s, scores, data.piles)


def _play(
    rules: scoring.Rules, players: list[scoring.Player], rounds: list[CheckedRound], at: str, findings: Findings
) -> None:
    """Each round as `scoring.validate_round` judges it after the rounds before it, as a live game's new round."""
    final = scoring.score_game(players, rules, [r.scores for r in rounds])
    out_in = {s.player.id: s.out_in for s in final.standings if s.out_in is not None}  # `lives`: who went out when
    for number, round_ in enumerate(rounds, 1):
        where = f"{at}[{number - 1}]"
        caller = scoring.caller_of(round_.scores) if rules.kind != scoring.Kind.CARDS else None
        gone = scoring.away(players, number)  # who had left before this round, or came after it
        before = replace(final, out=gone)
        if rules.kind == scoring.Kind.LIVES:
            before = replace(final, out=frozenset(p for p, n in out_in.items() if n < number) | gone)
            playing = before.playing(players)
            if len(playing) < 2:
                findings.add(
                    where,
                    _("The game was over before this round: only {name} was still in.").format(
                        name=playing[0].name if playing else "–"
                    ),
                )
                continue
        called_at = next((i for i, s in enumerate(round_.scores) if s.called), None)
        for problem in scoring.validate_round(players, round_.scores, rules, caller, before):
            findings.rule(_score_path(where, problem, called_at), problem)


# Where a rule's problem with a round points in the document: its score's field ("player" for the
# rules' "player_id"), the caller's `called`, or the round's scores.
def _score_path(where: str, problem: scoring.Problem, called_at: int | None) -> str:
    if problem.field in ("caller", "knocker"):
        return f"{where}.scores[{called_at}].called" if called_at is not None else f"{where}.scores"
    if problem.index is not None:
        field = "player" if problem.field == "player_id" else problem.field
        return f"{where}.scores[{problem.index}].{field}"
    return f"{where}.scores"


def canonical(document: Any) -> str:
    """A document in one canonical spelling (for fingerprints)."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
