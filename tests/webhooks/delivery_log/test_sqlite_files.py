"""The SQLite delivery log's files are private whatever the umask."""

import os
import stat

import pytest

from gcbridge.webhooks import DeliveryLog


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture(params=[0o000, 0o022, 0o002])
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


@pytest.mark.parametrize("how", ["path", "url"])
def test_database_wal_shm_are_0600_and_a_created_directory_0700(tmp_path, umask, how):
    path = tmp_path / "receiver" / "data" / "deliveries.db"
    log = DeliveryLog(path) if how == "path" else DeliveryLog.from_url(f"sqlite:///{path}")
    log.complete(log.acquire("d1", "ab" * 32, 1_700_000_000_000))  # the -wal and -shm exist now
    for name in ("deliveries.db", "deliveries.db-wal", "deliveries.db-shm"):
        assert mode(path.parent / name) == 0o600, name
    assert mode(path.parent) == 0o700 and mode(path.parent.parent) == 0o700
    log.close()


def test_an_existing_world_readable_log_is_tightened(tmp_path, umask):
    path = tmp_path / "deliveries.db"
    DeliveryLog(path).close()
    os.chmod(path, 0o644)
    log = DeliveryLog(path)
    assert mode(path) == 0o600
    log.close()


def test_an_existing_directory_is_left_as_it_is(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    DeliveryLog(shared / "deliveries.db").close()
    assert mode(shared) == 0o755 and mode(shared / "deliveries.db") == 0o600
