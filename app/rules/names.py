"""Names of players and games: how they are stored (trimmed, composed) and why one is refused, and the
way messages list several. Pure like app.rules.scoring, which uses it: the standard library only."""

from __future__ import annotations

import unicodedata

NAME_MAX_LENGTH = 40

# Characters that change text direction can make a name display as something else ("spoofing");
# names may be in any script, but these invisible controls are refused
# (Unicode's Bidi_Control set, ALM included).
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# A name made only of what draws nothing would look blank on the scoreboard: format characters (zero-
# width space, joiners, soft hyphen, tags), marks and variation selectors (they only change the
# character before them), spaces of every width, unassigned and private code points, and the
# letters some scripts draw as blank fillers (Hangul fillers, the blank Braille pattern, ...).
# Private-use (Co) and unassigned (Cn) code points count as visible: an emoji newer than this
# Python's Unicode tables is "unassigned" to it, and a player may well be named with one.
_DRAWS_NOTHING = frozenset({"Cc", "Cf", "Cs", "Zs", "Zl", "Zp", "Mn", "Mc", "Me"})
_BLANK_LETTERS = frozenset("\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")


def clean_name(name: str) -> str:
    """The name as stored: trimmed, and in Unicode's composed form so "é" typed two ways is one name."""
    return unicodedata.normalize("NFC", name.strip())


def N_(text: str) -> str:
    """Marks text for the translation catalogs (app.i18n translates it where it is shown)."""
    return text


# Why a name is refused, by code: the English wording, which the catalogs translate. {max} is the
# limit. A game's name has its own wording of each.
NAME_MESSAGES = {
    "name_blank": N_("Enter a name."),
    "name_too_long": N_("A name can have at most {max} characters."),
    "name_control": N_("A name can't contain control characters."),
    "name_surrogate": N_("A name can't contain broken characters (lone surrogates)."),
    "name_bidi": N_("A name can't contain text-direction control characters."),
    "name_invisible": N_("A name needs at least one visible character."),
    "game_name_too_long": N_("A game's name can have at most {max} characters."),
    "game_name_control": N_("A game's name can't contain control characters."),
    "game_name_surrogate": N_("A game's name can't contain broken characters (lone surrogates)."),
    "game_name_bidi": N_("A game's name can't contain text-direction control characters."),
    "game_name_invisible": N_("A game's name needs at least one visible character."),
    "table_name_too_long": N_("A table's name can have at most {max} characters."),
    "table_name_control": N_("A table's name can't contain control characters."),
    "table_name_surrogate": N_("A table's name can't contain broken characters (lone surrogates)."),
    "table_name_bidi": N_("A table's name can't contain text-direction control characters."),
    "table_name_invisible": N_("A table's name needs at least one visible character."),
    "table_name_blank": N_("Give the table a name."),
    "roster_full": N_("A table's roster holds at most {max} people."),
    "table_unknown": N_("There is no table with that id."),
    "person_taken": N_("Someone at this table is already called {name}; give each person a different name."),
}


def name_problem(name: str) -> str | None:
    """Why a (cleaned) player or game name is refused (a code of NAME_MESSAGES), or None when it is fine."""
    if not name:
        return "name_blank"
    if len(name) > NAME_MAX_LENGTH:
        return "name_too_long"
    if any(unicodedata.category(ch) == "Cc" for ch in name):
        return "name_control"
    if any(unicodedata.category(ch) == "Cs" for ch in name):
        # Only a lone surrogate escape ("\\ud800") makes one: it is no character, and can't be stored.
        return "name_surrogate"
    if any(ch in _BIDI_CONTROLS for ch in name):
        return "name_bidi"
    if not any(_draws_something(ch) for ch in name):
        return "name_invisible"
    return None


def _draws_something(ch: str) -> bool:
    return unicodedata.category(ch) not in _DRAWS_NOTHING and ch not in _BLANK_LETTERS


GAME_NAME_MAX_LENGTH = 80


def game_name_problem(name: str) -> str | None:
    """Why a game's name is refused (a code of NAME_MESSAGES), or None; an empty name is allowed."""
    if len(name) > GAME_NAME_MAX_LENGTH:
        return "game_name_too_long"
    if name:
        reason = name_problem(name[:NAME_MAX_LENGTH])
        if reason and reason != "name_blank":
            return "game_" + reason
    return None


def table_name_problem(name: str) -> str | None:
    """Why a (cleaned) table's name is refused (a code of NAME_MESSAGES), or None; a table needs one."""
    if not name:
        return "table_name_blank"
    reason = game_name_problem(name)
    return "table_" + reason.removeprefix("game_") if reason else None


def name_key(name: str) -> str:
    """A (cleaned) name as compared: two players of a game, or two people of a table, may not share it."""
    return name.casefold()


def name_message(code: str) -> tuple[str, dict[str, int]]:
    """A refusal's code as (English template, parameters)."""
    limit = GAME_NAME_MAX_LENGTH if code.startswith(("game_", "table_")) else NAME_MAX_LENGTH
    return NAME_MESSAGES[code], {"max": limit}
