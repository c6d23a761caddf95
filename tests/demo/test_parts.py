"""The demo's small parts: absolute paths, the stop request, Chromium's flags (no GUI)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from gcbridge.demo.paths import absolute, shown
from gcbridge.demo.qtlog import QUIET, chromium_flags
from gcbridge.demo.runner import DemoOptions
from gcbridge.demo.stopping import DemoStopped, Stopper


def test_paths_handed_to_libraries_are_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    options = DemoOptions(screenshot="shots/demo.png")  # data dir on its default
    assert options.data_dir == tmp_path / ".gcbridge" / "demo"
    assert options.data_dir.is_absolute()
    assert options.screenshot == str(tmp_path / "shots" / "demo.png")
    assert absolute("a/../b") == tmp_path / "b"
    assert absolute("~") == Path(os.path.expanduser("~"))


def test_paths_are_shown_as_the_user_gave_them(tmp_path):
    assert shown(tmp_path / ".gcbridge" / "demo", cwd=tmp_path) == "./.gcbridge/demo"
    elsewhere = Path("/srv/demo-data")
    assert shown(elsewhere, cwd=tmp_path) == "/srv/demo-data"


def test_a_stop_request_wakes_once_and_names_its_exit_code():
    stopper = Stopper()
    woken: list[str] = []
    stopper.on_stop(lambda: woken.append("window"))
    assert not stopper.stopped
    stopper.check()  # nothing requested: no exception
    stopper.handle(signal.SIGTERM)
    stopper.handle(signal.SIGINT)  # the first signal wins
    assert woken == ["window"]
    assert (stopper.name, stopper.exit_code) == ("SIGTERM", 143)
    stopper.on_stop(lambda: woken.append("late"))  # registered after: called at once
    assert woken == ["window", "late"]
    try:
        stopper.check()
    except DemoStopped:
        pass
    else:
        raise AssertionError("check() let a requested stop pass")


def test_the_stopper_takes_the_signals_only_for_its_block():
    before = signal.getsignal(signal.SIGINT)
    stopper = Stopper()
    with stopper.installed():
        assert signal.getsignal(signal.SIGINT) == stopper.handle
        os.kill(os.getpid(), signal.SIGINT)  # no KeyboardInterrupt: a request
        assert stopper.wait(5)
    assert signal.getsignal(signal.SIGINT) == before
    assert stopper.exit_code == 130


def test_chromium_flags_keep_the_users_and_add_what_is_missing():
    env: dict[str, str] = {}
    chromium_flags(env, root=True)
    assert env["QTWEBENGINE_CHROMIUM_FLAGS"].split() == ["--no-sandbox", "--log-level=3"]
    env = {"QTWEBENGINE_CHROMIUM_FLAGS": "--log-level=0 --foo"}
    chromium_flags(env, root=False)
    assert env["QTWEBENGINE_CHROMIUM_FLAGS"].split() == ["--log-level=0", "--foo"]


def test_only_the_machines_own_messages_are_quietened():
    for demo_caused in ("EvalError", "Refused to apply inline style", "Content Security Policy"):
        assert not any(demo_caused in quiet for quiet in QUIET)


def test_the_dying_drivers_listener_errors_are_dropped_only_after_a_stop() -> None:
    # Ctrl-C in the headless demo: Playwright's driver dies with it, and its client logged
    # "Error occurred in event listener" with a traceback (seen in a clean-clone CI run).
    import logging

    from gcbridge.driver_after_stop import DRIVER_LOGGERS, DeadDriverAfterStop

    assert "playwright" in DRIVER_LOGGERS
    stopped = {"yes": False}
    kept = DeadDriverAfterStop(lambda: stopped["yes"])
    record = logging.LogRecord(
        "playwright", logging.ERROR, "", 0, "Error occurred in event listener", None, None
    )
    assert kept.filter(record)  # before a stop: a real error, shown
    stopped["yes"] = True
    assert not kept.filter(record)
    other = logging.LogRecord("playwright", logging.ERROR, "", 0, "something else", None, None)
    assert kept.filter(other)


def test_playwrights_task_ended_by_ctrl_c_is_dropped_only_after_a_stop() -> None:
    # Ctrl-C in `gcbridge harness run` landed in Playwright's loop: asyncio reported its
    # connection task's KeyboardInterrupt as "Task exception was never retrieved" with a
    # traceback (seen once in a clean-clone CI run); any other never-retrieved error shows.
    import logging

    from gcbridge.driver_after_stop import DeadDriverAfterStop

    stopped = {"yes": False}
    kept = DeadDriverAfterStop(lambda: stopped["yes"])

    def record(exc: BaseException) -> logging.LogRecord:
        return logging.LogRecord(
            "asyncio",
            logging.ERROR,
            "",
            0,
            "Task exception was never retrieved",
            None,
            (type(exc), exc, None),
        )

    assert kept.filter(record(KeyboardInterrupt()))
    stopped["yes"] = True
    assert not kept.filter(record(KeyboardInterrupt()))
    assert kept.filter(record(ValueError("a real bug")))
