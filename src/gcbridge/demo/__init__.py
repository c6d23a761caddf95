"""``gcbridge demo``: the whole loop on one machine, in a minute.

It starts the emulator and a sample customer backend on loopback (:mod:`.stack`),
then runs a small native app (:mod:`.app`) around the widget, either in a pywebview
Qt window (:mod:`.desktop`) or, without a display, in headless Chromium
(:mod:`.headless`). Both print the same timeline (:mod:`.timeline`) and can run the
same scripted flow (:mod:`.flow`)::

    gcbridge demo                                 # window (or headless timeline) until Ctrl-C
    gcbridge demo --headless --exit-after-flow    # CI: exit 0 only if every step happened
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
