"""Usernames that render alike are one username: invisible characters, mixed scripts, skeletons.

Threat model: the widget shows a comment's author by name, so a second user whose name
renders like a taken one (``аlice`` with a Cyrillic ``а``, a combining grapheme joiner, a
Hangul filler, ``alịce`` with a dot below, ``ᴍallory``) could pose as that user. Three
rules stop it (docs/explanation/security.md, "The emulator", says which names are one):

- :func:`invisible_problem` refuses a character that renders as nothing or as blank
  (controls, format characters, ``Default_Ignorable_Code_Point``, blank symbols, any
  space but a single U+0020 between visible characters);
- :func:`mixed_script_problem` refuses letters that mix scripts beyond UTS #39's "Highly
  Restrictive" level (ICU's default);
- :func:`username_keys` gives the two keys under which a name is unique on a site:
  ``fold``, the TR39 skeleton of the NFKC-case-folded name, and ``shape``, the
  case-folded skeleton of the NFKC name (``paypaI`` is ``paypal``: the skeleton maps
  ``I`` to ``l`` before case folding would make it ``i``); either key equal is a
  conflict. Both also fold what the confusables table leaves apart (combining
  diacritical marks dropped, small capitals, ``vv`` and ``ʍ``).

The Unicode data comes from ICU (PyICU, the ``emulator`` extra); when it changes,
:data:`KEY_VERSION` changes and the database recomputes the stored keys
(:mod:`gcbridge.emulator.db`).
"""

from __future__ import annotations

import threading
import unicodedata
from typing import NamedTuple

import icu

__all__ = [
    "KEY_VERSION",
    "UsernameKeys",
    "invisible_problem",
    "mixed_script_problem",
    "username_problem",
    "username_keys",
    "skeleton",
]

# Bump when the rules below change (1: NFKC + casefold only; 2: + skeletons;
# 3: + diacritics dropped, small capitals, vv and turned w).
_KEY_RULES = 3
KEY_VERSION = f"{_KEY_RULES}:{icu.UNICODE_VERSION}"
"""What the stored keys were computed with: the rules and ICU's Unicode version."""

_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Blank but not Default_Ignorable: shown as empty space by common fonts.
_BLANK = frozenset({"\u2800", "\u3164", "\uffa0", "\u115f", "\u1160", "\u17b4", "\u17b5"})
_DI = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
_local = threading.local()

# The generic marks (Script=Inherited, shared by every script): accents, dots, rings,
# overlays. Script-specific marks (Indic vowel signs, kana voicing) stay: there they
# are letters of the word, not decoration on a Latin-looking one.
_DIACRITIC_BLOCKS = (
    (0x0300, 0x036F),  # Combining Diacritical Marks
    (0x1AB0, 0x1AFF),  # ... Extended
    (0x1DC0, 0x1DFF),  # ... Supplement
    (0x20D0, 0x20FF),  # ... for Symbols
    (0xFE20, 0xFE2F),  # Combining Half Marks
)
# Latin small capitals read as their letter; the confusables table maps few of them.
_SMALL_CAPITALS = {
    0x1D00: "a", 0x0299: "b", 0x1D04: "c", 0x1D05: "d", 0x1D07: "e", 0xA730: "f",
    0x0262: "g", 0x029C: "h", 0x026A: "i", 0x1D0A: "j", 0x1D0B: "k", 0x029F: "l",
    0x1D0D: "m", 0x0274: "n", 0x1D0F: "o", 0x1D18: "p", 0xA7AF: "q", 0x0280: "r",
    0xA731: "s", 0x1D1B: "t", 0x1D1C: "u", 0x1D20: "v", 0x1D21: "w", 0x028F: "y",
    0x1D22: "z",
}  # fmt: skip
# Applied to a skeleton: look-alikes the confusables table does not pair.
_SKELETON_FOLDS = (("\u028d", "rn"), ("vv", "w"))  # turned w (Cyrillic м's skeleton) -> m's


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


def _is_diacritic(ch: str) -> bool:
    code = ord(ch)
    return any(low <= code <= high for low, high in _DIACRITIC_BLOCKS)


def _bare(text: str) -> str:
    """``text`` in NFKC without the marks of the diacritics blocks."""
    decomposed = unicodedata.normalize("NFD", text)
    return _nfkc("".join(ch for ch in decomposed if not _is_diacritic(ch)))


def _key(skeleton_text: str) -> str:
    key = _bare(skeleton_text.casefold())
    for seen, same in _SKELETON_FOLDS:
        key = key.replace(seen, same)
    return key


def username_keys(username: str) -> UsernameKeys:
    """The two keys under which ``username`` is unique on its site."""
    base = _bare(_nfkc(username).translate(_SMALL_CAPITALS))
    fold = _key(skeleton(_bare(base.casefold())))
    shape = _key(skeleton(base))
    return UsernameKeys(fold, shape)


def _script_checker() -> icu.SpoofChecker:
    checker: icu.SpoofChecker | None = getattr(_local, "script_checker", None)
    if checker is None:
        checker = _local.script_checker = icu.SpoofChecker()
        checker.setChecks(icu.USpoofChecks.RESTRICTION_LEVEL)
        checker.setRestrictionLevel(icu.URestrictionLevel.HIGHLY_RESTRICTIVE)
    return checker


def mixed_script_problem(username: str) -> str | None:
    """Why ``username`` mixes scripts beyond UTS #39 "Highly Restrictive"; ``None`` if fine."""
    nfkc = _nfkc(username)
    if not _script_checker().check(nfkc):
        return None
    scripts: list[str] = []
    for ch in nfkc:
        name = str(icu.Script.getScript(ch).getName())
        if name not in ("Common", "Inherited", *scripts):
            scripts.append(name)
    return f"mixes scripts ({' and '.join(scripts)}), which lets it pass for another name"


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


def username_problem(username: str) -> str | None:
    """Why ``username`` is refused outright (invisible characters, mixed scripts); or ``None``."""
    return invisible_problem(username) or mixed_script_problem(username)
