"""What a page asks of its WebView beyond the page: dialogs, the file chooser, new windows.

A browser answers ``alert()`` / ``confirm()`` / ``prompt()`` with dialogs, an ``<input
type=file>`` with a file chooser and ``target=_blank`` with a new window; a bare WebView does
not, unless the app handles them. Each platform's default without the kit's
handling, as the platform behaves (harness/README.md, "What the WebView gives the page", has
the sources):

============ ====================================== ====================== ==================
platform     dialogs                                file input             new windows
============ ====================================== ====================== ==================
iOS          without a ``WKUIDelegate``: none;      WebKit's own upload    none: without
             ``confirm()`` is false (as if Cancel   panel (no delegate     ``createWebViewWith``
             was pressed), ``prompt()`` null,       needed;                WebKit cancels the
             ``alert()`` returns at once            ``runOpenPanelWith``   navigation
                                                    only customises it)
Android      without a ``WebChromeClient``: none;   nothing (no            nothing (the kit's
             WebView cancels them (``confirm()``    ``onShowFileChooser``) ``setSupportMultiple
             false, ``prompt()`` null)                                     Windows(true)`` with
                                                                           no ``onCreateWindow``)
React Native react-native-webview's own, either way: native dialogs, its file chooser; the
             kit's ``setSupportMultipleWindows={false}`` and ``onShouldStartLoadWithRequest`` load
             the widget's origin in place and send other pages to ``Linking.openURL``
============ ==================================================================================

With the kit's handling (``AppOptions.web_chrome``, on by default) every platform does what
the kits do: a dialog of the widget's origin is shown and the user presses OK (a frame of
another origin gets none: it must not pose as the app), the file chooser gives the file the
user picks, a new window of the widget's origin opens in place, another origin's goes to the
system browser (recorded, never loaded in the app's view), ``mailto:`` / ``tel:`` to the OS,
and no window opens without a user's tap (``GcLinkPolicy.forNewWindow`` in the kits).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from gcbridge_harness.app.platforms import Platform

__all__ = [
    "Chrome",
    "DialogAnswer",
    "DialogKind",
    "OS_SCHEMES",
    "PLATFORM_HANDLES",
    "PICKED_FILE",
    "WindowAction",
    "dialog_answer",
    "handles",
    "window_action",
]

DialogKind = Literal["alert", "confirm", "prompt"]
Chrome = Literal["dialogs", "file-chooser", "new-windows"]
WindowAction = Literal["in-place", "system-browser", "os", "nowhere"]

PLATFORM_HANDLES: Mapping[Platform, frozenset[Chrome]] = {
    # iOS: the upload panel is WebKit's own (WKFileUploadPanel); the delegate may only replace it.
    "ios": frozenset({"file-chooser"}),
    "android": frozenset(),
    "react-native": frozenset({"dialogs", "file-chooser", "new-windows"}),
}
"""What each platform's WebView does for a page by itself, with no handling of the app's."""

OS_SCHEMES = frozenset({"mailto", "tel", "sms", "smsto", "geo", "maps", "intent"})
"""Schemes the kits hand to the OS (the user's mail, phone, maps apps)."""

PICKED_FILE = ("harness-attachment.txt", "text/plain", b"a file the user picked in the harness\n")
"""What the user picks in a file chooser: name, media type, bytes."""


@dataclass(frozen=True)
class DialogAnswer:
    """How a page's dialog ended: ``shown`` to the user (who pressed OK) or not at all."""

    shown: bool
    confirmed: bool  # alert() returned / confirm() true; False: confirm() false, prompt() null
    text: str | None = None  # prompt()'s value (None: null)

    def words(self, kind: DialogKind) -> str:
        """``true``, ``false``, ``'text'``, ``null`` or ``returned``: what the page got."""
        if kind == "alert":
            return "returned"
        if kind == "confirm":
            return "true" if self.confirmed else "false"
        return repr(self.text) if self.text is not None else "null"


def handles(platform: Platform, what: Chrome, *, kit: bool) -> bool:
    """Whether the app's WebView answers ``what`` (the kit's handling, or the platform's own)."""
    return kit or what in PLATFORM_HANDLES[platform]


def dialog_answer(kind: DialogKind, default: str | None, *, shown: bool) -> DialogAnswer:
    """The page's answer: the user pressed OK on a dialog ``shown``; else the WebView's own.

    Not shown, WebKit and Android's WebView answer as a dismissal: ``confirm()`` false,
    ``prompt()`` null, ``alert()`` returns (it has one answer).
    """
    if not shown:
        return DialogAnswer(False, kind == "alert")
    return DialogAnswer(True, True, (default or "") if kind == "prompt" else None)


def window_action(url: str, widget_origin: str, *, handled: bool, gesture: bool) -> WindowAction:
    """Where a new window (``target=_blank``, ``window.open``) for ``url`` goes.

    The kits' ``GcLinkPolicy.forNewWindow``: nothing without a user's tap, the widget's
    origin in place, other http(s) pages in the system browser, ``mailto:`` and the like to
    the OS, any other scheme (``javascript:``, ``file:``) nowhere.
    """
    if not handled or not gesture:
        return "nowhere"
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in OS_SCHEMES:
        return "os"
    if scheme not in ("http", "https") or not parts.netloc:
        return "nowhere"
    if f"{scheme}://{parts.netloc.lower()}" == widget_origin.lower():
        return "in-place"
    return "system-browser"
