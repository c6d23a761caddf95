"""Known ways a bridge or an app fails over the WebView's life, in the app team's words.

Read from a launch's timeline (what the lifecycle scenarios add to it: ``page started``,
``restored``, ``resume``, ``content process terminated``, ``recover``) next to what the
widget emitted and what the app received, e.g.::

    after the reload, gc-ready at 0.31 s never reached the app: is your bridge's install
    guard kept somewhere that outlives the page (sessionStorage, a cookie)?

:func:`lifecycle_diagnoses` is one of the patterns of
:func:`gcbridge_harness.report.diagnosis.diagnose`.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from gcbridge_harness.report.probe_words import bridge_was_in_page, document_starts
from gcbridge_harness.report.timeline import Timeline, when

__all__ = ["lifecycle_diagnoses"]

_NAME = re.compile(r'"name"\s*:\s*"([^"]+)"')
_CAUSES = {"reload": "the reload", "navigate away": "the navigation", "recover": "the restart"}


def _emitted(timeline: Timeline, since: float, until: float = float("inf")) -> list[tuple]:
    """(name, entry) of what the widget emitted in ``[since, until)``."""
    return [
        (e.detail.split(" ", 1)[0], e)
        for e in timeline.find("widget emitted")
        if since <= e.at < until and "oversized" not in e.detail
    ]


def _received(timeline: Timeline, since: float, until: float = float("inf")) -> Counter:
    names: Counter = Counter()
    for entry in timeline.find("native received"):
        match = _NAME.search(entry.detail)
        if match and since <= entry.at < until:
            names[match.group(1)] += 1
    return names


def _cause(timeline: Timeline, at: float) -> str:
    before = [e for e in timeline.entries if e.kind in _CAUSES and e.at <= at]
    return _CAUSES[before[-1].kind] if before else "the new page"


def _lost_in_new_document(app: Any, timeline: Timeline) -> list[str]:
    """A new document's gc-ready / gc-loaded that never reached the app."""
    lines = []
    starts = document_starts(timeline)
    for index, start in enumerate(starts):
        until = starts[index + 1] if index + 1 < len(starts) else float("inf")
        received = _received(timeline, start, until)
        for name, entry in _emitted(timeline, start, until):
            # Sent before the app's bridge was in the page (Android's page finished):
            # lost by design, whatever the install guard.
            if not bridge_was_in_page(app, timeline, entry.at):
                continue
            if name in ("gc-ready", "gc-loaded") and not received[name]:
                lines.append(
                    f"after {_cause(timeline, start)}, {name} at {when(entry)} never reached "
                    "the app: is your bridge's install guard kept somewhere that outlives the "
                    "page (sessionStorage, a cookie)? Each new document needs its own bridge"
                )
                break
    return lines[:1]


def _twice_after_restore(app: Any, timeline: Timeline) -> list[str]:
    """More arrivals than emissions after a page came back from the back-forward cache."""
    restores = timeline.find("restored")
    if not restores:
        return []
    since = restores[0].at
    sent = Counter(name for name, _ in _emitted(timeline, since))
    received = _received(timeline, since)
    for name, count in sent.items():
        if received[name] > count:
            times = "twice" if received[name] == 2 * count else f"{received[name]} times"
            return [
                f"after the back navigation {name} reached the app {times} for {count} sent: "
                "a listener was added again on pageshow (a restored page keeps its bridge; "
                "install nothing on pageshow)"
            ]
    return []


def _once_per_page(app: Any, timeline: Timeline) -> list[str]:
    """An event name sent again in the same document (a re-render) that was not forwarded."""
    bounds = [0.0, *document_starts(timeline), float("inf")]
    for since, until in zip(bounds, bounds[1:], strict=False):
        received = _received(timeline, since, until)
        counts: Counter = Counter()
        for name, entry in _emitted(timeline, since, until):
            if not bridge_was_in_page(app, timeline, entry.at):
                continue  # the first gc-ready of a page-finished bridge: never its to forward
            counts[name] += 1
            if counts[name] >= 2 and received[name] == 1 and name.startswith("gc-"):
                return [
                    f"the widget sent {name} again at {when(entry)} (a re-render in the page) and "
                    "the app never received it: your bridge forwards each event name once per "
                    "page; forward every message, the widget re-announces itself"
                ]
    return []


def _stale_after_resume(app: Any, timeline: Timeline) -> list[str]:
    resumes = timeline.find("resume")
    if not resumes:
        return []
    since = resumes[-1].at
    refused = [
        e for e in timeline.find("login answered") if e.at >= since and "sso_expired" in e.detail
    ]
    if not refused:
        return []
    return [
        f"after the resume ({resumes[-1].detail.removeprefix('after ')}) the widget refused "
        f"the ssoData at {when(refused[0])} as expired: the app injected ssoData fetched before "
        "the resume. "
        "ssoData lives 300 s; fetch it afresh for every login, never keep it"
    ]


def _dead_view(app: Any, timeline: Timeline) -> list[str]:
    dead = timeline.find("content process terminated")
    if not dead or [e for e in timeline.find("recover") if e.at >= dead[-1].at]:
        return []
    return [
        f"the web content process died at {when(dead[-1])} and the app did nothing: the view "
        "stays blank and the bridge is gone. Reload it (iOS webViewWebContentProcessDidTerminate"
        " -> webView.reload(); Android onRenderProcessGone: a new WebView, return true; React "
        "Native onContentProcessDidTerminate / onRenderProcessGone -> reload)"
    ]


def lifecycle_diagnoses(app: Any, timeline: Timeline, failure: str) -> list[str]:
    """Diagnosis lines for what went wrong after the first load (none if nothing fits)."""
    return [line for pattern in _PATTERNS for line in pattern(app, timeline)]


_PATTERNS = (
    _dead_view,
    _stale_after_resume,
    _twice_after_restore,
    _lost_in_new_document,
    _once_per_page,
)
