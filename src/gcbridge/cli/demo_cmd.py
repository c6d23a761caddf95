"""``gcbridge demo``: emulator + sample customer backend + the app window (or headless).

Heavy imports (uvicorn, Playwright, pywebview) happen inside the handler only.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Register the sub-command's arguments."""
    from gcbridge.demo.paths import DEFAULT_DATA_DIR, DEFAULT_PORT

    parser.add_argument(
        "--headless",
        action="store_true",
        help="headless Chromium instead of a window (automatic without DISPLAY/WAYLAND_DISPLAY)",
    )
    parser.add_argument(
        "--exit-after-flow",
        action="store_true",
        help="run the scripted flow (sign in, comment, verified webhook, comment listed in the"
        " widget, sign out); exit 0 only if every step happened",
    )
    parser.add_argument("--screenshot", metavar="PATH", help="save the window (or page) as PNG")
    parser.add_argument(
        "--data-dir",
        default=DEFAULT_DATA_DIR,
        metavar="DIR",
        help="emulator state and the WebView profile (default ./%(default)s)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help="emulator port (default %(default)s; fixed, as the widget session is per origin)",
    )
    parser.add_argument(
        "--stay-signed-in",
        action="store_true",
        help="skip the flow's final sign-out, so a relaunch shows the restored widget session",
    )
    parser.add_argument(
        "--user", default="alice", help="demo user the scripted flow signs in (alice, bob)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Handler of ``gcbridge demo``."""
    from gcbridge.cli.extras import require_extra

    require_extra(
        "gcbridge demo",
        "demo",
        ("fastapi", "uvicorn", "httpx", "icu", "fastapi_offline", "playwright"),
    )
    from gcbridge.demo.runner import DemoOptions, choose_mode, run_demo

    if choose_mode(args.headless) == "desktop":
        require_extra("gcbridge demo (desktop mode; --headless needs less)", "demo", ("webview",))

    return run_demo(
        DemoOptions(
            data_dir=Path(args.data_dir),  # made absolute by DemoOptions (gcbridge.demo.paths)
            port=args.port,
            headless=args.headless,
            exit_after_flow=args.exit_after_flow,
            screenshot=args.screenshot,
            stay_signed_in=args.stay_signed_in,
            username=args.user,
        )
    )
