"""The rules of each ssoData user field, as plain functions, and the diagnosis of refusals.

:class:`~gcbridge.sso.user.SsoUser` applies these rules through pydantic: it is the one
validator of a user, for the issuer and the verifier alike. Every text check is a *full*
match: a trailing newline is not "the same" value (``"alice\\n"`` beside ``"alice"`` would
be an impersonation), and ids, usernames and e-mails refuse control characters and the
bidi controls that make text display in another order than it is stored.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Any, NamedTuple
from urllib.parse import urlsplit

__all__ = [
    "FIELDS",
    "REQUIRED",
    "MEANT_FIELD",
    "UserProblem",
    "meant_field",
    "unsafe_text",
    "email_ok",
    "language_ok",
    "picture_problem",
    "describe_errors",
]

FIELDS = ("id", "username", "email", "language", "bio", "picture")
"""The user fields of ssoData, in wire order."""
REQUIRED = frozenset({"id", "username", "email"})
"""The fields every user must have."""

MEANT_FIELD = {
    # Disqus's identical format and the webhook payload's author.avatar say "avatar".
    "avatar": "picture",
    "avatar_url": "picture",
    "avatarurl": "picture",
    "image": "picture",
    "image_url": "picture",
    "photo": "picture",
    "photo_url": "picture",
    "picture_url": "picture",
    "name": "username",
    "display_name": "username",
    "displayname": "username",
    "user_name": "username",
    "login": "username",
    "nickname": "username",
    "user_id": "id",
    "userid": "id",
    "uid": "id",
    "external_id": "id",
    "mail": "email",
    "e-mail": "email",
    "e_mail": "email",
    "email_address": "email",
    "emailaddress": "email",
    "lang": "language",
    "locale": "language",
    "about": "bio",
    "description": "bio",
}
"""Field names other formats use, and the service's field for each."""

# Deliberately simple: one "@", no spaces or controls, a dot in the domain. Full
# RFC 5322 is neither needed nor what the service checks; this catches typos.
_EMAIL = re.compile(r"[^@\s\x00-\x1f\x7f]+@[^@\s\x00-\x1f\x7f]+\.[^@\s\x00-\x1f\x7f.]+")
# BCP 47-ish: "en", "fr-FR", "pt_BR", "zh-Hant-TW" (ASCII only).
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*", re.ASCII)
# Explicit embeddings, overrides and isolates, and the invisible direction marks.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


class UserProblem(NamedTuple):
    """One refused user field: which, why (``code``), and the field meant, if any."""

    field: str
    code: str
    message: str
    meant: str | None = None


def meant_field(name: str) -> str | None:
    """The service's field that ``name`` probably stands for, or ``None``."""
    if name in FIELDS:
        return None
    key = name.strip().lower()
    if key in FIELDS:
        return key  # "Email" -> "email"
    if key in MEANT_FIELD:
        return MEANT_FIELD[key]
    close = difflib.get_close_matches(key, FIELDS, n=1, cutoff=0.75)  # "usrname"
    return close[0] if close else None


def unsafe_text(value: str) -> bool:
    """Whether ``value`` holds a control, surrogate, line/paragraph separator or bidi control."""
    if value.isprintable():  # the common case: none of those (isprintable is stricter)
        return False
    return any(ch in _BIDI or unicodedata.category(ch) in _UNSAFE_CATEGORIES for ch in value)


def email_ok(value: str) -> bool:
    """The e-mail rule: ``name@domain.tld``, as a full match."""
    return _EMAIL.fullmatch(value) is not None and not unsafe_text(value)


def language_ok(value: str) -> bool:
    """The language rule: a BCP 47-like tag, as a full match."""
    return _LANGUAGE.fullmatch(value) is not None


def picture_problem(value: str) -> str | None:
    """Why ``value`` is not an acceptable avatar URL, or ``None``."""
    if not (value.isprintable() and " " not in value) and (
        any(ch.isspace() for ch in value) or unsafe_text(value)
    ):
        return "must be an absolute http(s) URL without spaces or control characters"
    try:
        parts = urlsplit(value)
    except ValueError:
        return "must be an absolute http(s) URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an absolute http(s) URL"
    return None


def describe_errors(errors: list[Any]) -> tuple[UserProblem, ...]:
    """One :class:`UserProblem` per field of a pydantic ``ValidationError.errors()`` list."""
    problems: dict[str, UserProblem] = {}
    for err in errors:
        loc = err.get("loc") or ()
        field = str(loc[0]) if loc else "user"
        if field in problems:
            continue
        kind = err.get("type", "")
        if kind == "extra_forbidden":
            meant = meant_field(field)
            if meant is not None:
                text = f"unknown field {field!r}: the service's field is {meant!r}"
            else:
                text = f"unknown field {field!r} (the fields are {', '.join(FIELDS)})"
            problems[field] = UserProblem(field, "unknown_field", text, meant)
        elif kind == "missing":
            problems[field] = UserProblem(field, "missing_field", f"missing field {field!r}")
        elif field == "user":
            problems[field] = UserProblem(field, "not_an_object", "the user must be a JSON object")
        else:
            msg = str(err.get("msg", "is invalid"))
            msg = msg.removeprefix("Value error, ")
            problems[field] = UserProblem(field, "bad_value", f"field {field!r}: {msg}")
    return tuple(problems.values())
