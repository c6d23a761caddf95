import asyncio

import pytest

from gcbridge.clock import ManualClock, utc_iso


def test_manual_clock_sleep_advances_instantly():
    clock = ManualClock(start=100.0)
    asyncio.run(clock.sleep(21600))
    assert clock.now() == 21700.0


def test_manual_clock_never_goes_back():
    with pytest.raises(ValueError):
        ManualClock().advance(-1)


def test_utc_iso_is_iso8601_with_z():
    assert utc_iso(0) == "1970-01-01T00:00:00.000Z"
    assert utc_iso(1_700_000_000.5) == "2023-11-14T22:13:20.500Z"
