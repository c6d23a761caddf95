"""Where the demo keeps its session, and the paths it hands to libraries (always absolute).

The widget keeps its session in localStorage, per origin and per profile directory: the
demo's port is fixed (:data:`DEFAULT_PORT`, so a relaunch comes back on the same origin)
and its data directory defaults to :data:`DEFAULT_DATA_DIR`. The CLI's parser reads both
without importing the demo's heavy parts.

Why absolute. Qt WebEngine passes ``QWebEngineProfile.setPersistentStoragePath`` to
Chromium as is, and Chromium's storage service refuses to open a storage partition
for a relative path (``components/services/storage/storage_service_impl.cc``:
"Refuse to bind Partitions for relative paths"). Nothing fails loudly: cookies and
caches still work, but ``Local Storage`` is never opened, so each
``localStorage.setItem`` is lost, and every access after a lost write blocks the
renderer's main thread while Chromium reconnects, a little longer each time
(0.1 s, 0.5 s, 1 s, 2 s, 4.5 s, ... measured with Qt WebEngine 6.11). The widget keeps its
session in localStorage, so with the default ``--data-dir`` (relative) the page
stopped answering ``runJavaScript`` after the SSO login ("the WebView did not answer
evaluateJavaScript"). Every path is therefore made absolute where it enters the demo
(the CLI and :class:`~gcbridge.demo.runner.DemoOptions`), not where a library
happens to need it.
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
