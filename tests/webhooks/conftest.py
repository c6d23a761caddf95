"""Fixtures of this directory.

- ``gc_webhook``, whether or not the package's pytest11 entry point is installed in the
  environment running the suite (a conftest fixture simply takes precedence over the plugin's);
- the delivery log suites' real PostgreSQL and Redis servers, started here:
  ``shared_log_url`` is parametrized over the three backends; a backend whose server
  binary is missing is a skip naming the package to install.
"""

import pytest

from gcbridge.webhooks.pytest_plugin import gc_webhook
from tests.webhooks.delivery_servers import ServerUnavailable, postgres_server, redis_server, reset

__all__ = ["gc_webhook"]

BACKENDS = ["sqlite", "postgres", "redis"]


def _server(factory):
    try:
        with factory() as url:
            yield url
    except ServerUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def postgres_url():
    """A throwaway PostgreSQL cluster for the whole session."""
    yield from _server(postgres_server)


@pytest.fixture(scope="session")
def redis_url():
    """A throwaway redis-server for the whole session."""
    yield from _server(redis_server)


@pytest.fixture(params=BACKENDS)
def shared_log_url(request, tmp_path):
    """An empty delivery log URL on each backend in turn."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'deliveries.db'}"
    url = request.getfixturevalue(f"{request.param}_url")
    reset(url)
    return url
