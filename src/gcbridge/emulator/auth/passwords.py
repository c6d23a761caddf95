"""Password hashes of the service's own accounts (scrypt, constant-time check)."""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets

__all__ = ["hash_password", "check_password", "dummy_hash"]

# N=2**14, r=8: 16 MiB and tens of milliseconds, the interactive-login setting.
_N, _R, _P = 2**14, 8, 1


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    """``scrypt$N$r$p$<salt hex>$<hash hex>``."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches ``stored``; a malformed hash never matches."""
    try:
        scheme, n, r, p, salt_hex, hash_hex = stored.split("$")
        if scheme != "scrypt":
            return False
        salt, expected = bytes.fromhex(salt_hex), bytes.fromhex(hash_hex)
        digest = hashlib.scrypt(
            password.encode("utf-8"), salt=salt, n=int(n), r=int(r), p=int(p), dklen=len(expected)
        )
    except ValueError:
        return False
    return hmac.compare_digest(digest, expected)


@functools.cache
def dummy_hash() -> str:
    """A hash to check against when the username does not exist.

    So a login for an unknown user costs the same time as a wrong password.
    """
    return hash_password("not a password", salt=b"\x00" * 16)
