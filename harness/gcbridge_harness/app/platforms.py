"""How each native platform injects bridge.js and receives its messages, in the harness's engines.

Injection points (App -> Web), each the mechanism of one platform:

============== ======================================= =========================================
point          platform mechanism                      widget events the bridge can see
============== ======================================= =========================================
document-start React Native on iOS                     gc-ready, gc-loaded and every later event
               ``injectedJavaScriptBeforeContentLoaded``
               (a ``WKUserScript`` at document start)
document-end   iOS ``WKUserScript(.atDocumentEnd)``    gc-ready (posted from the widget's
               (runs after the page's                  DOMContentLoaded listener, dispatched later
               DOMContentLoaded listeners)             as a task), gc-loaded and every later event
page-finished  Android ``onPageFinished`` +            never gc-ready; gc-loaded only when the
               ``evaluateJavascript`` (and pywebview)  comments arrive after the load event; every
                                                       later event. Apps log in at page finished.
page-started   React Native on Android: the same prop, whatever the race leaves: gc-ready and
               ``evaluateJavascript`` from             gc-loaded, one of them or neither. Then
               ``onPageStarted`` (at commit), racing   bridge.js again at page finished
               the page's scripts                      (``injectedJavaScript``); apps log in at
                                                       page finished too (``onLoad``).
============== ======================================= =========================================

Transports (Web -> App), installed before any page script because the native
objects exist from the start of the document on every platform:

- ``react-native``: ``window.ReactNativeWebView.postMessage(string)``; a
  non-string is delivered as ``String(value)`` (what the native side receives)
  and reported as a transport violation. In every frame, as react-native-webview's is
  (Android: ``addWebMessageListener`` with ``"*"``; iOS: its handler in every frame); the
  app learns the sending frame's origin and nothing else (``nativeEvent.url``, 13.13.1+).
- ``ios``: ``window.webkit.messageHandlers.gcBridge.postMessage(body)``; a
  non-string body is a dictionary the app's ``body as? String`` ignores: a violation.
- ``android``: ``window.GcBridgeAndroid.postMessage(String)`` (a
  ``@JavascriptInterface``): coerced to a string, a violation if it was not one.

Every platform here injects bridge.js into the main frame only, as the real
defaults do. The Android interface, like ``addJavascriptInterface``, and React
Native's exist in every frame, subframes included: the app checks the sender's
frame (where the platform names it) and origin.
With ``late=True`` a shim installs nothing until the app calls
``window.__gcHarnessExposeTransport()`` (pywebview's API arriving on
``pywebviewready``; an Android interface added after the load).
Underneath, the shims call one sink: a Playwright binding in Chromium, a relay
to a registered script message handler in WebKit (``webkit/scripts.py``).
"""

from __future__ import annotations

import json
from typing import Literal

__all__ = [
    "INJECTION_POINTS",
    "PLATFORM_OF",
    "InjectionPoint",
    "Platform",
    "BINDING",
    "shim_script",
    "at_document_start",
    "at_document_end",
    "at_page_finished",
    "NO_DOM_STORAGE_SCRIPT",
    "LIFE_BINDING",
    "LIFE_SCRIPT",
    "RN_LIFECYCLE_SCRIPT",
    "EVALUATED_AT_PAGE_FINISHED",
]

InjectionPoint = Literal["document-start", "document-end", "page-finished", "page-started"]
Platform = Literal["react-native", "ios", "android"]

INJECTION_POINTS: tuple[InjectionPoint, ...] = (
    "document-start",
    "document-end",
    "page-finished",
    "page-started",
)
PLATFORM_OF: dict[InjectionPoint, Platform] = {
    "document-start": "react-native",
    "document-end": "ios",
    "page-finished": "android",
    "page-started": "react-native",
}
EVALUATED_AT_PAGE_FINISHED: frozenset[InjectionPoint] = frozenset({"page-finished", "page-started"})
"""Points whose bridge.js is evaluated (again) at page finished: the Android kit in
``onPageFinished``, react-native-webview's ``injectedJavaScript`` on Android; where page
finished is also one of the app's triggers (the bridge may have missed gc-ready and gc-loaded)."""

BINDING = "__gcHarnessNative"
"""The Playwright binding under every shim: ``(platform, typeof value, String(value))``."""

_SHIM = """(function (platform, late, native) {
  if (window !== window.top && platform === 'ios') { return; }
  function send(value) {
    var text;
    try { text = typeof value === 'string' ? value : String(value); }
    catch (e) { text = '<unprintable>'; }
    native(platform, typeof value, text);
  }
  function install() {
    if (platform === 'react-native') {
      window.ReactNativeWebView = { postMessage: function (data) { send(data); } };
    } else if (platform === 'ios') {
      var handler = { postMessage: function (body) {
        var text = body;
        if (typeof body !== 'string') {
          try { text = JSON.stringify(body); } catch (e) { text = String(body); }
        }
        native(platform, typeof body, text);
      } };
      window.webkit = { messageHandlers: { gcBridge: handler } };
    } else if (platform === 'android') {
      window.GcBridgeAndroid = { postMessage: function (data) { send(data); } };
    }
  }
  if (!late) { install(); return; }
  Object.defineProperty(window, '__gcHarnessExposeTransport', { value: install });
})(%s, %s, %s);"""

NO_DOM_STORAGE_SCRIPT = """(function () {
  // DOM storage switched off (WebView setting): the engines answer null, as WebKit does.
  ['localStorage', 'sessionStorage'].forEach(function (name) {
    var nothing = { get: function () { return null; }, configurable: true };
    try { Object.defineProperty(window, name, nothing); }
    catch (e) { /* not configurable here: keep */ }
  });
})();"""


def shim_script(platform: Platform, *, late: bool = False, sink: str = "") -> str:
    """The init script defining the platform's native message object.

    ``sink`` is a JavaScript expression of ``function (platform, kind, text)``;
    by default the Playwright binding.
    """
    native = sink or f"window[{json.dumps(BINDING)}]"
    return _SHIM % (json.dumps(platform), json.dumps(late), native)


def at_document_start(source: str) -> str:
    """``source`` as a document-start user script of the main frame.

    A block (not a function) keeps ``var`` and function declarations global, as a
    real user script would have them.
    """
    return "if (window === window.top) {\n" + source + "\n}"


def at_document_end(source: str) -> str:
    """``source`` run at DOMContentLoaded in the main frame, like ``WKUserScript(.atDocumentEnd)``.

    WebKit runs document-end user scripts once DOMContentLoaded has been
    dispatched, after the page's listeners. The listener here, registered at
    document start on ``window``, runs at the end of the event's path: after
    every listener on ``document`` (the widget's among them). The script runs
    inside a function called with ``this === window`` (an IIFE bridge sees no
    difference).
    """
    return (
        "if (window === window.top) {\n"
        "  window.addEventListener('DOMContentLoaded', function () {\n"
        + source
        + "\n  }.bind(window), { once: true });\n}"
    )


def at_page_finished(source: str) -> str:
    """``source`` as ``evaluateJavascript`` runs it: a global script whose value is discarded."""
    return source + "\n;void 0"


LIFE_BINDING = "__gcHarnessLife"
LIFE_SCRIPT = """(function (binding) {
  // The main frame's web documents (not the initial about:blank of a new view).
  if (window !== window.top || !/^https?:$/.test(location.protocol)) { return; }
  var tell = window[binding];
  function say(what) { if (typeof tell === 'function') { try { tell(what); } catch (e) {} } }
  // This script runs first in every new document: the navigation committed. Reported through
  // a binding, so the app learns of it before anything the new document posts.
  say('committed');
  // pageshow with persisted: the page is back from the back-forward cache (the app's
  // navigation callback on the platforms: no injection runs again in this document).
  window.addEventListener('pageshow', function (event) {
    if (event.persisted) { say('restored'); }
  });
  // Same-document navigations, which the platforms report too (harness/README.md).
  window.addEventListener('hashchange', function (event) {
    if (event.isTrusted) { say('hash'); }
  }, true);
  ['pushState', 'replaceState'].forEach(function (name) {
    var original = History.prototype[name];
    History.prototype[name] = function () {
      var result = original.apply(this, arguments);
      say('history');
      return result;
    };
  });
})(BINDING_NAME);""".replace("BINDING_NAME", json.dumps(LIFE_BINDING))
"""The navigations the app's WebView would report, and restores from the back-forward cache
(Chromium; WebKit: the same through its relay, ``webkit/scripts.py``)."""

RN_LIFECYCLE_SCRIPT = """(function () {
  // The React Native kit's lifecycle script (bridge/platforms/react-native/src/lifecycle.ts):
  // once per document, where bridge.js goes, it tells the app a new document is there (and
  // whether it had loaded by then): react-native-webview has no callback that says so.
  if (window.__gcLifecycleInstalled || !window.ReactNativeWebView) { return; }
  if (!/^https?:$/.test(location.protocol)) { return; }  // a new view's about:blank
  Object.defineProperty(window, '__gcLifecycleInstalled', { value: true });
  window.ReactNativeWebView.postMessage(JSON.stringify(
    { gcLifecycle: 'document', complete: document.readyState === 'complete' }));
})();"""
"""Injected with bridge.js at the React Native points (``document-start``, ``page-started``)."""
