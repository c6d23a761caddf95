"""Every command prints readable --help; the root without a command prints usage."""

import subprocess
import sys
from pathlib import Path

import pytest

from gcbridge.cli import COMMANDS, main

SUBCOMMANDS = {
    "sso": ["issue", "verify"],
    "webhooks": ["listen", "sign", "verify"],
}


def _help(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_help(command, capsys):
    out = _help([command], capsys)
    assert out.startswith("usage: gcbridge " + command)
    for sub in SUBCOMMANDS.get(command, []):
        assert sub in out
        assert _help([command, sub], capsys).startswith(f"usage: gcbridge {command} {sub}")


def test_root_help_lists_every_command(capsys):
    out = _help([], capsys)
    for command in COMMANDS:
        assert command in out


def test_no_command_prints_usage_and_fails(capsys):
    assert main([]) == 2
    assert "usage: gcbridge" in capsys.readouterr().out


def test_console_script_module_runs():
    out = subprocess.run(
        [sys.executable, "-m", "gcbridge", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("gcbridge ")


def test_sdk_cli_does_not_import_heavy_parts():
    code = (
        "import sys; from gcbridge.cli import build_parser; build_parser(); "
        "heavy = [m for m in ('fastapi', 'uvicorn', 'playwright', 'webview') if m in sys.modules]; "
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


OUTPUT_COMMANDS = [
    ["-m", "gcbridge", "webhooks", "schema"],
    ["-m", "gcbridge", "webhooks", "schema", "--list"],
    ["-m", "gcbridge", "bridge", "--print"],
    [
        "-m",
        "gcbridge",
        "sso",
        "issue",
        "--secret-env",
        "S",
        "--id",
        "u1",
        "--username",
        "Ann",
        "--email",
        "ann@example.com",
    ],
    ["-m", "gcbridge.vectors"],
]


def _closed_pipe() -> int:
    """The write end of a pipe whose reader has gone (what ``| head -c 10`` leaves)."""
    import os

    read, write = os.pipe()
    os.close(read)
    return write


@pytest.mark.parametrize("argv", OUTPUT_COMMANDS, ids=" ".join)
def test_a_closed_stdout_ends_a_command_quietly(argv):
    import os

    pipe = _closed_pipe()
    try:
        run = subprocess.run(
            [sys.executable, *argv],
            stdout=pipe,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "S": "sso-secret-of-the-test-0123456789"},
            timeout=60,
        )
    finally:
        os.close(pipe)
    assert (run.returncode, run.stderr) == (141, "")  # 128 + SIGPIPE, as any Unix tool


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("argv", OUTPUT_COMMANDS, ids=" ".join)
def test_a_full_stdout_is_one_line_with_a_reason(argv):
    import os

    with open("/dev/full", "w") as full:
        run = subprocess.run(
            [sys.executable, *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "S": "sso-secret-of-the-test-0123456789"},
            timeout=60,
        )
    assert run.returncode == 1
    assert len(run.stderr.splitlines()) == 1, run.stderr
    assert "error [output_unwritable]: cannot write to standard output" in run.stderr
