"""What a native app saw and did, in order: :class:`Timeline`.

Every entry is stamped in seconds since the launch and belongs to one *side*:

- ``widget``   what the widget page posted (seen by the harness's probe in the page),
- ``bridge``   what bridge.js posted to the widget (``sso-login``/``sso-logout``, its target),
- ``app``      what reached the native side through the transport and what the app did,
- ``service``  the emulator's side: thread-load, the SSO login answer and its reason,
- ``page``     page errors and console errors.

Secrets never reach an entry in clear: ssoData, tokens and any value passed to
:meth:`Timeline.secret` are masked as their first 4 characters and their length
(``eyJp…[212 chars]``).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

__all__ = ["Timeline", "TimelineEntry", "mask", "mask_text", "side_of", "when", "first_word"]

# ssoData of the "gc" format: base64 message, hex signature, timestamp
# (docs/reference/wire-formats.md#ssodata).
_SSO_DATA = re.compile(r"[A-Za-z0-9+/=_-]{16,} [0-9a-fA-F]{32,} \d{9,}")
# A value of a JSON or query field that holds a secret.
_SECRET_FIELD = re.compile(
    r"""(?P<key>["']?(?:data|token|gc_token|sso_?data|secret|password)["']?\s*[:=]\s*["']?)"""
    r"""(?P<value>[^"'&\s,}]{8,})""",
    re.IGNORECASE,
)

_SIDES = {
    "widget": "widget",
    "frame": "widget",
    "bridge": "bridge",
    "thread-load": "service",
    "login answered": "service",
    "page error": "page",
    "console": "page",
}


def mask(value: str) -> str:
    """``value`` as its first 4 characters and its length."""
    return f"{value[:4]}…[{len(value)} chars]"


def mask_text(text: str, secrets: set[str] | frozenset[str] = frozenset()) -> str:
    """``text`` with every known secret, ssoData-shaped string and secret field masked."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret and secret in text:
            text = text.replace(secret, mask(secret))
    text = _SSO_DATA.sub(lambda m: mask(m.group(0)), text)
    return _SECRET_FIELD.sub(
        lambda m: (
            m.group("key")
            + (m.group("value") if "…[" in m.group("value") else mask(m.group("value")))
        ),
        text,
    )


def side_of(kind: str) -> str:
    """Which side an entry of ``kind`` belongs to (see the module docstring)."""
    for prefix, side in _SIDES.items():
        if kind.startswith(prefix):
            return side
    return "app"


@dataclass(frozen=True)
class TimelineEntry:
    """One thing seen or done, ``at`` seconds after launch."""

    at: float
    kind: str
    detail: str = ""

    @property
    def side(self) -> str:
        return side_of(self.kind)

    def __str__(self) -> str:
        detail = self.detail
        if self.kind == "login answered":
            status, _, reason = detail.partition(" ")
            verdict = "accepted" if status == "200" else f"refused: {reason or 'no reason'}"
            detail = f"{status} {verdict}"
        return f"{self.at:7.3f} s  {self.side:<7} {self.kind:<22} {detail}".rstrip()


def when(entry: TimelineEntry) -> str:
    """When ``entry`` happened, as a diagnosis says it: ``1.02 s``."""
    return f"{entry.at:.2f} s"


def first_word(entry: TimelineEntry) -> str:
    """The first word of the detail: the event name of a ``widget emitted`` entry."""
    return entry.detail.split(" ", 1)[0]


@dataclass
class Timeline:
    """What the app saw and did, in order."""

    entries: list[TimelineEntry] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    started_wall: float = field(default_factory=time.time)
    secrets: set[str] = field(default_factory=set)

    def secret(self, value: str) -> None:
        """Mask ``value`` wherever it appears in later entries."""
        if value:
            self.secrets.add(value)

    def add(self, kind: str, detail: str = "") -> None:
        """Append an entry stamped with the time since launch."""
        self.add_at(time.monotonic() - self.started, kind, detail)

    def add_wall(self, epoch_ms: float, kind: str, detail: str = "") -> None:
        """Add an entry stamped by the page's clock (``Date.now()``)."""
        self.add_at(epoch_ms / 1000 - self.started_wall, kind, detail)

    def add_at(self, at: float, kind: str, detail: str = "") -> None:
        """Add an entry ``at`` seconds after launch (kept in time order)."""
        entry = TimelineEntry(max(at, 0.0), kind, mask_text(detail, self.secrets))
        index = len(self.entries)
        while index and self.entries[index - 1].at > entry.at:
            index -= 1
        self.entries.insert(index, entry)

    def kinds(self) -> list[str]:
        """The entry kinds, in order."""
        return [entry.kind for entry in self.entries]

    def find(self, kind: str) -> list[TimelineEntry]:
        """The entries whose kind starts with ``kind``."""
        return [entry for entry in self.entries if entry.kind.startswith(kind)]

    def format(self) -> str:
        """One line per entry, for failure messages, logs and the demo."""
        return "\n".join(str(entry) for entry in self.entries)
