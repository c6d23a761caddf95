"""``gcbridge emulator exec [emulator options] -- CMD [ARG...]``: one command for any CI.

Starts an emulator (a free port unless ``--port``), waits until it accepts
requests, runs CMD with the emulator's address, its admin token and the first
site's credentials in the environment, stops the emulator, and exits with CMD's
exit status (128 + N if a signal N ended it)::

    gcbridge emulator exec --clock manual --ephemeral --allow-private-receivers -- npm test

The variables (docs/reference/emulator-control.md): ``GC_EMULATOR_URL``,
``GC_EMULATOR_ADMIN_TOKEN``, ``GC_WEBSITE_ID``, ``GC_SHORTNAME``, ``GC_ACCOUNT_TOKEN``,
``GC_SSO_PUBLIC_KEY``, ``GC_SSO_SECRET``. They are local test credentials and are passed
only to CMD, never printed.

Ctrl-C in a terminal reaches CMD too (same process group): exec waits for CMD to
stop (then SIGTERMs it, then kills it), stops the emulator and exits 130. A
SIGTERM to exec is passed on to CMD the same way (exit 143).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from gcbridge.errors import GcBridgeError

__all__ = ["run_exec", "exec_environment", "ExecError"]

_GRACE = 10.0  # seconds CMD gets to stop after a signal before the next, stronger one


class ExecError(GcBridgeError):
    """``exec`` was given no command, or the command cannot be started."""

    reason = "usage"
    exit_code = 2


def exec_environment(url: str, admin_token: str, site: Any) -> dict[str, str]:
    """The variables CMD gets (besides the caller's own environment)."""
    return {
        "GC_EMULATOR_URL": url,
        "GC_EMULATOR_ADMIN_TOKEN": admin_token,
        "GC_WEBSITE_ID": site.website_id,
        "GC_SHORTNAME": site.shortname,
        "GC_ACCOUNT_TOKEN": site.account_token,
        "GC_SSO_PUBLIC_KEY": site.sso_public_key,
        "GC_SSO_SECRET": site.sso_secret,
    }


def _command(args: argparse.Namespace) -> list[str]:
    command = list(args.command_line or [])
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise ExecError(
            "give the command to run after --, e.g. gcbridge emulator exec -- npm test",
            reason="no_command",
        )
    return command


def _stop(proc: subprocess.Popen[bytes], first: signal.Signals) -> None:
    """Let CMD stop on ``first``; SIGTERM, then SIGKILL if it does not."""
    for sig in (first, signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=_GRACE)


def _status(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


def run_exec(
    args: argparse.Namespace,
    prepare: Callable[..., tuple[Any, Any, Any]],
) -> int:
    """Run CMD against a fresh emulator; CMD's exit status. ``prepare`` builds the emulator."""
    from gcbridge.serving import BackgroundServer

    command = _command(args)
    with contextlib.ExitStack() as stack:
        sock, settings, app = prepare(args, stack, announce=False)
        server = BackgroundServer(
            lambda port: app, host=settings.host, port=settings.port, sock=sock
        )
        server.start()
        stack.callback(server.stop)
        url = settings.public_url
        print(f"gcbridge emulator ready on {url}", file=sys.stderr, flush=True)
        site = next(iter(settings.sites))
        env = {**os.environ, **exec_environment(url, app.state.control.admin_token, site)}
        try:
            proc = subprocess.Popen(command, env=env)  # noqa: S603 (the user's own command)
        except OSError as exc:
            raise ExecError(
                f"cannot run {command[0]!r}: {exc.strerror or exc}", reason="command_failed"
            ) from None
        try:
            return _status(proc.wait())
        except KeyboardInterrupt:
            _stop(proc, signal.SIGINT)
            raise
        except BaseException:
            _stop(proc, signal.SIGTERM)
            raise
