"""The scripts the WebKit app installs besides bridge.js: the relay and the page prelude.

Two worlds besides the page's own:

- ``gcbridge`` (:data:`BRIDGE_WORLD`): where bridge.js runs on the iOS path, as
  ``WKUserScript(..., in: .defaultClient)`` runs it; the real ``gcBridge`` script
  message handler is registered in this world only, so the page's scripts can
  neither see it nor replace the ``window.webkit`` the bridge reads.
- ``gcharness`` (:data:`RELAY_WORLD`): the harness's own, in every frame. It
  listens for ``gc-harness`` events on its frame's window and forwards them to the
  ``gcHarness`` handler stamped with what the page cannot forge: whether the frame
  is the top one and its origin. WebKitGTK gives the app no frame for a script
  message (iOS has ``WKScriptMessage.frameInfo``); this is the harness's stand-in.

The probe (:data:`gcbridge_harness.report.observe.PROBE_SCRIPT`, the one Chromium runs)
reports what the widget emitted, what other frames posted and what bridge.js
posted through the relay too, for the failure timeline and its diagnosis.

The page prelude (main world, every frame, document start) reports console
output, uncaught errors and the page's fetches in flight through the relay, and
defines the React Native and Android transports
(:func:`~gcbridge_harness.app.platforms.shim_script`) over it.
"""

from __future__ import annotations

import json

from gcbridge_harness.app.platforms import Platform, shim_script
from gcbridge_harness.report.observe import PROBE_BINDING, PROBE_SCRIPT

__all__ = [
    "BRIDGE_WORLD",
    "RELAY_WORLD",
    "RELAY_HANDLER",
    "BRIDGE_HANDLER",
    "RELAY",
    "LIFE",
    "prelude",
    "probe",
]

BRIDGE_WORLD = "gcbridge"
RELAY_WORLD = "gcharness"
BRIDGE_HANDLER = "gcBridge"
RELAY_HANDLER = "gcHarness"

RELAY = """(function () {
  var handler = window.webkit.messageHandlers.gcHarness;
  var stringify = JSON.stringify;
  window.addEventListener('gc-harness', function (event) {
    try {
      handler.postMessage(stringify({
        top: window === window.top, origin: location.origin, detail: String(event.detail)
      }));
    } catch (e) { /* the app is gone */ }
  }, true);
})();"""

LIFE = """(function () {
  // In the harness's world, top frame, first in every new document: the navigation committed;
  // pageshow with persisted (the page is back from the page cache) and a fragment navigation
  // reach the app as its WebView's callbacks would; the page cannot forge them.
  if (window !== window.top || !/^https?:$/.test(location.protocol)) { return; }
  var handler = window.webkit.messageHandlers.gcHarness;
  var stringify = JSON.stringify;
  function say(what) {
    try {
      handler.postMessage(stringify({ top: true, origin: location.origin,
        detail: stringify({ channel: 'life', payload: what }) }));
    } catch (e) { /* the app is gone */ }
  }
  say('committed');
  // The load event: Android's onPageFinished comes after it. (WebKitGTK's load-changed
  // FINISHED may come before the page's deferred module scripts ran, DOMContentLoaded even.)
  window.addEventListener('load', function () { say('loaded'); });
  window.addEventListener('pageshow', function (event) {
    if (event.persisted) { say('restored'); }
  }, true);
  window.addEventListener('hashchange', function (event) {
    if (event.isTrusted) { say('hash'); }
  }, true);
})();"""

_PRELUDE = """(function () {
  var dispatch = EventTarget.prototype.dispatchEvent;
  var Custom = CustomEvent;
  var stringify = JSON.stringify;
  var win = window;
  function report(channel, payload) {
    try {
      var detail = stringify({ channel: channel, payload: payload });
      dispatch.call(win, new Custom('gc-harness', { detail: detail }));
    } catch (e) { /* never into the page */ }
  }
  function text(value) {
    try { return typeof value === 'string' ? value : String(value); }
    catch (e) { return '<unprintable>'; }
  }
  var kinds = { log: 'log', info: 'info', warn: 'warning', error: 'error', debug: 'debug' };
  Object.keys(kinds).forEach(function (name) {
    var original = console[name];
    console[name] = function () {
      var line = Array.prototype.map.call(arguments, text).join(' ');
      report('console', { type: kinds[name], text: line });
      return original.apply(this, arguments);
    };
  });
  if (window === window.top && typeof window.fetch === 'function') {
    // Requests the page started that the server may not have seen yet (settle waits for them).
    var realFetch = window.fetch;
    window.fetch = function () {
      var settled = false;
      function done() { if (!settled) { settled = true; report('net', -1); } }
      report('net', 1);
      try {
        var answer = realFetch.apply(this, arguments);
        answer.then(done, done);
        return answer;
      } catch (e) { done(); throw e; }
    };
  }
  if (window === window.top) {
    // History API navigations (same-document): only the page's world sees the calls.
    ['pushState', 'replaceState'].forEach(function (name) {
      var original = History.prototype[name];
      History.prototype[name] = function () {
        var result = original.apply(this, arguments);
        report('life', 'history');
        return result;
      };
    });
    window.addEventListener('error', function (event) {
      report('pageerror', text(event.error ? (event.error.message || event.error) : event.message));
    });
    window.addEventListener('unhandledrejection', function (event) {
      report('pageerror', 'Unhandled rejection: ' + text(event.reason));
    });
  }
  var sink = function (platform, kind, value) {
    report('native', { platform: platform, kind: kind, text: value });
  };
  %s
})();"""


def prelude(platform: Platform | None, *, late: bool) -> str:
    """The main-world script of every frame; ``platform`` adds its transport shim (not iOS)."""
    shim = shim_script(platform, late=late, sink="sink") if platform else ""
    return _PRELUDE % shim


# The probe's sink in WebKit: its reports go through the relay (channel 'probe').
_PROBE_SINK = """(function (binding, only) {
  var dispatch = EventTarget.prototype.dispatchEvent;
  var Custom = CustomEvent;
  var stringify = JSON.stringify;
  var win = window;
  if (win !== win.top) { return; }
  try {
    win[binding] = function (at, kind, detail) {
      if (only && kind !== only) { return; }
      var payload = { at: at, kind: kind, detail: detail };
      dispatch.call(win, new Custom('gc-harness', {
        detail: stringify({ channel: 'probe', payload: payload })
      }));
    };
  } catch (e) { /* never into the page */ }
})(%s, %s);
"""


def probe(*, only: str | None = None) -> str:
    """The probe of the top frame at document start; ``only`` one kind of report.

    In bridge.js's own world (iOS) only ``bridge posted`` is wanted: the page
    world's probe already reports the window messages.
    """
    binding = json.dumps(PROBE_BINDING)
    return _PROBE_SINK % (binding, json.dumps(only)) + PROBE_SCRIPT % binding
