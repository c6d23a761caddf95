"""The main frame's navigations as each platform's WebView reports them to the app.

An engine reports what happened to the main frame (a :data:`NavEvent`); each platform
turns it into its own callbacks (:data:`CALLBACKS`, from the platform's source or
documentation, cited in harness/README.md, "What runs"); the app, as gc-bridge's kits do,
acts on some of them (:data:`REACTIONS`): a new document (the coordinator's
``page_started``) or its page finished (``page_finished``). A model that fires no callback
where the platform fires one would let an app pass that fails on the device.

=========  ===================================================  =============================
event      what happened to the main frame                      seen in the engines as
=========  ===================================================  =============================
started    a navigation was asked for (provisional)             Chromium: its navigation
                                                                request; WebKit: STARTED
committed  a new document replaced the one shown                the harness's own script at
                                                                document start (both)
failed     the navigation ended without committing: the page    Chromium: a 204/205 answer;
           shown stays (a failed provisional load)              WebKit: load-failed before
                                                                COMMITTED
finished   the new document's load event                        Chromium: the page's load;
                                                                WebKit: FINISHED
hash       a same-document navigation to a fragment             the harness's page script:
                                                                ``hashchange``
history    a same-document navigation by the History API        ... ``history.pushState`` /
                                                                ``replaceState``
=========  ===================================================  =============================

React Native has no WebView callback that tells a new document (``onLoadStart`` fires for
same-document navigations, and on iOS before a load that may fail), so its kit learns of
one from the page: the lifecycle script next to bridge.js posts :data:`NEW_DOCUMENT`
once per document (the pseudo-callback :data:`DOCUMENT_MESSAGE` here).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Literal

from gcbridge_harness.app.platforms import InjectionPoint

__all__ = [
    "CALLBACKS",
    "DOCUMENT_MESSAGE",
    "NEW_DOCUMENT",
    "NavEvent",
    "REACTIONS",
    "Reaction",
    "SENDER_FRAME_KNOWN",
    "document_message",
    "reactions_to",
]

NavEvent = Literal["started", "committed", "failed", "finished", "hash", "history"]
Reaction = Literal["page-started", "page-finished"]

DOCUMENT_MESSAGE = "new-document message"
"""The React Native kit's lifecycle script, posting :data:`NEW_DOCUMENT` from a new document."""

NEW_DOCUMENT = "gcLifecycle"
"""The key of the lifecycle script's message: ``{"gcLifecycle": "document", "complete": b}``."""

CALLBACKS: Mapping[InjectionPoint, Mapping[NavEvent, tuple[str, ...]]] = {
    # iOS, WKNavigationDelegate: decidePolicyFor for every navigation action (fragments too),
    # didStartProvisionalNavigation before the response, didCommit when the new document
    # replaces the old one, didFailProvisionalNavigation when it never does (a 204 is WebKit's
    # "frame load interrupted", 102), didFinish at its load. No delegate method for a
    # same-document navigation.
    "document-end": {
        "started": ("decidePolicyFor", "didStartProvisionalNavigation"),
        "committed": ("didCommit",),
        "failed": ("didFailProvisionalNavigation",),
        "finished": ("didFinish",),
        "hash": ("decidePolicyFor",),
    },
    # Android, WebViewClient (Chromium's AwWebContentsObserver.didFinishNavigation): at commit
    # onPageStarted (not for same-document navigations) and doUpdateVisitedHistory (for every
    # committed navigation, same-document ones too); onPageFinished at the load, for a fragment
    # navigation, and alone for a navigation aborted without committing (ERR_ABORTED: a 204).
    "page-finished": {
        "committed": ("onPageStarted", "doUpdateVisitedHistory"),
        "failed": ("onPageFinished",),
        "finished": ("onPageFinished",),
        "hash": ("doUpdateVisitedHistory", "onPageFinished"),
        "history": ("doUpdateVisitedHistory",),
    },
    # React Native on iOS (RNCWebViewImpl.m): onLoadStart from decidePolicyForNavigationAction
    # for every allowed top-frame navigation, fragments included and before a load that then
    # fails (a 102 error is not even reported); its history shim reports pushState /
    # replaceState as onLoadingFinish (onLoad); onLoad at didFinish.
    "document-start": {
        "started": ("onLoadStart",),
        "finished": ("onLoad",),
        "hash": ("onLoadStart",),
        "history": ("onLoad",),
    },
    # React Native on Android (RNCWebViewClient.java): onLoadStart from doUpdateVisitedHistory
    # (every committed navigation, same-document ones too); onLoad from onPageFinished (the load,
    # a fragment navigation, an aborted one).
    "page-started": {
        "committed": ("onLoadStart",),
        "failed": ("onLoad",),
        "finished": ("onLoad",),
        "hash": ("onLoadStart", "onLoad"),
        "history": ("onLoadStart",),
    },
}

REACTIONS: Mapping[InjectionPoint, Mapping[str, Reaction]] = {
    # The iOS kit: a new document at didCommit (a provisional load that fails never replaced
    # the document shown: the widget stays ready), page finished at didFinish.
    "document-end": {"didCommit": "page-started", "didFinish": "page-finished"},
    # The Android kit: onPageStarted comes at commit, for new documents only.
    "page-finished": {"onPageStarted": "page-started", "onPageFinished": "page-finished"},
    # The React Native kit: a new document when its lifecycle script says so, page finished at
    # onLoad; onLoadStart is no new document (see the module docstring).
    "document-start": {DOCUMENT_MESSAGE: "page-started", "onLoad": "page-finished"},
    "page-started": {DOCUMENT_MESSAGE: "page-started", "onLoad": "page-finished"},
}

SENDER_FRAME_KNOWN: Mapping[InjectionPoint, bool] = {
    # iOS WKScriptMessage.frameInfo and Android's WebMessageListener (isMainFrame) name the
    # sending frame; react-native-webview's onMessage gives its URL (13.13.1+: the sending
    # frame's, iOS frameInfo.request.URL, Android sourceOrigin) and nothing about the frame.
    "document-end": True,
    "page-finished": True,
    "document-start": False,
    "page-started": False,
}


def reactions_to(point: InjectionPoint, callback: str) -> tuple[Reaction, ...]:
    """What the app does for ``callback`` at ``point`` (none, a new document, page finished)."""
    reaction = REACTIONS[point].get(callback)
    return (reaction,) if reaction else ()


def document_message(text: str) -> bool | None:
    """The lifecycle script's new-document message: whether the page had loaded; else None."""
    if NEW_DOCUMENT not in text:
        return None
    try:
        message = json.loads(text)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get(NEW_DOCUMENT) != "document":
        return None
    return message.get("complete") is True
