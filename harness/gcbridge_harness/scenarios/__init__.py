"""The shipped scenarios: run them against any copy of bridge.js.

::

    pytest --pyargs gcbridge_harness.scenarios --gc-bridge path/to/bridge.js [--gc-browser PATH]

Every scenario runs at the three injection points (document-start, document-end,
page-finished) and ends with the ssoData leak check of
:mod:`gcbridge_harness.leaks`.
"""
