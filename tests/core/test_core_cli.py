"""Every command prints readable --help; the root without a command prints usage."""

import subprocess
import sys

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
