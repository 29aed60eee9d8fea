"""Edit keys (capability links), the "may edit" credential, CSRF tokens and security headers.

Whoever holds a game's edit key may change it; everyone else may only read. The key is 192 random
bits from `secrets`, shown once, stored only as its SHA-256 (a fast hash is enough for a key with
that much entropy: there is nothing to brute-force), and compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from fastapi import Request

EDIT_KEY_BYTES = 24  # 192 bits
GAME_ID_BYTES = 12  # 96 bits: unguessable, not sequential
EDIT_COOKIE_PREFIX = "bb_edit_"


def new_game_id() -> str:
    return secrets.token_urlsafe(GAME_ID_BYTES)


def new_edit_key() -> str:
    return secrets.token_urlsafe(EDIT_KEY_BYTES)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def key_matches(key: str | None, key_hash: str) -> bool:
    if not key:
        return False
    return hmac.compare_digest(hash_key(key), key_hash)


def csrf_token(edit_key: str) -> str:
    """The token the scorekeeper's forms carry, derived from the edit key in the browser's cookie.

    A cross-site page can neither read the cookie nor compute this, and rotating the key changes it.
    """
    return hmac.new(edit_key.encode("utf-8", "surrogatepass"), b"blitzboard-csrf", hashlib.sha256).hexdigest()[:32]


def csrf_matches(token: str | None, edit_key: str | None) -> bool:
    if not token or not edit_key:
        return False
    return hmac.compare_digest(token.encode("utf-8", "surrogatepass"), csrf_token(edit_key).encode())


def edit_cookie_name(game_id: str) -> str:
    return EDIT_COOKIE_PREFIX + game_id


@dataclass(frozen=True, slots=True)
class Credential:
    """The edit key a request presents (not yet checked against the game)."""

    key: str | None


def bearer_key(request: Request) -> Credential:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return Credential(value.strip())
    return Credential(None)


def cookie_key(request: Request, game_id: str) -> Credential:
    return Credential(request.cookies.get(edit_cookie_name(game_id)))


def content_security_policy() -> str:
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "font-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )
