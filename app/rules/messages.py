"""What each problem of the rules says, by code, in English (app.rules.base.Problem carries the code
and its parameters). Pure like the rules: only app.rules.names, whose name messages join these."""

from __future__ import annotations

from app.rules.names import N_, NAME_MESSAGES

# What each problem says, by code, in English: the catalogs (app.i18n) translate these templates,
# and the web and API layers fill in the parameters in the reader's language.
MESSAGES: dict[str, str] = {
    "target_range": N_("The target must be between {low} and {high} points."),
    "dutch_points_range": N_("Points per Dutch card must be between {low} and {high}."),
    "blitz_points_range": N_("Points per Blitz card must be between {low} and {high}."),
    "pile_size_range": N_("The pile must hold between {low} and {high} cards."),
    "deck_size_range": N_("A player's deck must hold between {low} and {high} cards."),
    "pile_over_deck": N_("The pile ({pile} cards) can't be bigger than the deck ({deck} cards)."),
    "win_needs_target": N_(
        "“First to reach the target wins” needs a game that ends at the target, not after a set number of rounds."
    ),
    "rounds_range": N_("The number of rounds must be between {low} and {high}."),
    "lives_range": N_("The lives each player starts with must be between {low} and {high}."),
    "player_count": N_("A game has {low} to {high} players; this one has {count}."),
    "name_twice": N_("Two players are called {name}; give each player a different name."),
    "nobody_left_in": N_(
        "This would put every player still in the game out, with nobody left to play or win; enter the round as it was played."
    ),
    "name_taken": N_("Another player is already called {name}; give each player a different name."),
    "not_on_roster": N_("{name} isn't on this table's roster: add them on the table's page first, then rename here."),
    "roster_spelling": N_("The table's roster spells this name “{name}”: change its spelling on the table's page."),
    "starting_score_range": N_("{name}'s starting score must be between {low} and {high}."),
    "starting_score_range_unnamed": N_("This player's starting score must be between {low} and {high}."),
    "starting_score_lives": N_("A game of 31 has no starting scores: every player starts with the same lives."),
    "late_lives_range": N_("{name} can come into the game with {low} to {high} lives."),
    "not_on_roster_join": N_("{name} isn't on this table's roster: add them on the table's page first, then here."),
    "table_full": N_("A game has at most {high} players, and this one has them."),
    "lives_not_in_kind": N_("Only a game of 31 counts lives: give a starting score instead."),
    "no_such_player": N_("There is no player {player_id} in this game."),
    "player_twice": N_("{name} is in this round more than once."),
    "dutch_range": N_("{name}: Dutch cards must be between 0 and {high}."),
    "blitz_range": N_("{name}: Blitz cards left must be between 0 and {high}."),
    "over_deck": N_(
        "{name}: {dutch} Dutch cards and {blitz} Blitz cards left make {sum}, but a deck has only {deck} cards."
    ),
    "centre_range": N_("{name}: centre cards must be between 0 and {high}."),
    "pile_range": N_("{name}: cards left in the pile must be between 0 and {high}."),
    "over_deck_centre": N_(
        "{name}: {dutch} centre cards and {blitz} cards left in the pile make {sum}, but a deck has only {deck} cards."
    ),
    "count_missing": N_("{name}: both card counts are required (cards played and cards left in the pile)."),
    "hand_missing": N_("{name}: the points in the hand are required."),
    "hand_range": N_("{name}: a hand must be between 0 and {high} points."),
    "hand_whole": N_("{name}'s hand must be a whole number from 0 to {high}."),
    "hand_whole_or_half": N_("{name}'s hand must be a whole number from 0 to {high}, or 30½ for three of a kind."),
    "not_in_kind": N_("{name}: “{field}” is not part of a round in this game."),
    "round_field_not_in_kind": N_("“{field}” is not part of a round in this game."),
    "piles_range": N_("The centre piles hold between 0 and {high} cards (every player's deck)."),
    "player_missing": N_("{name} is missing from this round."),
    "player_out": N_("{name} is out of the game and can't play this round."),
    "player_left": N_("{name} has left the game and can't play this round."),
    "player_update_empty": N_("Send a new name, or whether the player has left."),
    "player_out_already": N_("{name} is out of the game already."),
    "too_few_stay": N_("At least {low} players must stay in the game."),
    "played_since_left": N_("{name} can't come back: rounds were played since they left."),
    "caller_not_playing": N_("{name} can't knock: they are out of the game."),
    "caller_not_in_round": N_("{name} can't call Dutch: they aren't playing this round."),
    "nobody_blitzed": N_("Nobody called Blitz: at least one player must have 0 Blitz cards left."),
    "nobody_out": N_("Nobody went out: at least one player must have 0 cards left in their pile."),
    "later_round_impossible": N_(
        "This would make round {number} impossible: {name} would be out of the game before it."
    ),
    "later_round_missing": N_(
        "This would make round {number} impossible: {name} would still be in the game but is not in that round."
    ),
    "later_round_after_end": N_("This would make round {number} impossible: the game would be over before it."),
    "kind_fixed": N_("A game's kind and preset can't change once it is created: start a new game instead."),
    "preset_kind": N_("The preset {preset} is not a game of the kind {kind}."),
    "param_not_in_kind": N_("“{field}” is not a rule of this game."),
    "rules_break_round": N_("Round {number} isn't possible under these rules: correct it first."),
    **NAME_MESSAGES,
}
