"""Ships ``bridge.js``: its text, version and sha256.

``bridge/bridge.js`` in the repository is the single source: wheels carry it as package
data next to this module, checkouts read the repository's copy. A React Native app ships
it inside ``bridgeSource.ts`` (:func:`typescript_module`); :func:`load` and
:func:`bridge_text` read it back out, checking its pin, so that the harness runs on
exactly what the app ships.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from gcbridge.errors import GcBridgeError

__all__ = [
    "APP_FILE_NAME",
    "TS_SUFFIXES",
    "BridgeError",
    "BridgeScript",
    "bridge_path",
    "bridge_text",
    "load",
    "script",
    "source_from_typescript",
    "typescript_module",
]

APP_FILE_NAME = "gc-bridge.js"
"""The name of bridge.js in an app: the iOS and Android kits load it by this name (from the
bundle, from ``assets/``; ``bridge/platforms/sync_kits.py`` writes it), and every example
path of the docs, quick starts and CI recipes uses it."""

# Also matches minified copies (any quote, any spacing, mid-line).
_VERSION_RE = re.compile(r"""\bvar VERSION\s*=\s*(['"])([^'"\\]+)\1""")

TS_SUFFIXES = frozenset({".ts", ".tsx", ".mts", ".cts"})
"""Files read as a bridgeSource.ts module rather than as bridge.js itself."""

_TS_CONST_RE = re.compile(
    r"\bexport\s+const\s+(BRIDGE_SOURCE|BRIDGE_SHA256|BRIDGE_VERSION)\b[^=]*=\s*"
)
_TS_HEADER = (
    "Generated from bridge.js by `gcbridge bridge --print --format ts` "
    "(or bridge/platforms/sync_kits.py). Do not edit."
)


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


def typescript_module(bridge: BridgeScript) -> str:
    """``bridgeSource.ts`` for the React Native kit: bridge.js as a string, with its pin.

    The string is a JSON literal (also a TypeScript one), ASCII only: U+2028 / U+2029 and every
    non-ASCII character are escaped, so no bundler or editor can change the bytes it stands for.
    """
    return f"""// {_TS_HEADER}
/* eslint-disable */

/** bridge.js version this kit embeds. */
export const BRIDGE_VERSION = {json.dumps(bridge.version)};

/** sha256 of bridge.js's UTF-8 bytes (`gcbridge bridge --sha256`). */
export const BRIDGE_SHA256 = {json.dumps(bridge.sha256)};

/** The text of bridge.js, injected as is. */
export const BRIDGE_SOURCE: string = {json.dumps(bridge.text, ensure_ascii=True)};
"""


def source_from_typescript(text: str, *, where: str = "bridgeSource.ts") -> BridgeScript:
    """bridge.js out of a ``bridgeSource.ts`` module, checked against the module's own pin.

    Raises :class:`BridgeError` (``bridge_ts_no_source``) without an ``export const
    BRIDGE_SOURCE = "..."`` JSON string literal, and (``bridge_pin_mismatch``) when the module's
    ``BRIDGE_SHA256`` or ``BRIDGE_VERSION`` is not that of the source it holds: the React Native
    kit refuses such a module at run time, so it is not a bridge the app could ship.
    """
    found: dict[str, str] = {}
    decoder = json.JSONDecoder()
    for match in _TS_CONST_RE.finditer(text):
        try:
            value, _ = decoder.raw_decode(text, match.end())
        except ValueError:
            value = None
        if isinstance(value, str):
            found.setdefault(match.group(1), value)
    if "BRIDGE_SOURCE" not in found:
        raise BridgeError(
            f'{where}: no `export const BRIDGE_SOURCE = "..."` (a double-quoted JSON string);'
            " regenerate it with: gcbridge bridge --print --format ts",
            reason="bridge_ts_no_source",
        )
    bridge = BridgeScript.from_bytes(found["BRIDGE_SOURCE"].encode("utf-8"))
    for name, actual in (("BRIDGE_SHA256", bridge.sha256), ("BRIDGE_VERSION", bridge.version)):
        pinned = found.get(name)
        if pinned is not None and pinned != actual:
            raise BridgeError(
                f"{where}: {name} is {pinned} but the BRIDGE_SOURCE it holds has {actual};"
                " regenerate it with: gcbridge bridge --print --format ts",
                reason="bridge_pin_mismatch",
            )
    return bridge


def load(path: str | Path) -> BridgeScript:
    """Read any copy of bridge.js (e.g. an app's pinned copy) into a :class:`BridgeScript`.

    A ``.ts`` / ``.tsx`` file is read as the React Native kit's ``bridgeSource.ts``
    (:func:`source_from_typescript`): the script is the ``BRIDGE_SOURCE`` it holds.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise BridgeError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if Path(path).suffix.lower() in TS_SUFFIXES:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BridgeError(f"{path}: not UTF-8 ({exc})", reason="bridge_not_utf8") from exc
        return source_from_typescript(text, where=str(path))
    return BridgeScript.from_bytes(data)


def bridge_text(path: str | Path) -> str:
    """The bridge.js text of ``path``: the file itself, or the source a bridgeSource.ts holds.

    A plain bridge.js is returned as it is (no VERSION needed: the harness also tests broken
    copies); a TypeScript module must hold a source that matches its pin (see :func:`load`).
    """
    if Path(path).suffix.lower() in TS_SUFFIXES:
        return load(path).text
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BridgeError(f"{path}: not UTF-8 ({exc})", reason="bridge_not_utf8") from exc
    except OSError as exc:
        raise BridgeError(f"cannot read {path}: {exc.strerror or exc}") from exc


def script() -> BridgeScript:
    """The bridge.js shipped with this gc-bridge."""
    return load(bridge_path())
