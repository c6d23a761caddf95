"""What Qt WebEngine prints, reduced to what a demo user can act on.

Where each message came from, and what the demo does about it:

- ``Refused to evaluate a string as JavaScript``: pywebview builds ``window.pywebview.api``
  with ``new Function``, refused by the widget's CSP; the demo passes no ``js_api``
  (bridge.js uses its own QWebChannel object, :mod:`gcbridge.demo.desktop`).
- ``Refused to apply inline style``: pywebview's ``<style>`` when ``text_select`` is off;
  the window is created with ``text_select=True``.
- ``Release of profile requested but WebEnginePage still not deleted``: printed at exit,
  harmless then (deleting the pages first did not help); dropped (:data:`QUIET`).
- Vulkan and GPU-vendor probes (software OpenGL, as under Xvfb) and ``Unrecognized
  feature: 'payment'`` (Qt's Chromium lacks the Payment Request API): the machine or Qt's
  build, not the demo; dropped (:data:`QUIET`).
- Chromium's own log (no D-Bus, no GPU): ``--log-level=3`` unless the user set one
  (:func:`chromium_flags`).

Everything else, the page's other console messages included, is printed as Qt would.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import MutableMapping
from typing import Any

__all__ = ["QUIET", "chromium_flags", "install_message_filter", "is_root"]

# substrings of Qt messages that are about the machine or Qt's own build, never the demo
QUIET = (
    "Failed to load vulkan",
    "No Vulkan library available",
    "Failed to create platform Vulkan instance",
    "Unable to detect GPU vendor for device",
    "Unrecognized feature: 'payment'",
    "Release of profile requested but WebEnginePage still not deleted",
)


def chromium_flags(environ: MutableMapping[str, str], *, root: bool) -> None:
    """Complete ``QTWEBENGINE_CHROMIUM_FLAGS``: the sandbox off as root, Chromium's log quiet.

    Flags the user set are kept; a ``--log-level`` of theirs wins over ours.
    """
    flags = environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "").split()
    if root and "--no-sandbox" not in flags:
        flags.append("--no-sandbox")  # Qt WebEngine refuses to run as root with it on
    if not any(flag.startswith("--log-level") for flag in flags):
        flags.append("--log-level=3")
    environ["QTWEBENGINE_CHROMIUM_FLAGS"] = " ".join(flags)


def install_message_filter() -> None:
    """Route Qt's messages through a filter that drops :data:`QUIET` ones (before QApplication)."""
    qt_core: Any = importlib.import_module("qtpy.QtCore")

    def handler(kind: Any, context: Any, message: str | None) -> None:
        text = message or ""
        if any(quiet in text for quiet in QUIET):
            return
        sys.stderr.write(qt_core.qFormatLogMessage(kind, context, text) + "\n")
        sys.stderr.flush()

    qt_core.qInstallMessageHandler(handler)


def is_root() -> bool:
    """Whether this process runs as root (POSIX)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0
