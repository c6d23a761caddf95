"""``gcbridge demo`` end to end: pick the mode, start the stack, run the app and the flow."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from gcbridge.demo.errors import DemoError
from gcbridge.demo.flow import StepResult, flow_summary, run_flow
from gcbridge.demo.paths import DEFAULT_DATA_DIR, absolute, shown
from gcbridge.demo.stack import DEFAULT_PORT, DemoStack
from gcbridge.demo.stopping import Stopper
from gcbridge.demo.timeline import Timeline, format_event
from gcbridge.emulator.datadir import make_data_dir
from gcbridge.signals import stop_line

__all__ = ["DemoOptions", "run_demo", "choose_mode", "FLOW_STEPS"]

FLOW_STEPS = 7


@dataclass(frozen=True)
class DemoOptions:
    """What ``gcbridge demo`` was asked to do."""

    data_dir: Path = Path(DEFAULT_DATA_DIR)
    port: int = DEFAULT_PORT
    headless: bool = False
    exit_after_flow: bool = False
    screenshot: str | None = None
    stay_signed_in: bool = False
    username: str = "alice"
    comment_text: str = "Hello from the gc-bridge demo"
    step_timeout: float = 20.0

    def __post_init__(self) -> None:
        # absolute from here on, whoever built the options (see gcbridge.demo.paths)
        object.__setattr__(self, "data_dir", absolute(self.data_dir))
        if self.screenshot:
            object.__setattr__(self, "screenshot", str(absolute(self.screenshot)))


def choose_mode(headless: bool, environ: Mapping[str, str] | None = None) -> str:
    """``"headless"`` when asked or when there is no display at all, else ``"desktop"``."""
    env = os.environ if environ is None else environ
    if headless or not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        return "headless"
    return "desktop"


def run_demo(
    options: DemoOptions, *, out: TextIO | None = None, stopper: Stopper | None = None
) -> int:
    """Run the demo; returns the exit code.

    0: the flow completed, or the user closed the window; 130 / 143: stopped by SIGINT /
    SIGTERM (one line on stderr, whatever was running when the signal came).
    """
    stop = stopper or Stopper()
    with stop.installed():
        try:
            code = _run(options, stop, out or sys.stdout)
        except Exception:
            # a browser or helper killed by the same Ctrl-C (it went to the whole process
            # group) fails whatever was talking to it: that is the stop, not an error
            if not stop.stopped:
                raise
            code = 0
    if stop.stopped:
        print(stop_line("gcbridge demo", stop.signum or signal.SIGINT), file=sys.stderr, flush=True)
        return stop.exit_code
    return code


def _run(options: DemoOptions, stop: Stopper, stream: TextIO) -> int:
    mode = choose_mode(options.headless)
    if mode == "desktop":
        from gcbridge.demo.desktop import probe_gui

        probe_gui()  # before any server starts: a dead display must fail fast and cleanly
        stop.check()

    from gcbridge.bridge import script

    bridge = script()
    timeline = Timeline()
    timeline.subscribe(lambda e: print(format_event(e), file=stream, flush=True))
    timeline.record("demo.start", f"gcbridge demo ({mode} mode), data in {shown(options.data_dir)}")
    make_data_dir(options.data_dir)  # a file or an uncreatable path: one line, bad_data_dir

    with DemoStack(options.data_dir, timeline, port=options.port) as stack:
        stop.check()
        comments_api = _comments_api(stack)

        def make_app(host: Any) -> Any:
            from gcbridge.demo.app import DemoApp

            install_at = "document-start" if mode == "headless" else "page-finished"
            return DemoApp(
                host,
                timeline,
                backend_url=stack.backend_url,
                emulator_url=stack.emulator_url,
                login_key=stack.credentials.login_key,
                bridge_source=bridge.text,
                bridge_version=bridge.version,
                install_at=install_at,
            )

        def flow(app: Any, driver: Any, shoot: Callable[[], None]) -> list[StepResult]:
            results = run_flow(
                app,
                driver,
                timeline,
                comments_api=comments_api,
                username=options.username,
                comment_text=options.comment_text,
                sign_out=not options.stay_signed_in,
                timeout=options.step_timeout,
                before_sign_out=shoot,  # the screenshot shows the signed-in widget
            )
            expected = FLOW_STEPS - (1 if options.stay_signed_in else 0)
            ok = len(results) == expected and all(r.ok for r in results)
            timeline.record("flow.done" if ok else "flow.failed", flow_summary(results, expected))
            return results if ok else []

        run_mode = _headless if mode == "headless" else _desktop
        code = run_mode(_Run(options, stack, timeline, make_app, flow, stream, stop))
        if options.exit_after_flow and code != 0:
            raise DemoError(
                "the scripted flow did not complete (see the timeline above)", reason="flow_failed"
            )
        return code


def _comments_api(stack: DemoStack) -> Callable[[], list[dict[str, Any]]]:
    import httpx

    def comments() -> list[dict[str, Any]]:
        answer = httpx.get(
            f"{stack.emulator_url}/api/pub/comments",
            params={"website_id": stack.site.shortname, "uid": stack.article.uid},
            timeout=10,
        )
        listed: list[dict[str, Any]] = (
            answer.json().get("comments", []) if answer.status_code == 200 else []
        )
        return listed

    return comments


def _once(action: Callable[[], None] | None) -> tuple[Callable[[], None], Callable[[], bool]]:
    """Wrap ``action`` to run at most once; the second callable says whether it ran."""
    done: list[bool] = []

    def run() -> None:
        if action is not None and not done:
            done.append(True)
            action()

    return run, lambda: bool(done)


class _Run(NamedTuple):
    """What either mode runs with: the options, the stack, the app and the flow, the output."""

    options: DemoOptions
    stack: DemoStack
    timeline: Timeline
    make_app: Any
    flow: Any
    out: TextIO
    stop: Stopper


def _headless(mode: _Run) -> int:
    options, stack, timeline, make_app, flow, out, stop = mode
    from gcbridge.demo.headless import PlaywrightHost, run_headless

    def run(app: Any, host: PlaywrightHost) -> int:
        path = options.screenshot

        def save() -> None:
            host.page.screenshot(path=path)
            timeline.record("demo.screenshot", f"page saved to {path}")

        shoot, shot = _once(save if path else None)
        ok = bool(flow(app, host, shoot))
        if not shot():
            shoot()
        if options.exit_after_flow:
            return 0 if ok else 1
        print(
            f"\nThe demo keeps running: widget {stack.widget_url}\n"
            f"emulator {stack.emulator_url}, backend {stack.backend_url}. Ctrl-C to stop.",
            file=out,
            flush=True,
        )
        # pump() raises DemoStopped between calls (gcbridge.demo.stopping); an error right
        # after a Ctrl-C (it reached the browser and the driver too) is the normal way out.
        while True:
            try:
                host.pump(250)
            except Exception:
                if stop.wait(0.5):
                    return 0
                raise DemoError(
                    "the browser closed unexpectedly", reason="browser_closed"
                ) from None

    return run_headless(
        stack.widget_url, options.data_dir / "chromium", make_app, run, stopped=lambda: stop.stopped
    )


def _desktop(mode: _Run) -> int:
    options, stack, timeline, make_app, flow, _, stop = mode
    from gcbridge.demo.backend import demo_usernames
    from gcbridge.demo.desktop import run_desktop

    def run(
        app: Any, driver: Any, screenshot: Callable[[str], None], close: Callable[[], None]
    ) -> int:
        path = options.screenshot
        shoot, shot = _once((lambda: screenshot(path)) if path else None)
        if not options.exit_after_flow:
            if path:
                timeline.wait_for("bridge.installed", options.step_timeout)
                _record_session_line(app, driver, timeline, options.step_timeout)
                shoot()
            return 0  # the window stays open; the user drives the app
        ok = bool(flow(app, driver, shoot))
        if not shot():
            shoot()
        close()
        return 0 if ok else 1

    return run_desktop(
        stack.widget_url,
        options.data_dir,
        timeline,
        make_app,
        run,
        users=demo_usernames(),
        stopper=stop,
        step_timeout=options.step_timeout,
    )


def _record_session_line(app: Any, driver: Any, timeline: Timeline, timeout: float) -> None:
    """Wait until the widget shows the session it has (restored or not) and say what."""
    restored = timeline.find("widget.restored") is not None
    line = driver.wait_until(lambda: app.session_line(signed_in=restored), timeout)
    if line:
        timeline.record("widget.session", f"the window shows the widget's session: {line}")
