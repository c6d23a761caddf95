"""``gcbridge webhooks delivery-log init URL``: set up a shared delivery log for receivers.

docs/how-to/share-delivery-log.md. URLs can hold passwords: they are never printed.
"""

from __future__ import annotations

import argparse

from gcbridge.cli import help_by_default
from gcbridge.errors import GcBridgeError

__all__ = ["register_delivery_log"]


class _UsageError(GcBridgeError):
    reason = "usage"
    exit_code = 2


def _init(args: argparse.Namespace) -> int:
    from gcbridge.webhooks.delivery_log.postgres_schema import schema_sql

    if args.print_sql:
        print(schema_sql(args.grant), end="")
        return 0
    if not args.url:
        raise _UsageError("give the log's URL, or --print-sql to print the PostgreSQL schema")
    url = str(args.url)
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme in ("postgresql", "postgres"):
        return _init_postgres(url, args.grant)
    if args.grant:
        raise _UsageError("--grant applies to a PostgreSQL log only")
    from gcbridge.webhooks import DeliveryLog

    log = DeliveryLog.from_url(url)  # SQLite: creates the file and tables; Redis: a ping
    try:
        if log.backend == "redis":
            print("the Redis delivery log needs no set-up: the server answers")
        else:
            print(f"the {log.backend} delivery log is ready")
    finally:
        log.close()
    return 0


def _init_postgres(url: str, grant: str | None) -> int:
    from gcbridge.webhooks.delivery_log.postgres_schema import SCHEMA_VERSION, init_schema
    from gcbridge.webhooks.delivery_log.postgres_store import load_psycopg
    from gcbridge.webhooks.errors import DeliveryLogUnavailable

    psycopg = load_psycopg()
    try:
        created = init_schema(url, grant_to=grant, psycopg=psycopg)
    except psycopg.OperationalError as exc:
        # The message names the error type only: the server's can hold the URL.
        raise DeliveryLogUnavailable(
            f"cannot reach the PostgreSQL server: {type(exc).__name__}",
            reason="delivery_log_unavailable",
        ) from None
    what = "created" if created else "already there"
    print(f"PostgreSQL delivery log tables {what} (schema version {SCHEMA_VERSION})")
    if grant:
        print(f"granted SELECT, INSERT, UPDATE, DELETE on them to {grant}")
    return 0


def register_delivery_log(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``delivery-log init`` under ``gcbridge webhooks``."""
    group = sub.add_parser(
        "delivery-log",
        allow_abbrev=False,
        help="set up a shared delivery log (PostgreSQL tables) before receivers use it",
        description="Set up a shared delivery log before receivers use it.",
    )
    actions = group.add_subparsers(dest="delivery_log_command", metavar="ACTION")
    help_by_default(group)
    init = actions.add_parser(
        "init",
        allow_abbrev=False,
        help="create the log's tables (run as their owner), or print their SQL",
        description=(
            "Create the delivery log's tables as the role in URL (their owner), so that "
            "receivers can run as a role with DML rights only. Idempotent."
        ),
    )
    init.add_argument(
        "url", nargs="?", metavar="URL", help="postgresql://... (sqlite and redis: a check)"
    )
    init.add_argument(
        "--grant",
        metavar="ROLE",
        help="also grant the receivers' ROLE SELECT, INSERT, UPDATE, DELETE on the tables",
    )
    init.add_argument(
        "--print-sql",
        action="store_true",
        help="print the PostgreSQL SQL (with --grant's GRANTs) instead of running it",
    )
    init.set_defaults(func=_init)
