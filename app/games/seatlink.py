"""The game's seat link ("Players enter their own", app.games.seats): one link and QR code for the whole
table, with which a phone takes a player's seat.

Nothing is stored for it. Its token is an HMAC, under the server secret (app.sealing, not in the
database), of the game and the hash of its edit key, as a handover link's (app.games.handover) but with
no expiry. So it works while the game's edit key stands: a new edit key, or a handover, ends it (the seats
already taken keep theirs), and nobody can make one without the server secret.
"""

from __future__ import annotations

from app.models import Game
from app.sealing import Sealer

_LINK_HEX = 32  # 128 bits


def seat_link_token(sealer: Sealer, game: Game) -> str:
    """The game's seat link token, as its edit key now stands."""
    return sealer.mac("seat-link", game.id, game.edit_key_hash)[:_LINK_HEX]
