"""The "Changes" section of the game pages: the latest logged changes (app.games.changes), newest first, in
plain words ("Round 3 corrected at 21:04: Ben, Blitz 3 → 2"; "Player renamed at 21:05: “Bn” → “Ben”";
"Player left after round 6 at 22:10: Cy"), and
whether the scorekeeper may revert each.

Times are UTC on the server (it knows no one's time zone): the page shows them in a <time> element
with its ISO datetime, and static/app.js rewrites the text to the phone's local time. Until then they
read "21:04" in every language (24-hour time, as Russian and German write it and as the log always
showed it in English).

Said in the request's language: one whole phrase per kind of change and per setting (word order
differs between languages), and the players' names, numbers and arrows filled in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from app.games.changes import CORRECTION, DELETION, JOIN, LEAVE, RENAME, RESTORATION, RULES, Change, why_not
from app.games.views import GameView
from app.i18n import N_, _, fill, join_names, ngettext, number
from app.rules import scoring
from app.rules.presets import BLITZ_WORDS

SHOWN = 10  # the latest changes on the page; every one is in the API
# What each setting is called when one change moved several ("Rules changed: target 75 → 100; tie
# rule ..."), in the order they are listed.
SETTING_NAMES = {
    "name": N_("game name"),
    "target": N_("target"),
    "dutch_points": N_("points per Dutch card"),
    "blitz_points": N_("points per Blitz card"),
    "tie_break": N_("tie rule"),
    "pile_size": N_("pile size"),
    "deck_size": N_("deck size"),
    "must_go_out": N_("someone must go out"),
    "end": N_("end of the game"),
    "rounds": N_("number of rounds"),
    "lives": N_("starting lives"),
    "county": N_("the county"),
    "thirty_and_a_half": N_("three of a kind counts 30½"),
    "win": N_("who wins"),
}
# A change of one setting: (said when changed, said when changed back by a revert).
ONE_SETTING = {
    "name": (N_("Game name changed"), N_("Game name changed back")),
    "target": (N_("Target changed"), N_("Target changed back")),
    "dutch_points": (N_("Points per Dutch card changed"), N_("Points per Dutch card changed back")),
    "blitz_points": (N_("Points per Blitz card changed"), N_("Points per Blitz card changed back")),
    "tie_break": (N_("Tie rule changed"), N_("Tie rule changed back")),
    "pile_size": (N_("Pile size changed"), N_("Pile size changed back")),
    "deck_size": (N_("Deck size changed"), N_("Deck size changed back")),
    "must_go_out": (N_("“Someone must go out” changed"), N_("“Someone must go out” changed back")),
    "end": (N_("End of the game changed"), N_("End of the game changed back")),
    "rounds": (N_("Number of rounds changed"), N_("Number of rounds changed back")),
    "lives": (N_("Starting lives changed"), N_("Starting lives changed back")),
    "county": (N_("The county rule changed"), N_("The county rule changed back")),
    "thirty_and_a_half": (N_("The 30½ rule changed"), N_("The 30½ rule changed back")),
    "win": (N_("Win rule changed"), N_("Win rule changed back")),
}
TIE_RULES = {"play_on": N_("play another round"), "shared": N_("shared win")}
ENDS = {"target": N_("at the target"), "rounds": N_("after the rounds")}
WINS = {"highest_total": N_("highest total"), "first_to_target": N_("first to the target")}
# A round's part as logged, per key: what a correction says of it.
MOVED = (("dutch", N_("Dutch {old} → {new}")), ("blitz", N_("Blitz {old} → {new}")), ("hand", N_("hand {old} → {new}")))


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


def change_lines(
    changes: Iterable[Change], view: GameView, *, refused: tuple[int, str] | None = None
) -> list[ChangeLine]:
    """The latest changes (as the route read them: SHOWN of them, newest first) as the page says them;
    `refused`: (change id, why) after a refused revert."""
    lines = [describe(change, view) for change in changes]
    for line in lines:
        if refused and line.id == refused[0]:
            line.error = refused[1]
    return lines


def describe(change: Change, view: GameView) -> ChangeLine:
    names = view.player_names()
    at = change.at
    what, parts = _words(change, names, view.rules.kind == scoring.Kind.LIVES)
    return ChangeLine(
        id=change.id,
        what=what,
        iso=at.isoformat().replace("+00:00", "Z"),
        hhmm=f"{at:%H:%M}",
        parts=parts,
        separator=", " if change.kind in (DELETION, RESTORATION) else "; ",
        legend=" " + _legend(view) if change.kind in (DELETION, RESTORATION) and parts else "",
        revertable=why_not(change, view) is None,
    )


def _legend(view: GameView) -> str:
    """What a whole round's "Ana 22/0" or "Ana 3" are, in the game's words (app.web.wording.card_words):
    Dutch Blitz's Dutch and Blitz cards, Nerts' and Ligretto's centre and pile cards, Dutch's and 31's
    hands."""
    if view.rules.kind != scoring.Kind.CARDS:
        return _("(hands)")
    return _("(Dutch/Blitz cards)") if view.rules.preset in BLITZ_WORDS else _("(centre/pile cards)")


def _words(change: Change, names: dict[int, str], lives: bool = False) -> tuple[str, list[Part]]:
    n, undo = change.round_number, change.reverts is not None
    if change.kind == CORRECTION:
        what = _("Round {number} reverted") if undo else _("Round {number} corrected")
        return what.format(number=n), _corrected(change, names, lives)
    if change.kind == DELETION:
        what = _("Round {number} deleted again") if undo else _("Round {number} deleted")
        return what.format(number=n), _cards(change.old, names)
    if change.kind == RESTORATION:
        return _("Round {number} restored").format(number=n), _cards(change.new, names)
    if change.kind == RULES:
        old, new = change.old or {}, change.new or {}
        if len(new) == 1:
            [setting] = new
            return _one_setting(setting, undo), [Part(_setting(setting, old, new))]
        what = _("Rules changed back") if undo else _("Rules changed")
        return what, [
            Part(_("{setting} {old} → {new}").format(setting=_(SETTING_NAMES[s]), **_values(s, old, new)))
            for s in SETTING_NAMES
            if s in new
        ]
    if change.kind == RENAME:
        names_were = [_("“{name}”").format(name=(logged or {}).get("name", "")) for logged in (change.old, change.new)]
        what = _("Player renamed back") if undo else _("Player renamed")
        return what, [Part(_("{old} → {new}").format(old=names_were[0], new=names_were[1]))]
    if change.kind == LEAVE:
        new = change.new or {}
        name = names.get(new.get("player_id", 0), "")
        if new.get("left_after_round_id") is None:
            return _("Player back"), [Part("", name=name, after_name="")]
        if n is None:
            return _("Player left"), [Part("", name=name, after_name="")]
        return _("Player left after round {number}").format(number=n), [Part("", name=name, after_name="")]
    if change.kind == JOIN:
        came = change.new or change.old or {}
        name = came.get("name", "")
        if change.new is None:
            return _("Player taken out again"), [Part("", name=name, after_name="")]
        what = _("Player joined after round {number}").format(number=n) if n else _("Player joined")
        if lives and "lives" in came:
            start = fill(
                ngettext("comes with {count} life", "comes with {count} lives", came["lives"]), count=came["lives"]
            )
            return what, [Part(start, name=name)]
        return what, [Part(_("starts at {score}").format(score=number(came.get("starting_score", 0))), name=name)]
    return change.kind, []


def _one_setting(setting: str, undo: bool) -> str:
    if setting in ONE_SETTING:
        return _(ONE_SETTING[setting][1 if undo else 0])
    # Not a setting of today's (a log kept by an older version): said by its name.
    what = _("{setting} changed back") if undo else _("{setting} changed")
    return what.format(setting=setting[:1].upper() + setting[1:])


def _corrected(change: Change, names: dict[int, str], lives: bool = False) -> list[Part]:
    before = {s["player_id"]: s for s in (change.old or {}).get("scores", [])}
    parts = []
    for after in (change.new or {}).get("scores", []):
        was = before.get(after["player_id"], {})
        moved = [
            _(text).format(old=_count(was.get(key, "?")), new=_count(after[key]))
            for key, text in MOVED
            if key in after and was.get(key) != after[key]
        ]
        if moved:
            parts.append(Part(join_names(moved), name=_name(names, after["player_id"]), after_name=", "))
    old_caller, new_caller = (change.old or {}).get("caller"), (change.new or {}).get("caller")
    if old_caller != new_caller:  # Dutch: who called; 31: who knocked

        def who(player_id: int | None) -> str:
            return _("nobody") if player_id is None else _name(names, player_id)

        said = _("knocked: {old} → {new}") if lives else _("called: {old} → {new}")
        parts.append(Part(said.format(old=who(old_caller), new=who(new_caller))))
    old_piles, new_piles = (change.old or {}).get("piles"), (change.new or {}).get("piles")
    if old_piles != new_piles:  # "Check the piles": the centre piles as counted

        def counted(piles: int | None) -> str:
            return _("not counted") if piles is None else str(piles)

        parts.append(Part(_("piles: {old} → {new}").format(old=counted(old_piles), new=counted(new_piles))))
    return parts


def _count(value: Any) -> Any:
    """A logged count or hand as the language writes it (31's 30½: "30.5", "30,5"); "?" as it is."""
    return number(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def _cards(values: dict[str, Any] | None, names: dict[int, str]) -> list[Part]:
    """A whole round's cards: "Ana 22/0" (Dutch/Blitz, as the history shows them)."""
    return [
        Part(number(s["hand"]) if "hand" in s else f"{s['dutch']}/{s['blitz']}", name=_name(names, s["player_id"]))
        for s in (values or {}).get("scores", [])
    ]


def _name(names: dict[int, str], player_id: int) -> str:
    return names[player_id] if player_id in names else _("a player")


def _setting(setting: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    return _("{old} → {new}").format(**_values(setting, old, new))


def _values(setting: str, old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """The setting's value before and after, as the log shows them: {"old": ..., "new": ...}."""

    def shown(value: Any) -> str:
        if setting == "tie_break":
            return _(TIE_RULES[value]) if value in TIE_RULES else str(value)
        if setting == "name":
            return _("“{name}”").format(name=value) if value else _("none")
        if setting == "end":
            return _(ENDS[value]) if value in ENDS else str(value)
        if setting == "win":
            return _(WINS[value]) if value in WINS else str(value)
        if isinstance(value, bool):
            return _("yes") if value else _("no")
        if isinstance(value, int):
            return number(value)  # "−2 → −3" with the pages' one minus sign
        return str(value)

    return {"old": shown(old.get(setting)), "new": shown(new.get(setting))}
