"""The scripted flow both modes run: sign in, see the widget signed in, comment, see the
verified delivery of the new comment's event and the comment listed in the widget, sign out.

Each step has a timeout and the flow stops at the first that fails. The flow never
touches the WebView itself: it asks a :class:`FlowDriver` to run things on the app
thread and to wait while the host keeps running (the Qt loop in its own thread; the
Playwright loop pumped by the driver in headless mode).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gcbridge.demo.actions import AppDriver as FlowDriver
from gcbridge.demo.actions import sign_out_and_watch, widget_signed_in
from gcbridge.demo.app import DemoApp
from gcbridge.demo.timeline import Timeline, TimelineEvent
from gcbridge.webhooks.catalog import CREATED

__all__ = ["FlowDriver", "StepResult", "run_flow", "flow_summary", "POST_COMMENT_JS", "SHOWN_JS"]

# What a user does in the widget: type into the comment box and submit (``no-form`` if none).
POST_COMMENT_JS = """
(function (text) {
  var area = document.querySelector('[data-testid="compose"] textarea') ||
             document.querySelector('textarea[name="content"]') ||
             document.querySelector('form textarea') || document.querySelector('textarea');
  if (area) {
    var form = area.form || area.closest('form');
    area.focus();
    area.value = text;
    area.dispatchEvent(new Event('input', {bubbles: true}));
    if (form) {
      if (form.requestSubmit) { form.requestSubmit(); } else { form.submit(); }
      return 'form';
    }
  }
  return 'no-form';
})(%s)
"""


# Whether the widget lists the comment, and has painted it (two animation frames after it
# first showed up): the webhook can arrive before the widget has the POST's answer, and the
# screenshot must show what the user sees.
SHOWN_JS = """
(function (id) {
  if (!document.querySelector('[data-comment-id="' + CSS.escape(id) + '"]')) { return 'missing'; }
  var flag = '__gcbridgeDemoShown';
  if (window[flag] === true) { return 'painted'; }
  if (window[flag] !== false) {
    window[flag] = false;
    requestAnimationFrame(function () {
      requestAnimationFrame(function () { window[flag] = true; });
    });
  }
  return 'shown';
})(%s)
"""


@dataclass(frozen=True)
class StepResult:
    """One step of the scripted flow and whether it happened."""

    name: str
    ok: bool
    detail: str = ""


def flow_summary(results: list[StepResult], expected: int) -> str:
    """A one-line verdict of the flow."""
    done = sum(r.ok for r in results)
    failed = next((r for r in results if not r.ok), None)
    if failed is None and done == expected:
        return f"scripted flow: all {expected} steps happened"
    why = f": {failed.name} did not happen ({failed.detail})" if failed else ""
    return f"scripted flow FAILED after {done}/{expected} steps{why}"


def run_flow(
    app: DemoApp,
    driver: FlowDriver,
    timeline: Timeline,
    *,
    comments_api: Callable[[], list[dict[str, Any]]],
    username: str = "alice",
    comment_text: str = "Hello from the gc-bridge demo",
    sign_out: bool = True,
    timeout: float = 20.0,
    before_sign_out: Callable[[], None] | None = None,
) -> list[StepResult]:
    """Run the steps in order; returns one result per step attempted."""
    results: list[StepResult] = []

    def event(
        kind: str, where: Callable[[TimelineEvent], bool] | None = None, since: int = 0
    ) -> Any:
        return driver.wait_until(lambda: timeline.find(kind, since=since, where=where), timeout)

    def step(name: str, outcome: Any, detail: str) -> bool:
        results.append(StepResult(name, bool(outcome), "" if outcome else detail))
        if outcome:
            timeline.record("flow.step", f"step OK: {name}")
        return bool(outcome)

    if not step(
        "widget loaded, bridge installed",
        event("widget.loaded"),
        f"no page-finished in {timeout}s",
    ):
        return results

    mark = len(timeline)
    driver.call(lambda: app.sign_in(username))
    if not step(
        "signed in through the app", event("sso.injected", since=mark), "no gcSsoLogin injection"
    ):
        return results

    user = widget_signed_in(app, driver, username, timeout)
    if not step(f"widget signed in as {username}", user, "the widget never showed the SSO user"):
        return results

    # the data dir (and so the thread) survives relaunches: this run's comment is the one
    # with the text that was not there before, and the checks below follow its id
    before = {c.get("id") for c in driver.call(comments_api)}
    # Recorded as it starts: the page submits inside the call, and the webhook it causes
    # can be verified (and recorded, on another thread) before the call returns here.
    timeline.record("comment.posting", f"comment typed and posted in the widget: {comment_text!r}")
    how = driver.call(lambda: app.host.evaluate_js(POST_COMMENT_JS % json.dumps(comment_text)))

    def posted() -> dict[str, Any] | None:
        listed = comments_api()
        return next(
            (c for c in listed if c.get("content") == comment_text and c.get("id") not in before),
            None,
        )

    comment = driver.wait_until(posted, timeout)
    if comment is not None:
        timeline.record("comment.saved", f"comment {comment['id']} saved by the service")
    if not step(
        "comment saved by the service",
        comment,
        f"the comment never reached the service (widget: {how})",
    ):
        return results
    comment_id = str(comment["id"]) if comment is not None else ""

    delivered = event(
        "webhook.verified",
        where=lambda e: (
            e.data.get("event_type") == CREATED.name and e.data.get("comment_id") == comment_id
        ),
    )
    if not step(
        f"{CREATED.name} delivered and VERIFIED", delivered, "no verified delivery at the receiver"
    ):
        return results

    def painted() -> bool | None:
        state = app.host.evaluate_js(SHOWN_JS % json.dumps(comment_id))
        return True if state == "painted" else None

    shown = driver.wait_until(painted, timeout)
    if shown:
        timeline.record("comment.shown", "comment listed in the widget")
    if not step(
        "comment listed in the widget", shown, "the widget did not list the comment it posted"
    ):
        return results

    if before_sign_out is not None:
        before_sign_out()
    if sign_out:
        gone = sign_out_and_watch(app, driver, timeout)
        step("signed out", gone, "the widget kept its session after gcSsoLogout()")
    return results
