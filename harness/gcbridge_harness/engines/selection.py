"""Which browser engines the harness can run here: Chromium (Playwright) and WebKit (WebKitGTK).

Found means installed, checked cheaply (no browser started): a Chromium binary
(:func:`gcbridge.browser.find_chromium`); for WebKit, PyGObject, the WebKit2 4.1
typelib and Xvfb. An engine that is found but does not start fails its tests.

:func:`selected_engines` is a run's selection (``--gc-engine``, default: all);
:func:`not_usable` the one line of the usage error for an engine asked for and missing.
"""

from __future__ import annotations

import glob
import importlib.util
import shutil
from dataclasses import dataclass

import pytest

from gcbridge.browser import BrowserNotFound, find_chromium, install_hint

__all__ = [
    "ENGINES",
    "EngineStatus",
    "engine_status",
    "not_usable",
    "selected_engines",
    "WEBKIT_INSTALL",
]

ENGINES = ("chromium", "webkit")

WEBKIT_INSTALL = (
    "sudo apt-get install -y gir1.2-webkit2-4.1 libgirepository1.0-dev libcairo2-dev "
    "pkg-config gcc xvfb && pip install 'gc-bridge[webkit]'   (or: make setup)"
)

_TYPELIB_GLOBS = (
    "/usr/lib/*/girepository-1.0/WebKit2-4.1.typelib",
    "/usr/lib/girepository-1.0/WebKit2-4.1.typelib",
    "/usr/lib64/girepository-1.0/WebKit2-4.1.typelib",
    "/usr/local/lib/*/girepository-1.0/WebKit2-4.1.typelib",
)


@dataclass(frozen=True)
class EngineStatus:
    """Whether ``name`` is installed; if not, ``problem`` and the ``install`` command."""

    name: str
    found: bool
    problem: str = ""
    install: str = ""


def engine_status(name: str, *, chromium_path: str | None = None) -> EngineStatus:
    """Whether the engine ``name`` is installed here (without starting it)."""
    if name == "chromium":
        try:
            find_chromium(chromium_path)
        except BrowserNotFound as exc:
            return EngineStatus(name, False, str(exc), install_hint())
        return EngineStatus(name, True)
    if name == "webkit":
        missing = []
        if importlib.util.find_spec("gi") is None:
            missing.append("PyGObject")
        if not any(glob.glob(pattern) for pattern in _TYPELIB_GLOBS):
            missing.append("WebKit2 4.1 (gir1.2-webkit2-4.1)")
        if shutil.which("Xvfb") is None:
            missing.append("Xvfb")
        if missing:
            return EngineStatus(name, False, "missing " + ", ".join(missing), WEBKIT_INSTALL)
        return EngineStatus(name, True)
    raise ValueError(f"unknown engine {name!r}: one of {', '.join(ENGINES)}")


def not_usable(status: EngineStatus) -> str:
    """The one line of the usage error for an engine asked for that is not installed here."""
    line = f"{status.name} asked for but not usable: {status.problem}; install: {status.install}"
    if status.name == "chromium":
        line += "; or pass --gc-browser PATH"
    return line


_SELECTED = pytest.StashKey[tuple[list[EngineStatus], bool]]()


def selected_engines(config: pytest.Config) -> tuple[list[EngineStatus], bool]:
    """Every engine's status, and whether the selection was named on the command line."""
    if _SELECTED not in config.stash:
        option = config.getoption("gc_engine", None)
        names = list(ENGINES) if option in (None, "all") else [option]
        statuses = [engine_status(n, chromium_path=config.getoption("gc_browser")) for n in names]
        if option is not None:
            missing = [status for status in statuses if not status.found]
            if missing:  # an engine named and not there is never a skip
                raise pytest.UsageError("\n".join(not_usable(m) for m in missing))
        config.stash[_SELECTED] = (statuses, option is not None)
    return config.stash[_SELECTED]
