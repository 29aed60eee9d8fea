"""The domain errors of the use cases: each names its HTTP status, so the API and the pages say it the same way."""

from __future__ import annotations

from typing import Any

from app.i18n import N_, _, problem_text
from app.rules import scoring


class GameError(Exception):
    """`detail` is said in the request's language where it is raised; `title` is English, marked for the
    catalogs (N_), and translated where the error is rendered (app.http.problems, app.web.render)."""

    status = 400
    slug = "bad-request"
    title = N_("Bad request")

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail
        # The game as a refused change loaded it (an app.games.views.GameView, set by app.games.writes), so a
        # page can show the refusal without loading the game again; None when the refusal came before.
        # Typed loosely: naming GameView here would make the errors import the games wing they serve.
        self.view: Any = None


class GameNotFound(GameError):
    status, slug, title = 404, "not-found", N_("Not found")


class GameGone(GameError):
    """A game its scorekeeper deleted: 410 where a game that never was is 404."""

    status, slug, title = 410, "gone", N_("Gone")


class KeyMissing(GameError):
    status, slug, title = 401, "edit-key-missing", N_("Edit key missing")


class KeyWrong(GameError):
    status, slug, title = 403, "edit-key-wrong", N_("Wrong edit key")


class HandoverRefused(GameError):
    """A handover link that can't take over the game: used already, expired, or not one (app.games.handover)."""

    status, slug, title = 403, "handover-link-refused", N_("Handover link not valid")


class GameIsOver(GameError):
    status, slug, title = 409, "game-over", N_("The game is over")


class VersionMismatch(GameError):
    status, slug, title = 412, "version-mismatch", N_("The game has changed")


class IdempotencyKeyReused(GameError):
    status, slug, title = 422, "idempotency-key-reused", N_("Idempotency-Key reused")


class TooManyRounds(GameError):
    status, slug, title = 409, "too-many-rounds", N_("The game has as many rounds as it can hold")


class CantRevert(GameError):
    """A change that can't be undone any more: what it touched has changed since (app.games.changes)."""

    status, slug, title = 409, "cant-revert", N_("The change can't be reverted")


class SeatLinkRefused(KeyWrong):
    """A seat link that is not this game's, or no longer (a new edit key ends it: app.games.seats); counted as
    a wrong key, as every refused key is (a 429 after too many)."""

    status, slug, title = 403, "seat-link-refused", N_("Seat link not valid")


class SeatKeyWrong(KeyWrong):
    """A seat key fills in its own player's row of the round being played, and does nothing else; counted
    as a wrong key."""

    status, slug, title = 403, "seat-key-wrong", N_("Wrong seat key")


class SeatTaken(GameError):
    """Another phone holds that player's seat: the scorekeeper frees it first."""

    status, slug, title = 409, "seat-taken", N_("The seat is taken")


class RoundSavedMeanwhile(GameError):
    """A row sent for a round that was saved since (or not begun yet): never written over the saved round."""

    status, slug, title = 409, "round-saved", N_("That round was saved already")

    def __init__(self, detail: str, *, sent: int, round_number: int, version: int):
        super().__init__(detail)
        self.saved_round = sent if sent < round_number else None  # the row's round, saved (None: not begun yet)
        self.round_number = round_number  # the round being played now
        self.version = version  # the game's, now (the answer's ETag)

    def members(self) -> dict[str, Any]:
        """What the problem carries beside its detail: the state to send the row again from."""
        return {"round": self.round_number, "saved_round": self.saved_round, "version": self.version}


class PersonHasGames(GameError):
    """A person who played at the table stays on its roster: their games name them (app.tables.usecases)."""

    status, slug, title = 409, "person-has-games", N_("This person has played games here")


class ReplayUnavailable(GameError):
    status, slug, title = 422, "idempotency-replay-unavailable", N_("The first answer can't be given back")


class UnsupportedMediaType(GameError):
    status, slug, title = 415, "unsupported-media-type", N_("Unsupported media type")


class InvalidDocument(GameError):
    """A document refused as a whole (a backup to import, app.backup.check): each problem with where it
    is as a JSON path into the document (`games[3].rounds[12].scores[1].blitz`), said in the request's
    language where it was found. Its own class because those paths are not a rule's fields, which
    app.http.problems maps to a request's."""

    status, slug, title = 422, "invalid-input", N_("Invalid input")

    def __init__(self, detail: str, errors: list[tuple[str, str]]):
        super().__init__(detail)
        self.errors = errors


# Said by the API's 422 and beside the round form's field (app.web.entry).
PILES_DIFFER = N_("The piles hold {piles} cards; the rows say {rows}. Correct a row, or save anyway.")


class PilesDiffer(GameError):
    """A round whose centre piles ("Check the piles") hold another number of cards than its rows played there:
    saved only when the house says so (`piles_anyway`, the form's "Save anyway")."""

    status, slug, title = 422, "piles-differ", N_("The piles and the rows differ")

    def __init__(self, piles: int, rows: int):
        super().__init__(_(PILES_DIFFER).format(piles=piles, rows=rows))
        self.piles, self.rows = piles, rows


class InvalidInput(GameError):
    status, slug, title = 422, "invalid-input", N_("Invalid input")

    def __init__(self, problems: list[scoring.Problem]):
        super().__init__(" ".join(problem_text(p) for p in problems))
        self.problems = problems
