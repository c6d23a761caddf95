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
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from gcbridge import cli
from gcbridge.bridge import script
from gcbridge.emulator.testing import EXAMPLE_SITE, running_emulator
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
    # Ctrl-C while a lazy import builds a model's serializer: pydantic-core raises a
    # SchemaError whose text ends in "KeyboardInterrupt:" (seen at one instant in CI)
    class SchemaError(Exception):
        pass

    def wrapped(args: argparse.Namespace) -> int:
        raise SchemaError("Error building `union` serializer:\n  KeyboardInterrupt: ")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(wrapped))
    assert cli.main(["bridge"]) == 130
    assert capsys.readouterr().err == "gcbridge bridge: stopped (SIGINT)\n"


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
