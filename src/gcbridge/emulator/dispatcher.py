"""The durable webhook dispatcher: delivers pending calls, retries on the schedule.

The ``calls`` table is the queue; nothing lives only in memory. One scheduler
task picks due calls (``status = 'pending' AND next_attempt_at <= now``) and
hands each to a worker (a few run at once); when nothing is due it sleeps with
the injected ``sleep`` until the earliest ``next_attempt_at``, or until
:meth:`Dispatcher.wake` (called after a comment change or a replay commits).
There is no polling: an idle dispatcher waits on an event.

One attempt, in order:

1. read the call and the site's *current* configuration (a disabled or removed
   webhook fails the call with error ``webhook_disabled``; a later setup and a
   replay deliver it again);
2. check the receiver (:mod:`~gcbridge.emulator.ssrf`): a refusal fails the
   call with error ``ssrf:<reason>``, no retry; a DNS failure is a network error;
3. sign with the current secret and a fresh timestamp, and commit an attempt
   row *before* sending (duration NULL = in flight, with the exact headers);
4. POST on httpx (no redirects followed, no proxies from the environment, no
   connection reuse across hosts), with ``attempt_timeout`` for the whole
   attempt, reading at most ``response_body_limit`` bytes of the answer;
5. in one transaction, complete the attempt row and move the call on per
   :mod:`~gcbridge.emulator.schedule`.

Crash safety: an attempt row still in flight at :meth:`Dispatcher.start` was cut
by a crash; it is marked ``interrupted`` and its call is due at once, with the
same delivery id (at least once). An interrupted attempt does not use up one of
the schedule's attempts, since the receiver may never have seen it.

``retry_count`` of a call is the ``X-Webhook-Retry-Count`` of its latest attempt
(0 until a retry happens); its attempts list has one entry per attempt made.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import time
from typing import Any

import httpx

from gcbridge.clock import Clock, Sleep, utc_iso
from gcbridge.emulator.db import Database
from gcbridge.emulator.errors import ReceiverRefused
from gcbridge.emulator.journal import get_call, get_config
from gcbridge.emulator.schedule import classify, next_attempt, parse_retry_after
from gcbridge.emulator.settings import Settings
from gcbridge.emulator.ssrf import Resolver, pin_request, resolve_receiver, system_resolver
from gcbridge.webhooks.signature import (
    DELIVERY_ID_HEADER,
    FIRST_SENT_AT_HEADER,
    RETRY_COUNT_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    USER_AGENT,
    sign,
)

__all__ = ["Dispatcher", "DEFAULT_WORKERS"]

DEFAULT_WORKERS = 4
"""Attempts in flight at once."""

log = logging.getLogger("gcbridge.emulator.dispatcher")

_INTERRUPTED = "interrupted"


class Dispatcher:
    """Delivers the journal's pending calls; ``start``/``stop`` with the app, ``wake`` on news."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        *,
        clock: Clock,
        sleep: Sleep | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        resolver: Resolver | None = None,
        workers: int = DEFAULT_WORKERS,
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        # A ManualClock brings its own sleep; real time uses asyncio's.
        self._sleep: Sleep = sleep or getattr(clock, "sleep", None) or asyncio.sleep
        self._transport = transport
        self.resolver: Resolver = resolver or system_resolver
        self._workers = max(1, workers)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._client: httpx.AsyncClient | None = None
        self._inflight: dict[str, asyncio.Task[None]] = {}

    # -- lifecycle ---------------------------------------------------------

    async def start(self) -> None:
        """Recover attempts cut by a crash, then deliver in the background."""
        if self._task is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        self._client = httpx.AsyncClient(
            transport=self._transport,
            follow_redirects=False,
            timeout=self.settings.attempt_timeout,
            trust_env=False,  # an HTTP(S)_PROXY must not bypass the address pinning
            # A pinned connection is keyed by IP: reusing it for another host name
            # would skip that name's TLS check, so every attempt connects afresh.
            limits=httpx.Limits(max_keepalive_connections=0),
        )
        self.recover()
        self._task = asyncio.create_task(self._run(), name="gcbridge-dispatcher")

    async def stop(self) -> None:
        """Stop delivering; attempts in flight are cut (and resumed by the next start)."""
        task, self._task = self._task, None
        tasks = [t for t in (task, *self._inflight.values()) if t is not None]
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self._inflight.clear()
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def wake(self) -> None:
        """Look for due calls now (safe from any thread)."""
        loop, event = self._loop, self._event
        if loop is None or event is None:
            return
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            event.set()
        else:
            with contextlib.suppress(RuntimeError):  # loop already closed
                loop.call_soon_threadsafe(event.set)

    def recover(self) -> int:
        """Mark attempts left in flight by a crash ``interrupted``; returns how many."""
        now = self.clock.now()
        with self.db.transaction() as conn:
            rows = conn.execute(
                "SELECT id, call_id FROM attempts WHERE duration_ms IS NULL AND error IS NULL"
            ).fetchall()
            for row in rows:
                conn.execute(
                    "UPDATE attempts SET error = ? WHERE id = ?", (_INTERRUPTED, row["id"])
                )
                conn.execute(
                    "UPDATE calls SET next_attempt_at = ? WHERE id = ? AND status = 'pending'",
                    (now, row["call_id"]),
                )
        if rows:
            log.warning("resuming %d webhook attempt(s) cut by a restart", len(rows))
        return len(rows)

    # -- scheduling --------------------------------------------------------

    async def _run(self) -> None:
        assert self._event is not None
        while True:
            self._event.clear()
            now = self.clock.now()
            free = self._workers - len(self._inflight)
            for call_id in self._due(now, free) if free > 0 else []:
                task = asyncio.create_task(self._attempt(call_id), name=f"webhook-call-{call_id}")
                self._inflight[call_id] = task
            if self._workers - len(self._inflight) <= 0:
                await self._event.wait()  # a worker finishing sets it
                continue
            wakeup = self._next_due()
            if wakeup is None:
                await self._event.wait()
            elif wakeup > now:
                await self._wait(wakeup - now)
            else:
                await asyncio.sleep(0)  # never spin without yielding to the loop

    def _exclusion(self) -> tuple[str, list[str]]:
        ids = list(self._inflight)
        if not ids:
            return "", []
        return f" AND id NOT IN ({','.join('?' * len(ids))})", ids

    def _due(self, now: float, limit: int) -> list[str]:
        extra, ids = self._exclusion()
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT id FROM calls WHERE status = 'pending' AND next_attempt_at <= ?"  # noqa: S608
                + extra
                + " ORDER BY next_attempt_at, seq LIMIT ?",
                (now, *ids, limit),
            ).fetchall()
        return [r["id"] for r in rows]

    def _next_due(self) -> float | None:
        extra, ids = self._exclusion()
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT MIN(next_attempt_at) FROM calls WHERE status = 'pending'" + extra,  # noqa: S608
                ids,
            ).fetchone()
        return None if row[0] is None else float(row[0])

    async def _wait(self, seconds: float) -> None:
        # With a ManualClock the sleep moves time at once, even if a wake() wins the
        # race: waiting is what lets simulated time pass.
        assert self._event is not None
        sleeper = asyncio.ensure_future(self._sleep(seconds))
        waker = asyncio.ensure_future(self._event.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in (sleeper, waker):
                t.cancel()

    async def _attempt(self, call_id: str) -> None:
        try:
            await self._deliver(call_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            # Never leave a due call behind to spin on: fail it, visibly.
            log.exception("webhook call %s: internal error", call_id)
            with self.db.transaction() as conn:
                conn.execute(
                    "UPDATE calls SET status = 'failed', next_attempt_at = NULL, error = ? "
                    "WHERE id = ? AND status = 'pending'",
                    ("internal_error", call_id),
                )
        finally:
            self._inflight.pop(call_id, None)
            if self._event is not None:
                self._event.set()

    # -- one attempt -------------------------------------------------------

    async def _deliver(self, call_id: str) -> None:
        with self.db.read() as conn:
            call = get_call(conn, call_id)
            if call is None or call["status"] != "pending":
                return
            config = get_config(conn, call["website_id"])
            number, counted = _attempts_made(conn, call_id)
        if config is None or not config.enabled:
            with self.db.transaction() as conn:
                _finish_call(
                    conn, call_id, "failed", None, None, "webhook_disabled", config_url=None
                )
            return

        try:
            target = await resolve_receiver(
                config.url,
                allow_private=self.settings.allow_private_receivers,
                resolver=self.resolver,
            )
        except ReceiverRefused as exc:
            self._record_unsent(call_id, number, config.url, f"ssrf:{exc.reason}", final=True)
            return
        except OSError:
            self._record_unsent(call_id, number, config.url, "dns_error", counted=counted)
            return

        body = bytes(call["body"])
        started = self.clock.now()
        first_sent = call["first_sent_at"] if call["first_sent_at"] is not None else started
        timestamp_ms = int(started * 1000)
        url, pin_headers, extensions = pin_request(target)
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            SIGNATURE_HEADER: sign(config.secret, timestamp_ms, body),
            TIMESTAMP_HEADER: str(timestamp_ms),
            DELIVERY_ID_HEADER: call["delivery_id"],
            RETRY_COUNT_HEADER: str(number),
            FIRST_SENT_AT_HEADER: utc_iso(first_sent),
            **pin_headers,
        }
        assert self._client is not None
        request = self._client.build_request(
            "POST", url, content=body, headers=headers, extensions=extensions
        )
        sent_headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in request.headers.raw}
        with self.db.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO attempts (call_id, number, started_at, request_headers) "
                "VALUES (?, ?, ?, ?)",
                (call_id, number, started, json.dumps(sent_headers)),
            )
            attempt_id = cur.lastrowid
            conn.execute(
                "UPDATE calls SET first_sent_at = COALESCE(first_sent_at, ?), url = ? WHERE id = ?",
                (started, config.url, call_id),
            )

        status, error, location, text, retry_after, duration = await self._send(request)
        outcome = classify(status)
        now = self.clock.now()
        if outcome == "succeeded":
            call_status, due, call_error = "succeeded", None, None
        else:
            error = error or ("redirect" if status is not None and 300 <= status <= 399 else None)
            last = error or f"http_{status}"
            due = next_attempt(self.settings.retry_schedule, counted + 1, now, status, retry_after)
            if due is not None:
                call_status, call_error = "pending", last
            elif outcome == "retry":
                call_status, call_error = "failed", f"retries_exhausted:{last}"
            else:
                call_status, call_error = "failed", last
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE attempts SET duration_ms = ?, response_code = ?, error = ?, location = ?, "
                "response_body = ? WHERE id = ?",
                (duration, status, error, location, text, attempt_id),
            )
            conn.execute("UPDATE calls SET retry_count = ? WHERE id = ?", (number, call_id))
            current = get_config(conn, call["website_id"])
            if call_status == "pending" and (current is None or not current.enabled):
                # Disabled while this attempt was in flight: no retry.
                call_status, due, call_error = "failed", None, "webhook_disabled"
            _finish_call(conn, call_id, call_status, status, due, call_error, config_url=None)
        log.debug("webhook call %s attempt %d: %s %s", call_id, number, status, error or "")

    async def _send(
        self, request: httpx.Request
    ) -> tuple[int | None, str | None, str | None, str | None, float | None, float]:
        """(status, error, location, truncated body, retry-after seconds, duration ms)."""
        assert self._client is not None
        limit = self.settings.response_body_limit
        t0 = time.perf_counter()
        try:
            async with asyncio.timeout(self.settings.attempt_timeout):
                response = await self._client.send(request, stream=True)
                try:
                    chunks = bytearray()
                    async for chunk in response.aiter_bytes():
                        chunks += chunk
                        if len(chunks) >= limit:
                            break
                finally:
                    await response.aclose()
        except (TimeoutError, httpx.TimeoutException):
            return None, "timeout", None, None, None, _ms(t0)
        except httpx.ConnectError:
            return None, "connect_error", None, None, None, _ms(t0)
        except httpx.TransportError as exc:
            return None, f"network_error:{type(exc).__name__}", None, None, None, _ms(t0)
        status = response.status_code
        location = response.headers.get("location") if 300 <= status <= 399 else None
        raw_retry = response.headers.get("retry-after")
        retry_after = parse_retry_after(raw_retry, self.clock.now()) if raw_retry else None
        text = bytes(chunks[:limit]).decode("utf-8", "replace")
        return status, None, location, text, retry_after, _ms(t0)

    def _record_unsent(
        self,
        call_id: str,
        number: int,
        url: str,
        error: str,
        *,
        final: bool = False,
        counted: int = 0,
    ) -> None:
        """An attempt that sent nothing (refused receiver, DNS failure)."""
        now = self.clock.now()
        due = None if final else next_attempt(self.settings.retry_schedule, counted + 1, now, None)
        if due is not None:
            status, call_error = "pending", error
        else:
            status, call_error = "failed", error if final else f"retries_exhausted:{error}"
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO attempts (call_id, number, started_at, duration_ms, error, "
                "request_headers) VALUES (?, ?, ?, 0, ?, '{}')",
                (call_id, number, now, error),
            )
            conn.execute("UPDATE calls SET retry_count = ? WHERE id = ?", (number, call_id))
            _finish_call(conn, call_id, status, None, due, call_error, config_url=url)


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


def _attempts_made(conn: sqlite3.Connection, call_id: str) -> tuple[int, int]:
    """(attempts made, attempts that count against the schedule)."""
    row = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(error IS NULL OR error != ?), 0) FROM attempts "
        "WHERE call_id = ?",
        (_INTERRUPTED, call_id),
    ).fetchone()
    return int(row[0]), int(row[1])


def _finish_call(
    conn: sqlite3.Connection,
    call_id: str,
    status: str,
    response_code: int | None,
    next_at: float | None,
    error: str | None,
    *,
    config_url: str | None,
) -> None:
    fields: dict[str, Any] = {
        "status": status,
        "response_code": response_code,
        "next_attempt_at": next_at if status == "pending" else None,
        "error": error,
    }
    if config_url is not None:
        fields["url"] = config_url
    sets = ", ".join(f"{k} = ?" for k in fields)
    conn.execute(f"UPDATE calls SET {sets} WHERE id = ?", (*fields.values(), call_id))  # noqa: S608
