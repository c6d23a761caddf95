"""The engines the app runs in: Chromium through Playwright
(:mod:`~gcbridge_harness.engines.chromium`, launched by
:mod:`~gcbridge_harness.engines.launch_args`) and WebKitGTK
(:mod:`gcbridge_harness.engines.webkit`); which of them run is
:mod:`~gcbridge_harness.engines.selection` (``--gc-engine``), re-exported here.
"""

from gcbridge_harness.engines.selection import (
    ENGINES,
    WEBKIT_INSTALL,
    EngineStatus,
    engine_status,
    not_usable,
    selected_engines,
)

__all__ = [
    "ENGINES",
    "WEBKIT_INSTALL",
    "EngineStatus",
    "engine_status",
    "not_usable",
    "selected_engines",
]
