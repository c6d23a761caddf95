"""Errors of the demo, one tree under :class:`~gcbridge.errors.GcBridgeError` with reasons."""

from __future__ import annotations

from gcbridge.errors import GcBridgeError

__all__ = ["DemoError", "NoGuiBackend", "NO_GUI_HINT"]

NO_GUI_HINT = (
    "run `gcbridge demo --headless`, or install Xvfb and run under it: "
    "`apt-get install xvfb xauth libxcb-icccm4 libxcb-keysyms1 && xvfb-run -a gcbridge demo`"
)


class DemoError(GcBridgeError):
    """The demo could not start or its scripted flow did not complete."""

    reason = "demo_failed"


class NoGuiBackend(DemoError):
    """No desktop window can be opened here (no display, or Qt cannot start)."""

    reason = "no_gui_backend"
