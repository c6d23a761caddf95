"""The PostgreSQL log's schema: created once (never on a reconnect), usable by a DML-only role,
set up by its owner with ``gcbridge webhooks delivery-log init``; deadlocks retried as such.

Against the session's throwaway PostgreSQL server (tests/webhooks/delivery_servers.py).
"""

import concurrent.futures
import threading

import psycopg
import pytest

from gcbridge.cli import main
from gcbridge.clock import ManualClock
from gcbridge.webhooks import DeliveryLog
from gcbridge.webhooks.errors import DeliveryLogConfigError
from tests.webhooks.delivery_servers import reset

T = 1_700_000_000.0
TS = int(T * 1000)
APP_ROLE = "gcbridge_app"


@pytest.fixture
def pg(postgres_url):
    """The owner's URL of an empty log (no tables)."""
    reset(postgres_url)
    yield postgres_url
    reset(postgres_url)


def as_role(url, role):
    return url.replace("postgres@", f"{role}@", 1)


@pytest.fixture
def app_role(pg):
    """A login role with no CREATE anywhere (PostgreSQL 15's default for ``public``)."""
    with psycopg.connect(pg, autocommit=True) as conn:
        conn.execute(f"DROP ROLE IF EXISTS {APP_ROLE}")
        conn.execute(f"CREATE ROLE {APP_ROLE} LOGIN")
        conn.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    yield as_role(pg, APP_ROLE)
    reset(pg)
    with psycopg.connect(pg, autocommit=True) as conn:
        conn.execute(f"DROP ROLE IF EXISTS {APP_ROLE}")


def run_in_thread(fn, limit=30):
    """``fn()`` in a thread; its result, or a failure if it is still blocked after ``limit`` s."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(fn)
        try:
            return future.result(timeout=limit)
        except concurrent.futures.TimeoutError:
            raise AssertionError("blocked: the log waited on another session's lock") from None


def test_instances_opening_together_all_start_and_claim_correctly(pg):
    count, ids = 6, [f"d-{i}" for i in range(40)]
    barrier = threading.Barrier(count)

    def instance(n):
        barrier.wait()
        log = DeliveryLog.from_url(pg)  # several instances create the schema at once
        try:
            outcomes = {}
            for i, delivery_id in enumerate(ids):
                claim = log.acquire(delivery_id, f"{n:02d}{i:062d}", TS + i)
                outcomes[delivery_id] = claim.status
                if claim.status == "new":
                    log.complete(claim)
            return outcomes
        finally:
            log.close()

    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        results = list(pool.map(instance, range(count)))  # none raises
    for delivery_id in ids:
        outcomes = [result[delivery_id] for result in results]
        assert outcomes.count("new") == 1  # exactly one instance handles each id
        assert set(outcomes) <= {"new", "duplicate", "in_flight"}


def test_opening_and_reconnecting_run_no_ddl_against_busy_tables(pg):
    first = DeliveryLog.from_url(pg)
    assert first.acquire("before", "aa" * 32, TS).status == "new"
    with psycopg.connect(pg) as other:  # another instance mid-transaction on the table
        other.execute(
            "INSERT INTO gcbridge_delivery_ids VALUES ('x', 'claimed', 't', 1e12, 'ff', 1)"
        )
        # A second instance starts: no CREATE INDEX waiting behind the open transaction.
        second = run_in_thread(lambda: DeliveryLog.from_url(pg))
        assert run_in_thread(lambda: second.acquire("d-2", "bb" * 32, TS)).status == "new"
        # The first instance's connection is lost; it reconnects without any DDL.
        with psycopg.connect(pg, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = 'gcbridge-delivery-log'"
            )
        outcome = None
        for attempt in range(3):  # the first call may meet the closed connection
            try:
                outcome = run_in_thread(lambda: first.acquire("d-3", f"{attempt:064d}", TS).status)
                break
            except Exception as exc:  # noqa: BLE001
                assert getattr(exc, "reason", "") == "delivery_log_unavailable"
        assert outcome == "new"
        other.rollback()
    first.close()
    second.close()


def test_a_deadlock_is_retried_not_treated_as_a_lost_connection(pg):
    log = DeliveryLog.from_url(pg, clock=ManualClock(start=T))
    with psycopg.connect(pg) as other:
        other.execute("SET deadlock_timeout = '60s'")  # the log's session detects it first
        other.execute(
            "INSERT INTO gcbridge_delivery_ids VALUES ('d-1', 'claimed', 't', %s, 'ee', %s)",
            (T + 600, TS),
        )
        result = {}
        claim = threading.Thread(
            target=lambda: result.update(outcome=log.acquire("d-1", "cc" * 32, TS).status)
        )
        claim.start()
        with psycopg.connect(pg, autocommit=True) as watch:  # the claim waits on d-1's row
            while not watch.execute(
                "SELECT 1 FROM pg_stat_activity WHERE application_name = "
                "'gcbridge-delivery-log' AND wait_event_type = 'Lock'"
            ).fetchone():
                threading.Event().wait(0.02)
        # ... while holding the signature's row, which this session now wants: a deadlock.
        other.execute(
            "INSERT INTO gcbridge_signatures VALUES (%s, %s) ON CONFLICT DO NOTHING",
            ("cc" * 32, T + 600),
        )
        other.commit()
        claim.join(30)
    assert result == {"outcome": "in_flight"}  # retried: d-1 is the other session's claim
    log.close()


def test_a_dml_only_role_uses_tables_its_owner_created_with_init(pg, app_role, capsys):
    with pytest.raises(DeliveryLogConfigError) as info:
        DeliveryLog.from_url(app_role)  # no tables yet, and no right to create them
    assert info.value.reason == "schema_missing"
    assert "delivery-log init" in str(info.value)
    assert main(["webhooks", "delivery-log", "init", pg, "--grant", APP_ROLE]) == 0
    assert "created" in capsys.readouterr().out
    log = DeliveryLog.from_url(app_role, clock=ManualClock(start=T))
    claim = log.acquire("d-1", "aa" * 32, TS)
    assert claim.status == "new"
    log.complete(claim)
    assert log.acquire("d-1", "bb" * 32, TS + 1).status == "duplicate"
    other = log.acquire("d-2", "cc" * 32, TS)
    assert other.status == "new"
    log.release(other)
    assert log.prune() >= 0
    log.close()
    assert main(["webhooks", "delivery-log", "init", pg]) == 0  # idempotent
    assert "already there" in capsys.readouterr().out


def test_a_missing_privilege_is_named(pg, app_role):
    from gcbridge.webhooks.delivery_log.postgres_schema import schema_sql

    with psycopg.connect(pg, autocommit=True) as owner:
        owner.execute(schema_sql())  # the owner runs the printed SQL
        owner.execute(
            f"GRANT SELECT, INSERT, UPDATE ON gcbridge_delivery_ids, gcbridge_signatures, "
            f"gcbridge_delivery_log_schema TO {APP_ROLE}"
        )
    with pytest.raises(DeliveryLogConfigError) as info:
        DeliveryLog.from_url(app_role)
    assert info.value.reason == "missing_privilege"
    assert "DELETE on gcbridge_delivery_ids" in str(info.value)
    assert "UPDATE" not in str(info.value).split(":")[0]


def test_init_refuses_a_role_that_may_not_create(pg, app_role, capsys):
    assert main(["webhooks", "delivery-log", "init", app_role]) == 1
    assert "[missing_privilege]" in capsys.readouterr().err


def test_print_sql_is_the_schema_and_its_grants(capsys, pg):
    assert main(["webhooks", "delivery-log", "init", "--print-sql", "--grant", "app"]) == 0
    printed = capsys.readouterr().out
    assert 'TO "app"' in printed and printed.startswith("BEGIN;")
    with psycopg.connect(pg, autocommit=True) as owner:
        owner.execute(printed.replace('TO "app"', "TO postgres"))
    log = DeliveryLog.from_url(pg)
    assert log.acquire("d-1", "aa" * 32, TS).status == "new"
    log.close()


def test_the_how_to_page_shows_the_sql_that_init_prints(capsys):
    from pathlib import Path

    page = Path(__file__).parents[3] / "docs" / "how-to" / "share-delivery-log.md"
    assert main(["webhooks", "delivery-log", "init", "--print-sql", "--grant", "app"]) == 0
    printed = capsys.readouterr().out
    assert f"```sql\n{printed}```" in page.read_text()
