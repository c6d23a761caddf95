"""The retry policy of webhook deliveries as small pure functions.

The rules are docs/reference/wire-formats.md, "Retries" (2xx succeeds; 429, 5xx and no
response are retried; anything else fails; ``Retry-After`` moves an attempt to a later
slot of the schedule, never adds one). The dispatcher does the I/O; these functions
decide (:func:`call_outcome`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from email.utils import parsedate_to_datetime
from typing import Literal, NamedTuple

__all__ = [
    "MAX_RETRY_AFTER",
    "Outcome",
    "CallOutcome",
    "call_outcome",
    "duration_text",
    "schedule_text",
    "classify",
    "is_retryable",
    "parse_retry_after",
    "next_delay",
    "next_attempt",
]

MAX_RETRY_AFTER = 1e9
"""The longest Retry-After taken literally, in seconds (longer values are clamped)."""

Outcome = Literal["succeeded", "retry", "failed"]
"""What a response (or its absence) means for the call."""


def classify(status: int | None) -> Outcome:
    """``succeeded`` for 2xx, ``retry`` for no response, 429 and 5xx, else ``failed``."""
    if status is None:
        return "retry"
    if 200 <= status <= 299:
        return "succeeded"
    if status == 429 or 500 <= status <= 599:
        return "retry"
    return "failed"


def is_retryable(status: int | None) -> bool:
    """Whether an attempt ending with ``status`` (``None`` = network error/timeout) is retried."""
    return classify(status) == "retry"


def parse_retry_after(value: str, now: float) -> float | None:
    """Seconds to wait from ``now`` per a ``Retry-After`` value; ``None`` if unparseable.

    Delay-seconds must be a non-negative integer (RFC 9110); an HTTP date in the
    past means "now" (0). Anything else is ignored rather than trusted.
    """
    text = value.strip()
    if not text:
        return None
    # isascii(): headers arrive latin-1 decoded, and "\xb2".isdigit() is True.
    if text.isascii() and text.isdigit():
        # Beyond ~31 years every schedule caps anyway; clamping also keeps int()
        # and float() away from huge digit strings.
        digits = text.lstrip("0") or "0"
        return MAX_RETRY_AFTER if len(digits) > 10 else min(float(int(digits)), MAX_RETRY_AFTER)
    if text[0] in "+-" or text[0].isdigit():
        return None  # "-5", "1.5", "10s": not delay-seconds, not a date either
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000" dates: RFC 9110 dates are GMT anyway
        return None
    return max(0.0, when.timestamp() - now)


def next_delay(
    schedule: Sequence[float], attempts_made: int, retry_after: float | None = None
) -> float | None:
    """Delay before attempt number ``attempts_made`` (0-based), or ``None`` if none is left."""
    if attempts_made >= len(schedule):
        return None
    delay = float(schedule[attempts_made])
    if retry_after is not None and math.isfinite(retry_after) and retry_after > delay:
        longer = [float(d) for d in schedule if d >= retry_after]
        delay = min(longer) if longer else float(max(schedule))
    return delay


def next_attempt(
    schedule: Sequence[float],
    attempts_made: int,
    now: float,
    status: int | None,
    retry_after: float | None = None,
) -> float | None:
    """When to try again after an attempt ending with ``status``; ``None`` means stop.

    ``attempts_made`` counts attempts including the one that just ended;
    ``retry_after`` is in seconds from ``now`` (see :func:`parse_retry_after`).
    """
    if not is_retryable(status):
        return None
    delay = next_delay(schedule, attempts_made, retry_after)
    return None if delay is None else now + delay


class CallOutcome(NamedTuple):
    """Where an attempt leaves its call: its status, when it is due again, the error it keeps."""

    status: Literal["succeeded", "pending", "failed"]
    due: float | None
    error: str | None


def call_outcome(
    schedule: Sequence[float],
    attempts_made: int,
    now: float,
    status: int | None,
    error: str | None = None,
    retry_after: float | None = None,
    *,
    final: bool = False,
) -> CallOutcome:
    """The call's next state after an attempt that ended with ``status`` (or ``error``).

    ``status`` ``None``: nothing answered (``error`` says why: a timeout, a DNS
    failure). ``final``: an error no retry can mend (a refused receiver URL). A
    call out of attempts keeps its last error as ``retries_exhausted:<error>``.
    """
    outcome = classify(status)
    if outcome == "succeeded":
        return CallOutcome("succeeded", None, None)
    last = error or f"http_{status}"
    due = None if final else next_attempt(schedule, attempts_made, now, status, retry_after)
    if due is not None:
        return CallOutcome("pending", due, last)
    if outcome == "retry" and not final:
        return CallOutcome("failed", None, f"retries_exhausted:{last}")
    return CallOutcome("failed", None, last)


def duration_text(seconds: float) -> str:
    """``3600`` -> ``1 hour``, ``300`` -> ``5 minutes``, ``90`` -> ``90 seconds``."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = seconds / size
            return f"{count:g} {unit}{'' if count == 1 else 's'}"
    return f"{seconds:g} second{'' if seconds == 1 else 's'}"


def schedule_text(schedule: Sequence[float]) -> str:
    """The delays after the first attempt in words: ``1 minute, 5 minutes and 1 hour``."""
    words = [duration_text(delay) for delay in schedule[1:]] or ["no retry"]
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)
