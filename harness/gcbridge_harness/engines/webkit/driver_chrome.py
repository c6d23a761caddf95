"""The WebKit driver's web chrome: a view's dialogs, file chooser and new windows, and the
HTTP status of its main frame's documents.

A mixin of :class:`gcbridge_harness.engines.webkit.driver_main.Driver`. The harness decides
(:mod:`gcbridge_harness.app.chrome`) and tells the driver at ``open`` what the app's WebView
does (``chrome``: ``{"dialogs": bool, "origin": str, "file": path | null}``); the driver
answers in WebKitGTK's signal handlers, which must answer at once (a dialog blocks the page),
and reports each to the harness:

- ``script-dialog``: ``dialogs`` true and the view's page of ``origin``: the user pressed OK
  (``confirm()`` true, ``prompt()`` its default text); else as dismissed (``confirm()`` false,
  ``prompt()`` null). Never WebKitGTK's own GTK dialog, which would wait for a click.
  Event ``{"event": "dialog", view, kind, message, default, origin}``.
- ``run-file-chooser``: ``file`` selected, or the chooser cancelled (no file).
  Event ``{"event": "file-chooser", view, picked}``.
- ``create``: no view is ever made (the kits return none); the harness decides where the URL
  goes. Event ``{"event": "new-window", view, url, gesture}``.
- the main frame's document committed with a status >= 400: ``{"event": "http-error", view,
  url, status}`` (the kits' load error).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import WebKit2  # noqa: E402

_KINDS = {
    WebKit2.ScriptDialogType.ALERT: "alert",
    WebKit2.ScriptDialogType.CONFIRM: "confirm",
    WebKit2.ScriptDialogType.PROMPT: "prompt",
}


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class Chrome:
    """Signal handlers for a view's dialogs, file chooser, new windows and HTTP errors."""

    views: dict[str, dict[str, Any]]

    def emit(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def _connect_chrome(self, view: Any, vid: str, chrome: dict[str, Any]) -> None:
        view.connect("script-dialog", self._on_dialog, vid, chrome)
        view.connect("run-file-chooser", self._on_file_chooser, vid, chrome)
        view.connect("create", self._on_create, vid)
        view.connect("load-changed", self._on_commit, vid)

    def _on_dialog(self, view: Any, dialog: Any, vid: str, chrome: dict[str, Any]) -> bool:
        kind = _KINDS.get(dialog.get_dialog_type())
        if kind is None:  # before-unload: leave the page, as a WebView without a client does
            dialog.confirm_set_confirmed(True)
            return True
        origin = _origin(view.get_uri() or "")
        default = dialog.prompt_get_default_text() if kind == "prompt" else None
        shown = bool(chrome.get("dialogs")) and origin == chrome.get("origin")
        if kind == "confirm":
            dialog.confirm_set_confirmed(shown)
        elif kind == "prompt" and shown:
            dialog.prompt_set_text(default or "")
        # (a prompt not shown keeps no text: prompt() answers null; an alert simply returns)
        self.emit(
            {
                "event": "dialog",
                "view": vid,
                "kind": kind,
                "message": dialog.get_message() or "",
                "default": default,
                "origin": origin,
            }
        )
        return True

    def _on_file_chooser(self, _view: Any, request: Any, vid: str, chrome: dict[str, Any]) -> bool:
        path = chrome.get("file")
        if path:
            request.select_files([path])
        else:
            request.cancel()
        self.emit({"event": "file-chooser", "view": vid, "picked": bool(path)})
        return True

    def _on_create(self, _view: Any, action: Any, vid: str) -> None:
        request = action.get_request()
        url = request.get_uri() if request is not None else ""
        self.emit(
            {"event": "new-window", "view": vid, "url": url, "gesture": action.is_user_gesture()}
        )
        return None

    def _on_commit(self, view: Any, event: Any, vid: str) -> None:
        """At a commit: the main frame's document came with an HTTP error status."""
        if event != WebKit2.LoadEvent.COMMITTED:
            return
        resource = view.get_main_resource()
        response = resource.get_response() if resource is not None else None
        status = response.get_status_code() if response is not None else 0
        if status >= 400:
            url = response.get_uri() or view.get_uri() or ""
            self.emit({"event": "http-error", "view": vid, "url": url, "status": status})
