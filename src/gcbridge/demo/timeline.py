"""The demo's timeline: every event of the loop, in order, observable live.

Both hosts (the Qt window and headless Chromium) and the sample backend write
here; the side panel, the console printer and the scripted flow read from it.
It is thread-safe because the backend (uvicorn thread), the bridge transport
(pywebview's call threads) and the flow all record concurrently.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Timeline", "TimelineEvent", "format_event"]


@dataclass(frozen=True)
class TimelineEvent:
    """One thing that happened: ``kind`` is stable (tests match it), ``text`` is for people."""

    t: float  # seconds since the timeline started
    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


def format_event(event: TimelineEvent) -> str:
    """One readable line: ``+  1.234s  kind  text``."""
    return f"+{event.t:7.3f}s  {event.kind:<18} {event.text}"


class Timeline:
    """An append-only, thread-safe list of events with waiting and listeners."""

    def __init__(self, *, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._start = monotonic()
        self._events: list[TimelineEvent] = []
        self._cond = threading.Condition()
        self._listeners: list[Callable[[TimelineEvent], None]] = []

    def record(self, kind: str, text: str, **data: Any) -> TimelineEvent:
        """Append an event and notify listeners and waiters."""
        with self._cond:
            event = TimelineEvent(self._monotonic() - self._start, kind, text, dict(data))
            self._events.append(event)
            listeners = list(self._listeners)
            self._cond.notify_all()
        for listener in listeners:
            listener(event)
        return event

    def subscribe(self, listener: Callable[[TimelineEvent], None], *, replay: bool = True) -> None:
        """Call ``listener`` for every future event (and, with ``replay``, the past ones)."""
        with self._cond:
            past = list(self._events) if replay else []
            self._listeners.append(listener)
        for event in past:
            listener(event)

    def events(self) -> list[TimelineEvent]:
        """A snapshot of every event so far."""
        with self._cond:
            return list(self._events)

    def find(
        self, kind: str, *, since: int = 0, where: Callable[[TimelineEvent], bool] | None = None
    ) -> TimelineEvent | None:
        """The first event of ``kind`` at index >= ``since`` matching ``where``."""
        with self._cond:
            for event in self._events[since:]:
                if event.kind == kind and (where is None or where(event)):
                    return event
        return None

    def __len__(self) -> int:
        with self._cond:
            return len(self._events)

    def wait_for(
        self,
        kind: str,
        timeout: float,
        *,
        since: int = 0,
        where: Callable[[TimelineEvent], bool] | None = None,
    ) -> TimelineEvent | None:
        """Block until a matching event exists (see :meth:`find`); ``None`` on timeout."""
        deadline = self._monotonic() + timeout
        with self._cond:
            while True:
                found = self.find(kind, since=since, where=where)
                remaining = deadline - self._monotonic()
                if found is not None or remaining <= 0:
                    return found
                self._cond.wait(min(remaining, 0.25))
