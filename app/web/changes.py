"""The "Changes" section of the game pages: the latest logged changes (app.changes), newest first, in
plain words ("Round 3 corrected at 21:04: Ben, Blitz 3 → 2"), and whether the scorekeeper may revert each.

Times are UTC on the server (it knows no one's time zone): the page shows them in a <time> element
with its ISO datetime, and static/app.js rewrites the text to the phone's local time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from app.changes import CORRECTION, DELETION, RESTORATION, RULES, Change, why_not
from app.views import GameView

SHOWN = 10  # the latest changes on the page; every one is in the API
SETTING_NAMES = {
    "name": "game name",
    "target": "target",
    "dutch_points": "points per Dutch card",
    "blitz_points": "points per Blitz card",
    "tie_break": "tie rule",
}
TIE_RULES = {"play_on": "play another round", "shared": "shared win"}


class ChangeReader(Protocol):
    def changes(self, game_id: str, limit: int | None = None) -> list[Change]: ...


@dataclass
class Part:
    """One piece of a change's detail: a player's name (shown isolated, <bdi>) and what changed for them."""

    text: str
    name: str | None = None
    after_name: str = " "  # "Ben, Blitz 3 → 2"; "Ana 22/0"


@dataclass
class ChangeLine:
    id: int
    what: str  # "Round 3 corrected"
    iso: str  # the <time datetime>
    hhmm: str  # its text before app.js makes it local
    parts: list[Part] = field(default_factory=list)
    separator: str = "; "  # between parts: "; " between players' corrections, ", " in a round's cards
    legend: str = ""  # after the parts: what a round's cards "22/0" are
    revertable: bool = False
    error: str | None = None  # a refused revert, said beside it


def change_lines(games: ChangeReader, view: GameView, *, refused: tuple[int, str] | None = None) -> list[ChangeLine]:
    """The latest changes as the page says them; `refused`: (change id, why) after a refused revert."""
    lines = [describe(change, view) for change in games.changes(view.game.id, limit=SHOWN)]
    for line in lines:
        if refused and line.id == refused[0]:
            line.error = refused[1]
    return lines


def describe(change: Change, view: GameView) -> ChangeLine:
    names = view.player_names()
    at = change.at
    what, parts = _words(change, names)
    return ChangeLine(
        id=change.id,
        what=what,
        iso=at.isoformat().replace("+00:00", "Z"),
        hhmm=f"{at:%H:%M}",
        parts=parts,
        separator=", " if change.kind in (DELETION, RESTORATION) else "; ",
        legend=" (Dutch/Blitz cards)" if change.kind in (DELETION, RESTORATION) and parts else "",
        revertable=why_not(change, view) is None,
    )


def _words(change: Change, names: dict[int, str]) -> tuple[str, list[Part]]:
    n, undo = change.round_number, change.reverts is not None
    if change.kind == CORRECTION:
        return f"Round {n} {'reverted' if undo else 'corrected'}", _corrected(change, names)
    if change.kind == DELETION:
        return f"Round {n} deleted{' again' if undo else ''}", _cards(change.old, names)
    if change.kind == RESTORATION:
        return f"Round {n} restored", _cards(change.new, names)
    if change.kind == RULES:
        old, new = change.old or {}, change.new or {}
        back = " back" if undo else ""
        if len(new) == 1:
            [setting] = new
            label = SETTING_NAMES.get(setting, setting)
            return f"{label[0].upper()}{label[1:]} changed{back}", [Part(_setting(setting, old, new))]
        return f"Rules changed{back}", [
            Part(f"{SETTING_NAMES.get(s, s)} {_setting(s, old, new)}") for s in SETTING_NAMES if s in new
        ]
    return change.kind, []


def _corrected(change: Change, names: dict[int, str]) -> list[Part]:
    before = {s["player_id"]: s for s in (change.old or {}).get("scores", [])}
    parts = []
    for after in (change.new or {}).get("scores", []):
        was = before.get(after["player_id"], {})
        moved = [
            f"{label} {was.get(key, '?')} → {after[key]}"
            for key, label in (("dutch", "Dutch"), ("blitz", "Blitz"))
            if was.get(key) != after[key]
        ]
        if moved:
            parts.append(Part(" and ".join(moved), name=names.get(after["player_id"], "a player"), after_name=", "))
    return parts


def _cards(values: dict[str, Any] | None, names: dict[int, str]) -> list[Part]:
    """A whole round's cards: "Ana 22/0" (Dutch/Blitz, as the history shows them)."""
    return [
        Part(f"{s['dutch']}/{s['blitz']}", name=names.get(s["player_id"], "a player"))
        for s in (values or {}).get("scores", [])
    ]


def _setting(setting: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    def shown(value: Any) -> str:
        if setting == "tie_break":
            return TIE_RULES.get(value, str(value))
        if setting == "name":
            return f"“{value}”" if value else "none"
        return str(value)

    return f"{shown(old.get(setting))} → {shown(new.get(setting))}"
