"""A delivery log that stops answering: every request is answered 503 with Retry-After, none
queues behind a hung call, and an outage between a claim and its completion is settled once.

Real servers, hung with SIGSTOP (their sockets stay open and silent: what a frozen VM or
a partition looks like), for the README's receiver and for ``gcbridge webhooks listen``.
"""

import concurrent.futures
import sqlite3

import pytest

from tests.webhooks.delivery_log.outage_support import (
    fresh,
    own_server,
    post,
    serving,
    until_answered,
)
from tests.webhooks.delivery_servers import hung

TIMEOUT = 1.0  # the log's bound per call: short, so that the tests wait little


@pytest.fixture(scope="module")
def own_postgres():
    with own_server("postgres") as url:
        yield url


@pytest.fixture(scope="module")
def own_redis():
    with own_server("redis") as url:
        yield url


@pytest.fixture(params=["postgres", "redis"])
def hangable(request):
    """(kind, URL of an emptied log on a server this module may hang)."""
    return request.param, fresh(request.getfixturevalue(f"own_{request.param}"))


@pytest.mark.parametrize("app_kind", ["receiver", "listen"])
def test_a_hung_server_is_503_with_retry_after_for_every_request(hangable, app_kind):
    kind, url = hangable
    with serving(app_kind, url, timeout=TIMEOUT) as (client, handled, _):
        assert post(client, 0, delivery_id="before").status_code == 200
        with hung(url), concurrent.futures.ThreadPoolExecutor(6) as pool:
            # More requests at once than the log has connections: none waits behind another.
            futures = [pool.submit(post, client, n, delivery_id=f"during-{n}") for n in range(6)]
            answers = [future.result() for future in futures]
        for answer in answers:
            assert answer.status_code == 503
            assert answer.json()["error"] == "delivery_log_unavailable"
            assert int(answer.headers["Retry-After"]) > 0
        assert len(handled.events) == 1  # nothing handled unguarded
        # The server is back: the service's retries get through.
        assert until_answered(client, 100, delivery_id="during-0")[-1].json() == {"ok": True}
        assert len(handled.events) == 2


@pytest.mark.parametrize("app_kind", ["receiver", "listen"])
def test_a_locked_sqlite_file_is_503_with_retry_after(tmp_path, app_kind):
    path = tmp_path / "deliveries.db"
    with serving(app_kind, f"sqlite:///{path}", timeout=0.2) as (client, handled, _):
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")  # another process holds the file
        try:
            answers = [post(client, n, delivery_id=f"d-{n}") for n in range(2)]
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        for answer in answers:
            assert answer.status_code == 503
            assert answer.json()["error"] == "delivery_log_unavailable"
            assert int(answer.headers["Retry-After"]) > 0
        assert handled.events == []
        assert post(client, 10, delivery_id="d-0", retry=1).json() == {"ok": True}


@pytest.mark.parametrize("app_kind", ["receiver", "listen"])
def test_an_outage_between_claim_and_completion_is_settled_once(hangable, app_kind):
    """The handler runs, then the log stops answering before the claim is completed."""
    kind, url = hangable
    with serving(app_kind, url, timeout=TIMEOUT) as (client, handled, _):
        stopped = hung(url)
        handled.on_handle = stopped.__enter__  # right after the handling, before completion
        try:
            first = post(client, 0)
        finally:
            stopped.__exit__(None, None, None)
        # The handler succeeded: its answer stands (no 500, the service need not retry).
        assert first.status_code == 200 and first.json() == {"ok": True}
        # The service retries anyway (an answer lost on the way): the held-back completion
        # is written first, so the retry is a duplicate, never handled a second time.
        answers = until_answered(client, 100)
        assert answers[-1].json() == {"duplicate": True, "delivery_id": "d-1"}
        assert len(handled.events) == 1
        if app_kind == "listen":
            assert len(handled.verified()) == 1
            assert "duplicate" in handled.lines[-1] and handled.lines[-1].startswith("SKIPPED")


def test_a_urls_own_bounds_are_kept_and_the_missing_ones_added():
    psycopg = pytest.importorskip("psycopg")
    from gcbridge.webhooks.delivery_log.postgres_store import _connection_params

    url = "postgresql://app@db/x?keepalives_idle=30&options=-c%20statement_timeout%3D9000"
    params = _connection_params(psycopg, url, 2.0)
    assert params["keepalives_idle"] == "30" and params["keepalives"] == "1"
    assert params["tcp_user_timeout"] == "2000"
    options = params["options"].split()
    assert "statement_timeout=9000" in options and "statement_timeout=2000" not in options
    assert "lock_timeout=2000" in options
