"""Known ways a bridge fails, each turned into one line in an app team's words.

:func:`diagnose` reads what one launch recorded (its :class:`~gcbridge_harness.timeline.Timeline`,
the messages the app received, what it injected) and the failure's text, and
returns the diagnosis lines whose pattern fits, most specific first, e.g.::

    the widget sent gc-sso-conflict at 0.41 s; the app never received it:
    your bridge did not forward it
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from gcbridge_harness.timeline import Timeline, TimelineEntry

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

_LEAK_PLACES = (
    ("page href", "ssoData appeared in the page URL"),
    ("history entry", "ssoData appeared in the navigation history"),
    ("request URL", "ssoData was sent in a request URL"),
    ("Referer", "ssoData was sent in a Referer header"),
    ("Cookie", "ssoData was sent in a cookie"),
    ("body of", "ssoData was sent in a request body other than the login call's"),
    ("historyState", "ssoData was stored in history.state"),
    ("localStorage", "ssoData was stored in localStorage"),
    ("sessionStorage", "ssoData was stored in sessionStorage"),
    ("console", "ssoData was printed to the console"),
    ("storage state", "ssoData was kept in the WebView's storage"),
)


def _t(entry: TimelineEntry) -> str:
    return f"{entry.at:.2f} s"


def _name(entry: TimelineEntry) -> str:
    return entry.detail.split(" ", 1)[0]


def _installed_at(app: Any, timeline: Timeline) -> float:
    """When bridge.js was in the page: page finished for Android, else from the start."""
    if getattr(app, "injection_point", "") == "page-finished":
        finished = timeline.find("page finished")
        return finished[0].at if finished else 0.0
    return 0.0


def _leaks(app: Any, timeline: Timeline, failure: str) -> list[str]:
    if "ssoData leaked" not in failure:
        return []
    for needle, words in _LEAK_PLACES:
        if needle in failure:
            return [f"{words}: your bridge must hand ssoData to the widget by postMessage only"]
    return ["ssoData leaked outside the login call: your bridge must only postMessage it"]


def _forged(app: Any, timeline: Timeline, failure: str) -> list[str]:
    received = Counter(m.get("name") for m in getattr(app, "messages", []))
    own = Counter(_name(e) for e in timeline.find("widget emitted"))
    for entry in timeline.find("frame posted"):
        name = _name(entry)
        if received[name] > own[name]:
            origin = entry.detail.split("origin ", 1)[-1].split(",")[0]
            return [
                f"a frame of {origin} posted {name} at {_t(entry)} and your bridge forwarded it "
                "to the app: forward only messages whose event.source is window and "
                "event.origin is location.origin"
            ]
    return []


def _star_target(app: Any, timeline: Timeline, failure: str) -> list[str]:
    for entry in timeline.find("bridge posted"):
        if " to * " in entry.detail + " " or entry.detail.rstrip().endswith(" to *"):
            what = _name(entry)
            return [
                f"your bridge posted {what} with targetOrigin '*' at {_t(entry)}: "
                "any frame could read the ssoData; post to location.origin"
            ]
    return []


def _page_errors(app: Any, timeline: Timeline, failure: str) -> list[str]:
    errors = timeline.find("page error")
    if not errors:
        return []
    first = errors[0]
    text = first.detail.splitlines()[0][:120]
    if "JSON" in text or "SyntaxError" in text or "parse" in text.lower():
        return [
            f"your bridge threw {text!r} into the page at {_t(first)}: parse incoming messages "
            "inside try/catch and drop what is not JSON"
        ]
    return [f"the page threw {text!r} at {_t(first)}"]


def _transport(app: Any, timeline: Timeline, failure: str) -> list[str]:
    for entry in timeline.find("transport violation"):
        if "not a string" in entry.detail:
            return [
                f"your bridge passed a non-string to the native transport at {_t(entry)}: "
                "send JSON.stringify(message)"
            ]
        return [f"your bridge misused the native transport at {_t(entry)}: {entry.detail[:100]}"]
    return []


def _forwarding(app: Any, timeline: Timeline, failure: str) -> list[str]:
    """Widget events that never reached the app, or reached it more than once."""
    since = _installed_at(app, timeline)
    emitted = [
        e for e in timeline.find("widget emitted") if e.at >= since and "oversized" not in e.detail
    ]
    if not emitted:
        return []
    received = Counter(m.get("name") for m in getattr(app, "messages", []))
    sent = Counter(_name(e) for e in emitted)
    lines = []
    for name, count in sent.items():
        first = next(e for e in emitted if _name(e) == name)
        if received[name] == 0:
            transport = TRANSPORTS.get(getattr(app, "platform", ""), "its transport")
            how = (
                f"your bridge did not forward it through {transport}"
                if not received
                else "your bridge did not forward it"
            )
            lines.append(f"the widget sent {name} at {_t(first)}; the app never received it: {how}")
        elif received[name] > count:
            lines.append(
                f"the widget sent {name} {count} time(s); the app received it {received[name]} "
                "times: your bridge forwards each event more than once (installed twice? "
                "a second injection must change nothing)"
            )
    return lines[:2]


def _injections(app: Any, timeline: Timeline, failure: str) -> list[str]:
    lines = []
    for entry in timeline.find("injection failed"):
        if "is not a function" in entry.detail or "not defined" in entry.detail:
            return [
                f"the app called gcSsoLogin at {_t(entry)} but your bridge had not defined it "
                "(not installed yet, or it threw while installing)"
            ]
    probing = bool(timeline.find("widget emitted"))
    posted = timeline.find("bridge posted")
    for call, info in (("inject gcSsoLogin", "sso-login"), ("inject gcSsoLogout", "sso-logout")):
        for entry in timeline.find(call):
            if "early" in entry.detail or not probing:
                continue
            if not any(p.at >= entry.at and info in p.detail for p in posted):
                function = call.split()[-1]
                lines.append(
                    f"the app called {function} at {_t(entry)}; your bridge never posted "
                    f"{info} to the widget"
                )
                break
    return lines


def _too_early(app: Any, timeline: Timeline, failure: str) -> list[str]:
    ready = [e for e in timeline.find("widget emitted") if _name(e) == "gc-ready"]
    logins = timeline.find("inject gcSsoLogin")
    if not ready or not logins or timeline.find("login answered"):
        return []
    if all(entry.at < ready[0].at for entry in logins):
        return [
            f"gcSsoLogin was called at {_t(logins[0])}, before gc-ready ({_t(ready[0])}); "
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
            why = LOGIN_REASONS.get(reason, "see the reason code in spec 7")
            return [
                f"the service refused the login at {_t(entry)} ({reason or 'no reason'}): {why}"
            ]
    return []


def _silence(app: Any, timeline: Timeline, failure: str) -> list[str]:
    if getattr(app, "received", None) or not timeline.entries:
        return []
    transport = TRANSPORTS.get(getattr(app, "platform", ""), "the platform's transport")
    return [
        "nothing reached the app from the bridge: is it injected, and does it send "
        f"through {transport}?"
    ]


_PATTERNS: tuple[Callable[[Any, Timeline, str], list[str]], ...] = (
    _leaks,
    _forged,
    _star_target,
    _page_errors,
    _transport,
    _too_early,
    _injections,
    _forwarding,
    _refused,
    _silence,
)


def diagnose(app: Any, failure: str = "") -> list[str]:
    """Diagnosis lines for the launch ``app`` given the failure's text (most specific first)."""
    timeline: Timeline = app.timeline
    lines: list[str] = []
    for pattern in _PATTERNS:
        for line in pattern(app, timeline, failure):
            if line not in lines:
                lines.append(line)
    return lines
