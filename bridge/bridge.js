/**
 * gc-bridge bridge.js: connects the hosted comment widget, loaded in a native
 * WebView, to the app around it. Protocol 1. No dependencies; inject it as is.
 *
 * App -> Web (injection): the app calls
 *   window.gcSsoLogin(ssoData)   posts JSON.stringify({info: "sso-login", data: ssoData})
 *   window.gcSsoLogout()         posts JSON.stringify({info: "sso-logout"})
 * to the page's own origin (targetOrigin = location.origin, never '*').
 *
 * Web -> App (messages): every window message from the page's own window and
 * origin whose JSON is an object with a string `name` (gc-ready, gc-loaded,
 * gc-sso-auth, gc-sso-conflict, ...) is sent as a JSON string to the first
 * native transport that exists at send time (see "Globals read").
 *
 * Globals read:
 *   window.location.origin                               own origin, pins both directions
 *   window.gcBridgeConfig                                optional, read once at install:
 *     .transport        function(string)                 1st transport: the app's own
 *     .allowedOrigins   string[]                         extra origins whose frames may send events
 *   window.ReactNativeWebView.postMessage(string)        2nd transport: React Native
 *   window.webkit.messageHandlers.gcBridge.postMessage   3rd transport: iOS WKScriptMessageHandler
 *   window.GcBridgeAndroid.postMessage(string)           4th transport: Android
 *   window.pywebview.api.gc_bridge_message(string)       5th transport: pywebview (arrives late)
 *   window.JSON, window.setTimeout, window.console
 *
 * Globals written:
 *   window.gcSsoLogin, window.gcSsoLogout                contract functions
 *   window.gcBridge                                      frozen {version, protocol, install, flush, stats}
 *   window.__gcBridgeInstalled                           non-enumerable, read-only marker: a second
 *                                                        injection finds it and does nothing
 *
 * Events listened to on window: 'message' (the widget's events), 'pywebviewready'
 * (pywebview's API has arrived: flush the queue).
 *
 * Security model: the page's own window and origin are trusted, nothing else is,
 * unless listed in gcBridgeConfig.allowedOrigins. Messages that are foreign,
 * oversized (> 64 KiB), nested deeper than 32 objects/arrays, not JSON, not a
 * plain object, nameless or carrying a "__proto__" key are dropped and counted,
 * never thrown into the page. ssoData
 * is never logged. Configuration is data read from window.gcBridgeConfig;
 * nothing is ever pasted into this script.
 */
(function (root) {
  'use strict';

  var VERSION = '1.0.0';
  var PROTOCOL = 1;

  /** Longest message forwarded, in UTF-16 code units of its JSON text (64 KiB). */
  var MAX_MESSAGE_CHARS = 65536;
  /**
   * Deepest nesting forwarded, counting every object and array (the message
   * itself is level 1). Deeper JSON under 64 KiB is legal, but recursive
   * parsers on the native side (Python's json, many others) overflow on it.
   */
  var MAX_DEPTH = 32;
  /** Messages kept while no transport exists; the oldest is dropped beyond this. */
  var MAX_QUEUE = 100;
  /** Poll delays while the queue waits for a transport: doubles up to the cap. */
  var FIRST_POLL_MS = 20;
  var MAX_POLL_MS = 1000;
  var MARKER = '__gcBridgeInstalled';

  // Captured at install so that a page that later replaces JSON cannot alter
  // what the bridge parses or sends.
  var parseJson = JSON.parse;
  var toJson = JSON.stringify;
  var hasOwn = Object.prototype.hasOwnProperty;

  /** Why a message was not forwarded; the keys of stats().dropped. */
  var DROP_REASONS = ['foreign', 'oversized', 'too_deep', 'malformed', 'unnamed', 'queue_full', 'transport_error'];

  function isPlainObject(value) {
    if (value === null || typeof value !== 'object') {
      return false;
    }
    var proto = Object.getPrototypeOf(value);
    // Objects structured-cloned by postMessage belong to this realm; null-prototype
    // objects are plain too. Arrays, Dates, Maps... are not.
    return proto === Object.prototype || proto === null;
  }

  function rejectProtoKeys(key, value) {
    // JSON.parse makes "__proto__" an own property (no pollution here), but the
    // native side may merge the object carelessly: refuse it outright.
    if (key === '__proto__') {
      throw new SyntaxError('__proto__ key');
    }
    return value;
  }

  /**
   * Whether the JSON text `text` nests at most `limit` objects/arrays. One
   * linear scan with a counter (no recursion, so no depth can overflow it);
   * brackets inside strings are skipped. Text that is not JSON may pass: the
   * parser rejects it afterwards.
   */
  function withinDepth(text, limit) {
    var depth = 0;
    var inString = false;
    for (var i = 0; i < text.length; i++) {
      var c = text.charCodeAt(i);
      if (inString) {
        if (c === 0x5c) {
          i += 1; // backslash: the next code unit is escaped, whatever it is
        } else if (c === 0x22) {
          inString = false;
        }
      } else if (c === 0x22) {
        inString = true;
      } else if (c === 0x7b || c === 0x5b) {
        depth += 1;
        if (depth > limit) {
          return false;
        }
      } else if (c === 0x7d || c === 0x5d) {
        depth -= 1;
      }
    }
    return true;
  }

  function warn(win, text) {
    try {
      if (win.console && typeof win.console.warn === 'function') {
        win.console.warn('[gc-bridge] ' + text);
      }
    } catch (ignored) {
      // a console that throws must not break the page
    }
  }

  function readConfig(config) {
    var out = { transport: null, allowedOrigins: [] };
    if (!config || typeof config !== 'object') {
      return out;
    }
    try {
      if (typeof config.transport === 'function') {
        out.transport = config.transport;
      }
      var origins = config.allowedOrigins;
      if (Array.isArray(origins)) {
        for (var i = 0; i < origins.length; i++) {
          var origin = origins[i];
          // '*' and the opaque origin 'null' would admit anyone: ignored.
          if (typeof origin === 'string' && origin !== '*' && origin !== 'null' && origin !== '') {
            out.allowedOrigins.push(origin.replace(/\/$/, ''));
          }
        }
      }
    } catch (ignored) {
      // a config with throwing getters counts as no config
    }
    return out;
  }

  /**
   * Install the bridge on `win` with `config` ({transport, allowedOrigins}; by
   * default win.gcBridgeConfig). Returns the window's gcBridge object. A second
   * call on the same window returns the first installation and changes nothing.
   */
  function install(win, config) {
    if (hasOwn.call(win, MARKER)) {
      return win[MARKER];
    }
    var settings = readConfig(arguments.length > 1 ? config : win.gcBridgeConfig);
    var queue = [];
    var pollDelay = FIRST_POLL_MS;
    var pollTimer = null;
    var warnedTransport = false;
    var counts = { received: 0, forwarded: 0, queued: 0, dropped: {} };
    for (var r = 0; r < DROP_REASONS.length; r++) {
      counts.dropped[DROP_REASONS[r]] = 0;
    }

    function drop(reason) {
      counts.dropped[reason] += 1;
    }

    function ownOrigin() {
      return win.location.origin;
    }

    /** The first transport that exists now, as {name, send}; null if none does. */
    function currentTransport() {
      try {
        return findTransport();
      } catch (ignored) {
        return null; // a throwing getter on a transport global counts as absent
      }
    }

    function findTransport() {
      if (settings.transport) {
        return { name: 'config', send: function (text) { return settings.transport.call(null, text); } };
      }
      var rn = win.ReactNativeWebView;
      if (rn && typeof rn.postMessage === 'function') {
        return { name: 'react-native', send: function (text) { return rn.postMessage(text); } };
      }
      var webkit = win.webkit;
      var handler = webkit && webkit.messageHandlers && webkit.messageHandlers.gcBridge;
      if (handler && typeof handler.postMessage === 'function') {
        return { name: 'ios', send: function (text) { return handler.postMessage(text); } };
      }
      var android = win.GcBridgeAndroid;
      if (android && typeof android.postMessage === 'function') {
        return { name: 'android', send: function (text) { return android.postMessage(text); } };
      }
      var api = win.pywebview && win.pywebview.api;
      if (api && typeof api.gc_bridge_message === 'function') {
        return { name: 'pywebview', send: function (text) { return api.gc_bridge_message(text); } };
      }
      return null;
    }

    function deliver(transport, text) {
      try {
        var result = transport.send(text);
        // pywebview answers with a Promise: a rejection must not surface as an
        // unhandled rejection in the page.
        if (result && typeof result.then === 'function') {
          result.then(null, function () {
            drop('transport_error');
          });
        }
        counts.forwarded += 1;
      } catch (err) {
        drop('transport_error');
        if (!warnedTransport) {
          warnedTransport = true;
          warn(win, 'the ' + transport.name + ' transport threw; message dropped');
        }
      }
    }

    /** Send queued messages, oldest first, if a transport exists; true when the queue is empty. */
    function flush() {
      var transport = queue.length ? currentTransport() : null;
      if (transport) {
        while (queue.length) {
          deliver(transport, queue.shift());
        }
      }
      return queue.length === 0;
    }

    function schedulePoll() {
      if (pollTimer !== null || !queue.length) {
        return;
      }
      pollTimer = win.setTimeout(function () {
        pollTimer = null;
        if (!flush()) {
          pollDelay = Math.min(pollDelay * 2, MAX_POLL_MS);
          schedulePoll();
        }
      }, pollDelay);
    }

    function send(text) {
      if (flush()) {
        var transport = currentTransport();
        if (transport) {
          deliver(transport, text);
          return;
        }
      }
      if (queue.length >= MAX_QUEUE) {
        queue.shift();
        drop('queue_full');
      }
      queue.push(text);
      counts.queued += 1;
      pollDelay = FIRST_POLL_MS;
      schedulePoll();
    }

    function isTrustedSender(event) {
      var origin = event.origin;
      if (event.source === win && origin === ownOrigin()) {
        return true;
      }
      for (var i = 0; i < settings.allowedOrigins.length; i++) {
        if (origin === settings.allowedOrigins[i]) {
          return true;
        }
      }
      return false;
    }

    /** The JSON text to forward for `data`, or null (and the drop counted). */
    function normalise(data) {
      var text = data;
      if (isPlainObject(data)) {
        text = toJson(data);
      } else if (typeof data !== 'string') {
        drop('unnamed');
        return null;
      }
      if (typeof text !== 'string' || text.length > MAX_MESSAGE_CHARS) {
        drop('oversized');
        return null;
      }
      // Checked on the text, before parsing, so that no parser ever sees it.
      if (!withinDepth(text, MAX_DEPTH)) {
        drop('too_deep');
        return null;
      }
      var parsed;
      try {
        parsed = parseJson(text, rejectProtoKeys);
      } catch (notJson) {
        drop('malformed');
        return null;
      }
      if (!isPlainObject(parsed) || typeof parsed.name !== 'string') {
        drop('unnamed');
        return null;
      }
      return toJson(parsed);
    }

    function onMessage(event) {
      try {
        counts.received += 1;
        if (!isTrustedSender(event)) {
          drop('foreign');
          return;
        }
        var text = normalise(event.data);
        if (text !== null) {
          send(text);
        }
      } catch (err) {
        // Nothing a message carries may throw into the page.
        drop('malformed');
      }
    }

    function post(payload) {
      var origin = ownOrigin();
      // An opaque origin ('null': sandboxed frame, data: URL) has no targetOrigin
      // that pins it, and the widget is never served that way: refuse, loudly.
      if (typeof origin !== 'string' || origin === 'null' || origin.indexOf('://') < 0) {
        warn(win, 'page has an opaque origin; ' + payload.info + ' not posted');
        return false;
      }
      var text;
      try {
        text = toJson(payload);
      } catch (notSerialisable) {
        warn(win, payload.info + ' argument is not JSON-serialisable; not posted');
        return false;
      }
      win.postMessage(text, origin);
      return true;
    }

    function gcSsoLogin(ssoData) {
      return post({ info: 'sso-login', data: ssoData });
    }

    function gcSsoLogout() {
      return post({ info: 'sso-logout' });
    }

    function stats() {
      var dropped = {};
      for (var i = 0; i < DROP_REASONS.length; i++) {
        dropped[DROP_REASONS[i]] = counts.dropped[DROP_REASONS[i]];
      }
      return {
        received: counts.received,
        forwarded: counts.forwarded,
        queued: counts.queued,
        waiting: queue.length,
        dropped: dropped
      };
    }

    var api = Object.freeze({
      version: VERSION,
      protocol: PROTOCOL,
      /** install(win, config): install on another window (a no-op on an installed one). */
      install: install,
      /** flush(): send queued messages now (call it after exposing a late transport). */
      flush: function () {
        try {
          return flush();
        } catch (ignored) {
          return false;
        }
      },
      /** stats(): counters of received, forwarded, queued and dropped messages by reason. */
      stats: stats
    });

    Object.defineProperty(win, MARKER, { value: api, enumerable: false, writable: false, configurable: false });
    win.gcSsoLogin = gcSsoLogin;
    win.gcSsoLogout = gcSsoLogout;
    win.gcBridge = api;
    win.addEventListener('message', onMessage, false);
    win.addEventListener('pywebviewready', function () {
      try {
        flush();
      } catch (ignored) {
        // the poll timer retries
      }
    }, false);
    return api;
  }

  if (root && typeof root.addEventListener === 'function') {
    install(root, root.gcBridgeConfig);
  }
})(typeof window !== 'undefined' ? window : this);
