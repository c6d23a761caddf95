"""Payloads through every transport: what the widget sends arrives
byte-identical in the app, and what the app injects arrives identical at the widget."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# Emoji (surrogate pairs), the line and paragraph separators that broke JavaScript string
# literals before ES2019, quotes, backslashes, a closing script tag, a NUL-free control char.
SPECIAL = (
    "emoji \U0001f600\U0001f389 line\u2028para\u2029 \"double\" 'single' `back` "
    "back\\slash \\u0041 </script><script>alert(1)</script> tab\t \u00e9\u6f22 "
)
LIMIT = 65536  # bridge.js forwards JSON texts of at most 64 KiB (UTF-16 code units)

_AT_THE_LIMIT = """(special) => {
  const name = 'gc-harness-payload';
  const size = (text) => JSON.stringify({ name: name, text: text }).length;
  let text = special;
  while (size(text + special) <= LIMIT) { text += special; }
  text += 'x'.repeat(LIMIT - size(text));
  const data = JSON.stringify({ name: name, text: text });
  window.postMessage(data, location.origin);
  return data;
}""".replace("LIMIT", str(LIMIT))


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_widget_message_at_the_limit_arrives_byte_identical(native_app, injection_point):
    app = native_app(injection_point)
    app.widget.expect_loaded()
    app.settle()

    sent = app.evaluate(_AT_THE_LIMIT, SPECIAL)
    assert utf16_length(sent) == LIMIT
    app.wait_for(lambda: sent in app.received, "the 64 KiB message to reach the app")
    assert app.received.count(sent) == 1
    assert [m["text"] for m in app.events("gc-harness-payload")][-1].startswith(SPECIAL)
    app.finish()


def test_sso_login_argument_arrives_identical_at_the_widget(native_app, injection_point):
    app = native_app(injection_point)
    app.widget.expect_loaded()
    app.settle()
    app.evaluate(
        """() => { window.__gcSeenLogins = [];
             window.addEventListener('message', (event) => {
               try { const m = JSON.parse(event.data);
                     if (m.info === 'sso-login') window.__gcSeenLogins.push(m.data); }
               catch (e) {} }); }"""
    )
    argument = SPECIAL * 40

    app.inject_login(argument)
    app.round_trip()

    assert app.evaluate("() => window.__gcSeenLogins") == [argument]
    assert not app.injected[-1].error
    app.finish()
