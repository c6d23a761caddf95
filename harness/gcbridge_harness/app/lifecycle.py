"""The WebView's life after the first load, in either engine: :class:`Lifecycle`.

A scenario plays what happens to an app's WebView over its life: a reload by
the page or by the app, away and back (with the engine's back-forward cache on), a
re-render inside the page, a same-document navigation, a navigation that fails before it
commits, the web content process killed, the app resumed after the ssoData lifetime,
Android's second ``onPageFinished``. The engine reports what happened to the main frame
(:meth:`_navigation`), the platform turns it into its callbacks and the app reacts to them
as the kits do (:mod:`gcbridge_harness.app.navigation`):

- a new document (iOS ``didCommit``, Android ``onPageStarted``, React Native: its lifecycle
  script's message): the coordinator's ``page_started``; the platform re-runs its injection
  by itself (user scripts and init scripts run in every new document), except Android,
  whose app runs bridge.js again at page finished, and React Native on Android, which
  evaluates it at page started, racing the page, and again at page finished;
- a page restored from the back-forward cache (``pageshow`` with ``persisted``):
  ``restored`` (no injection runs again: the document is the old one);
- the web content process died: ``content_terminated``, whose ``reload`` effect each
  platform performs its own way (:meth:`_recover_content`), when the kits' recovery policy
  allows it (:class:`~gcbridge_harness.app.host.Host`: in the foreground, 3 a minute);
- back in the foreground after N seconds: ``resume(N)``, with the harness's clock moved.
"""

from __future__ import annotations

from typing import Any

from gcbridge_harness.app.navigation import (
    CALLBACKS,
    DOCUMENT_MESSAGE,
    NavEvent,
    reactions_to,
)
from gcbridge_harness.app.platforms import (
    EVALUATED_AT_PAGE_FINISHED,
    RN_LIFECYCLE_SCRIPT,
    at_page_finished,
)

__all__ = ["Lifecycle"]

NAVIGATION_WORDS = {
    "started": "started (provisional)",
    "failed": "failed before it committed: the page shown stays",
    "hash": "same-document (hash)",
    "history": "same-document (history.pushState)",
}

RECOVERY = {
    "ios": "webView.reload() in webViewWebContentProcessDidTerminate",
    "android": "a new WebView loading the page again; onRenderProcessGone returned true",
    "react-native": "the WebView reloaded from onContentProcessDidTerminate / onRenderProcessGone",
}


class Lifecycle:
    """Reload, away and back, crash, resume: what the engine does and what the app answers."""

    # Provided by NativeApp, AppDecisions (_coordinator, _perform, _page_finished_once),
    # PageWaits (wait_for) and the engine (evaluate, _run_script).
    timeline: Any
    platform: str
    injection_point: Any
    bridge: str
    injections: int
    clock: Any
    url: str
    page_finished_twice: bool
    options: Any

    # ---- what each engine provides -------------------------------------------------

    def _app_reload(self) -> None:
        """The app's own reload (``webView.reload()``), not waiting for the load."""
        raise NotImplementedError

    def _navigate(self, url: str) -> None:
        """Load ``url`` in this view, not waiting for the load."""
        raise NotImplementedError

    def _go_back(self) -> None:
        """The app's ``goBack()``, not waiting."""
        raise NotImplementedError

    def _kill_content(self) -> None:
        """Kill the view's web content process (the OS reclaiming memory)."""
        raise NotImplementedError

    def _recreate_view(self) -> None:
        """Android: a new WebView in place of the dead one, loading the page again."""
        raise NotImplementedError

    # ---- bookkeeping of documents ----------------------------------------------------

    @property
    def documents(self) -> int:
        """Documents that finished loading in this view (1 after launch)."""
        return int(self.__dict__.get("_documents", 0))

    @property
    def restores(self) -> int:
        """Times the page came back from the back-forward cache."""
        return int(self.__dict__.get("_restores", 0))

    @property
    def terminations(self) -> int:
        """Times the web content process died."""
        return int(self.__dict__.get("_terminations", 0))

    def _injected_source(self) -> str:
        """What the platform injects: bridge.js, and at the React Native points the kit's
        lifecycle script next to it (it says when a new document is there)."""
        if self.platform == "react-native":
            return self.bridge + "\n" + RN_LIFECYCLE_SCRIPT
        return self.bridge

    def _navigation(self, event: NavEvent) -> None:
        """The engine saw ``event`` happen to the main frame; the platform's callbacks follow.

        Only documents after the launch's own count (an engine may report the launch's load
        late); the launch's first document is :meth:`NativeApp.launch`'s.
        """
        live = bool(self.__dict__.get("_live"))
        if event == "committed":
            if live:  # first: an engine may report the load while the evaluation below runs
                self.__dict__["_pending"] = self.__dict__.get("_pending", 0) + 1
            if self.injection_point == "page-started":
                self._evaluate_at_page_started()
        elif event == "finished":
            # A restored page reports no commit, a failed load's end none either (WebKit).
            if not live or self.__dict__.get("_pending", 0) <= 0:
                return
            self.__dict__["_pending"] -= 1
            self.__dict__["_documents"] = self.documents + 1
            self.timeline.add("page finished", f"document {self.documents}")
            self._evaluate_at_page_finished()
        if live:
            if event in NAVIGATION_WORDS:
                self.timeline.add("navigation", NAVIGATION_WORDS[event])
            for callback in CALLBACKS[self.injection_point].get(event, ()):
                self._callback(callback)
            if event == "finished" and self.page_finished_twice and self.platform == "android":
                self._page_finished_again()
        if event == "committed" and self.options.on_commit is not None:
            self.options.on_commit(self)  # the app's own code, as each new document commits

    def _callback(self, callback: str) -> None:
        """The platform's ``callback``: the app does what its kit does on it."""
        for reaction in reactions_to(self.injection_point, callback):
            if reaction == "page-started":
                self.timeline.add("page started", f"{callback}: a new document in this view")
                self.__dict__["_page_finished_seen"] = False
                self._perform(self._coordinator().page_started())
            else:
                self.__dict__["_page_finished_seen"] = True
                self._perform(self._coordinator().page_finished())

    def _document_message(self, complete: bool) -> None:
        """React Native: the kit's lifecycle script in a new document (loaded by then or not)."""
        if not self.__dict__.get("_live"):
            return  # the launch's own document
        loaded = " (the page had loaded)" if complete else ""
        self.timeline.add("lifecycle script", f"a new document{loaded}")
        self._callback(DOCUMENT_MESSAGE)
        if complete:
            self._callback("onLoad")  # the kit: page finished too, its onLoad may have come first

    def _evaluate_at_page_started(self) -> None:
        """React Native on Android: ``evaluateJavascript`` in ``onPageStarted``, racing the page."""
        if self.options.race_lost and not self.__dict__.get("_live"):
            return  # the launch evaluates it once the widget's first events went out
        self.timeline.add("bridge evaluated", "at page started, racing the page's scripts")
        self._evaluate_bridge()

    def _evaluate_at_page_finished(self) -> None:
        """Android's kit in ``onPageFinished``, react-native-webview's ``injectedJavaScript``."""
        if self.injection_point in EVALUATED_AT_PAGE_FINISHED:
            self._evaluate_bridge()

    def _evaluate_bridge(self) -> None:
        source = at_page_finished(self._injected_source())
        for _ in range(self.injections):
            try:
                self._run_script(source)
            except Exception as exc:  # noqa: BLE001 - a document already replaced: its loss
                self.timeline.add("injection failed", f"{type(exc).__name__}: {exc}"[:200])
                return
        # what the page emitted before this had no bridge to go through (the diagnosis)
        self.timeline.add("bridge in page", "its evaluation returned")

    def _page_finished_again(self) -> None:
        """Android's second ``onPageFinished`` for one document: the same callback again."""
        self.timeline.add("page finished", "again, for the same document")
        self._evaluate_at_page_finished()
        self._perform(self._coordinator().page_finished())

    def _restored(self) -> None:
        """``pageshow`` with ``persisted``: the page is back from the back-forward cache."""
        self.__dict__["_restores"] = self.restores + 1
        self.timeline.add("restored", "from the back-forward cache")
        self._perform(self._coordinator().restored())

    def _terminated(self) -> None:
        """The web content process died: the coordinator decides (a ``reload`` effect)."""
        self.__dict__["_terminations"] = self.terminations + 1
        self.timeline.add("content process terminated")
        self._perform(self._coordinator().content_terminated())

    def _recover_content(self) -> None:
        """The ``reload`` effect, as this platform's kit performs it."""
        self.timeline.add("recover", RECOVERY.get(self.platform, "reload"))
        if self.platform == "android":
            self._recreate_view()
        else:
            self._app_reload()

    # ---- what a scenario does ----------------------------------------------------------

    def _wait_documents(self, count: int, what: str, *, timeout: float = 15.0) -> None:
        self.wait_for(lambda: self.documents >= count, what, timeout=timeout)

    def reload(self, *, by: str = "page") -> None:
        """Reload the widget page: ``location.reload()`` (``by="page"``) or the app's reload."""
        before = self.documents
        self.timeline.add("reload", f"by the {by}")
        if by == "page":
            self.evaluate("() => { setTimeout(() => location.reload(), 0); }")
        else:
            self._app_reload()
        self._wait_documents(before + 1, f"the reload by the {by} to finish")

    def away_and_back(self, url: str) -> None:
        """Open ``url`` in this view, then go back to the widget page."""
        widget_url = self.url
        before, restores = self.documents, self.restores
        self.timeline.add("navigate away", url)
        self._navigate(url)
        self._wait_documents(before + 1, f"the page {url} to load")
        self.timeline.add("go back", widget_url)
        self._go_back()
        self.wait_for(
            lambda: self.restores > restores or self.documents > before + 1,
            "the widget page to come back",
            timeout=15.0,
        )

    def kill_content_process(self) -> None:
        """Kill the web content process; the app's answer (if any) runs as the engine reports."""
        before = self.terminations
        self.timeline.add("kill content process")
        self._kill_content()
        self.wait_for(lambda: self.terminations > before, "the engine to report the dead process")

    def resume(self, seconds: float) -> None:
        """The app comes back to the foreground after ``seconds`` (the harness's clock moves)."""
        self.clock.advance(seconds)
        self.timeline.add("resume", f"after {seconds:g} s in the background")
        self._foreground()
        self._perform(self._coordinator().resume(seconds))

    def _foreground(self) -> None:
        """Back in the foreground, before the coordinator hears of it (a deferred recovery)."""
