"""``gcbridge emulator``: run the local stand-in for the commenting service.

Prints the generated demo site's credentials the first time (local development
credentials, also saved in the data dir), then exactly one line
``gcbridge emulator ready on http://HOST:PORT`` once requests are accepted, so
scripts and CI can wait for it. ``--port 0`` picks a free port and prints it.
Ctrl-C or SIGTERM shuts down cleanly (exit status 0).
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run"]

_LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


def _port(text: str) -> int:
    """A TCP port, 0-65535, in ASCII digits (parsed whole: no ``+80``, no 5,000 digits)."""
    digits = text.strip()
    if not (0 < len(digits) <= 10 and digits.isascii() and digits.isdigit()):
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a port (0-65535)")
    return int(digits)  # the range is checked with the other settings (bad_port)


def register(parser: argparse.ArgumentParser) -> None:
    """Register the sub-command's arguments."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=_port, default=8000, help="port (default 8000; 0 picks a free one)"
    )
    parser.add_argument(
        "--data-dir",
        default=".gcbridge",
        metavar="DIR",
        help="SQLite state and keys (default ./.gcbridge)",
    )
    parser.add_argument(
        "--sites",
        metavar="FILE",
        help="sites file (TOML, [[site]] tables); default: one generated demo site",
    )
    parser.add_argument(
        "--front-url", metavar="URL", help="widget front end address (default <base>/widget/)"
    )
    parser.add_argument(
        "--retry-schedule",
        metavar="SECONDS",
        help="webhook retry delays, comma-separated (default 0,60,300,900,3600,21600)",
    )
    parser.add_argument(
        "--allow-private-receivers",
        action="store_true",
        help="also deliver webhooks over http and to loopback/private addresses (development only)",
    )
    parser.add_argument(
        "--attempt-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="per-delivery-attempt timeout (default 10)",
    )
    parser.add_argument(
        "--log-level", default="warning", choices=_LOG_LEVELS, help="server log level"
    )
    parser.set_defaults(func=run)


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _check_options(args: argparse.Namespace) -> None:
    from urllib.parse import urlsplit

    from gcbridge.emulator.errors import ConfigError

    if not 0 <= args.port <= 65535:
        raise ConfigError(f"--port {args.port}: 0-65535 (0 picks a free port)", reason="bad_port")
    if not args.attempt_timeout > 0:
        raise ConfigError(
            f"--attempt-timeout {args.attempt_timeout}: must be > 0", reason="bad_timeout"
        )
    if args.front_url is not None:
        parts = urlsplit(args.front_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(
                f"--front-url {args.front_url!r}: an absolute http(s) URL", reason="bad_front_url"
            )


def _print_sites(settings: Any, args: argparse.Namespace) -> None:
    from dataclasses import asdict

    generated = settings.generated_site
    if generated is not None:
        where = settings.data_dir / "demo-site.json"
        print(
            "gcbridge emulator: generated a demo site; "
            f"local development credentials, saved in {where}:"
        )
        for key, value in asdict(generated).items():
            print(f"  {key:<16} {value}")
        return
    for site in settings.sites:
        print(
            f"gcbridge emulator: site {site.shortname} website_id={site.website_id} "
            f"api_public_key={site.sso_public_key}"
        )
    if not args.sites:
        print(f"gcbridge emulator: credentials in {settings.data_dir / 'demo-site.json'}")


def run(args: argparse.Namespace) -> int:
    """Build the settings, bind, serve until Ctrl-C / SIGTERM."""
    import asyncio
    import contextlib
    import dataclasses
    import signal
    import sys
    import threading
    from collections.abc import Iterator

    import uvicorn

    from gcbridge.emulator.app import create_app
    from gcbridge.emulator.errors import ConfigError, EmulatorError
    from gcbridge.emulator.settings import Settings
    from gcbridge.serving import bind_socket

    _check_options(args)
    # Settings first, so that a bad sites file is reported before anything listens.
    settings = Settings.from_options(
        host=args.host,
        port=args.port or 8000,
        data_dir=args.data_dir,
        sites_file=args.sites,
        front_url=args.front_url,
        retry_schedule=args.retry_schedule,
        allow_private_receivers=args.allow_private_receivers,
        attempt_timeout=args.attempt_timeout,
    )
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on {_url(args.host, args.port)}: {exc.strerror or exc}",
            reason="bind_failed",
        ) from None
    port = sock.getsockname()[1]
    settings = dataclasses.replace(settings, port=port)
    _print_sites(settings, args)
    sys.stdout.flush()

    class Server(uvicorn.Server):
        # uvicorn re-raises a caught SIGINT/SIGTERM after shutting down, which
        # turns a clean stop into a KeyboardInterrupt or a signal death; here a
        # signal only asks the server to exit (a second Ctrl-C forces it).
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            originals = {
                sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)
            }
            try:
                yield
            finally:
                for sig, handler in originals.items():
                    signal.signal(sig, handler)

    app = create_app(settings)
    config = uvicorn.Config(
        app, log_level=args.log_level, lifespan="on", access_log=args.log_level in ("info", "debug")
    )
    server = Server(config)

    async def serve() -> None:
        task = asyncio.ensure_future(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started:
            print(f"gcbridge emulator ready on {_url(args.host, port)}", flush=True)
        await task

    try:
        asyncio.run(serve())
    except SystemExit as exc:  # uvicorn exits this way when the app's startup fails
        raise EmulatorError(
            f"the emulator failed to start (status {exc.code})", reason="startup_failed"
        ) from None
    finally:
        sock.close()
    return 0
