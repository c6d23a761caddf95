"""What the harness watches beside the app, for the timeline and the report (Chromium).

:func:`attach` runs when a launch has opened its browser context, before any page
script: a probe in the widget's main frame reports every window message (what
the widget emitted, what another frame posted) and every ``postMessage`` that
carries ``sso-login``/``sso-logout`` with its target origin (what bridge.js
posted), each stamped by the page's clock; page errors and console errors are
recorded too. ssoData never leaves the page in clear: the probe masks it.

:func:`before_close` takes what a failure report needs before the WebView goes:
a screenshot of the widget and, when tracing is on, the Playwright trace.
:func:`configure` switches both on (``--gc-report``).
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["PROBE_BINDING", "PROBE_SCRIPT", "attach", "before_close", "configure", "flush"]

PROBE_BINDING = "__gcHarnessProbe"

PROBE_SCRIPT = """(function (binding) {
  if (window !== window.top) { return; }
  var sink = window[binding];
  if (typeof sink !== 'function') { return; }
  var stringify = JSON.stringify, parse = JSON.parse;
  function mask(v) { v = String(v); return v.slice(0, 4) + '\\u2026[' + v.length + ' chars]'; }
  function report(kind, detail) { try { sink(Date.now(), kind, detail); } catch (e) {} }
  function decode(data) {
    if (typeof data === 'string') { try { return parse(data); } catch (e) { return null; } }
    return data && typeof data === 'object' ? data : null;
  }
  window.addEventListener('message', function (event) {
    try {
      var m = decode(event.data);
      if (!m || typeof m.name !== 'string') { return; }
      var size = typeof event.data === 'string' ? event.data.length : stringify(m).length;
      var detail = m.name + ' (origin ' + event.origin + ', ' +
        (typeof event.data === 'string' ? 'JSON string' : typeof event.data) +
        (size > 65536 ? ', oversized' : '') + ')';
      report(event.source === window ? 'widget emitted' : 'frame posted', detail);
    } catch (e) {}
  }, true);
  var post = window.postMessage;
  window.postMessage = function (message, target) {
    try {
      var m = decode(message);
      if (m && (m.info === 'sso-login' || m.info === 'sso-logout')) {
        var data = m.info === 'sso-login' ? ', ssoData ' + mask(m.data) : '';
        var to = typeof target === 'string' ? target : stringify(target);
        report('bridge posted', m.info + ' to ' + to + data);
      }
    } catch (e) {}
    return post.apply(this, arguments);
  };
})(%s);"""

_settings: dict[str, Any] = {"artifacts": False, "trace": False}


def configure(*, artifacts: bool, trace: bool) -> None:
    """Keep a screenshot (``artifacts``) and a Playwright trace (``trace``) of every launch."""
    _settings["artifacts"] = artifacts
    _settings["trace"] = trace


def attach(app: Any) -> None:
    """Watch the launch ``app`` whose browser context was just created (no page yet)."""
    context = app.context
    timeline = app.timeline
    views = getattr(app, "_views", None)  # the app's pages (a new window the page opened is none)

    def ours(page: Any) -> bool:
        return views is None or page in views

    def probe(source: Any, at: float, kind: str, detail: str) -> None:
        if ours(source.get("page")):
            timeline.add_wall(at, kind, detail)

    context.expose_binding(PROBE_BINDING, probe)
    context.add_init_script(PROBE_SCRIPT % json.dumps(PROBE_BINDING))

    def on_page(page: Any) -> None:
        page.on(
            "pageerror",
            lambda exc: timeline.add("page error", str(exc)[:300]) if ours(page) else None,
        )
        page.on(
            "console",
            lambda msg: (
                timeline.add(f"console {msg.type}", msg.text[:300])
                if msg.type in ("error", "warning") and ours(page)
                else None
            ),
        )

    context.on("page", on_page)
    if _settings["trace"]:
        with contextlib.suppress(Exception):
            context.tracing.start(screenshots=True, snapshots=True)
            app.tracing = True


def flush(app: Any) -> None:
    """Let the probe's pending reports reach the timeline (the page may be gone)."""
    page = getattr(app, "page", None)
    if page is not None and getattr(app, "context", None) is not None:
        with contextlib.suppress(Exception):
            page.evaluate("0")


def before_close(app: Any) -> None:
    """Keep the widget's last screenshot and the trace of ``app`` before it closes."""
    if getattr(app, "context", None) is None:
        return
    flush(app)
    if _settings["artifacts"] and getattr(app, "page", None) is not None:
        with contextlib.suppress(Exception):
            app.final_screenshot = app.page.screenshot(timeout=5_000)
    if getattr(app, "tracing", False):
        path = Path(tempfile.mkdtemp(prefix="gc-trace-")) / "trace.zip"
        with contextlib.suppress(Exception):
            app.context.tracing.stop(path=str(path))
            app.trace_path = path
