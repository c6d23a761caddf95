"""View creation to gc-ready in the harness's two engines: Chromium and WebKit.

    python bench/harness_engines.py [--rounds 10]

One emulator and sample backend; per round and engine one launch of the app at
document-end with nobody signed in (no SSO fetch), timed from just before the
view is created (a Playwright browser context; a WebKitGTK view with its own web
context) to the widget's gc-ready reaching the native side. The thread-load call
between the two is included in both. Rounds alternate the engines; the first
launch of each engine (process start-up) is not counted. Medians and spreads go
to stdout; nothing fails on timing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()

    from gcbridge_harness.app.options import AppOptions
    from gcbridge_harness.engines.chromium import ChromiumApp
    from gcbridge_harness.engines.webkit.app import WebKitApp, WebKitRuntime
    from gcbridge_harness.engines.webkit.client import WebKitProcess
    from gcbridge_harness.plugin import _shipped_bridge
    from gcbridge_harness.world.backend import DEMO_USERS, UserDirectory, running_backend
    from gcbridge_harness.world.service import ServiceClient
    from playwright.sync_api import sync_playwright

    from gcbridge.browser import find_chromium
    from gcbridge.emulator.testing import running_emulator

    bridge = _shipped_bridge()
    times: dict[str, list[float]] = {"chromium": [], "webkit": []}
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_emulator(Path(tmp, "emu"), request_log=True) as emu,
        running_backend(emu.site.sso_secret, users=UserDirectory(DEMO_USERS)) as backend,
    ):
        service = ServiceClient(emu.url, emu.site.shortname, emu.site.sso_public_key)
        webkit = WebKitProcess()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=find_chromium(None), headless=True)
            runtimes: dict[str, tuple[Any, Any]] = {
                "chromium": (ChromiumApp, browser),
                "webkit": (WebKitApp, WebKitRuntime(webkit)),
            }
            try:
                for round_ in range(args.rounds + 1):
                    for name, (app_class, runtime) in runtimes.items():
                        options = AppOptions(
                            service=service,
                            backend=backend,
                            bridge=bridge,
                            injection_point="document-end",
                            request_log=emu.request_log,
                        )
                        app = app_class(runtime, options).launch()
                        app.wait_for_event("gc-ready")
                        if round_:
                            times[name].append(app.ready_at)
                        app.close()
            finally:
                browser.close()
                webkit.close()
        service.close()
    for name, values in times.items():
        ms = [v * 1000 for v in values]
        print(
            f"{name:9} view creation -> gc-ready: median {statistics.median(ms):6.0f} ms  "
            f"min {min(ms):6.0f}  max {max(ms):6.0f}  ({len(ms)} launches)"
        )


if __name__ == "__main__":
    sys.exit(main())
