"""The rules of each ssoData user field, as plain functions, and the diagnosis of refusals.

:class:`~gcbridge.sso.user.SsoUser` applies these rules through pydantic; the
issuer and the verifier first try :func:`fast_claims`, a plain-Python check that
accepts only what ``SsoUser`` accepts (anything it is unsure of goes to the model,
which gives the precise error). Every text check is a *full* match: a trailing
newline is not "the same" value (``"alice\\n"`` beside ``"alice"`` would be an
impersonation), and ids, usernames and e-mails refuse control characters and the
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
    "fast_claims",
    "describe_errors",
]

FIELDS = ("id", "username", "email", "language", "bio", "picture")
"""The user fields of ssoData, in wire order (contract.md)."""
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

_FIELD_SET = frozenset(FIELDS)
_BIG_ID = 10**30  # integer ids up to 30 digits take the fast path
# Deliberately simple: one "@", no spaces or controls, a dot in the domain. Full
# RFC 5322 is neither needed nor what the service checks; this catches typos.
_EMAIL = re.compile(r"[^@\s\x00-\x1f\x7f]+@[^@\s\x00-\x1f\x7f]+\.[^@\s\x00-\x1f\x7f.]+")
# BCP 47-ish: "en", "fr-FR", "pt_BR", "zh-Hant-TW" (ASCII only).
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*", re.ASCII)
# Explicit embeddings, overrides and isolates, and the invisible direction marks.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
# A plain http(s) URL of printable ASCII, no spaces: a subset of what
# picture_problem accepts, checked without urlsplit (the fast path's shape).
_PLAIN_URL = re.compile(
    r"https?://[A-Za-z0-9][A-Za-z0-9.-]*(?::[0-9]{1,5})?(?:[/?#][!-~]*)?", re.ASCII
)


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


def fast_claims(user: dict[str, Any]) -> dict[str, str] | None:
    """The claims of a plain, valid user dict, in wire order; ``None`` when unsure.

    Accepts only users :class:`~gcbridge.sso.user.SsoUser` accepts, and gives
    the same claims; anything else (errors included) returns ``None`` and is
    left to the model, which raises the precise error.
    """
    if not user.keys() <= _FIELD_SET:
        return None
    get = user.get
    ident = get("id")
    username = get("username")
    email = get("email")
    if type(ident) is not str:
        if type(ident) is not int or not -_BIG_ID < ident < _BIG_ID:
            return None
        ident = str(ident)
    if not (
        type(username) is str
        and type(email) is str
        and 0 < len(ident) <= 255
        and 0 < len(username) <= 255
        and len(email) <= 320
        # isprintable: no control, bidi, separator or other invisible character
        # (stricter than the model, which allows some of them).
        and (ident + username + email).isprintable()
        and not ident.isspace()
        and not username.isspace()
        and _EMAIL.fullmatch(email) is not None
    ):
        return None
    if len(user) == 3:
        return {"id": ident, "username": username, "email": email}
    claims = {"id": ident, "username": username, "email": email}
    language = get("language")
    if language is not None:
        if type(language) is not str or _LANGUAGE.fullmatch(language) is None:
            return None
        claims["language"] = language
    bio = get("bio")
    if bio is not None:
        if type(bio) is not str or len(bio) > 10_000:
            return None
        claims["bio"] = bio
    picture = get("picture")
    if picture is not None:
        if type(picture) is not str or len(picture) > 2048 or not _PLAIN_URL.fullmatch(picture):
            return None
        claims["picture"] = picture
    return claims


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
