"""Ctrl-C and SIGTERM: sent to the demo's process group, as a terminal does."""

from __future__ import annotations

import signal

import pytest

from tests.demo.support import DemoProcess, with_display, without_display
from tests.free_ports import free_port

EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _assert_one_line_stop(code: int, err: str, sig: signal.Signals) -> None:
    assert code == EXIT[sig], err
    # one line, whatever the browser and its driver (killed by the same signal) did
    assert err.strip().splitlines() == [f"gcbridge demo: stopped ({sig.name})"], err


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_headless_demo_stops_on_a_signal_to_its_group(tmp_path, sig):
    args = ["--headless", "--data-dir", str(tmp_path), "--port", str(free_port())]
    demo = DemoProcess(args, without_display())
    try:
        demo.wait_for("Ctrl-C to stop")
    finally:
        code, err = demo.signal_group(sig)
    _assert_one_line_stop(code, err, sig)


@pytest.mark.desktop
@pytest.mark.slow
def test_window_stops_on_ctrl_c_to_its_group(tmp_path, xvfb_display):
    args = ["--data-dir", str(tmp_path), "--port", str(free_port())]
    demo = DemoProcess(args, with_display(xvfb_display))
    try:
        demo.wait_for("bridge.js 1.0.0 installed at page-finished")
    finally:
        code, err = demo.signal_group(signal.SIGINT)
    _assert_one_line_stop(code, err, signal.SIGINT)


@pytest.mark.browser
@pytest.mark.slow
def test_headless_demo_stops_cleanly_during_the_flow(tmp_path):
    # the signal lands in the middle of Playwright calls, not in the idle loop
    args = ["--headless", "--exit-after-flow", "--data-dir", str(tmp_path), "--port", "0"]
    demo = DemoProcess(args, without_display())
    try:
        demo.wait_for("app: alice signed in to the app")
    finally:
        code, err = demo.signal_group(signal.SIGINT)
    _assert_one_line_stop(code, err, signal.SIGINT)
