"""The retry policy: classification, Retry-After parsing and the schedule
(docs/reference/wire-formats.md#retries)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import gcbridge
from gcbridge.emulator.settings import DEFAULT_RETRY_SCHEDULE
from gcbridge.emulator.webhooks.schedule import (
    CallOutcome,
    call_outcome,
    classify,
    duration_text,
    is_retryable,
    next_attempt,
    next_delay,
    parse_retry_after,
    schedule_text,
)

NOW = 1_700_000_000.0


@pytest.mark.parametrize(
    ("status", "outcome"),
    [
        (200, "succeeded"),
        (201, "succeeded"),
        (204, "succeeded"),
        (299, "succeeded"),
        (None, "retry"),
        (429, "retry"),
        (500, "retry"),
        (502, "retry"),
        (503, "retry"),
        (599, "retry"),
        (301, "failed"),
        (302, "failed"),
        (307, "failed"),
        (308, "failed"),
        (400, "failed"),
        (401, "failed"),
        (403, "failed"),
        (404, "failed"),
        (410, "failed"),
        (422, "failed"),
        (100, "failed"),
        (600, "failed"),
    ],
)
def test_classify(status: int | None, outcome: str) -> None:
    assert classify(status) == outcome
    assert is_retryable(status) == (outcome == "retry")


def test_default_schedule_is_six_attempts_per_spec() -> None:
    delays = []
    made = 0
    now = NOW
    while True:
        made += 1
        due = next_attempt(DEFAULT_RETRY_SCHEDULE, made, now, 503)
        if due is None:
            break
        delays.append(due - now)
        now = due
    assert made == 6
    assert delays == [60, 300, 900, 3600, 21600]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("120", 120.0),
        ("0", 0.0),
        (" 7 ", 7.0),
        ("-5", None),
        ("1.5", None),
        ("soon", None),
        ("", None),
        ("10s", None),
        (format_datetime(datetime.fromtimestamp(NOW + 90, tz=UTC), usegmt=True), 90.0),
        (format_datetime(datetime.fromtimestamp(NOW - 90, tz=UTC), usegmt=True), 0.0),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
        ("Wed, 99 Oct 2015 07:28:00 GMT", None),
        ("\xb2", None),  # str.isdigit() but not a decimal number
        ("9" * 400, 1e9),  # clamped, no float overflow
        ("0" * 30 + "42", 42.0),
    ],
)
def test_parse_retry_after(value: str, expected: float | None) -> None:
    assert parse_retry_after(value, NOW) == expected


@pytest.mark.parametrize(
    ("made", "retry_after", "delay"),
    [
        (1, None, 60),
        (1, 30, 60),  # shorter than the next delay: the schedule wins
        (1, 60, 60),
        (1, 61, 300),  # rounded up to the next slot
        (1, 120, 300),
        (1, 301, 900),
        (1, 4000, 21600),
        (1, 10**9, 21600),  # capped at the largest delay
        (3, 100, 900),
        (5, 7200, 21600),
    ],
)
def test_retry_after_moves_to_a_schedule_slot(
    made: int, retry_after: float | None, delay: float
) -> None:
    assert next_attempt(DEFAULT_RETRY_SCHEDULE, made, NOW, 503, retry_after) == NOW + delay


def test_retry_after_never_adds_attempts() -> None:
    assert next_attempt(DEFAULT_RETRY_SCHEDULE, 6, NOW, 429, 5) is None


def test_no_retry_for_final_outcomes_even_with_retry_after() -> None:
    assert next_attempt(DEFAULT_RETRY_SCHEDULE, 1, NOW, 200) is None
    assert next_attempt(DEFAULT_RETRY_SCHEDULE, 1, NOW, 404, 60) is None
    assert next_attempt(DEFAULT_RETRY_SCHEDULE, 1, NOW, 301) is None


schedules = st.lists(st.integers(0, 10**6), min_size=1, max_size=10).map(
    lambda xs: tuple(float(x) for x in [0, *sorted(xs)])
)
statuses = st.one_of(st.none(), st.integers(100, 599))
retry_afters = st.one_of(st.none(), st.floats(0, 10**7, allow_nan=False))


@given(st.text(max_size=60), st.floats(0, 4e9))
def test_parse_retry_after_never_raises(value: str, now: float) -> None:
    seconds = parse_retry_after(value, now)
    assert seconds is None or 0 <= seconds <= 1e9


@given(schedules, st.integers(1, 12), statuses, retry_afters)
def test_next_attempt_properties(
    schedule: tuple[float, ...], made: int, status: int | None, retry_after: float | None
) -> None:
    due = next_attempt(schedule, made, NOW, status, retry_after)
    if not is_retryable(status) or made >= len(schedule):
        assert due is None
        return
    assert due is not None
    delay = due - NOW
    # Always a slot of the schedule, never earlier than the plain schedule says.
    assert delay in schedule
    assert delay >= schedule[made]
    if retry_after is not None:
        assert delay >= min(retry_after, max(schedule))
    else:
        assert delay == schedule[made]


@given(schedules, statuses, st.lists(retry_afters, min_size=12, max_size=12))
def test_total_attempts_never_exceed_the_schedule(
    schedule: tuple[float, ...], status: int | None, hints: list[float | None]
) -> None:
    made, now = 1, NOW
    while (due := next_attempt(schedule, made, now, status, hints[made - 1])) is not None:
        assert due >= now
        made, now = made + 1, due
    assert made <= len(schedule)


@given(schedules, st.integers(0, 12), st.floats(0, 10**7, allow_nan=False))
def test_next_delay_is_monotonic_in_retry_after(
    schedule: tuple[float, ...], made: int, ra: float
) -> None:
    low = next_delay(schedule, made, ra)
    high = next_delay(schedule, made, ra + 1000)
    if low is None:
        assert high is None
    else:
        assert high is not None and high >= low


SHORT = (0, 60, 300)  # three attempts: the first at once, then 1 and 5 minutes later


@pytest.mark.parametrize(
    ("made", "status", "error", "retry_after", "final", "expected"),
    [
        (1, 200, None, None, False, CallOutcome("succeeded", None, None)),
        (3, 204, None, None, False, CallOutcome("succeeded", None, None)),
        (1, 500, None, None, False, CallOutcome("pending", NOW + 60, "http_500")),
        (2, 503, None, None, False, CallOutcome("pending", NOW + 300, "http_503")),
        (1, 429, None, 120.0, False, CallOutcome("pending", NOW + 300, "http_429")),
        (1, None, "timeout", None, False, CallOutcome("pending", NOW + 60, "timeout")),
        (3, 500, None, None, False, CallOutcome("failed", None, "retries_exhausted:http_500")),
        (
            3,
            None,
            "connect_error",
            None,
            False,
            CallOutcome("failed", None, "retries_exhausted:connect_error"),
        ),
        (1, 404, None, None, False, CallOutcome("failed", None, "http_404")),
        (1, 302, None, 60.0, False, CallOutcome("failed", None, "http_302")),
        (1, None, "dns_error", None, False, CallOutcome("pending", NOW + 60, "dns_error")),
        (
            1,
            None,
            "ssrf:private_address",
            None,
            True,
            CallOutcome("failed", None, "ssrf:private_address"),
        ),
    ],
)
def test_call_outcome(
    made: int,
    status: int | None,
    error: str | None,
    retry_after: float | None,
    final: bool,
    expected: CallOutcome,
) -> None:
    assert call_outcome(SHORT, made, NOW, status, error, retry_after, final=final) == expected


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (1, "1 second"),
        (90, "90 seconds"),
        (60, "1 minute"),
        (300, "5 minutes"),
        (3600, "1 hour"),
        (21600, "6 hours"),
        (5400, "90 minutes"),
    ],
)
def test_duration_text(seconds: float, text: str) -> None:
    assert duration_text(seconds) == text


def test_schedule_text_says_every_delay_after_the_first_attempt() -> None:
    assert schedule_text(DEFAULT_RETRY_SCHEDULE) == (
        "1 minute, 5 minutes, 15 minutes, 1 hour and 6 hours"
    )
    assert schedule_text((0, 2)) == "2 seconds"
    assert schedule_text((0,)) == "no retry"


def test_the_retry_schedule_is_written_in_the_settings_module_only() -> None:
    # Help, docs and API examples are formatted from DEFAULT_RETRY_SCHEDULE: a second copy
    # of its delays would go stale the day the schedule changes.
    src = Path(gcbridge.__file__).parent
    delays = r"\D*".join(str(int(delay)) for delay in DEFAULT_RETRY_SCHEDULE)
    written = re.compile(rf"[\[(]\s*{delays}\s*,?\s*[\])]")
    holders = sorted(
        str(path.relative_to(src))
        for path in src.rglob("*")
        if path.suffix in (".py", ".js", ".html") and written.search(path.read_text("utf-8"))
    )
    assert holders == ["emulator/settings.py"]
