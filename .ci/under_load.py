"""Run a command while every core is also busy, the way a shared CI runner looks.

    python .ci/under_load.py [--burners N] -- COMMAND [ARG...]

Starts N processes (default: one per core) that spin at the same priority as the
command, runs the command, then stops them, whatever way the command ended. Exits
with the command's status. ``make test-under-load`` runs the suite this way, with
the clock-skew guard on: a race that an idle machine hides shows up here.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys

SPIN = "while True: pass"


def _burners(count: int) -> list[subprocess.Popen[bytes]]:
    return [
        subprocess.Popen(  # noqa: S603 - our own interpreter and a constant program
            [sys.executable, "-c", SPIN], stdin=subprocess.DEVNULL, start_new_session=True
        )
        for _ in range(count)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--burners", type=int, default=os.cpu_count() or 1, help="busy processes (default: cores)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG...]")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    print(
        f"==> under load: {args.burners} busy process(es) at the same priority "
        f"on {os.cpu_count()} core(s)",
        flush=True,
    )
    burners = _burners(args.burners)
    try:
        return subprocess.call(command)  # noqa: S603 - the Makefile's own command
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    finally:
        for proc in burners:
            proc.kill()
        for proc in burners:
            proc.wait()


if __name__ == "__main__":
    sys.exit(main())
