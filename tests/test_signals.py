"""Ctrl-C at any instant of a command's life: one line, the command's exit status, nothing else.

Fifty instants for ``calls --follow``, fewer for the commands that start a server or
a browser at each (see the counts below), spread over each command's start (imports,
its first requests), its polls and its waits (``tests/interrupt_instants.py``). A
Ctrl-C that lands while an event loop or a coroutine is half-made must not print
"was never awaited" or "Exception ignored"; one that lands during the imports must
not print a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import os
import signal
import subprocess
import sys
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from gcbridge import cli
from gcbridge.aio import run_sync
from gcbridge.bridge import script
from gcbridge.emulator.testing import EXAMPLE_SITE, running_emulator
from gcbridge.signals import noted_stop
from tests.interrupt_instants import Run, spread

GCBRIDGE = str(Path(sys.executable).with_name("gcbridge"))
INSTANTS = 50
INSTANTS_WITH_A_SERVER = 25
"""``listen`` and ``emulator exec`` import and start a server at each instant (about 1 s of
CPU each): half as many, on the same code path as ``calls`` up to the command's start."""
INSTANTS_WITH_A_BROWSER = 8
"""Each instant of ``harness run`` or ``demo`` starts a browser: seconds of CPU each."""
WID = EXAMPLE_SITE.website_id


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GC_")}
    # the warning filters a user has: "was never awaited" (RuntimeWarning) shows
    return {**env, **extra}


def _stopped_once(runs: list[Run], line: str, code: int, *, banner: tuple[str, ...] = ()) -> None:
    """Every run ended with ``code`` and printed ``line`` once, after nothing but ``banner``."""
    for run in runs:
        assert run.returncode == code, run.describe()
        assert run.stderr[-1:] == [line], run.describe()
        assert all(text.startswith(banner) for text in run.stderr[:-1]), run.describe()


@pytest.fixture
def emulator(tmp_path: Path) -> Iterator[str]:
    with running_emulator(tmp_path / "data") as emu:
        r = httpx.post(
            f"{emu.url}/webhook/website/{WID}/setup",
            json={"url": "https://receiver.example/hook"},
            headers={"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"},
        )
        assert "secret" in r.json(), r.text
        yield emu.url


def test_calls_follow_stops_with_one_line_at_each_instant(emulator: str) -> None:
    argv = [GCBRIDGE, "webhooks", "calls", "--follow", "--interval", "0.05"]
    argv += ["--emulator", emulator, "--website-id", WID, "--token-env", "GC_ACCOUNT_TOKEN"]
    runs = spread(
        argv,
        env=_env(GC_ACCOUNT_TOKEN=EXAMPLE_SITE.account_token),
        is_ready=lambda run: bool(run.stdout),  # the header: the site answered
        count=INSTANTS,
        after=0.6,  # a dozen polls and the waits between them
    )
    _stopped_once(runs, "gcbridge webhooks calls: stopped following (Ctrl-C)", 0)
    for run in runs:
        assert all(line.startswith("CALL") for line in run.stdout), run.describe()


def test_webhooks_listen_stops_with_one_line_at_each_instant() -> None:
    argv = [GCBRIDGE, "webhooks", "listen", "--port", "0", "--secret-env", "GC_TEST_SECRET"]
    runs = spread(
        argv,
        env=_env(GC_TEST_SECRET="whsec-test"),
        is_ready=lambda run: bool(run.stdout),  # "gcbridge webhooks listening on ..."
        count=INSTANTS_WITH_A_SERVER,
        after=0.5,
    )
    _stopped_once(runs, "gcbridge webhooks listen: stopped (SIGINT)", 130)


def test_emulator_exec_stops_with_one_line_at_each_instant(tmp_path: Path) -> None:
    argv = [GCBRIDGE, "emulator", "exec", "--ephemeral", "--", "sleep", "60"]
    runs = spread(
        argv,
        env=_env(),
        is_ready=lambda run: any("emulator ready on" in line for line in run.stderr),
        count=INSTANTS_WITH_A_SERVER,
        after=0.5,
        cwd=tmp_path,
    )
    banner = ("gcbridge emulator ready on",)
    _stopped_once(runs, "gcbridge emulator exec: stopped (SIGINT)", 130, banner=banner)
    assert list(tmp_path.iterdir()) == []  # no data dir left behind at any instant


@pytest.mark.browser
@pytest.mark.slow
def test_harness_run_stops_with_one_line_at_each_instant(tmp_path: Path) -> None:
    # Each instant starts pytest and a browser (seconds of CPU): a dozen, not fifty.
    bridge = tmp_path / "bridge.js"
    bridge.write_text(script().text, encoding="utf-8")
    argv = [GCBRIDGE, "harness", "run", "--bridge", str(bridge), "--engine", "chromium"]
    runs = spread(
        argv + ["-k", "login"],
        env=_env(),
        is_ready=lambda run: len(run.stdout) >= 2,  # the first scenario's result
        count=INSTANTS_WITH_A_BROWSER,
        after=1.0,
        parallel=2,
        cwd=tmp_path,
        group=True,
    )
    _stopped_once(runs, "gcbridge harness run: stopped (SIGINT)", 130)
    for run in runs:
        assert not any("Traceback" in line or "failed" in line for line in run.stdout)


@pytest.mark.browser
@pytest.mark.slow
def test_headless_demo_stops_with_one_line_at_each_instant(tmp_path: Path) -> None:
    argv = [GCBRIDGE, "demo", "--headless", "--port", "0", "--data-dir", str(tmp_path / "d")]
    runs = spread(
        argv,
        env=_env(),
        is_ready=lambda run: any("Ctrl-C to stop" in line for line in run.stdout),
        count=INSTANTS_WITH_A_BROWSER,
        after=1.0,
        parallel=2,
        cwd=tmp_path,
        group=True,
    )
    _stopped_once(runs, "gcbridge demo: stopped (SIGINT)", 130)


def _parser_running(func: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gcbridge")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("bridge").set_defaults(func=func)
    return parser


def test_a_stop_that_python_wrapped_is_still_the_stop(monkeypatch, capsys) -> None:
    # Ctrl-C while a lazy import makes a class: "RuntimeError: Error calling __set_name__"
    def wrapped(args: argparse.Namespace) -> int:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling __set_name__ on '_not_blank'") from exc

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(wrapped))
    assert cli.main(["bridge"]) == 130
    assert capsys.readouterr().err == "gcbridge bridge: stopped (SIGINT)\n"


def test_an_error_not_caused_by_a_stop_is_not_taken_for_one(monkeypatch) -> None:
    def broken(args: argparse.Namespace) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(broken))
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main(["bridge"])


def test_a_stop_that_pydantic_core_turned_into_text_is_still_the_stop(monkeypatch, capsys) -> None:
    # Ctrl-C while a lazy import builds a model's serializer: pydantic-core catches the
    # KeyboardInterrupt and raises a SchemaError whose text ends in "KeyboardInterrupt:"
    class SchemaError(Exception):
        pass

    def wrapped(args: argparse.Namespace) -> int:
        with contextlib.suppress(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        raise SchemaError("Error building `union` serializer:\n  KeyboardInterrupt: ")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(wrapped))
    assert cli.main(["bridge"]) == 130
    assert capsys.readouterr().err == "gcbridge bridge: stopped (SIGINT)\n"


def _ctrl_c_where_python_cannot_raise_it() -> None:
    """Ctrl-C whose handler runs in a weak reference's callback (as when an import frees
    its module lock): Python reports the ``KeyboardInterrupt`` as "Exception ignored"
    and goes on."""

    class Thing:
        pass

    thing = Thing()
    ref = weakref.ref(thing, lambda _: signal.raise_signal(signal.SIGINT))
    del thing
    assert ref() is None


def test_a_ctrl_c_lost_where_it_landed_stops_the_command_at_its_next_wait(
    monkeypatch, capsys
) -> None:
    seen: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    waited: list[str] = []

    async def serve() -> None:
        waited.append("served")

    def starts_a_server(args: argparse.Namespace) -> int:
        _ctrl_c_where_python_cannot_raise_it()
        run_sync(serve)
        return 0

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(starts_a_server))
    assert cli.main(["bridge"]) == 130
    assert capsys.readouterr().err == "gcbridge bridge: stopped (SIGINT)\n"
    assert waited == [] and seen == []  # not served, and no "Exception ignored"


def test_a_ctrl_c_lost_at_the_end_of_a_command_is_still_its_status(monkeypatch, capsys) -> None:
    def one_shot(args: argparse.Namespace) -> int:
        _ctrl_c_where_python_cannot_raise_it()
        return 0

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(one_shot))
    assert cli.main(["bridge"]) == 130
    assert capsys.readouterr().err == "gcbridge bridge: stopped (SIGINT)\n"


def test_outside_a_command_a_ctrl_c_is_noted_nowhere() -> None:
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
    assert noted_stop() is None
    assert run_sync(asyncio.sleep, 0) is None  # nothing left to stop the next wait


LOST_CTRL_C = """
import signal
import sys
import weakref

from gcbridge import console


class CtrlCInACallback:
    # Ctrl-C lands in a weak reference's callback while MODULE is imported
    def find_spec(self, name, path=None, target=None):
        if name == MODULE:
            sys.meta_path.remove(self)
            _ctrl_c_where_python_cannot_raise_it()
        return None


sys.meta_path.insert(0, CtrlCInACallback())
sys.argv = ["gcbridge", *sys.argv[1:]]
sys.exit(console.main())
"""


@pytest.mark.parametrize(
    ("module", "argv", "line"),
    [
        (
            "gcbridge.cli.foreground",
            ["webhooks", "listen", "--port", "0", "--secret-env", "GC_TEST_SECRET"],
            "gcbridge webhooks listen: stopped (SIGINT)",
        ),
        (
            "gcbridge.serving",
            ["emulator", "exec", "--ephemeral", "--", "true"],
            "gcbridge emulator exec: stopped (SIGINT)",
        ),
    ],
    ids=["listen", "emulator-exec"],
)
def test_a_ctrl_c_lost_in_a_callback_while_starting_still_stops_the_command(
    tmp_path: Path, module: str, argv: list[str], line: str
) -> None:
    """``listen`` served on for ever, and ``exec`` ran its command and exited 0, after a
    Ctrl-C that Python could only report as "Exception ignored"."""
    lost = inspect.getsource(_ctrl_c_where_python_cannot_raise_it)
    program = "\n".join([f"MODULE = {module!r}", lost, LOST_CTRL_C])
    proc = subprocess.Popen(
        [sys.executable, "-c", program, *argv],
        cwd=tmp_path,
        env=_env(GC_TEST_SECRET="whsec-test"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, (out, err)
    lines = err.strip().splitlines()
    assert lines[-1:] == [line], err
    assert all(text.startswith("gcbridge emulator ready on") for text in lines[:-1]), err
    assert list(tmp_path.iterdir()) == []  # exec's ephemeral data dir is gone


def test_the_console_script_holds_every_stop_signal_from_its_first_line() -> None:
    from gcbridge import console
    from gcbridge.signals import STOP_SIGNALS

    assert console.HELD == STOP_SIGNALS
    assert signal.SIGHUP in STOP_SIGNALS  # a closed terminal stops a command as SIGTERM does


def test_a_hang_up_stops_any_command_with_one_line(monkeypatch, capsys) -> None:
    def hung_up(args: argparse.Namespace) -> int:
        os.kill(os.getpid(), signal.SIGHUP)
        raise AssertionError("SIGHUP did not stop the command")

    def unhandled(signum: int, frame: object) -> None:  # not the default: it ends pytest
        raise AssertionError("SIGHUP reached a handler other than the command line's")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(hung_up))
    previous = signal.signal(signal.SIGHUP, unhandled)
    try:
        assert cli.main(["bridge"]) == 129
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert capsys.readouterr().err == "gcbridge bridge: stopped (SIGHUP)\n"
