"""The harness's own probe message, and when bridge.js was in the page to forward it.

Some scenarios check forwarding with a message of the harness's own, posted from the
page as the widget posts its events: ``{"name": "gc-harness-ping", ...}``. A bridge
that forwards only the widget's event names it knows (an allow-list of ``gc-ready``,
``gc-loaded`` and ``gc-sso-auth``) drops it, and every line guessed from the missing
messages would be wrong; :func:`probe_diagnoses` says so first, e.g.::

    the harness's probe message gc-harness-ping, posted by the page at 0.98 s with your
    bridge in it, never reached the app: your bridge forwards only some event names ...

:func:`bridge_was_in_page` is the one rule of when a message posted in the page could
have been forwarded at all; the other patterns use it too.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from gcbridge_harness.report.timeline import Timeline, first_word, when

__all__ = ["LEAVES", "PROBE_MESSAGE", "bridge_was_in_page", "document_starts", "probe_diagnoses"]

PROBE_MESSAGE = "gc-harness-ping"
"""The ``name`` of the message the scenarios post from the page to check forwarding."""


LEAVES = ("reload", "navigate away", "recover", "go back")
"""What the app did that ends the document shown: a new one's events come after it."""


def document_starts(timeline: Timeline) -> list[float]:
    """When each new document began: its ``page started``, or what the app did before it.

    ``page started`` is stamped when the platform callback reaches the app, while what
    the widget emitted is stamped by the page's clock: the new document's first events
    can come before it (Chromium reports the navigation's request after the document's
    first scripts ran, now and then). The reload, navigation or restart the app asked
    for since the last document began is stamped before the new document exists.
    """
    starts: list[float] = []
    for entry in timeline.find("page started"):
        since = starts[-1] if starts else float("-inf")
        asked = [e.at for e in timeline.entries if e.kind in LEAVES and since < e.at <= entry.at]
        starts.append(min([entry.at, *asked[-1:]]))
    return starts


def bridge_was_in_page(app: Any, timeline: Timeline, at: float) -> bool:
    """Whether bridge.js was in the document showing at ``at``.

    From the start of each document, except where the app injects later: at page
    finished for Android, at its evaluation at page started for React Native on
    Android (racing the page), in each case once that evaluation returned (an event
    the page sent between page finished and then found no bridge: seen in WebKit
    under load). Each new document (:func:`document_starts`) needs its own.
    """
    point = getattr(app, "injection_point", "")
    if point not in ("page-finished", "page-started"):
        return True
    # Once its evaluation returned; a timeline without that entry: from when it was asked for.
    asked = "page finished" if point == "page-finished" else "bridge evaluated"
    markers = timeline.find("bridge in page") or timeline.find(asked)
    since = max((start for start in document_starts(timeline) if start <= at), default=0.0)
    return any(since <= e.at <= at for e in markers)


def probe_diagnoses(app: Any, timeline: Timeline, failure: str) -> list[str]:
    """The probe posted with the bridge in the page, none of it forwarded, all else was."""
    in_page = [
        e for e in timeline.find("widget emitted") if bridge_was_in_page(app, timeline, e.at)
    ]
    posted = [e for e in in_page if first_word(e) == PROBE_MESSAGE]
    received = Counter(m.get("name") for m in getattr(app, "messages", []))
    if not posted or received[PROBE_MESSAGE]:
        return []
    if any(
        not received[first_word(e)]
        for e in in_page
        if "oversized" not in e.detail and first_word(e) != PROBE_MESSAGE
    ):
        return []  # the widget's own events were lost too: the other patterns say how
    also = "" if received else ", nor did anything else sent with your bridge in the page"
    return [
        f"the harness's probe message {PROBE_MESSAGE}, posted by the page at {when(posted[0])} "
        f"with your bridge in it, never reached the app{also}: your bridge forwards only some "
        "event names (an allow-list?). Forward every message that has a name, as bridge.js "
        "does: the widget's events are not a fixed list (gc-sso-conflict is one), and the "
        "harness checks forwarding with a message of its own"
    ]
