"""Where the demo keeps its session, and the paths it hands to libraries (always absolute).

The widget keeps its session in localStorage, per origin and per profile directory: the
demo's port is fixed (:data:`DEFAULT_PORT`) and its data directory defaults to
:data:`DEFAULT_DATA_DIR`. The CLI's parser reads both without importing the demo's heavy parts.

Why absolute: Chromium's storage service refuses to open ``Local Storage`` for a relative
``setPersistentStoragePath``, silently; each lost ``localStorage`` write then blocks the
renderer a little longer (seconds, with Qt WebEngine 6.11) until the page stopped
answering ``runJavaScript`` after the SSO login. Every path is therefore made absolute
where it enters the demo (:class:`~gcbridge.demo.runner.DemoOptions`).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DEFAULT_PORT", "DEFAULT_DATA_DIR", "absolute", "shown"]

DEFAULT_PORT = 8470
DEFAULT_DATA_DIR = ".gcbridge/demo"


def absolute(path: str | os.PathLike[str]) -> Path:
    """``path`` as an absolute, normalised path (``~`` expanded; relative to the cwd)."""
    return Path(os.path.abspath(Path(path).expanduser()))


def shown(path: Path, cwd: Path | None = None) -> str:
    """How to print ``path``: ``./relative`` under the working directory, else absolute."""
    here = absolute(cwd if cwd is not None else Path.cwd())
    try:
        inside = absolute(path).relative_to(here)
    except ValueError:
        return str(path)
    return f"./{inside.as_posix()}" if str(inside) != "." else "."
