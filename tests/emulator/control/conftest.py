"""Fixtures of the emulator-control tests: a manual-clock emulator and a receiver on loopback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from gcbridge.emulator.testing import running_emulator
from tests.emulator.control.support import Client, Receiver, Reply


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[Callable[..., Client]]:
    """Start emulators (``--clock manual`` unless told) on ``tmp_path``; stopped after the test."""
    with ExitStack() as stack:

        def make(**kw: Any) -> Client:
            kw.setdefault("clock_mode", "manual")
            emu = stack.enter_context(running_emulator(tmp_path / "data", **kw))
            client = Client(emu)
            stack.callback(client.close)
            return client

        yield make


@pytest.fixture
def client(make_client: Callable[..., Client]) -> Client:
    return make_client()


@pytest.fixture
def make_receiver() -> Iterator[Callable[..., Receiver]]:
    with ExitStack() as stack:

        def make(*replies: Reply) -> Receiver:
            rcv = Receiver(*replies)
            rcv.server.start()
            stack.callback(rcv.server.stop)
            return rcv

        yield make
