"""The shipped scenarios: run them against any copy of bridge.js.

::

    pytest --pyargs gcbridge_harness.scenarios --gc-bridge path/to/gc-bridge.js \
        [--gc-engine chromium|webkit|all] [--gc-browser PATH]

Every scenario runs in each engine (Chromium, WebKit) at the four injection
points (document-start, document-end, page-finished, page-started) and ends with the ssoData
leak check of :mod:`gcbridge_harness.report.leaks`. Scenarios use only the
engine-neutral API of :class:`~gcbridge_harness.app.native_app.NativeApp`.
"""
