"""A backup's cheap passes, before the full check (app.backup.check): the JSON itself and what it says it is
(`format`, `format_version`), then its counts (games, each game's rounds), which bound what the rest
costs: a document that can't be imported for its size is refused before any model is built, and the
caller can count its games (the import limit) before paying for the full check. And what both share:
the problems found (`Findings`), each named by its JSON path, and the refusal that lists them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.backup.answers import FORMAT_VERSION, GAME_FORMAT, MAX_IMPORT_GAMES, TABLE_FORMAT
from app.errors import InvalidDocument
from app.i18n import _, fill, ngettext, problem_text
from app.rules import scoring
from app.strictjson import BodyProblem, parse

MAX_REPORTED = 100  # problems listed in one answer: the first ones, in the document's order


@dataclass(slots=True)
class Draft:
    """A document parsed and outlined (`outline`), not yet fully checked: what it is and how many games
    it would make. The full check consumes `document` (each game's JSON is dropped once read)."""

    document: dict[str, Any]
    format: str
    games: int


class Findings:
    """The problems found so far, each with its path and its message in the request's language."""

    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []
        self.count = 0  # every problem found, listed or not

    def add(self, path: str, message: str) -> None:
        self.count += 1
        if len(self.errors) < MAX_REPORTED:
            self.errors.append((path, message))

    def rule(self, path: str, problem: scoring.Problem) -> None:
        self.add(path, problem_text(problem))

    def raise_any(self) -> None:
        if self.errors:
            raise _refusal(self.errors)


def refused(path: str, message: str) -> InvalidDocument:
    """The one problem of a document that can't be read any further."""
    return _refusal([(path, message)])


def _refusal(errors: list[tuple[str, str]]) -> InvalidDocument:
    return InvalidDocument(_("The backup can't be imported, and nothing of it was: see errors."), errors)


# --- the JSON and what it says it is ----------------------------------------------------------------


def read(body: bytes, expected: str) -> dict[str, Any]:
    """The document parsed strictly (app.strictjson), if it says it is a backup of this format and version."""
    try:
        document = parse(body)
    except BodyProblem as problem:
        raise refused(problem.field, problem.message) from None
    except UnicodeDecodeError:
        raise refused("body", _("The body is not valid JSON: it is not UTF-8 text.")) from None
    except RecursionError:
        raise refused("body", _("The body is not valid JSON: it is nested too deeply.")) from None
    except ValueError:  # json.JSONDecodeError among them
        raise refused("body", _("The body is not valid JSON.")) from None
    if not isinstance(document, dict):
        raise refused("body", _("Input should be an object"))
    found = document.get("format")
    if found != expected:
        if found == GAME_FORMAT:
            message = _("This is a game's backup: import it with POST /api/v1/games/import.")
        elif found == TABLE_FORMAT:
            message = _("This is a table's backup: import it with POST /api/v1/tables/import.")
        else:
            message = _("This is not a backup this import reads: “format” must be “{format}”.").format(format=expected)
        raise refused("format", message)
    version = document.get("format_version")
    if "format_version" not in document:
        raise refused("format_version", _("Field required"))
    if type(version) is not int:  # not a bool, nor 1.0
        raise refused("format_version", _("Input should be a valid integer"))
    if version != FORMAT_VERSION:
        raise refused(
            "format_version",
            _("This server reads backups of format version {supported}; this one is version {version}.").format(
                supported=FORMAT_VERSION, version=version
            ),
        )
    return document


# --- the counts: what the rest would cost ---------------------------------------------------------


def outline(body: bytes, expected: str, max_rounds: int) -> Draft:
    """The document parsed (`read`) and its counts checked: at most MAX_IMPORT_GAMES games in a table's
    backup, at most `max_rounds` rounds in each game. Looks at nothing else, so what it can't judge
    (a `games` that is not a list, a game that is not an object) is left to the full check."""
    document = read(body, expected)
    findings = Findings()
    if expected == GAME_FORMAT:
        _rounds_count(document, "", findings, max_rounds)
        findings.raise_any()
        return Draft(document, expected, 1)
    games = document.get("games")
    if not isinstance(games, list):
        return Draft(document, expected, 0)
    if len(games) > MAX_IMPORT_GAMES:
        raise refused(
            "games",
            fill(
                ngettext(
                    "A table's backup can hold at most {limit} game; this one has {count}.",
                    "A table's backup can hold at most {limit} games; this one has {count}.",
                    MAX_IMPORT_GAMES,
                ),
                limit=MAX_IMPORT_GAMES,
                count=len(games),
            ),
        )
    for index, game in enumerate(games):
        _rounds_count(game, f"games[{index}].", findings, max_rounds)
    findings.raise_any()
    return Draft(document, expected, len(games))


def _rounds_count(game: Any, at: str, findings: Findings, max_rounds: int) -> None:
    rounds = game.get("rounds") if isinstance(game, dict) else None
    if isinstance(rounds, list) and len(rounds) > max_rounds:
        findings.add(
            f"{at}rounds",
            fill(
                ngettext(
                    "A game can hold at most {limit} round; this one has {count}.",
                    "A game can hold at most {limit} rounds; this one has {count}.",
                    max_rounds,
                ),
                limit=max_rounds,
                count=len(rounds),
            ),
        )
