"""The server secret, and the two things made from it: MACs of Idempotency-Keys and sealed edit keys.

An edit key is stored only as a hash, except for the short time a retried request may need it back:
the answer to creating a game or to rotating its key carries the new key, and a client whose answer
was lost retries with the same Idempotency-Key. That replay record keeps the key sealed:

- AES-256-GCM (an AEAD, from the `cryptography` package), under a key derived with HKDF-SHA256 from
  the server secret, salted with the client's Idempotency-Key (which the database holds only as a
  MAC), and bound to the record's scope (game, operation, credential) as associated data. A record
  copied to another scope, or changed by one bit, does not open.
- The server secret is not in the database: `BLITZBOARD_SECRET_KEY`, or a file created on first
  start (mode 0600) and reused: `BLITZBOARD_SECRET_FILE`, by default beside the SQLite database. A
  copy of the database alone yields no key, and without the secret nobody can even test a guessed
  Idempotency-Key against a record. A copy of both can forge handover links and test guesses, so
  the setting can keep the file apart from the database and its backups (docs/security.md).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import tempfile
import time
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from sqlalchemy.engine import make_url

log = logging.getLogger("blitzboard.sealing")

SECRET_BYTES = 32
MIN_SECRET_CHARS = 32  # a BLITZBOARD_SECRET_KEY shorter than this is refused at start
_SEAL_FORMAT = b"\x01"  # first byte of every sealed value: the format, so it can change later
_NONCE_BYTES = 12


class SealBroken(Exception):
    """A sealed value that does not open: tampered with, moved to another scope, or another secret."""


def _hkdf(secret: bytes, info: bytes, salt: bytes | None = None) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(secret)


def _encode(parts: tuple[str | bytes, ...]) -> bytes:
    """Parts joined unambiguously (each length-prefixed), so ("ab", "c") and ("a", "bc") differ."""
    out = bytearray()
    for part in parts:
        data = part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass")
        out += len(data).to_bytes(4, "big") + data
    return bytes(out)


class Sealer:
    """Everything keyed by the server secret. Build one per app (create_app) from load_secret()."""

    def __init__(self, secret: bytes):
        if len(secret) < 16:
            raise ValueError("the server secret must have at least 128 bits")
        self._mac_key = _hkdf(secret, b"blitzboard/v1/idempotency-mac")
        self._seal_root = _hkdf(secret, b"blitzboard/v1/replay-seal")

    def mac(self, *parts: str | bytes) -> str:
        """HMAC-SHA256 of the parts, hex: what the database keeps instead of an Idempotency-Key."""
        return hmac.new(self._mac_key, _encode(parts), hashlib.sha256).hexdigest()

    def _key(self, salt: str, scope: bytes) -> bytes:
        return _hkdf(self._seal_root, b"blitzboard/v1/seal\0" + scope, salt=_encode((salt,)))

    def seal(self, plaintext: str, *, salt: str, scope: tuple[str, ...]) -> bytes:
        """`plaintext` encrypted and authenticated; opens only with the same salt and scope."""
        aad = _encode(scope)
        nonce = secrets.token_bytes(_NONCE_BYTES)
        sealed = AESGCM(self._key(salt, aad)).encrypt(nonce, plaintext.encode(), aad)
        return _SEAL_FORMAT + nonce + sealed

    def open(self, sealed: bytes, *, salt: str, scope: tuple[str, ...]) -> str:
        if len(sealed) < 1 + _NONCE_BYTES + 16 or sealed[:1] != _SEAL_FORMAT:
            raise SealBroken("not a sealed value")
        aad = _encode(scope)
        nonce, body = sealed[1 : 1 + _NONCE_BYTES], sealed[1 + _NONCE_BYTES :]
        try:
            return AESGCM(self._key(salt, aad)).decrypt(nonce, body, aad).decode()
        except (InvalidTag, UnicodeDecodeError) as error:
            raise SealBroken("the sealed value does not open") from error


def default_secret_file(database_url: str) -> Path | None:
    """Beside a SQLite file (`blitzboard.db` -> `blitzboard.db.secret`); `blitzboard.secret` in the
    working directory otherwise; None for an in-memory database (nothing outlives the process)."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        if not url.database or url.database == ":memory:" or url.database.startswith("file::memory:"):
            return None
        return Path(url.database + ".secret")
    return Path("blitzboard.secret")


def load_secret(secret_key: str, secret_file: str, database_url: str) -> bytes:
    """The server secret: the setting when given, else the secret file (created on first start).

    Creation is atomic (written to a temporary file, then hard-linked into place, which fails if
    the file exists), so several processes starting at once all end up with the same secret.
    """
    if secret_key:
        if len(secret_key) < MIN_SECRET_CHARS:
            raise ValueError(
                f"BLITZBOARD_SECRET_KEY must have at least {MIN_SECRET_CHARS} characters "
                "(make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
            )
        return secret_key.encode("utf-8", "surrogatepass")
    path = Path(secret_file) if secret_file else default_secret_file(database_url)
    if path is None:
        return secrets.token_bytes(SECRET_BYTES)
    if _is_the_database(path, database_url):
        # Read as the secret (or, before the database exists, made in its place): refused before either.
        raise RuntimeError(
            f"BLITZBOARD_SECRET_FILE names the database itself ({path}): give the server secret a file of "
            "its own, e.g. blitzboard.secret on another volume (docs/operations.md)"
        )
    try:
        return _read_or_create(path)
    except OSError as error:
        raise RuntimeError(
            f"can't keep the server secret in {path} ({error.strerror or error}): set BLITZBOARD_SECRET_KEY, "
            "or BLITZBOARD_SECRET_FILE to a path this user can write"
        ) from error
    except UnicodeDecodeError as error:
        raise RuntimeError(
            f"the server secret file {path} is not text (is BLITZBOARD_SECRET_FILE the right file?): "
            "it holds the secret in hex, as the server writes it"
        ) from error


def _is_the_database(path: Path, database_url: str) -> bool:
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or default_secret_file(database_url) is None:
        return False
    return path.resolve() == Path(url.database or "").resolve()


def _read_or_create(path: Path) -> bytes:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".secret-")  # mkstemp makes it 0600
        try:
            with os.fdopen(fd, "w") as file:
                file.write(secrets.token_hex(SECRET_BYTES) + "\n")
                file.flush()
                os.fsync(file.fileno())  # on the disk before it has its name: never an empty secret
            try:
                os.link(temporary, path)
                log.info("created the server secret in %s (keep it apart from copies of the database)", path)
            except FileExistsError:
                pass  # another process made it first: use theirs
            except OSError:  # a file system without hard links: exclusive create instead
                try:
                    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
                        file.write(Path(temporary).read_text())
                except FileExistsError:
                    pass
        finally:
            os.unlink(temporary)
    if path.stat().st_mode & 0o077:
        log.warning("the server secret %s can be read by other users: chmod 600 it", path)
    text = path.read_text().strip()
    for _ in range(20):  # another process made it without hard links and is still writing it
        if text:
            break
        time.sleep(0.05)
        text = path.read_text().strip()
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = text.encode()
    if len(secret) < 16:
        raise ValueError(f"the server secret in {path} is too short (at least 128 bits)")
    return secret
