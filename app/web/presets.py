"""The games by the names people know them by, and one line on each: what the start page's picker, the
rules form and the game page call a preset (`dutch_blitz`, `nerts`, ... from app.rules.presets).

English here, marked for the catalogs (N_); both functions answer in the request's language.
"""

from __future__ import annotations

from app.i18n import N_, _, pgettext


def _names() -> dict[str, str]:
    """Each game's name in the request's language, in the order of scoring.PRESETS (the picker's
    order: Dutch Blitz first). With a context: "Dutch" the game is not the Dutch cards' column; its name
    says how it is won, so that it is never taken for Dutch Blitz beside it."""
    return {
        "dutch_blitz": pgettext("name of a game", "Dutch Blitz"),
        "dutch_blitz_100": pgettext("name of a game", "Dutch Blitz to 100"),
        "nerts": pgettext("name of a game", "Nerts"),
        "ligretto": pgettext("name of a game", "Ligretto"),
        "dutch": pgettext("name of a game", "Dutch (lowest score wins)"),
        "thirty_one": pgettext("name of a game", "31"),
    }


# What each is, in a line short enough for one line under its name in the start page's picker on a phone
# (in English): "Dutch" and "Dutch Blitz" share a word and nothing else, so the name and the line say
# which is which.
BLURBS: dict[str, str] = {
    "dutch_blitz": N_("The classic: to 75, highest total wins"),
    "dutch_blitz_100": N_("Dutch Blitz, a longer game to 100"),
    "nerts": N_("Like Dutch Blitz with plain decks; to 100"),
    "ligretto": N_("Like Dutch Blitz with its own deck; to 99"),
    "dutch": N_("Memory game: to 100, lowest total wins"),
    "thirty_one": N_("Three cards, three lives: last one in wins"),
}


# The other names a game goes by, where people search for it by one of them (the 31 of the rules page is
# Scat, Blitz or Cabbage in America; German tables say Schwimmen, which its German name carries already).
ALSO_CALLED: dict[str, str] = {
    "thirty_one": N_("Also called Scat, Blitz or Cabbage"),
}


def preset_name(preset: str) -> str:
    """The game's name for people ("Nerts"), in the request's language; an unknown preset as it is."""
    return _names().get(preset, preset)


def preset_blurb(preset: str) -> str:
    """One line on how the game is won, in the request's language ("" for an unknown preset)."""
    return _(BLURBS[preset]) if preset in BLURBS else ""


def preset_aliases(preset: str) -> str:
    """The game's other names in the request's language ("" for a game known by one)."""
    return _(ALSO_CALLED[preset]) if preset in ALSO_CALLED else ""
