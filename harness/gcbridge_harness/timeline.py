"""What a native app saw and did, in order: :class:`Timeline`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

__all__ = ["Timeline", "TimelineEntry"]


@dataclass(frozen=True)
class TimelineEntry:
    """One thing the app saw or did, ``at`` seconds after launch."""

    at: float
    kind: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.at * 1000:8.1f} ms  {self.kind:<18} {self.detail}"


@dataclass
class Timeline:
    """What the app saw and did, in order."""

    entries: list[TimelineEntry] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def add(self, kind: str, detail: str = "") -> None:
        """Append an entry stamped with the time since launch."""
        self.entries.append(TimelineEntry(time.monotonic() - self.started, kind, detail))

    def kinds(self) -> list[str]:
        """The entry kinds, in order."""
        return [entry.kind for entry in self.entries]

    def format(self) -> str:
        """One line per entry, for logs and the demo."""
        return "\n".join(str(entry) for entry in self.entries)
