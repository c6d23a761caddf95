"""``gcbridge demo``: the whole loop on one machine, in a minute.

It starts the emulator and a sample customer backend on loopback (:mod:`.stack`),
then runs a small native app (:mod:`.app`) around the widget, either in a pywebview
Qt window (:mod:`.desktop`) or, without a display, in headless Chromium
(:mod:`.headless`). Both print the same timeline (:mod:`.timeline`) and can run the
same scripted flow (:mod:`.flow`)::

    gcbridge demo                                 # window (or headless timeline) until Ctrl-C
    gcbridge demo --headless --exit-after-flow    # CI: exit 0 only if every step happened
"""

from gcbridge.demo.errors import DemoError, NoGuiBackend
from gcbridge.demo.runner import DemoOptions, choose_mode, run_demo

__all__ = ["DemoError", "DemoOptions", "NoGuiBackend", "choose_mode", "run_demo"]
