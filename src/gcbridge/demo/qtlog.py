"""What Qt WebEngine prints, reduced to what a demo user can act on.

A run of the desktop demo used to print a dozen lines nobody could interpret. Where
they came from, and what the demo does about each:

- ``js: Uncaught EvalError: Refused to evaluate a string as JavaScript``: pywebview
  builds ``window.pywebview.api`` with ``new Function`` (its ``api.js``) for every
  method of a ``js_api`` object, and the widget's CSP (``script-src 'self'``) refuses.
  Caused by the demo: it passes no ``js_api`` any more (bridge.js reaches the app over
  its own QWebChannel object, see :mod:`gcbridge.demo.desktop`).
- ``js: Refused to apply inline style``: pywebview's ``customize.js`` appends a
  ``<style>`` (``user-select: none``) when ``text_select`` is off, its default. Caused
  by the demo: the window is created with ``text_select=True`` (comments are text a
  user may select, as in an app).
- ``Release of profile requested but WebEnginePage still not deleted. Expect troubles !``:
  printed while the process exits, when the interpreter happens to collect pywebview's
  profile before the pages it never deletes (the window's page is only
  ``deleteLater``-ed, after the event loop has left; its page for new-window requests,
  ``WebPage.nav_handler``, never). Deleting them by hand first did not help (the page's
  web contents go on Chromium's own later tasks), and nothing is left to go wrong at
  that point: dropped.
- Qt's Vulkan probe (``Failed to load vulkan``, ``initInstance: No Vulkan library
  available``, ``Failed to create platform Vulkan instance``) and ``Unable to detect
  GPU vendor`` (software OpenGL, as under Xvfb): the machine, not the demo; Qt WebEngine
  falls back to OpenGL. Dropped by :func:`install_message_filter`.
- ``Error with Permissions-Policy header: Unrecognized feature: 'payment'``: the
  emulator's header turns the Payment Request API off for browsers that have it; Qt
  WebEngine's Chromium is built without it. Dropped likewise.
- Chromium's own log (``[pid:tid:...:ERROR:...] Failed to connect to the bus``, GPU
  command-buffer retries): about the machine (no D-Bus in a container, no GPU); the
  demo starts Chromium with ``--log-level=3`` (fatal only) unless the user chose a
  level in ``QTWEBENGINE_CHROMIUM_FLAGS``.

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
