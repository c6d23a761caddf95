"""``gcbridge demo``: the whole loop on one machine, in a minute (docs/guides/demo.md).

The emulator and a sample backend (:mod:`.stack`), a small native app (:mod:`.app`) in a Qt
window (:mod:`.desktop`) or headless Chromium (:mod:`.headless`), one timeline
(:mod:`.timeline`) and one scripted flow (:mod:`.flow`).
"""

from typing import Any

from gcbridge.demo.errors import DemoError, NoGuiBackend

__all__ = ["DemoError", "DemoOptions", "NoGuiBackend", "choose_mode", "run_demo"]


def __getattr__(name: str) -> Any:
    # The runner pulls in FastAPI and uvicorn; import it only when asked for, so
    # that ``gcbridge --help`` and the SDK commands stay light.
    if name in {"DemoOptions", "choose_mode", "run_demo"}:
        from gcbridge.demo import runner

        return getattr(runner, name)
    raise AttributeError(name)
