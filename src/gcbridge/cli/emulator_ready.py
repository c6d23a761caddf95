"""``gcbridge emulator ready``: wait until an emulator answers, for scripts and CI.

Needs no extra: the standard library's HTTP client only.
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from gcbridge.emulator.settings import DEFAULT_HOST, DEFAULT_PORT
from gcbridge.errors import GcBridgeError

__all__ = ["register", "run", "NotReady"]

DEFAULT_URL = f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"


class NotReady(GcBridgeError):
    """No emulator answered in time (or the URL is unusable)."""

    reason = "not_ready"


def register(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``gcbridge emulator ready``."""
    parser.add_argument(
        "--url", default=DEFAULT_URL, help="the emulator's base URL (default %(default)s)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="give up after S seconds (default %(default)g)",
    )
    parser.set_defaults(func=run)


def _healthy(url: str, timeout: float) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (http(s) checked)
            body = json.loads(response.read() or b"null")
            return response.status == 200 and isinstance(body, dict) and body.get("status") == "ok"
    except (OSError, ValueError, urllib.error.URLError):
        return False


def run(args: argparse.Namespace) -> int:
    """Poll until healthy or timed out."""
    base = args.url.rstrip("/")
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise NotReady(
            f"--url {args.url!r}: an http(s) URL such as {DEFAULT_URL}", reason="bad_url"
        )
    if not args.timeout > 0:
        raise NotReady(f"--timeout {args.timeout}: must be > 0", reason="bad_timeout")
    deadline = time.monotonic() + args.timeout
    while True:
        if _healthy(f"{base}/healthz", timeout=min(2.0, args.timeout)):
            print(f"gcbridge emulator ready on {base}", flush=True)
            return 0
        if time.monotonic() >= deadline:
            raise NotReady(
                f"no emulator answered on {base}/healthz within {args.timeout:g} s; "
                "start one with: gcbridge emulator --port "
                f"{parts.port or 80}, or pass its address with --url"
            )
        time.sleep(0.2)
