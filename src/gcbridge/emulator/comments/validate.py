"""Input checks shared by the emulator's routes; each failure is a 400 naming its field.

Bounds exist so that a hostile caller cannot store megabytes per thread; the
values are generous for real pages.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from gcbridge.emulator.errors import invalid

__all__ = [
    "MAX_URL",
    "MAX_UID",
    "MAX_TITLE",
    "MAX_CONTENT",
    "MAX_ATTACHMENT_NAME",
    "MAX_ATTACHMENT_BYTES",
    "invalid",
    "check_url",
    "check_uid",
    "check_page_title",
    "check_content",
    "check_attachment_name",
    "check_true",
]

MAX_URL = 2048
MAX_UID = 256
MAX_TITLE = 512
MAX_CONTENT = 10_000
MAX_ATTACHMENT_NAME = 255
MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _text(name: str, value: str | None, limit: int) -> str:
    if value is None:
        raise invalid(name, "required")
    if not value.strip():
        raise invalid(name, "must not be empty")
    if len(value) > limit:
        raise invalid(name, f"at most {limit} characters")
    if _CONTROL.search(value):
        raise invalid(name, "must not contain control characters")
    return value


def check_url(value: str | None, name: str = "url") -> str:
    """An absolute http(s) URL with a host."""
    value = _text(name, value, MAX_URL)
    try:
        parts = urlsplit(value)
        host = parts.hostname
        parts.port  # noqa: B018  (raises ValueError on a bad port)
    except ValueError:
        raise invalid(name, "not a valid URL") from None
    if parts.scheme.lower() not in ("http", "https") or not host or " " in value:
        raise invalid(name, "an absolute http:// or https:// URL of the page is required")
    return value


def check_uid(value: str | None, name: str = "uid") -> str:
    """A non-empty thread id of bounded length."""
    return _text(name, value, MAX_UID)


def check_page_title(value: str | None, name: str = "page_title") -> str:
    """A non-empty page title of bounded length."""
    return _text(name, value, MAX_TITLE)


def check_content(value: str, name: str = "content") -> str:
    """Comment text: non-empty, bounded; surrounding whitespace removed; newlines kept."""
    text = value.strip()
    if not text:
        raise invalid(name, "must not be empty")
    if len(text) > MAX_CONTENT:
        raise invalid(name, f"at most {MAX_CONTENT} characters")
    if "\x00" in text:
        raise invalid(name, "must not contain NUL characters")
    return text


def check_attachment_name(value: str | None, name: str = "name") -> str:
    """A file name as a browser gives it: no path, no control characters, bounded."""
    value = _text(name, value, MAX_ATTACHMENT_NAME)
    if "/" in value or "\\" in value:
        raise invalid(name, "a file name, not a path")
    return value


def check_true(name: str, value: str | None) -> None:
    """``inapp`` / ``redirect``: must be ``true`` (or ``1``) for a standalone WebView."""
    if value is None:
        raise invalid(name, "required; pass true (a standalone WebView always sends true)")
    if value.strip().lower() not in ("true", "1"):
        raise invalid(
            name,
            f"must be true, got {value[:20]!r}: a standalone WebView requires {name}=true"
            + (" so that gc_url is returned" if name == "redirect" else ""),
        )
