"""Find a Chromium that Playwright can drive.

Playwright cannot always download its own browsers (CI behind a registry-only
proxy, distro packaging). Discovery order:

1. the ``GC_BROWSER`` environment variable (or an explicit path),
2. a Playwright-managed Chromium, if one is installed,
3. a system Chromium: ``/usr/lib/chromium/chromium`` (Debian's binary, without
   the noisy wrapper), then ``chromium``, ``chromium-browser``, ``google-chrome``
   on ``PATH``,

else :class:`BrowserNotFound` whose message names the install step.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from gcbridge.errors import GcBridgeError

__all__ = ["BrowserNotFound", "find_chromium", "install_hint", "SYSTEM_CANDIDATES"]

SYSTEM_CANDIDATES = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome")


class BrowserNotFound(GcBridgeError):
    """No usable Chromium was found; the message says how to install one."""

    reason = "browser_not_found"


def install_hint() -> str:
    """The exact install step for this machine."""
    if Path("/etc/debian_version").exists():
        return "sudo apt-get install -y chromium   (or: make setup)"
    return "python -m playwright install chromium"


def _playwright_managed() -> str | None:
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache/ms-playwright")
    patterns = (
        "chromium-*/chrome-linux*/chrome",
        "chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium",
    )
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
    managed = _playwright_managed()
    if managed:
        return managed
    for candidate in SYSTEM_CANDIDATES:
        resolved = (
            shutil.which(candidate)
            if not candidate.startswith("/")
            else (candidate if os.access(candidate, os.X_OK) else None)
        )
        if resolved:
            return resolved
    raise BrowserNotFound(
        "no Chromium found (GC_BROWSER unset, none managed by Playwright, none on PATH); "
        f"install one: {install_hint()}"
    )
