"""Which extra each command needs, and the exact pip command when it is missing.

Checked before anything heavy is imported, so a missing extra is one line and exit 2. The
pip command names what this copy was installed from: the checkout
(``-e "/path/to/checkout[emulator]"``), the wheel file, or the distribution name.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import sys
from collections.abc import Iterable
from importlib import metadata
from urllib.parse import unquote, urlsplit

from gcbridge.errors import GcBridgeError

__all__ = ["MissingExtra", "require_extra", "install_command", "missing_modules"]

DISTRIBUTION = "gc-bridge"


class MissingExtra(GcBridgeError):
    """A command needs an optional extra that is not installed (exit status 2)."""

    reason = "missing_extra"
    exit_code = 2


def missing_modules(modules: Iterable[str]) -> list[str]:
    """The top-level modules of ``modules`` that cannot be imported here."""
    missing = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


def _source() -> tuple[str, bool]:
    """What to put before ``[extra]`` in a pip requirement, and whether it is editable."""
    try:
        raw = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        info = json.loads(raw or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return DISTRIBUTION, False
    parts = urlsplit(info.get("url", ""))
    if parts.scheme != "file":
        return DISTRIBUTION, False
    return unquote(parts.path), bool(info.get("dir_info", {}).get("editable"))


def install_command(extra: str) -> str:
    """The pip command that adds ``extra`` to this installation, ready to paste."""
    where, editable = _source()
    requirement = shlex.quote(f"{where}[{extra}]")
    python = shlex.quote(sys.executable or "python")
    return f"{python} -m pip install {'-e ' if editable else ''}{requirement}"


def require_extra(command: str, extra: str, modules: Iterable[str]) -> None:
    """Raise :class:`MissingExtra` if any of ``modules`` is missing."""
    missing = missing_modules(modules)
    if missing:
        what = ", ".join(missing)
        verb = "is" if len(missing) == 1 else "are"
        raise MissingExtra(
            f"{command} needs the [{extra}] extra ({what} {verb} not installed); "
            f"install it with: {install_command(extra)}"
        )
