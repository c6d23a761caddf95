"""``gcbridge emulator``: run the local stand-in for the commenting service.

Prints exactly one line ``gcbridge emulator ready on http://HOST:PORT`` once requests are
accepted (docs/reference/emulator-control.md). Nothing is written to the data dir before
the port is bound.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gcbridge.emulator.settings import (
    DEFAULT_ATTEMPT_TIMEOUT,
    DEFAULT_DATA_DIR,
    DEFAULT_HOST,
    DEFAULT_PORT,
    DEFAULT_RETRY_SCHEDULE,
)

__all__ = ["register", "run"]

_LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
# What ``gcbridge emulator`` imports beyond the base install: the [emulator] extra.
EMULATOR_MODULES = ("fastapi", "uvicorn", "httpx", "icu", "fastapi_offline")  # icu: pyicu-wheels


def _port(text: str) -> int:
    """A TCP port, 0-65535, in ASCII digits (parsed whole: no ``+80``, no 5,000 digits)."""
    digits = text.strip()
    if not (0 < len(digits) <= 10 and digits.isascii() and digits.isdigit()):
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a port (0-65535)")
    return int(digits)  # the range is checked with the other settings (bad_port)


def add_emulator_options(
    parser: argparse.ArgumentParser, *, default_port: int = DEFAULT_PORT
) -> None:
    """The options of ``gcbridge emulator`` (``exec`` takes them too, with a free port)."""
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help="address to listen on (default %(default)s)"
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=default_port,
        help="port (default %(default)s; 0 picks a free one)"
        if default_port
        else "port (default: a free one)",
    )
    parser.add_argument(
        "--data-dir",
        default=None,
        metavar="DIR",
        help=f"SQLite state and keys (default ./{DEFAULT_DATA_DIR})",
    )
    parser.add_argument(
        "--ephemeral",
        action="store_true",
        help="keep the data in a temporary directory, removed at exit (instead of --data-dir)",
    )
    parser.add_argument(
        "--clock",
        choices=("system", "manual"),
        default="system",
        help="system: wall time; manual: starts at the wall time and moves only when told"
        " (POST /_emulator/clock)",
    )
    parser.add_argument(
        "--admin-token-env",
        metavar="NAME",
        help="environment variable holding the token of the /_emulator/ routes"
        " (default: one generated into <data-dir>/admin-token, mode 0600)",
    )
    parser.add_argument(
        "--sites",
        metavar="FILE",
        help="sites file: TOML, one [[site]] table per site with shortname, website_id,"
        " sso_public_key, sso_secret, account_token, site_key_id, site_key_secret"
        " (see examples/sites.toml); default: one generated demo site",
    )
    parser.add_argument(
        "--front-url", metavar="URL", help="widget front end address (default <base>/widget/)"
    )
    parser.add_argument(
        "--retry-schedule",
        metavar="SECONDS",
        help="webhook retry delays, comma-separated (default "
        + ",".join(f"{delay:g}" for delay in DEFAULT_RETRY_SCHEDULE)
        + ")",
    )
    parser.add_argument(
        "--allow-private-receivers",
        action="store_true",
        help="also deliver webhooks over http and to loopback/private addresses (development only)",
    )
    parser.add_argument(
        "--attempt-timeout",
        type=float,
        default=DEFAULT_ATTEMPT_TIMEOUT,
        metavar="S",
        help="per-delivery-attempt timeout (default %(default)g)",
    )
    parser.add_argument(
        "--log-level", default="warning", choices=_LOG_LEVELS, help="server log level"
    )


def register(parser: argparse.ArgumentParser) -> None:
    """Register the sub-command's arguments."""
    add_emulator_options(parser)
    parser.set_defaults(func=run)
    from gcbridge.cli import emulator_ready

    parser.usage = (
        "%(prog)s [--host HOST] [--port PORT] [--data-dir DIR] [--sites FILE] [...]\n"
        "       %(prog)s ready [--url URL] [--timeout S]\n"
        "       %(prog)s exec [emulator options] -- CMD [ARG...]"
    )
    sub = parser.add_subparsers(dest="emulator_command", metavar="ready|exec", required=False)
    ready_help = "wait until an emulator answers (exit 0), or give up after --timeout (exit 1)"
    ready = sub.add_parser("ready", allow_abbrev=False, help=ready_help, description=ready_help)
    emulator_ready.register(ready)
    from gcbridge.cli.unknown_option import blame_unknown_options

    blame_unknown_options(parser)  # "--prot 8000" names --prot, not the `ready` sub-command
    exec_help = "start an emulator, run CMD against it (its URL and credentials in the environment)"
    exec_parser = sub.add_parser(
        "exec",
        allow_abbrev=False,
        help=exec_help,
        description=exec_help,
        prog="gcbridge emulator exec",
        usage="%(prog)s [emulator options] -- CMD [ARG...]",
    )
    add_emulator_options(exec_parser, default_port=0)
    exec_parser.add_argument(
        "command_line",
        nargs=argparse.REMAINDER,
        metavar="-- CMD [ARG...]",
        help="the command to run (after --)",
    )
    exec_parser.set_defaults(func=_exec)


def _exec(args: argparse.Namespace) -> int:
    from gcbridge.cli.emulator_exec import run_exec

    return run_exec(args, prepare)


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _check_options(args: argparse.Namespace) -> None:
    from urllib.parse import urlsplit

    from gcbridge.emulator.errors import ConfigError
    from gcbridge.emulator.settings import parse_retry_schedule

    if args.retry_schedule is not None:
        parse_retry_schedule(args.retry_schedule)
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


def admin_token_from(args: argparse.Namespace) -> str | None:
    """The admin token named by ``--admin-token-env``, or ``None`` (generated in the data dir)."""
    import os

    from gcbridge.emulator.control.token import MIN_LENGTH, admin_token_problem
    from gcbridge.emulator.errors import ConfigError

    if not args.admin_token_env:
        return None
    value = os.environ.get(args.admin_token_env, "").strip()
    if len(value) < MIN_LENGTH:
        raise ConfigError(
            f"--admin-token-env {args.admin_token_env}: the variable must hold a token of"
            f" at least {MIN_LENGTH} characters",
            reason="admin_token_env_unset",
        )
    problem = admin_token_problem(value)
    if problem is not None:
        raise ConfigError(
            f"--admin-token-env {args.admin_token_env}: not a usable token ({problem})",
            reason="bad_admin_token",
        )
    return value


def data_dir_of(args: argparse.Namespace, stack: Any) -> str:
    """``--data-dir``, or with ``--ephemeral`` a temporary directory removed with ``stack``."""
    import tempfile

    from gcbridge.emulator.errors import ConfigError

    if not args.ephemeral:
        return str(args.data_dir or DEFAULT_DATA_DIR)
    if args.data_dir:
        raise ConfigError("--ephemeral and --data-dir: choose one", reason="bad_data_dir")
    path = tempfile.mkdtemp(prefix="gcbridge-emulator-")
    stack.callback(_remove_ephemeral, path)
    return path


def _remove_ephemeral(path: str) -> None:
    """Remove the ``--ephemeral`` data dir, whole: a stop signal lands after, not half-way."""
    import shutil

    from gcbridge.signals import signals_deferred

    with signals_deferred():
        shutil.rmtree(path, ignore_errors=True)


def run(args: argparse.Namespace) -> int:
    """Check the options and the sites file, bind, write the demo site, serve until a signal."""
    import contextlib

    from gcbridge.cli.foreground import serve_foreground

    with contextlib.ExitStack() as stack:
        sock, settings, app = prepare(args, stack, announce=True)
        base = _url(args.host, settings.port)

        def ready() -> None:
            # Where to look (the dashboard, the API pages), then the line scripts wait for.
            print(f"gcbridge emulator: dashboard {base}/dashboard/ · API {base}/docs", flush=True)
            print(f"gcbridge emulator ready on {base}", flush=True)

        return serve_foreground(
            app,
            sock,
            name="gcbridge emulator",
            log_level=args.log_level,
            access_log=args.log_level in ("info", "debug"),
            on_ready=ready,
        )


def prepare(args: argparse.Namespace, stack: Any, *, announce: bool) -> tuple[Any, Any, Any]:
    """Check the options, bind, build the settings and the app: ``(socket, settings, app)``.

    ``announce`` prints the sites' lines (``exec`` passes the credentials to its command).
    """
    import dataclasses

    from gcbridge.cli.extras import require_extra

    require_extra("gcbridge emulator", "emulator", EMULATOR_MODULES)

    from gcbridge.cli.ports import bind_port
    from gcbridge.emulator.datalock import lock_data_dir
    from gcbridge.emulator.service import create_app
    from gcbridge.emulator.settings import Settings
    from gcbridge.emulator.sites import load_sites

    _check_options(args)
    admin_token = admin_token_from(args)
    if args.sites:
        # a bad sites file is reported before anything listens; a weak one is said aloud
        for warning in load_sites(args.sites).warnings:
            print(f"gcbridge emulator: warning {warning}", file=sys.stderr)
    # Bind before the settings: they create the data dir and the demo site, and a
    # run that cannot listen must leave nothing behind.
    sock = bind_port(args.host, args.port)
    try:
        data_dir = data_dir_of(args, stack)
        # held until the stack closes (another emulator on it: one line, data_dir_in_use)
        stack.enter_context(lock_data_dir(data_dir))
        port = sock.getsockname()[1]
        settings = Settings.from_options(
            host=args.host,
            port=port,
            data_dir=data_dir,
            sites_file=args.sites,
            front_url=args.front_url,
            retry_schedule=args.retry_schedule,
            allow_private_receivers=args.allow_private_receivers,
            attempt_timeout=args.attempt_timeout,
            clock_mode=args.clock,
            admin_token=admin_token,
        )
        settings = dataclasses.replace(settings, port=port)
        if announce:
            _print_sites(settings, args)
        app = create_app(settings)
        if announce and admin_token is None:
            where = settings.data_dir / "admin-token"
            print(f"gcbridge emulator: admin token of /_emulator/ routes in {where}")
    except BaseException:
        sock.close()
        raise
    return sock, settings, app
