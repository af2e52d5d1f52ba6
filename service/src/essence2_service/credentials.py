"""API secrets: ``e2_<id>_<random>``; the id is public (it names the secret), the random part is 256 bits.

Only the SHA-256 of the whole secret is stored. A plain hash is enough for a high-entropy random secret (a
slow password hash protects guessable passwords, which these are not); it is compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

_SECRET = re.compile(r"^e2_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
_SECRET_ID = re.compile(r"^(?:e2_)?([0-9a-f]{12})$")
_DUMMY_HASH = hashlib.sha256(b"essence2: no such secret").digest()


def new_secret() -> tuple[str, str, bytes]:
    """Returns (secret id, secret, its hash)."""
    secret_id = secrets.token_hex(6)
    secret = f"e2_{secret_id}_{secrets.token_urlsafe(32)}"
    return secret_id, secret, hash_secret(secret)


def hash_secret(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).digest()


def secret_id_of(secret: str) -> str | None:
    """The id inside a well-formed secret, else None."""
    match = _SECRET.match(secret)
    return match.group(1) if match else None


def parse_secret_or_id(text: str) -> tuple[str, str | None] | None:
    """For ``secret revoke``: (id, the full secret or None) from a secret or a secret id, else None."""
    text = text.strip()
    secret_id = secret_id_of(text)
    if secret_id is not None:
        return secret_id, text
    match = _SECRET_ID.match(text)
    return (match.group(1), None) if match else None


def matches(secret: str, stored_hash: bytes | None) -> bool:
    """Constant-time check of a presented secret against the stored hash (None: no such secret)."""
    ok = hmac.compare_digest(hash_secret(secret), stored_hash if stored_hash is not None else _DUMMY_HASH)
    return ok and stored_hash is not None


def bearer_secret(header: str | None) -> str | None:
    """The secret of an ``Authorization: Bearer <secret>`` header, else None."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    value = value.strip()
    return value or None
