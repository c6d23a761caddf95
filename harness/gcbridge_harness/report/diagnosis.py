"""Known ways a bridge fails, each turned into one line in an app team's words.

:func:`diagnose` reads what one launch recorded (its
:class:`~gcbridge_harness.report.timeline.Timeline`, the messages the app received,
what it injected) and the failure's text, and returns the diagnosis lines whose
pattern fits, most specific first, e.g.::

    the widget sent gc-sso-conflict at 0.41 s; the app never received it:
    your bridge did not forward it
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from gcbridge_harness.report.host_words import host_diagnoses
from gcbridge_harness.report.identity_words import identity_diagnoses
from gcbridge_harness.report.leaks import PLACES
from gcbridge_harness.report.lifecycle_words import lifecycle_diagnoses
from gcbridge_harness.report.probe_words import PROBE_MESSAGE, bridge_was_in_page, probe_diagnoses
from gcbridge_harness.report.timeline import Timeline, TimelineEntry, first_word, when

__all__ = ["diagnose", "LOGIN_REASONS"]

TRANSPORTS = {
    "react-native": "window.ReactNativeWebView.postMessage",
    "ios": "window.webkit.messageHandlers.gcBridge.postMessage",
    "android": "window.GcBridgeAndroid.postMessage",
}

LOGIN_REASONS = {
    "sso_expired": "the ssoData had expired: fetch it right before injecting it "
    "(and check your backend's clock)",
    "sso_invalid": "its signature did not match: sign with the site's SSO secret "
    "and pass the ssoData on unchanged",
    "unknown_public_key": "api_public_key in the widget URL is not the site's public key",
    "username_conflict": "the username is taken: answer gc-sso-conflict with a corrected username",
}


def _leak_places(app: Any, failure: str) -> list[str]:
    """The places the leak check named, from the launch's checker or else the failure text."""
    places: list[str] = []
    found = getattr(getattr(app, "leaks", None), "leaks", None)
    if callable(found):
        places = [leak.place for leak in found()]
    if not places:  # each line of the check's failure is "  <where> (<place>): <excerpt>"
        places = re.findall(r"^\s+\S[^\n]*? \(([^()\n]+)\): ", failure, flags=re.M)
    order = [words for _, words in PLACES]
    return sorted(dict.fromkeys(places), key=lambda p: order.index(p) if p in order else 99)


def _leaks(app: Any, timeline: Timeline, failure: str) -> list[str]:
    if "ssoData leaked" not in failure:
        return []
    places = _leak_places(app, failure)
    if places:
        where = places[0] if len(places) == 1 else ", ".join(places[:-1]) + " and " + places[-1]
        advice = "your bridge must hand ssoData to the widget by postMessage only"
        return [f"ssoData {where}: {advice}"]
    return ["ssoData leaked outside the login call: your bridge must only postMessage it"]


def _forged(app: Any, timeline: Timeline, failure: str) -> list[str]:
    received = Counter(m.get("name") for m in getattr(app, "messages", []))
    own = Counter(first_word(e) for e in timeline.find("widget emitted"))
    for entry in timeline.find("frame posted"):
        name = first_word(entry)
        if received[name] > own[name]:
            origin = entry.detail.split("origin ", 1)[-1].split(",")[0]
            return [
                f"a frame of {origin} posted {name} at {when(entry)} and your bridge forwarded it "
                "to the app: forward only messages whose event.source is window and "
                "event.origin is location.origin"
            ]
    return []


def _star_target(app: Any, timeline: Timeline, failure: str) -> list[str]:
    posts = [e for e in timeline.find("bridge posted") if re.search(r" to \*(,|$)", e.detail)]
    posts.sort(key=lambda e: "sso-login" not in e.detail)
    if not posts:
        return []
    entry = posts[0]
    what = first_word(entry)
    risk = "any frame could read the ssoData" if what == "sso-login" else "any frame could read it"
    return [
        f"your bridge posted {what} with targetOrigin '*' at {when(entry)}: {risk}; "
        "post to location.origin"
    ]


def _page_errors(app: Any, timeline: Timeline, failure: str) -> list[str]:
    errors = timeline.find("page error")
    if not errors:
        return []
    first = errors[0]
    text = first.detail.splitlines()[0][:120]
    if text.strip() == "Script error.":
        # WebKit hides the message of an error thrown by a script the app injected
        # (it has no origin of the page's): here, bridge.js.
        return [
            f"your bridge threw into the page at {when(first)} (WebKit hides the message of a "
            "script the app injects; the Chromium run shows it): parse incoming messages "
            "inside try/catch and drop what is not JSON"
        ]
    if "JSON" in text or "SyntaxError" in text or "parse" in text.lower():
        return [
            f"your bridge threw {text!r} into the page at {when(first)}: parse incoming messages "
            "inside try/catch and drop what is not JSON"
        ]
    return [f"the page threw {text!r} at {when(first)}"]


def _transport(app: Any, timeline: Timeline, failure: str) -> list[str]:
    for entry in timeline.find("transport violation"):
        if "not a string" in entry.detail:
            return [
                f"your bridge passed a non-string to the native transport at {when(entry)}: "
                "send JSON.stringify(message)"
            ]
        return [f"your bridge misused the native transport at {when(entry)}: {entry.detail[:100]}"]
    return []


def _emitted_since_install(app: Any, timeline: Timeline) -> list[TimelineEntry]:
    return [
        e
        for e in timeline.find("widget emitted")
        if bridge_was_in_page(app, timeline, e.at) and "oversized" not in e.detail
    ]


def _duplicates(app: Any, timeline: Timeline, failure: str) -> list[str]:
    """Widget events that reached the app more than once."""
    received = Counter(m.get("name") for m in getattr(app, "messages", []))
    sent = Counter(first_word(e) for e in _emitted_since_install(app, timeline))
    lines = []
    for name, count in sent.items():
        if received[name] > count:
            times = "once" if count == 1 else f"{count} times"
            lines.append(
                f"the widget sent {name} {times}; the app received it {received[name]} times: "
                "your bridge forwards each event more than once (installed twice? a second "
                "injection must change nothing)"
            )
    return lines[:1]


def _dropped(app: Any, timeline: Timeline, failure: str) -> list[str]:
    """Widget events that never reached the app."""
    emitted = _emitted_since_install(app, timeline)
    received = Counter(m.get("name") for m in getattr(app, "messages", []))
    lines = []
    for name in dict.fromkeys(first_word(e) for e in emitted):
        if received[name] or name == PROBE_MESSAGE:  # the probe: probe_diagnoses
            continue
        first = next(e for e in emitted if first_word(e) == name)
        transport = TRANSPORTS.get(getattr(app, "platform", ""), "its transport")
        how = (
            f"your bridge did not forward it through {transport}"
            if not received
            else "your bridge did not forward it"
        )
        lines.append(f"the widget sent {name} at {when(first)}; the app never received it: {how}")
    return lines[:2]


_PAGE_CLOCK = 0.002  # seconds: the resolution of a page's Date.now() and then some


def _injections(app: Any, timeline: Timeline, failure: str) -> list[str]:
    lines = []
    for entry in timeline.find("injection failed"):
        if "is not a function" in entry.detail or "not defined" in entry.detail:
            return [
                f"the app called gcSsoLogin at {when(entry)} but your bridge had not defined it "
                "(not installed yet, or it threw while installing)"
            ]
    probing = bool(timeline.find("widget emitted"))
    posted = timeline.find("bridge posted")
    for call, info in (("inject gcSsoLogin", "sso-login"), ("inject gcSsoLogout", "sso-logout")):
        for entry in timeline.find(call):
            if "early" in entry.detail or not probing:
                continue
            # The page's clock (Date.now) counts whole milliseconds: allow for that.
            if not any(p.at >= entry.at - _PAGE_CLOCK and info in p.detail for p in posted):
                function = call.split()[-1]
                lines.append(
                    f"the app called {function} at {when(entry)}; your bridge never posted "
                    f"{info} to the widget"
                )
                break
    return lines


def _too_early(app: Any, timeline: Timeline, failure: str) -> list[str]:
    ready = [e for e in timeline.find("widget emitted") if first_word(e) == "gc-ready"]
    logins = timeline.find("inject gcSsoLogin")
    if not ready or not logins or timeline.find("login answered"):
        return []
    if all(entry.at < ready[0].at for entry in logins):
        return [
            f"gcSsoLogin was called at {when(logins[0])}, before gc-ready ({when(ready[0])}); "
            "the widget was not listening yet: inject on gc-ready or gc-loaded"
        ]
    return []


def _refused(app: Any, timeline: Timeline, failure: str) -> list[str]:
    if "signed-in" not in failure and "(@" not in failure:
        return []
    for entry in timeline.find("login answered"):
        match = re.match(r"(\d+)\s*(\S*)", entry.detail)
        if match and match.group(1) != "200":
            reason = match.group(2)
            why = LOGIN_REASONS.get(reason, "look the reason up in docs/reference/reason-codes.md")
            return [
                f"the service refused the login at {when(entry)} ({reason or 'no reason'}): {why}"
            ]
    return []


def _silence(app: Any, timeline: Timeline, failure: str) -> list[str]:
    if getattr(app, "received", None) or not _emitted_since_install(app, timeline):
        return []
    transport = TRANSPORTS.get(getattr(app, "platform", ""), "the platform's transport")
    return [
        "nothing reached the app from the bridge: is it injected, and does it send "
        f"through {transport}?"
    ]


_PATTERNS: tuple[Callable[[Any, Timeline, str], list[str]], ...] = (
    # First: a dropped probe makes every guess from missing messages below unsafe.
    probe_diagnoses,
    _leaks,
    identity_diagnoses,
    host_diagnoses,
    lifecycle_diagnoses,
    _forged,
    _duplicates,
    _page_errors,
    _transport,
    _star_target,
    _too_early,
    _injections,
    _dropped,
    _refused,
    _silence,
)

# A pattern whose words appear in the assertion itself goes first.
_WORDS: dict[Callable[[Any, Timeline, str], list[str]], tuple[str, ...]] = {
    _star_target: ("'*'", "targetOrigin", "posted to"),
    _page_errors: ("page_errors", "uncaught errors"),
    _transport: ("transport",),
}


def _assertion(failure: str) -> str:
    """The ``E`` lines of a pytest failure (the assertion and its message), else all of it."""
    lines = [line[1:] for line in failure.splitlines() if line.startswith("E ")]
    return "\n".join(lines) or failure


def diagnose(app: Any, failure: str = "") -> list[str]:
    """Diagnosis lines for the launch ``app`` given the failure's text (most specific first)."""
    timeline: Timeline = app.timeline
    assertion = _assertion(failure)
    first: list[str] = []
    rest: list[str] = []
    for pattern in _PATTERNS:
        hit = any(word in assertion for word in _WORDS.get(pattern, ()))
        for line in pattern(app, timeline, failure):
            if line not in first and line not in rest:
                (first if hit else rest).append(line)
    return first + rest
