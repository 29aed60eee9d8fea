"""How a game page words a card game's counts, per game and in the request's language: Dutch Blitz
says "Dutch cards", "Blitz pile" and "Blitz!" (app.rules.presets.BLITZ_WORDS); Nerts and Ligretto say
"centre" and "pile", and call out their own name. And what it takes to win next round, in words
(`chance_lines`; in Dutch, who is near the limit that ends the game)."""

from __future__ import annotations

from app.i18n import _, join_names, number, pgettext, signed
from app.rules.outlook import near_the_limit, what_it_takes
from app.rules.presets import BLITZ_WORDS
from app.rules.scoring import GameState


def card_words(preset: str) -> dict[str, str]:
    """What the round form calls the two counts and the "went out" button, per game, in the request's
    language; the per-player phrases keep `%(name)s` for the template to fill."""
    if preset in BLITZ_WORDS:
        return {
            "centre_head": pgettext("column of Dutch cards", "Dutch"),
            "pile_head": _("Blitz left"),
            "centre": _("Dutch cards"),
            "pile": _("Blitz cards left"),
            "centre_fewer": _("One Dutch card fewer — %(name)s"),
            "centre_more": _("One Dutch card more — %(name)s"),
            "pile_fewer": _("One Blitz card fewer — %(name)s"),
            "pile_more": _("One Blitz card more — %(name)s"),
            "out": _("Blitz!"),
            "out_label": _("Blitz! — %(name)s"),
        }
    nerts = preset == "nerts"
    return {
        "centre_head": pgettext("column of cards played to the centre", "Centre"),
        "pile_head": _("Pile left"),
        "centre": _("Centre cards"),
        "pile": _("Nerts pile left") if nerts else _("Ligretto pile left"),
        "centre_fewer": _("One centre card fewer — %(name)s"),
        "centre_more": _("One centre card more — %(name)s"),
        "pile_fewer": _("One pile card fewer — %(name)s"),
        "pile_more": _("One pile card more — %(name)s"),
        "out": _("Nerts!") if nerts else _("Ligretto!"),
        "out_label": _("Nerts! — %(name)s") if nerts else _("Ligretto! — %(name)s"),
    }


def cell_labels(preset: str) -> dict[str, str]:
    """The history's per-player labels, translated once per page and filled in per cell with Jinja's
    `format` filter: a thousand-round history has eight cells a round."""
    return {
        "total": _("total %(total)s"),
        "cards": _("%(dutch)s Dutch, %(blitz)s Blitz")
        if preset in BLITZ_WORDS
        else _("%(dutch)s in the centre, %(blitz)s left in the pile"),
        "hand": _("hand %(hand)s"),
        "lives": _("lives left: %(lives)s"),
    }


def chance_lines(state: GameState, seats: list[int], names: dict[int, str]) -> list[str]:
    """ "Ana wins next round with +9 or more", "Ben wins with +21 or more if Ana gets under +9", per player
    in reach (app.rules.outlook), in the request's language (what "needs" and "under" meant had to be
    guessed; a TV shows every line at once, so they stay short). In Dutch, where reaching the target
    ends the game and the lowest total wins: "Cy is out at 100: 5 to go", for each player one bad
    round from it (app.rules.outlook.near_the_limit), the closest first."""
    target = number(state.rules.target)
    lines = [
        _("{name} is out at {target}: {points} to go").format(
            name=names[near.player_id], target=target, points=number(near.to_go)
        )
        for near in near_the_limit(state)
    ]
    for chance in what_it_takes(state, seats):
        name, needs = names[chance.player_id], signed(chance.needs)
        if not chance.others_under:
            lines.append(_("{name} wins next round with {points} or more").format(name=name, points=needs))
            continue
        # The verb once, with the first: "if Ben gets under +12, Cy under +12 and Dee under +9".
        others = join_names(
            (_("{name} gets under {points}") if i == 0 else _("{name} under {points}")).format(
                name=names[pid], points=signed(under)
            )
            for i, (pid, under) in enumerate(chance.others_under)
        )
        lines.append(_("{name} wins with {points} or more if {others}").format(name=name, points=needs, others=others))
    return lines
