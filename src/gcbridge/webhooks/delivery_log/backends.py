"""From a delivery log URL to its backend, and backend errors to ``DeliveryLogUnavailable``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from gcbridge.webhooks.delivery_log.base import DeliveryStore
from gcbridge.webhooks.delivery_log.deadline import TimedOut
from gcbridge.webhooks.delivery_log.sqlite_store import DEFAULT_BUSY_TIMEOUT, SqliteStore
from gcbridge.webhooks.errors import DeliveryLogConfigError, DeliveryLogUnavailable

__all__ = ["store_for", "guarded", "DEFAULT_RETENTION"]

logger = logging.getLogger("gcbridge.webhooks")

DEFAULT_RETENTION = 7 * 24 * 3600.0
"""Seconds a processed delivery id is remembered (longer than the service's retry schedule)."""

_T = TypeVar("_T")


def store_for(url: str, timeout: float | None = None) -> DeliveryStore:
    """The store for ``url`` (a path, ``sqlite://``, ``postgresql://``, ``redis://``)."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    busy = DEFAULT_BUSY_TIMEOUT if timeout is None else timeout
    if not scheme:
        return SqliteStore(url, retention=DEFAULT_RETENTION, timeout=busy)
    if scheme == "sqlite":
        path = url[len("sqlite://") :]
        path = path[1:] if path.startswith("/") else path  # sqlite:///rel, sqlite:////abs
        return SqliteStore(path or ":memory:", retention=DEFAULT_RETENTION, timeout=busy)
    if scheme in ("postgresql", "postgres"):
        from gcbridge.webhooks.delivery_log.postgres_store import (
            DEFAULT_TIMEOUT,
            PostgresStore,
            load_psycopg,
        )

        pg_timeout = DEFAULT_TIMEOUT if timeout is None else timeout
        return guarded(
            "postgresql",
            lambda: PostgresStore(url, timeout=pg_timeout),
            (load_psycopg().Error, TimedOut),
        )
    if scheme in ("redis", "rediss", "unix"):
        from gcbridge.webhooks.delivery_log.redis_store import (
            DEFAULT_TIMEOUT as REDIS_TIMEOUT,
        )
        from gcbridge.webhooks.delivery_log.redis_store import RedisStore, load_redis

        redis_timeout = REDIS_TIMEOUT if timeout is None else timeout
        return guarded(
            "redis",
            lambda: RedisStore(url, timeout=redis_timeout),
            (load_redis().RedisError,),
        )
    raise DeliveryLogConfigError(
        f"unsupported delivery log URL scheme {scheme!r}: use a file path, sqlite:///PATH, "
        "postgresql://... or redis://...",
        reason="unsupported_url",
    )


def guarded(kind: str, fn: Callable[[], _T], errors: tuple[type[BaseException], ...]) -> _T:
    """``fn()``, its backend ``errors`` (OS errors, time-outs too) as ``DeliveryLogUnavailable``."""
    try:
        return fn()
    except errors + (OSError, TimedOut) as exc:
        # The message names the error type only: backend messages can hold URLs.
        logger.warning("delivery log (%s) unavailable: %s", kind, type(exc).__name__)
        raise DeliveryLogUnavailable(
            f"the delivery log ({kind}) is unavailable: {type(exc).__name__}",
            reason="delivery_log_unavailable",
        ) from exc
