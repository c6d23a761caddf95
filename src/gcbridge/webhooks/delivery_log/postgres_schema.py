# ruff: noqa: S608  (queries join constant identifiers only; every value is a bound parameter)
"""The PostgreSQL delivery log's schema: created once, by its owner or on first use, never again.

Opening a log only *reads* (the tables, their version, this role's privileges), so a
least-privileged role (DML rights, no ``CREATE``) uses tables an owner created with
``gcbridge webhooks delivery-log init URL`` (docs/how-to/share-delivery-log.md), and
instances that start or reconnect together run no DDL against tables other instances are
writing (``CREATE INDEX`` there waits for, and deadlocks with, their claims). Missing
tables a role may create are created once, in one transaction under an advisory lock.
"""

from __future__ import annotations

from typing import Any

from gcbridge.webhooks.errors import DeliveryLogConfigError

__all__ = [
    "SCHEMA_VERSION",
    "TABLES",
    "ensure_schema",
    "create_schema",
    "schema_sql",
    "grant_sql",
    "init_schema",
]

SCHEMA_VERSION = 1
"""The version written in ``gcbridge_delivery_log_schema``."""

_LOCK_KEY = 7220451061
_VERSION_TABLE = "gcbridge_delivery_log_schema"
TABLES = ("gcbridge_delivery_ids", "gcbridge_signatures")
"""The log's tables (the role running receivers needs DML rights on them)."""

_DML = ("SELECT", "INSERT", "UPDATE", "DELETE")

# (name of the object, its DDL), in creation order.
_OBJECTS = [
    (
        "gcbridge_delivery_ids",
        """CREATE TABLE IF NOT EXISTS gcbridge_delivery_ids (
    delivery_id text PRIMARY KEY,
    state text NOT NULL,
    token text,
    expires_at double precision NOT NULL,
    signature text NOT NULL,
    timestamp_ms bigint NOT NULL)""",
    ),
    (
        "gcbridge_signatures",
        """CREATE TABLE IF NOT EXISTS gcbridge_signatures (
    signature text PRIMARY KEY,
    expires_at double precision NOT NULL)""",
    ),
    (
        "gcbridge_delivery_ids_expires_at",
        "CREATE INDEX IF NOT EXISTS gcbridge_delivery_ids_expires_at "
        "ON gcbridge_delivery_ids (expires_at)",
    ),
    (
        "gcbridge_signatures_expires_at",
        "CREATE INDEX IF NOT EXISTS gcbridge_signatures_expires_at "
        "ON gcbridge_signatures (expires_at)",
    ),
    (
        _VERSION_TABLE,
        f"CREATE TABLE IF NOT EXISTS {_VERSION_TABLE} (version integer NOT NULL)",
    ),
]

_SET_VERSION = (
    f"INSERT INTO {_VERSION_TABLE} (version) SELECT {SCHEMA_VERSION} "
    f"WHERE NOT EXISTS (SELECT 1 FROM {_VERSION_TABLE})"
)

# A scan of pg_class under the statement's own snapshot, not to_regclass: that reads the
# session's catalog cache, which may not yet know what the advisory lock's previous
# holder has just committed.
_PRESENT = """
SELECT array_agg(relname::text) FROM pg_class
WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
  AND relname = ANY(%s)"""


def grant_sql(role: str) -> str:
    """The ``GRANT`` statements that let ``role`` use the log (and nothing more)."""
    quoted = '"' + role.replace('"', '""') + '"'
    tables = ", ".join(TABLES)
    return (
        f"GRANT {', '.join(_DML)} ON {tables} TO {quoted};\n"
        f"GRANT SELECT ON {_VERSION_TABLE} TO {quoted};\n"
    )


def schema_sql(grant_to: str | None = None) -> str:
    """The whole schema as one SQL script for an owner to run (``psql -f``), idempotent."""
    lines = ["BEGIN;", f"SELECT pg_advisory_xact_lock({_LOCK_KEY});"]
    lines += [ddl + ";" for _, ddl in _OBJECTS]
    lines.append(_SET_VERSION + ";")
    script = "\n".join(lines) + "\n"
    if grant_to:
        script += grant_sql(grant_to)
    return script + "COMMIT;\n"


def _present(conn: Any) -> list[bool]:
    names = [name for name, _ in _OBJECTS]
    found = set(conn.execute(_PRESENT, (names,)).fetchone()[0] or ())
    return [name in found for name in names]


def create_schema(conn: Any, *, grant_to: str | None = None) -> bool:
    """Create what is missing, once, under an advisory lock; ``True`` if anything was created.

    ``conn`` is an autocommit psycopg connection of a role allowed to create tables.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        present = _present(conn)  # again, under the lock: another instance may have made them
        created = False
        for (_, ddl), exists in zip(_OBJECTS, present, strict=True):
            if not exists:
                conn.execute(ddl)
                created = True
        conn.execute(_SET_VERSION)
        if grant_to:
            for statement in grant_sql(grant_to).strip().split(";\n"):
                conn.execute(statement.rstrip(";"))
    return created


def ensure_schema(conn: Any, *, create: bool, psycopg: Any) -> None:
    """Check (and if allowed and needed, create) the schema; check this role's privileges."""
    if not all(_present(conn)):
        if not create:
            raise _schema_missing("the tables do not exist")
        try:
            for attempt in range(4):
                try:
                    create_schema(conn)
                    break
                except psycopg.errors.DeadlockDetected:
                    # An old schema without some index, claims running: try again.
                    if attempt == 3:
                        raise
        except psycopg.errors.InsufficientPrivilege:
            raise _schema_missing(
                "the tables do not exist and this role may not create them "
                "(it lacks CREATE on the schema)"
            ) from None
    _check_privileges(conn)
    version = conn.execute(f"SELECT max(version) FROM {_VERSION_TABLE}").fetchone()[0]
    if version is not None and int(version) > SCHEMA_VERSION:
        raise DeliveryLogConfigError(
            f"the delivery log's schema is version {version}, newer than this gc-bridge "
            f"understands ({SCHEMA_VERSION}): upgrade gc-bridge",
            reason="schema_too_new",
        )


def _check_privileges(conn: Any) -> None:
    wanted = [(table, privilege) for table in TABLES for privilege in _DML]
    wanted.append((_VERSION_TABLE, "SELECT"))
    checks = ", ".join(f"has_table_privilege('{t}', '{p}')" for t, p in wanted)
    row = conn.execute(f"SELECT current_user, {checks}").fetchone()
    role, granted = row[0], row[1:]
    missing = [f"{p} on {t}" for (t, p), ok in zip(wanted, granted, strict=True) if not ok]
    if missing:
        raise DeliveryLogConfigError(
            f"the role {role!r} lacks {', '.join(missing)}: as the tables' owner run "
            f"{grant_sql(role).strip()!r} (or gcbridge webhooks delivery-log init URL "
            f"--grant {role})",
            reason="missing_privilege",
        )


def _schema_missing(why: str) -> DeliveryLogConfigError:
    return DeliveryLogConfigError(
        f"the PostgreSQL delivery log is not set up: {why}; as the database owner run "
        "`gcbridge webhooks delivery-log init URL` (or the SQL of "
        "`gcbridge webhooks delivery-log init --print-sql`)",
        reason="schema_missing",
    )


def init_schema(url: str, *, grant_to: str | None = None, psycopg: Any) -> bool:
    """Connect to ``url`` as the tables' owner and create the schema; ``True`` if created."""
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        try:
            return create_schema(conn, grant_to=grant_to)
        except psycopg.errors.InsufficientPrivilege:
            raise DeliveryLogConfigError(
                "this role may not create the delivery log's tables (it lacks CREATE on the "
                "schema) or grant on them: run init as the database owner, or have the owner "
                "run the SQL of `gcbridge webhooks delivery-log init --print-sql`",
                reason="missing_privilege",
            ) from None
        except psycopg.errors.UndefinedObject:
            raise DeliveryLogConfigError(
                f"no role named {grant_to!r} to grant to", reason="unknown_role"
            ) from None
