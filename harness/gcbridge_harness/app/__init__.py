"""The app: what a native app around the widget does, whatever the engine.

:mod:`~gcbridge_harness.app.native_app` (one launch, engine-neutral) with
:mod:`~gcbridge_harness.app.page_waits` and :mod:`~gcbridge_harness.app.widget_view`;
:mod:`~gcbridge_harness.app.platforms` (injection points and transports);
:mod:`~gcbridge_harness.app.decisions` performs the effects of
:mod:`gcbridge_harness.coordinator` (the app's decisions, held to
``bridge/protocol/app-protocol.json``; it stays at the package's top, standard
library only, where ``bridge/protocol/run_python.py`` loads it from its file as
the reference of every kit's coordinator).
"""
