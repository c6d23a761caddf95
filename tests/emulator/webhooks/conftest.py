"""Fixtures of the webhook tests: a real emulator and a real receiver on loopback.

The emulator runs on a ManualClock whose ``sleep`` advances time at once, so the
six-hour retry schedule runs in milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from gcbridge.clock import ManualClock
from gcbridge.emulator.testing import running_emulator
from tests.emulator.webhooks.support import START, Api, Receiver


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    rcv = Receiver()
    rcv.server.start()
    yield rcv
    rcv.server.stop()


@pytest.fixture
def make_api(tmp_path: Path, clock: ManualClock) -> Iterator[Callable[..., Api]]:
    """Start emulators on ``tmp_path`` (stopped after the test); returns their API clients."""
    with ExitStack() as stack:

        def make(**kw: Any) -> Api:
            emu = stack.enter_context(running_emulator(tmp_path / "data", clock=clock, **kw))
            api = Api(emu)
            stack.callback(api.close)
            return api

        yield make


@pytest.fixture
def api(make_api: Callable[..., Api]) -> Api:
    return make_api()
