"""Ships ``bridge.js``: its text, version and sha256.

``bridge/bridge.js`` in the repository is the single source. Wheels carry it as
package data next to this module (hatch ``force-include``); editable installs
and source checkouts read the repository's copy. Apps pin the version and the
sha256 printed by ``gcbridge bridge --version`` / ``--sha256``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from gcbridge.errors import GcBridgeError

__all__ = ["BridgeError", "BridgeScript", "bridge_path", "load", "script"]

# Also matches minified copies (any quote, any spacing, mid-line).
_VERSION_RE = re.compile(r"""\bvar VERSION\s*=\s*(['"])([^'"\\]+)\1""")


class BridgeError(GcBridgeError):
    """bridge.js is missing, unreadable or without a version (``reason`` says which)."""

    reason = "bridge_missing"


@dataclass(frozen=True)
class BridgeScript:
    """The text of bridge.js with the version it declares and the sha256 of its UTF-8 bytes."""

    text: str
    version: str
    sha256: str

    @classmethod
    def from_bytes(cls, data: bytes) -> BridgeScript:
        """Parse a bridge.js from its bytes; raises :class:`BridgeError` without a VERSION."""
        text = data.decode("utf-8")
        match = _VERSION_RE.search(text)
        if match is None:
            raise BridgeError(
                "bridge.js declares no `var VERSION = '...'`", reason="bridge_no_version"
            )
        return cls(text=text, version=match.group(2), sha256=hashlib.sha256(data).hexdigest())


def bridge_path() -> Path:
    """Where the shipped bridge.js is: package data, else the repository's ``bridge/bridge.js``."""
    packaged = Path(__file__).parent / "bridge.js"
    if packaged.is_file():
        return packaged
    # src/gcbridge/bridge.py -> repository root (editable install or checkout)
    in_repo = Path(__file__).resolve().parents[2] / "bridge" / "bridge.js"
    if in_repo.is_file():
        return in_repo
    raise BridgeError(f"bridge.js not found next to {Path(__file__).name} nor at {in_repo}")


def load(path: str | Path) -> BridgeScript:
    """Read any copy of bridge.js (e.g. an app's pinned copy) into a :class:`BridgeScript`."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise BridgeError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return BridgeScript.from_bytes(data)


def script() -> BridgeScript:
    """The bridge.js shipped with this gc-bridge."""
    return load(bridge_path())
