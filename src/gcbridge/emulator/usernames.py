"""Usernames that render alike are one username: invisible characters and TR39 skeletons.

Threat model: the widget shows a comment's author by name. A second user whose
name renders like a taken one (``аlice`` with a Cyrillic ``а``, ``alice`` with a
combining grapheme joiner, a variation selector, a Hangul filler or a trailing
ideographic space) could pose as that user. Two rules stop it:

- :func:`invisible_problem` refuses a name holding a character that renders as
  nothing or as blank: controls, format characters, every Unicode
  ``Default_Ignorable_Code_Point`` (U+034F, U+FE00-FE0F, U+3164, U+FFA0, U+115F,
  tags ...), blank symbols (U+2800 BRAILLE PATTERN BLANK), and any space other
  than single U+0020 between visible characters (U+3000, U+00A0, U+2002 ...).
- :func:`username_keys` gives the two keys under which a name is unique on a
  site: ``fold`` = TR39 skeleton of the NFKC-case-folded name (``ALICE`` and
  ``аlice`` are ``alice``) and ``shape`` = the case-folded skeleton of the NFKC
  name (``paypaI`` with a capital I is ``paypal``: the skeleton maps ``I`` to
  ``l`` before case folding would turn it into ``i``). A name conflicts with a
  taken one when either key is equal.

The Unicode data (the ``Default_Ignorable_Code_Point`` property and the
confusables of UTS #39, ``confusables.txt``) comes from ICU, the Unicode
Consortium's own implementation, through PyICU (``pyicu-wheels``, the
``emulator`` extra): the skeleton is ICU's ``SpoofChecker.getSkeleton``. When
ICU's data changes (a new Unicode version), :data:`KEY_VERSION` changes and the
database recomputes the stored keys (see :mod:`gcbridge.emulator.db`).
"""

from __future__ import annotations

import threading
import unicodedata
from typing import NamedTuple

import icu

__all__ = ["KEY_VERSION", "UsernameKeys", "invisible_problem", "username_keys", "skeleton"]

_KEY_RULES = 2  # bump when the rules below change (1: NFKC + casefold only)
KEY_VERSION = f"{_KEY_RULES}:{icu.UNICODE_VERSION}"
"""What the stored keys were computed with: the rules and ICU's Unicode version."""

_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Blank but not Default_Ignorable: shown as empty space by common fonts.
_BLANK = frozenset({"\u2800", "\u3164", "\uffa0", "\u115f", "\u1160", "\u17b4", "\u17b5"})
_DI = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
_local = threading.local()


class UsernameKeys(NamedTuple):
    """The two uniqueness keys of a username (see the module docstring)."""

    fold: str
    shape: str


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _checker() -> icu.SpoofChecker:
    checker: icu.SpoofChecker | None = getattr(_local, "checker", None)
    if checker is None:  # ICU objects are not shared across threads
        checker = _local.checker = icu.SpoofChecker()
    return checker


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (ICU): look-alike strings share one."""
    return str(_checker().getSkeleton(0, text))


def username_keys(username: str) -> UsernameKeys:
    """The two keys under which ``username`` is unique on its site."""
    nfkc = _nfkc(username)
    fold = _nfkc(skeleton(_nfkc(nfkc.casefold())).casefold())
    shape = _nfkc(skeleton(nfkc).casefold())
    return UsernameKeys(fold, shape)


def invisible_problem(username: str) -> str | None:
    """Why ``username`` holds a character that renders as nothing or blank; ``None`` if fine."""
    if username != username.strip() or not username.strip():
        return "starts or ends with a space"
    if "  " in username:
        return "holds two spaces in a row"
    for ch in username:
        if ch == " ":
            continue
        code = f"U+{ord(ch):04X}"
        if unicodedata.category(ch) in _REFUSED_CATEGORIES:
            return f"holds a control or format character ({code})"
        if icu.Char.hasBinaryProperty(ch, _DI):
            return f"holds an invisible (default-ignorable) character ({code})"
        if ch in _BLANK or ch.isspace() or unicodedata.category(ch) == "Zs":
            return f"holds a blank character ({code})"
    return None
