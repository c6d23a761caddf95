"""``gcbridge emulator exec [emulator options] -- CMD [ARG...]``: one command for any CI.

What CMD gets (local test credentials, passed only to CMD, never printed) and how a stop
reaches CMD's process group: docs/reference/emulator-control.md#emulator-exec.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from gcbridge.errors import GcBridgeError
from gcbridge.signals import raise_if_stopped, signal_mask, signals_deferred

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


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to process group ``pgid``; False once the group has no process left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member that changed its user: the rest still got it
        return True
    return True


def _stop(proc: subprocess.Popen[bytes], first: int, *, grace: float = _GRACE) -> None:
    """Stop CMD's process group: ``first``, then SIGTERM, then SIGKILL, each after ``grace``.

    CMD leads its group (its process id is the group's id), so its children get each
    signal with it; those still running once CMD has ended get ``grace`` more, then
    SIGKILL, so that nothing CMD started outlives exec's stop. Further stop signals are
    held until it is done: a second one (a hang-up often comes twice: from the shell and
    the kernel) must not cut the stop short and leave CMD's group running; it lands after.
    """
    group = proc.pid
    with signals_deferred():
        for sig in (first, signal.SIGTERM, signal.SIGKILL):
            if proc.poll() is not None:
                break
            _signal_group(group, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=grace)
        deadline = time.monotonic() + grace
        while _signal_group(group, 0) and time.monotonic() < deadline:
            time.sleep(0.05)
        _signal_group(group, signal.SIGKILL)


def _terminal_fd() -> int | None:
    """Stdin, if it is the terminal whose foreground this process group holds; else None."""
    try:
        if os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp():
            return 0
    except OSError:
        pass
    return None


@contextlib.contextmanager
def _terminal_given_to(pgid: int) -> Iterator[None]:
    """Give the terminal (if exec holds it) to CMD's group for the block, as a shell does.

    Without it, CMD reading the terminal would be stopped (SIGTTIN: a background group).
    Taking it back is done with SIGTTOU held: exec is then in the background itself.
    """
    fd = _terminal_fd()
    if fd is None:
        yield
        return
    with contextlib.suppress(OSError):
        os.tcsetpgrp(fd, pgid)
        _signal_group(pgid, signal.SIGCONT)  # had CMD read before it got the terminal
    try:
        yield
    finally:
        with signal_mask(signal.SIG_BLOCK, {signal.SIGTTOU}), contextlib.suppress(OSError):
            os.tcsetpgrp(fd, os.getpgrp())


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
        raise_if_stopped()  # a stop lost where it landed: CMD is not started
        try:
            # its own process group: a stop reaches CMD's children too (see _stop)
            proc = subprocess.Popen(command, env=env, process_group=0)  # noqa: S603
        except OSError as exc:
            raise ExecError(
                f"cannot run {command[0]!r}: {exc.strerror or exc}", reason="command_failed"
            ) from None
        with _terminal_given_to(proc.pid):
            try:
                raise_if_stopped()
                return _status(proc.wait())
            except KeyboardInterrupt:
                _stop(proc, signal.SIGINT)
                raise
            except BaseException:
                _stop(proc, signal.SIGTERM)  # SIGHUP included: taken as a SIGTERM
                raise
