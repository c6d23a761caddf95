"""Find a Chromium that Playwright can drive (Playwright cannot always download its own).

Order: ``GC_BROWSER`` (or an explicit path), a Playwright-managed Chromium, then a system
Chromium; else :class:`BrowserNotFound` naming the install step. Headless runs launch the
*headless shell* (:func:`find_headless_chromium`): about 40% less CPU per page load; the full
Chromium stays for what only it has (the back-forward cache).
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from gcbridge.errors import GcBridgeError

__all__ = [
    "BrowserNotFound",
    "find_chromium",
    "find_headless_chromium",
    "install_hint",
    "SYSTEM_CANDIDATES",
    "HEADLESS_SHELL_CANDIDATES",
]

SYSTEM_CANDIDATES = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome")
# Debian's chromium-headless-shell package, then one on PATH
HEADLESS_SHELL_CANDIDATES = ("/usr/lib/chromium/chromium-headless-shell", "chromium-headless-shell")


class BrowserNotFound(GcBridgeError):
    """No usable Chromium was found; the message says how to install one."""

    reason = "browser_not_found"


def install_hint() -> str:
    """The exact install step for this machine."""
    if Path("/etc/debian_version").exists():
        return "sudo apt-get install -y chromium   (or: make setup)"
    return "python -m playwright install chromium"


_MANAGED_FULL = (
    "chromium-*/chrome-linux*/chrome",
    "chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium",
)
_MANAGED_SHELL = (
    "chromium_headless_shell-*/chrome-linux*/headless_shell",
    "chromium_headless_shell-*/chrome-headless-shell-*/chrome-headless-shell",
    "chromium_headless_shell-*/chrome-mac*/headless_shell",
)


def _playwright_managed(patterns: tuple[str, ...] = _MANAGED_FULL) -> str | None:
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache/ms-playwright")
    for pattern in patterns:
        for hit in sorted(glob.glob(os.path.join(root, pattern)), reverse=True):
            if os.access(hit, os.X_OK):
                return hit
    return None


def find_chromium(explicit: str | None = None, *, environ: Mapping[str, str] | None = None) -> str:
    """Return the path of a Chromium executable, or raise :class:`BrowserNotFound`."""
    env = os.environ if environ is None else environ
    for name, value in (("--gc-browser", explicit), ("GC_BROWSER", env.get("GC_BROWSER"))):
        if value:
            resolved = shutil.which(value) or (value if os.access(value, os.X_OK) else None)
            if not resolved:
                raise BrowserNotFound(
                    f"{name}={value!r} is not an executable file", reason="browser_path_invalid"
                )
            return resolved
    found = _playwright_managed() or _first_executable(SYSTEM_CANDIDATES)
    if found:
        return found
    raise BrowserNotFound(
        "no Chromium found (GC_BROWSER unset, none managed by Playwright, none on PATH); "
        f"install one: {install_hint()}"
    )


def find_headless_chromium(
    explicit: str | None = None, *, environ: Mapping[str, str] | None = None
) -> str:
    """The Chromium a headless run launches: Playwright's own choice, the headless shell.

    A browser named (``--gc-browser``, ``GC_BROWSER``) is used as named. Else a
    headless shell (Playwright's ``chromium_headless_shell``, Debian's
    ``chromium-headless-shell``), else :func:`find_chromium`'s answer.
    """
    env = os.environ if environ is None else environ
    if explicit or env.get("GC_BROWSER"):
        return find_chromium(explicit, environ=env)
    found = _playwright_managed(_MANAGED_SHELL) or _first_executable(HEADLESS_SHELL_CANDIDATES)
    return found or find_chromium(None, environ=env)


def _first_executable(candidates: tuple[str, ...]) -> str | None:
    return next(filter(None, map(_executable, candidates)), None)


def _executable(candidate: str) -> str | None:
    if not candidate.startswith("/"):
        return shutil.which(candidate)
    return candidate if os.access(candidate, os.X_OK) else None
