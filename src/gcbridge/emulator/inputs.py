"""Strict parsing of what callers send: numbers in query strings, JSON bodies, names.

One rule for every route: a value is parsed once, whole, and bounded; anything else is a
400 ``invalid_request`` in the gcCode shape (never a 500, never a prefix silently used).
Pydantic bodies get the same string rules through :class:`StrictBody`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from pydantic import BaseModel, model_validator

from gcbridge.emulator.errors import bad_request

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "BadInput",
    "USERNAME",
    "EMAIL",
    "unsafe_text",
    "StrictBody",
    "clean_strings",
    "parse_int",
    "parse_json_object",
]

MAX_DEPTH = 32
"""The deepest nesting of arrays and objects accepted in a JSON body."""

MAX_INT_DIGITS = 64
"""The longest integer literal accepted in a JSON body (no field of ours needs more)."""

_MAX_NUMBER_TEXT = 32

USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,31}")
"""An account username of the service (used with ``fullmatch``: no trailing newline)."""

EMAIL = re.compile(r"[^@\s]{1,64}@[^@\s]+\.[^@\s]+")
"""An e-mail address, loosely (used with ``fullmatch``)."""


def unsafe_text(value: str) -> bool:
    """Whether ``value`` holds a control or format character (NUL, newline, U+202E, ZWJ, ...).

    Category Cc covers C0/C1 controls; Cf covers the bidi embeddings and
    overrides (U+202A-202E), isolates (U+2066-2069), marks (U+200E/F, U+061C)
    and zero-width characters, which let one name render as another.
    """
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in value)


class BadInput(ValueError):
    """Parsed data that a route must refuse (lone surrogate, too deep)."""


def parse_int(
    name: str, raw: str | None, *, low: int, high: int, default: int | None = None
) -> int:
    """``raw`` as an integer in ``[low, high]``; ``default`` when absent or empty.

    Only ASCII digits are accepted (``"\\u0661"``, ``"+1"``, ``"1e3"``, ``" 1"`` are not);
    a value out of range, or longer than any value in range can be, is a 400.
    """
    if raw is None or raw == "":
        if default is None:
            raise bad_request(f"{name}: required, an integer from {low} to {high}")
        return default
    if len(raw) > _MAX_NUMBER_TEXT or not (raw.isascii() and raw.isdigit()):
        raise bad_request(f"{name}: an integer from {low} to {high}")
    digits = raw.lstrip("0") or "0"
    if len(digits) > len(str(high)) or not low <= int(digits) <= high:
        raise bad_request(f"{name}: an integer from {low} to {high}")
    return int(digits)


def _bounded_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > MAX_INT_DIGITS:
        raise BadInput(f"an integer longer than {MAX_INT_DIGITS} digits")
    return int(text)


def _no_constant(text: str) -> Any:
    raise BadInput(f"{text} is not JSON")


def clean_strings(value: Any, depth: int = 0) -> Any:
    """``value`` unchanged; ``BadInput`` on a lone surrogate or nesting over :data:`MAX_DEPTH`."""
    if depth > MAX_DEPTH:
        raise BadInput(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise BadInput("a string holds a lone UTF-16 surrogate (not Unicode text)") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            clean_strings(key, depth + 1)
            clean_strings(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            clean_strings(item, depth + 1)
    return value


def parse_json_object(raw: bytes, *, what: str = "a JSON object") -> dict[str, Any]:
    """The JSON object in ``raw``; a 400 ``invalid_request`` for anything else."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise bad_request("body: not UTF-8") from None
    try:
        data = json.loads(text or "null", parse_int=_bounded_int, parse_constant=_no_constant)
        clean_strings(data)
    except BadInput as exc:
        raise bad_request(f"body: {exc}") from None
    except RecursionError:
        raise bad_request(f"body: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:
        raise bad_request(f"body: {what} expected") from None
    if not isinstance(data, dict):
        raise bad_request(f"body: {what} expected")
    return data


class StrictBody(BaseModel):
    """Base of the emulator's pydantic bodies: the same string rules as raw JSON routes."""

    @model_validator(mode="before")
    @classmethod
    def _strict_strings(cls, data: Any) -> Any:
        return clean_strings(data)
