"""The API's answer models: what a game, a change, a preset or a problem looks like in JSON (one model
per kind where the kinds differ: rules, players, rounds, scores). app.games.views builds the game's JSON by
hand for speed; tests/api/test_api.py and tests/api/test_api_kinds.py check it against these models.

A little past 400 lines, on purpose: it is the OpenAPI document's answer side, one small model per shape
with each field's description (which is most of its lines), read as one by a client's author; the
backups' and the tables' answers already live beside their own wings (app.backup.answers, app.tables).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel
from pydantic import Field as PField

from app.rules import timing
from app.schemas import (
    BLITZ_POINTS_TEXT,
    COUNTY_TEXT,
    DECK_TEXT,
    DUTCH_POINTS_TEXT,
    END_TEXT,
    KIND_TEXT,
    LIVES_TEXT,
    MUST_GO_OUT_TEXT,
    PILE_TEXT,
    PRESET_TEXT,
    ROUNDS_TEXT,
    TARGET_TEXT,
    THIRTY_AND_A_HALF_TEXT,
    TIE_BREAK_TEXT,
    WIN_TEXT,
    EndName,
    KindName,
    PresetName,
    TieBreakName,
    WinName,
)


class CardsRulesPublic(BaseModel):
    """A `cards` game's rules (Dutch Blitz, Nerts, Ligretto)."""

    kind: Literal["cards"] = PField(description=KIND_TEXT)
    preset: PresetName = PField(description=PRESET_TEXT)
    target: int = PField(description=TARGET_TEXT)
    dutch_points: int = PField(description=DUTCH_POINTS_TEXT)
    blitz_points: int = PField(description=BLITZ_POINTS_TEXT)
    tie_break: TieBreakName = PField(description=TIE_BREAK_TEXT)
    pile_size: int = PField(description=PILE_TEXT)
    deck_size: int = PField(description=DECK_TEXT)
    must_go_out: bool = PField(description=MUST_GO_OUT_TEXT)
    end: EndName = PField(description=END_TEXT)
    rounds: int = PField(description=ROUNDS_TEXT)
    win: WinName = PField(description=WIN_TEXT)


class LowestRulesPublic(BaseModel):
    """A `lowest` game's rules (Dutch)."""

    kind: Literal["lowest"] = PField(description=KIND_TEXT)
    preset: PresetName = PField(description=PRESET_TEXT)
    target: int = PField(description=TARGET_TEXT)
    tie_break: TieBreakName = PField(description=TIE_BREAK_TEXT)


class LivesRulesPublic(BaseModel):
    """A `lives` game's rules (31)."""

    kind: Literal["lives"] = PField(description=KIND_TEXT)
    preset: PresetName = PField(description=PRESET_TEXT)
    lives: int = PField(description=LIVES_TEXT)
    county: bool = PField(description=COUNTY_TEXT)
    thirty_and_a_half: bool = PField(description=THIRTY_AND_A_HALF_TEXT)


RulesPublic = Annotated[CardsRulesPublic | LowestRulesPublic | LivesRulesPublic, PField(discriminator="kind")]


class PlayerPublic(BaseModel):
    id: int = PField(description="The player's id in this game (for scores).")
    name: str
    starting_score: int = PField(
        description="The total they started with (`lives`: 0, or for a latecomer the lives they came without, "
        "as a negative number)."
    )
    total: int = PField(description="Starting score plus every round's points (`lives`: the lives left).")
    rank: int = PField(
        description="1 for first place; equal places share a rank (1, 1, 3). `cards`: by the highest total, "
        "`lowest`: by the lowest, `lives`: by lives left, then the later out the higher. Players who left come "
        "after those still in."
    )
    person_id: int | None = PField(
        description="At a table: the person on its roster this player is (`GET /tables/{id}`); null otherwise."
    )
    left: bool = PField(False, description="Left the game: they keep their rounds, are in no new round and can't win.")
    left_after_round: int | None = PField(
        None, description="For a player who left: the number of the last round they played (0: none); null otherwise."
    )
    joined_after_round: int | None = PField(
        None,
        description="For a latecomer: the number of rounds played before they came (they are in none of those, "
        "and in every round after); null for a player from the start.",
    )


class LivesPlayerPublic(PlayerPublic):
    """A player of a `lives` game (31)."""

    lives: int = PField(description="The lives left (0: on the county, or out).")
    out: bool = PField(description="Out of the game (put out, or `left`): in no new round.")


class ScorePublic(BaseModel):
    """A player's part of a `cards` round."""

    player_id: int
    dutch: int = PField(description="Cards played to the centre (the Dutch piles).")
    blitz: int = PField(description="Cards left in the player's own pile.")
    points: int = PField(description="This round's points under the game's rules.")
    total: int = PField(description="The player's running total after this round.")


class HandScorePublic(BaseModel):
    """A player's part of a `lowest` round (Dutch)."""

    player_id: int
    hand: int = PField(description="The points in the player's hand.")
    points: int = PField(description="This round's points: the hand, or 0 (see docs/rules.md).")
    total: int = PField(description="The player's running total after this round.")


class LivesScorePublic(BaseModel):
    """A player's part of a `lives` round (31)."""

    player_id: int
    hand: int | float = PField(
        description="The hand's value, 0–31: an integer, or 30.5 (three of a kind, with `thirty_and_a_half`)."
    )
    lives_lost: int = PField(description="The lives this round cost the player (0, 1 or 2).")
    lives: int = PField(description="The player's lives left after this round.")


class RoundPublic(BaseModel):
    """A `cards` round."""

    number: int = PField(description="1 for the first round; deleting a round renumbers the later ones.")
    scores: list[ScorePublic] = PField(description="In seating order.")
    started_at: datetime | None = PField(description='When the round started (its "Blitz!"); null when unknown.')
    duration_s: int | None = PField(description="How long the round lasted, in seconds; null when unknown.")
    piles: int | None = PField(
        None,
        description='The cards on the centre piles as the table counted them ("Check the piles"); null when '
        "nobody counted.",
    )


class LowestRoundPublic(BaseModel):
    """A `lowest` round (Dutch)."""

    number: int = PField(description="1 for the first round; deleting a round renumbers the later ones.")
    scores: list[HandScorePublic] = PField(description="In seating order.")
    caller: int | None = PField(description='Who called "Dutch" (null: nobody).')
    penalty: int | None = PField(
        description="A caller who did not have the lowest hand, and takes a penalty card next round."
    )
    started_at: datetime | None = PField(description="When the round started; null when unknown.")
    duration_s: int | None = PField(description="How long the round lasted, in seconds; null when unknown.")


class LivesRoundPublic(BaseModel):
    """A `lives` round (31)."""

    number: int = PField(description="1 for the first round; deleting a round renumbers the later ones.")
    scores: list[LivesScorePublic] = PField(description="The players still in, in seating order.")
    knocker: int | None = PField(description="Who knocked (null: nobody).")
    void: bool = PField(description="It would have put every player out at once, so it counts for nothing.")
    started_at: datetime | None = PField(description="When the round started; null when unknown.")
    duration_s: int | None = PField(description="How long the round lasted, in seconds; null when unknown.")


class SeatSettingsPublic(BaseModel):
    save_round: bool = PField(description="The round saves by itself once every player still in sent their row.")
    on_view: bool = PField(description="The view page offers the seat link to everyone who follows the game.")


class GamePublic(BaseModel):
    id: str = PField(description="The game's id, as in its links.")
    name: str
    version: int = PField(description='Bumped by every change; the ETag is `"<version>"`.')
    created_at: datetime
    updated_at: datetime = PField(description="When the game last changed.")
    status: Literal["playing", "finished"]
    winners: list[int] = PField(description="Player ids; more than one only with `tie_break: shared`.")
    tie_break: bool = PField(description="True while a tie-break round is due (play_on and first place is tied).")
    leaders: list[int] = PField(description="Player ids in first place now (`lowest`: the lowest total).")
    rules: RulesPublic
    players: list[LivesPlayerPublic | PlayerPublic] = PField(description="In seating order.")
    rounds: list[RoundPublic | LowestRoundPublic | LivesRoundPublic]
    round_started_at: datetime | None = PField(
        description='The running round\'s start (its "Blitz!", which may be a few seconds ahead), from '
        "`POST /games/{id}/start`; null when no round was started since the last one was saved."
    )
    table_id: str | None = PField(description="The table the game is played at (`GET /tables/{id}`); null for none.")
    seats: SeatSettingsPublic = PField(description="How players entering their own rows works in this game.")


class RoundStarted(GamePublic):
    blitz_at: datetime = PField(
        description=f'When "Blitz!" happens: the server\'s time now plus {timing.COUNTDOWN_S} s.'
    )
    server_now: datetime = PField(
        description="The server's time as it answered: a client's offset is `server_now` minus its own clock "
        'on receipt, and its "Blitz!" is `blitz_at` minus that offset in its own clock.'
    )


class GameUrls(BaseModel):
    view: str = PField(description="The view link: anyone with it watches the game live.")
    edit: str = PField(description="The edit link: it hands the edit key to a browser. Keep it secret.")


class GameCreated(GamePublic):
    edit_key: str = PField(description="The secret that changes this game (Authorization: Bearer). Shown only here.")
    urls: GameUrls


class FieldError(BaseModel):
    field: str = PField(description='Where in the request: "players[1].name", "scores", "rules.target", a header.')
    message: str = PField(description="What is wrong, for people.")


class ProblemDetails(BaseModel):
    """RFC 9457 problem details, as application/problem+json."""

    type: str = PField(description="A URI naming the kind of problem; stable, for programs.")
    title: str = PField(description="A short summary of the kind of problem.")
    status: int = PField(description="The HTTP status, repeated.")
    detail: str = PField(description="What went wrong this time, for people.")
    errors: list[FieldError] | None = PField(None, description="On 422: each problem and where it is.")
    request_id: str | None = PField(
        None, description="On a 500 or 503: the id in the server's logs (also the X-Request-ID header)."
    )
    # On 409 `round-saved` (a row sent for a round saved since): the state to send it again from.
    round: int | None = PField(None, description="On 409 `round-saved`: the round being played now.")
    saved_round: int | None = PField(
        None, description="On 409 `round-saved`: the round the row was for, saved since (null: not begun yet)."
    )
    version: int | None = PField(None, description="On 409 `round-saved`: the game's version now (also the ETag).")
    piles: int | None = PField(
        None, description="On `piles-differ`: the cards the round's `piles` says the centre piles hold."
    )
    rows: int | None = PField(None, description="On `piles-differ`: the sum of the round's `dutch` counts.")


class CardsPublic(BaseModel):
    player_id: int
    dutch: int | None = PField(None, description="`cards`: cards the player put on the Dutch piles.")
    blitz: int | None = PField(None, description="`cards`: cards left in the player's Blitz pile.")
    hand: int | float | None = PField(
        None, description="`lowest`, `lives`: the hand's points (an integer; 31's three of a kind: 30.5)."
    )


class RoundCardsPublic(BaseModel):
    """A round as entered, every player's part, in seating order."""

    scores: list[CardsPublic]
    caller: int | None = PField(None, description="`lowest`: who called Dutch; `lives`: who knocked.")
    piles: int | None = PField(None, description="`cards`: the centre piles as counted, when they were.")


class PlayerNamePublic(BaseModel):
    """A player's name before or after a rename."""

    player_id: int = PField(description="The player's `id`.")
    name: str


class PlayerLeftPublic(BaseModel):
    """Whether a player had left the game, before or after a leave (or a coming back)."""

    player_id: int = PField(description="The player's `id`.")
    left: bool


class PlayerJoinedPublic(BaseModel):
    """A latecomer as they came (a join's `new`; its revert's `old`)."""

    player_id: int = PField(description="The player's `id`.")
    name: str
    starting_score: int = PField(description="The total they started with (31: the lives they came without, ≤ 0).")
    lives: int | None = PField(None, description="31 only: the lives they came with.")


class SettingsPublic(BaseModel):
    """The settings a rules change touched, and only those."""

    name: str | None = None
    target: int | None = None
    dutch_points: int | None = None
    blitz_points: int | None = None
    tie_break: TieBreakName | None = None
    pile_size: int | None = None
    deck_size: int | None = None
    must_go_out: bool | None = None
    end: EndName | None = None
    rounds: int | None = None
    lives: int | None = None
    county: bool | None = None
    thirty_and_a_half: bool | None = None
    win: WinName | None = None


class ChangePublic(BaseModel):
    id: int = PField(description="The change's id in this game (for a revert).")
    at: datetime = PField(description="When it was made (UTC).")
    kind: Literal["correction", "deletion", "restoration", "rules", "rename", "leave", "join"] = PField(
        description="`correction`: a round's cards were replaced; `deletion`: a round was deleted; "
        "`restoration`: a deleted round came back (a revert of its deletion); `rules`: the name or house rules; "
        "`rename`: a player's name; `leave`: a player left the game (or came back); `join`: a latecomer came (`new`) "
        "or, its revert, was taken out again (`old`, and `new` null). New kinds may be added: show one you don't know by its `kind`."
    )
    round: int | None = PField(
        description="The round's number when it changed (later deletions may have moved it since); null for rules and "
        "renames; for a leave, the last round the player played (null before any)."
    )
    reverts: int | None = PField(description="The id of the change this one undid, when it was a revert.")
    revertable: bool = PField(
        description="Whether it can be reverted now: what it touched is still as it left it (and, for a "
        "deletion, the round's place is still there)."
    )
    old: RoundCardsPublic | PlayerJoinedPublic | PlayerNamePublic | PlayerLeftPublic | SettingsPublic | None = PField(
        description="What was there before: the round's cards (null for a restoration), the settings' old values, "
        "the player's old name, or whether they had left."
    )
    new: RoundCardsPublic | PlayerJoinedPublic | PlayerNamePublic | PlayerLeftPublic | SettingsPublic | None = PField(
        description="What was there after: the round's cards (null for a deletion), the settings' new values, or "
        "the player's new name, or whether they have left."
    )


class SeatPublic(BaseModel):
    player_id: int = PField(description="The player's `id`.")
    name: str
    taken: bool = PField(description="A phone holds this seat (its seat key sends the player's row).")
    taken_at: datetime | None = PField(description="When the phone took it (UTC); null while free.")


class SeatsPublic(BaseModel):
    """The game's seats, for the scorekeeper: the seat link every player opens, and who took a seat."""

    link: str = PField(
        description="The game's seat link (its last part is the key `POST .../seats/{player_id}` takes)."
    )
    link_key: str = PField(description="The seat link's key.")
    seats: list[SeatPublic]


class SeatTaken(BaseModel):
    """A seat just taken: its key, shown only here."""

    game_id: str
    player_id: int
    name: str
    seat_key: str = PField(
        description="The seat's secret key: `Authorization: Bearer <seat key>` on `PUT .../draft/{player_id}`, "
        "and nothing else. Shown only in this answer."
    )


class DraftRowPublic(BaseModel):
    player_id: int = PField(description="The player's `id`.")
    dutch: int | None = PField(description="`cards`: the cards played to the centre; null in the other kinds.")
    blitz: int | None = PField(description="`cards`: the cards left in the pile; null in the other kinds.")
    hand: int | float | None = PField(
        description="`lowest` and `lives`: the hand's points (an integer; 31's three of a kind: 30.5); null in `cards`."
    )
    called: bool = PField(description="`lowest`: called Dutch; `lives`: knocked.")
    by_seat: bool = PField(description="Sent from the player's own phone (false: typed with the edit key).")
    sent_at: datetime = PField(description="When it was sent (UTC).")


class DraftPublic(BaseModel):
    """The round being played, as far as its rows were sent: not a round (no totals move)."""

    game_id: str
    round: int = PField(description="The round the rows are for: the game's rounds plus one.")
    rows: list[DraftRowPublic] = PField(description="One row a player who sent one, by player id.")
    saved_round: int | None = PField(
        None,
        description="In the answer to a row sent: the round this row completed and that saved by itself "
        "(`seats.save_round`); the draft is then the next round's. Null otherwise.",
    )


class ParamPublic(BaseModel):
    default: int | bool | str = PField(description="The preset's value.")
    type: Literal["integer", "boolean", "string"]
    minimum: int | None = PField(None, description="For integers: the least value allowed.")
    maximum: int | None = PField(None, description="For integers: the greatest value allowed.")
    enum: list[str] | None = PField(None, description="For strings: the values allowed.")


class PresetPublic(BaseModel):
    """A game Blitzboard keeps: its rule family and every parameter, filled in, with its bounds."""

    name: PresetName = PField(description="What `rules.preset` takes.")
    kind: KindName = PField(description="Its rule family, what `rules.kind` says.")
    params: dict[str, ParamPublic] = PField(description="Each parameter of the kind, by its name in `rules`.")


# --- tables ----------------------------------------------------------------------------


class PersonPublic(BaseModel):
    id: int = PField(description="The person's id at the table (a game's player at the table names it: `person_id`).")
    name: str
    games: int = PField(description="Games they have played at the table.")


class TableGamePublic(BaseModel):
    id: str = PField(description="The game's id (`GET /games/{id}`).")
    name: str
    kind: KindName
    preset: PresetName
    created_at: datetime
    status: Literal["playing", "finished"]
    winners: list[int] = PField(description="Person ids; empty while the game is on.")


class TablePublic(BaseModel):
    id: str = PField(description="The table's id, as in its links.")
    name: str
    version: int = PField(description='Bumped by every change (and by each new game at it); the ETag is `"<version>"`.')
    created_at: datetime
    updated_at: datetime
    people: list[PersonPublic] = PField(description="The roster, in the order people joined.")
    games_count: int = PField(description="Every game played at the table.")
    games: list[TableGamePublic] = PField(description="The latest games (up to 20), newest first.")


class TableUrls(BaseModel):
    view: str = PField(description="The table's page: anyone with it reads the standings.")
    edit: str = PField(description="The edit link: it hands the table's key to a browser. Keep it secret.")


class TableCreated(TablePublic):
    edit_key: str = PField(description="The secret that changes this table and starts games at it. Shown only here.")
    urls: TableUrls
