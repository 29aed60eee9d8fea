"""The games by the names people know them by, and one line on each: what the start page's picker, the
rules form and the game page call a preset (`dutch_blitz`, `nerts`, ... from app.rules.presets).

English here, marked for the catalogs (N_); both functions answer in the request's language.
"""

from __future__ import annotations

from app.i18n import N_, _, pgettext


def _names() -> dict[str, str]:
    """Each game's name in the request's language, in the order of scoring.PRESETS (the picker's
    order: Dutch Blitz first). With a context: "Dutch" the game is not the Dutch cards' column."""
    return {
        "dutch_blitz": pgettext("name of a game", "Dutch Blitz"),
        "dutch_blitz_100": pgettext("name of a game", "Dutch Blitz to 100"),
        "nerts": pgettext("name of a game", "Nerts"),
        "ligretto": pgettext("name of a game", "Ligretto"),
        "dutch": pgettext("name of a game", "Dutch"),
        "thirty_one": pgettext("name of a game", "31"),
    }


# How each is won, in one line: "Dutch" and "Dutch Blitz" share a name and nothing else, so the picker
# says which is which.
BLURBS: dict[str, str] = {
    "dutch_blitz": N_("+1 per Dutch card, −2 per Blitz card left; once someone reaches 75, the highest total wins."),
    "dutch_blitz_100": N_("Dutch Blitz played to 100 points: a longer game."),
    "nerts": N_("+1 per card in the centre, −2 per card left in the Nerts pile; first to 100, highest total wins."),
    "ligretto": N_("+1 per card in the centre, −2 per card left in the Ligretto pile; first to 99, highest wins."),
    "dutch": N_("Memory card game: each hand's points count; once someone reaches 100, the lowest total wins."),
    "thirty_one": N_("Three cards, three lives: the lowest hand loses a life, the last player in wins."),
}


def preset_name(preset: str) -> str:
    """The game's name for people ("Nerts"), in the request's language; an unknown preset as it is."""
    return _names().get(preset, preset)


def preset_blurb(preset: str) -> str:
    """One line on how the game is won, in the request's language ("" for an unknown preset)."""
    return _(BLURBS[preset]) if preset in BLURBS else ""
