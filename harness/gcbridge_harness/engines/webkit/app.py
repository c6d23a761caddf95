"""The app in WebKit: :class:`WebKitApp`, one WebKitGTK view per launch (the iOS engine family).

What WebKitGTK does not give an app (request events and interception, request
bodies, DevTools) comes from the server side: the emulator's own request log
(``Settings.request_log``) sees every request the view sends (each launch tags
its User-Agent), holds the comments answer when a scenario wants it late, and
lets a test page frame the widget. The iOS path is the real thing: a
``gcBridge`` script message handler and bridge.js in the ``gcbridge`` script
world, at document end.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from gcbridge_harness.app.chrome import PICKED_FILE
from gcbridge_harness.app.decisions import LoginResponse
from gcbridge_harness.app.native_app import NativeApp, origin_of
from gcbridge_harness.engines.webkit.client import WebKitProcess
from gcbridge_harness.engines.webkit.scripts import (
    BRIDGE_HANDLER,
    BRIDGE_WORLD,
    LIFE,
    RELAY,
    RELAY_HANDLER,
    RELAY_WORLD,
    prelude,
    probe,
)
from gcbridge_harness.engines.webkit.widget import DomWidgetView
from gcbridge_harness.report.leaks import LOGIN_PATH, PAGE_STATE_JS

__all__ = ["WebKitApp", "WebKitRuntime"]

NAVIGATIONS = ("committed", "hash", "history")  # what the harness's page scripts report
_USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/18.0 Safari/605.1.15 gc-harness/{tag}"
)
_LOCAL_STORAGE_JS = """(() => {
  const store = window.localStorage, out = {};
  if (!store) { return out; }
  for (let i = 0; i < store.length; i++) { const k = store.key(i); out[k] = store.getItem(k); }
  return out;
})()"""


def _picked_file() -> str:
    """The file the user picks in a file chooser, on disk for WebKitGTK (one per process)."""
    found: str | None = _PICKED.get("path")
    if found is None:
        folder = tempfile.mkdtemp(prefix="gc-harness-pick-")
        atexit.register(shutil.rmtree, folder, True)
        name, _, data = PICKED_FILE
        path = Path(folder) / name
        path.write_bytes(data)
        found = _PICKED["path"] = str(path)
    return found


_PICKED: dict[str, str] = {}


@dataclass
class WebKitRuntime:
    """What a WebKit launch needs: the driver process (its web contexts are the profiles)."""

    process: WebKitProcess


class WebKitApp(NativeApp):
    """One launch in WebKit: a WebKitGTK view (its own web process) and its profile."""

    engine: ClassVar[str] = "webkit"
    runtime: WebKitRuntime

    def _open_view(self, early: str) -> None:
        self.isolated_world = self.platform == "ios"
        self.view = f"v{secrets.token_hex(6)}"
        self.tag = secrets.token_hex(8)
        if self.share_view_with is not None:
            # A second WebView of the same app: the same profile (storage), its own view.
            self.storage_state = self.share_view_with.profile
            self._profile_kept = True  # the first view's to forget
        self._known = 0
        self._fetches = 0  # fetches the page started and has no answer to yet
        self._hold = None
        self._open = True
        log = self.request_log
        self.__dict__.setdefault("_log_start", len(log.entries))
        if self.comments_after_page_finished:
            self._hold = log.hold(
                lambda e: (
                    self.tag in e.headers.get("user-agent", "")
                    and e.method == "GET"
                    and e.path == "/api/pub/comments"
                )
            )
        # A relaunch or a second view: the profile named; a new app: empty storage (the
        # driver's pooled context, emptied, or one of its own; it answers which).
        profile = self.storage_state
        shim = None if self.isolated_world else self.platform
        scripts = [
            {"source": RELAY, "time": "start", "world": RELAY_WORLD, "all_frames": True},
            {"source": LIFE, "time": "start", "world": RELAY_WORLD},
            {
                "source": prelude(shim, late=self.late_transport),
                "time": "start",
                "all_frames": True,
            },
            # What the widget emitted and bridge.js posted: the failure timeline.
            {"source": probe(), "time": "start"},
        ]
        if self.isolated_world:
            source = probe(only="bridge posted")
            scripts.append({"source": source, "time": "start", "world": BRIDGE_WORLD})
        if self.injection_point in ("document-start", "document-end"):
            world = BRIDGE_WORLD if self.isolated_world else None
            time = "end" if self.injection_point == "document-end" else "start"
            injected = [self._injected_source()] * self.injections
            for source in injected + ([early] if early else []):
                scripts.append({"source": source, "time": time, "world": world})
        handlers = [{"name": RELAY_HANDLER, "world": RELAY_WORLD}]
        if self.isolated_world and not self.late_transport:
            handlers.append({"name": BRIDGE_HANDLER, "world": BRIDGE_WORLD})
        self._open_fields = {
            "profile": profile,
            "fresh": profile is None,
            "dom_storage": self.dom_storage,
            "user_agent": _USER_AGENT.format(tag=self.tag),
            "scripts": scripts,
            "handlers": handlers,
            "page_cache": self.bfcache,
            # What the app's WebView does with the page's dialogs, file input, new windows.
            "chrome": {
                "dialogs": self._handles("dialogs"),
                "origin": self.widget_origin,
                "file": _picked_file() if self._handles("file-chooser") else None,
            },
        }
        self.runtime.process.listeners[self.view] = self._on_event
        opened = self.runtime.process.request("open", view=self.view, **self._open_fields)
        self.profile = opened["profile"]
        self._open_fields.update(profile=self.profile, fresh=False)  # a new view: the same

    def _load(self, url: str) -> None:
        before = self.__dict__.get("_load_events", 0)
        self.runtime.process.request("load", view=self.view, url=url)
        # The page's own load event, which the app's page-finished callback comes after.
        self.wait_for(lambda: self.__dict__.get("_load_events", 0) > before, "the load event")

    def _world(self, world: str) -> str | None:
        if world == "bridge":
            return BRIDGE_WORLD if self.isolated_world else None
        return RELAY_WORLD if world == "harness" else None

    def _run_script(self, source: str) -> None:
        # A global script, as evaluateJavascript runs it (var and function stay global).
        self.runtime.process.request(
            "run", view=self.view, source=source, world=self._world("bridge")
        )

    def evaluate(self, script: str, arg: Any = None, *, world: str = "page") -> Any:
        body = (
            f"const __gcHarnessF = ({script}\n);\n"
            "return typeof __gcHarnessF === 'function'"
            f" ? await __gcHarnessF({json.dumps(arg)}) : await __gcHarnessF;"
        )
        reply = self.runtime.process.request(
            "eval", view=self.view, body=body, world=self._world(world)
        )
        self._sync()  # what the page showed, the request log has seen
        return None if reply.get("json") is None else json.loads(reply["json"])

    def expose_transport(self) -> None:
        if not self.isolated_world:
            super().expose_transport()
            return
        # A real handler registered after the load (bridge.js finds it at its next poll).
        self.timeline.add("transport exposed")
        self.runtime.process.request(
            "handler", view=self.view, name=BRIDGE_HANDLER, world=BRIDGE_WORLD
        )
        self.evaluate("() => { window.dispatchEvent(new Event('pywebviewready')); }")

    @property
    def widget(self) -> DomWidgetView:
        """The widget page as a user sees it."""
        return DomWidgetView(self, timeout=self.wait_seconds)

    def local_storage(self) -> dict[str, str]:
        """The widget origin's localStorage, as the harness's own world reads it."""
        stored: dict[str, str] = self.evaluate(_LOCAL_STORAGE_JS, world="harness")
        return stored

    # ---- events from the driver ----------------------------------------------------

    def _on_event(self, event: dict[str, Any]) -> None:
        if event.get("event") == "uri":
            self.leaks.record("navigation URL", event.get("url", ""))
        elif event.get("event") == "load":
            phase = event.get("phase")
            if phase in ("started", "failed"):  # finished: the page's load event (LIFE)
                self._navigation(phase)
        elif event.get("event") == "terminated":
            self._fetches = 0  # the dead page's fetches will never report their end
            self._terminated()
        elif event.get("event") in ("dialog", "file-chooser", "new-window", "http-error"):
            self._on_chrome(event)
        elif event.get("event") == "load-retry":
            error = event.get("error")
            if event.get("given_up"):
                self.timeline.add("load stalled", f"{error}; given up")
            elif error == "the load stalled":
                self.timeline.add("load stalled", "nothing committed after the cancel; asked again")
            else:
                self.timeline.add("load cancelled", f"by the engine ({error}); asked again")
        elif event.get("event") != "message":
            return
        elif event["handler"] == BRIDGE_HANDLER:
            # WebKitGTK names no frame for a script message; only the top frame's
            # gcbridge world has a script that can reach this handler.
            self._native("ios", event["kind"], event["text"], top=True, origin=self.widget_origin)
        else:
            self._on_relay(json.loads(event["text"]))

    def _on_chrome(self, event: dict[str, Any]) -> None:
        """What the page asked of its WebView (the driver answered as the app's model says)."""
        kind = event["event"]
        if kind == "dialog":
            self._dialog(event["kind"], event["message"], event.get("default"), event["origin"])
        elif kind == "file-chooser":
            self._file_chooser()
        elif kind == "new-window":
            self._new_window(str(event.get("url") or ""), gesture=bool(event.get("gesture")))
        elif origin_of(str(event.get("url"))) == self.widget_origin:  # an HTTP error status
            self._load_failed(str(event["url"]), f"HTTP {event['status']}")

    def _on_relay(self, stamped: dict[str, Any]) -> None:
        try:
            detail = json.loads(stamped["detail"])
            channel, payload = detail["channel"], detail["payload"]
        except (ValueError, KeyError, TypeError):
            return
        if channel == "console" and isinstance(payload, dict):
            kind, text = str(payload.get("type")), str(payload.get("text"))
            self.console.append((kind, text))
            self.leaks.record(f"console.{kind}", text)
            if kind in ("error", "warning"):
                self.timeline.add(f"console {kind}", text[:300])
        elif channel == "net" and stamped.get("top") and isinstance(payload, int):
            self._fetches += payload
        elif channel == "pageerror" and stamped.get("top"):
            self.page_errors.append(str(payload))
            self.timeline.add("page error", str(payload)[:300])
        elif channel == "probe" and stamped.get("top") and isinstance(payload, dict):
            with contextlib.suppress(KeyError, TypeError, ValueError):
                at = float(payload["at"])
                self.timeline.add_wall(at, str(payload["kind"]), str(payload["detail"]))
        elif channel == "life" and stamped.get("top") and payload == "restored":
            self._restored()
        elif channel == "life" and stamped.get("top") and payload == "loaded":
            self.__dict__["_load_events"] = self.__dict__.get("_load_events", 0) + 1
            self._navigation("finished")
        elif channel == "life" and stamped.get("top") and payload in NAVIGATIONS:
            self._navigation(payload)
        elif channel == "native" and isinstance(payload, dict):
            self._native(
                str(payload.get("platform")),
                str(payload.get("kind")),
                str(payload.get("text")),
                top=bool(stamped.get("top")),
                origin=str(stamped.get("origin")),
            )

    # ---- the emulator's request log --------------------------------------------------

    def _mine(self) -> list[Any]:
        # Only what the log got since this app opened: one emulator serves a whole worker.
        start = self.__dict__.setdefault("_log_start", 0)
        entries = self.request_log.entries[start:]  # a slice: atomic, the log only appends
        return [e for e in entries if self.tag in e.headers.get("user-agent", "")]

    def _sync(self) -> list[Any]:
        entries = self._mine()
        for entry in entries[self._known :]:
            self.requests.append((entry.method, entry.url))
        self._known = len(entries)
        answered = [e for e in entries if e.method == "POST" and e.path == LOGIN_PATH and e.done]
        for entry in answered[len(self.login_responses) :]:
            self.login_responses.append(LoginResponse(entry.status, entry.error))
            self.timeline.add("login answered", f"{entry.status} {entry.error or ''}".strip())
        return entries

    def _pump(self, seconds: float) -> None:
        self.runtime.process.pump(seconds)
        self._sync()

    def _pump_for_wait(self, seconds: float) -> None:
        self.runtime.process.pump(seconds, until_event=True)
        self._sync()

    def _inflight(self) -> int:
        at_server = sum(1 for entry in self._sync() if not entry.done)
        return max(at_server, self._fetches)

    def requests_to(self, path: str, method: str | None = None) -> list[str]:
        self._sync()
        return super().requests_to(path, method)

    def _release_comments(self) -> None:
        if self._hold is not None:
            self._hold.release()

    # ---- the WebView's life (Lifecycle) -------------------------------------------------

    def _app_reload(self) -> None:
        self.runtime.process.request("reload", view=self.view)

    def _navigate(self, url: str) -> None:
        self.runtime.process.request("navigate", view=self.view, url=url)

    def _go_back(self) -> None:
        self.runtime.process.request("back", view=self.view)

    def _kill_content(self) -> None:
        self.runtime.process.request("terminate", view=self.view)

    def _recreate_view(self) -> None:
        # The same app (its User-Agent tag, its profile) in a new WebView.
        old = self.view
        self.runtime.process.request("close", view=old)
        self.runtime.process.listeners.pop(old, None)
        self.view = f"v{secrets.token_hex(6)}"
        self.runtime.process.listeners[self.view] = self._on_event
        opened = self.runtime.process.request("open", view=self.view, **self._open_fields)
        self.profile = opened["profile"]
        self._open_fields.update(profile=self.profile, fresh=False)  # a new view: the same
        self.timeline.add("load", self.url)
        self._navigate(self.url)

    # ---- end -----------------------------------------------------------------------

    def _kept_storage(self) -> Any:
        self._profile_kept = True  # a relaunch takes the profile over
        return self.profile

    def _check_leaks(self) -> None:
        if self._open:
            self._snapshot()
        self.leaks.check()

    def _snapshot(self) -> None:
        for entry in self._sync():
            self.leaks.record(f"{entry.method} request URL", entry.url)
            for name in ("referer", "cookie"):
                if name in entry.headers:
                    self.leaks.record(f"{name.title()} header of {entry.url}", entry.headers[name])
            if entry.body and not (entry.method == "POST" and entry.path == LOGIN_PATH):
                self.leaks.record(f"body of {entry.method} {entry.url}", entry.body)
        state = self.evaluate(PAGE_STATE_JS)
        for key, value in (state or {}).items():
            self.leaks.record(f"page {key}", json.dumps(value))
        history = self.runtime.process.request("history", view=self.view)["entries"]
        for item in history:
            self.leaks.record("history entry", f"{item['url']} {item['title']}")
        self.leaks.record("localStorage", json.dumps(self.local_storage()))

    def _close_view(self) -> None:
        if getattr(self, "_open", False):
            self._open = False
            self._release_comments()
            # The driver may already be gone at the end of the session.
            with contextlib.suppress(Exception):
                self.runtime.process.request("close", view=self.view)
                if not getattr(self, "_profile_kept", False):
                    self.runtime.process.request("forget", profile=self.profile)
            self.runtime.process.listeners.pop(self.view, None)
