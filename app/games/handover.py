"""The one-time handover link: "Hand over" moves the edit rights to another phone.

The scorekeeper's page shows a link (and its QR code) that works once and for HANDOVER_MINUTES. The
phone that opens it and confirms gets a NEW edit key in its cookie; the game's old key (every cookie,
edit link and API key made from it) stops working in the same transaction, and the version event
that every write publishes tells the old page, which turns into the view page and says why.

Nothing is stored for a handover link. Its token is an HMAC, under the server secret (app.sealing,
not in the database), of the game, the hash of the game's current edit key and the moment it
expires. So it is:
- one-time: taking over rotates the key, after which the token no longer matches the game's key hash
  (a second opening is told the link was used); a new edit link ("Make a new edit link") or an
  earlier handover cancels it the same way;
- short-lived: its expiry is inside the MAC;
- unforgeable without the server secret, even by someone who can read the database.
"""

from __future__ import annotations

import hmac
import time

from app.i18n import N_, _, fill, ngettext
from app.sealing import Sealer

HANDOVER_MINUTES = 10
_MAC_HEX = 32  # 128 bits: enough for a link that works once, for minutes

# Why a link can't take over, in English (marked for the catalogs); handover_problem() says it in the
# request's language.
USED = N_(
    "This handover link was already used (or the scorekeeper made a new edit link since): "
    "ask the scorekeeper to show a new one."
)
MALFORMED = N_("This is not a handover link of this game: ask the scorekeeper to show it again.")


def expired() -> str:
    """Said of an expired link, in the request's language (a count of minutes: plural forms)."""
    return fill(
        ngettext(
            "This handover link expired (it works for {minutes} minute): ask the scorekeeper to show a new one.",
            "This handover link expired (it works for {minutes} minutes): ask the scorekeeper to show a new one.",
            HANDOVER_MINUTES,
        ),
        minutes=HANDOVER_MINUTES,
    )


def _mac(sealer: Sealer, game_id: str, key_hash: str, expires: int) -> str:
    return sealer.mac("handover-link", game_id, key_hash, str(expires))[:_MAC_HEX]


def handover_token(sealer: Sealer, game_id: str, key_hash: str, *, now: float | None = None) -> str:
    """A token for the game as its key now stands: "<expiry, unix seconds, hex>.<mac>"."""
    expires = int(now if now is not None else time.time()) + HANDOVER_MINUTES * 60
    return f"{expires:x}.{_mac(sealer, game_id, key_hash, expires)}"


def handover_problem(
    sealer: Sealer, game_id: str, key_hash: str, token: str, *, now: float | None = None
) -> str | None:
    """Why this token can't take over the game (None: it can), in the request's language. Checked again
    inside the write transaction that takes over, against the key hash as locked there."""
    expiry, _dot, mac = token.partition(".")
    try:
        expires = int(expiry, 16) if 0 < len(expiry) <= 12 else -1
    except ValueError:
        expires = -1
    if expires < 0 or len(mac) != _MAC_HEX or mac.strip("0123456789abcdef"):
        return _(MALFORMED)
    if not hmac.compare_digest(mac.encode(), _mac(sealer, game_id, key_hash, expires).encode()):
        return _(USED)  # made for a key the game no longer has (or forged: said the same way)
    if expires < (now if now is not None else time.time()):
        return expired()
    return None
