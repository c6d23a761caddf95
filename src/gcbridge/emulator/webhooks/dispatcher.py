"""The durable webhook dispatcher: delivers pending calls, retries on the schedule.

The ``calls`` table is the queue; nothing lives only in memory. One scheduler task picks
due calls and hands each to a worker, fairly (:mod:`.fairness`); when nothing is due it
sleeps with the injected ``sleep`` until the earliest ``next_attempt_at`` or a
:meth:`Dispatcher.wake` (after a comment change or a replay commits): no polling.

Crash safety: an attempt still in flight at :meth:`Dispatcher.start` was cut by a crash;
it is marked ``interrupted`` and its call is due at once with the same delivery id (at
least once), and it does not use up an attempt of the schedule. ``retry_count`` of a call
is the ``X-Webhook-Retry-Count`` of its latest attempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import httpx

from gcbridge.clock import Clock, Sleep
from gcbridge.emulator.db import Database
from gcbridge.emulator.errors import ReceiverRefused
from gcbridge.emulator.settings import Settings
from gcbridge.emulator.webhooks.attempt import build_request, send_attempt
from gcbridge.emulator.webhooks.connections import ReceiverClients
from gcbridge.emulator.webhooks.fairness import (
    PER_RECEIVER,
    PER_SITE,
    pick,
    receiver_key,
)
from gcbridge.emulator.webhooks.journal import get_call, get_config
from gcbridge.emulator.webhooks.outbox import (
    attempts_made,
    begin_attempt,
    complete_attempt,
    due_candidates,
    finish_call,
    mark_interrupted,
    next_due,
    record_error,
    record_unsent,
)
from gcbridge.emulator.webhooks.schedule import call_outcome
from gcbridge.emulator.webhooks.ssrf import Resolver, resolve_receiver, system_resolver

__all__ = ["Dispatcher", "WORKERS"]

WORKERS = 32
"""Attempts in flight at once (they mostly wait on the network, so more than the cores); at
most ``PER_RECEIVER`` of them to one receiver and ``PER_SITE`` for one site (:mod:`.fairness`)."""

log = logging.getLogger("gcbridge.emulator.webhooks.dispatcher")


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
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        # A ManualClock brings its own sleep; real time uses asyncio's.
        self._sleep: Sleep = sleep or getattr(clock, "sleep", None) or asyncio.sleep
        self._transport = transport
        self.resolver: Resolver = system_resolver  # tests put a fake one here
        self._receivers: dict[str, str] = {}  # call id in flight -> its receiver
        self._sites: dict[str, str] = {}  # call id in flight -> its site
        self._blocked: set[str] = set()  # sites with due calls held back by the cap
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._clients: ReceiverClients | None = None
        self._inflight: dict[str, asyncio.Task[None]] = {}
        # settle(): a ticket per request, released by the first idle pass that saw it.
        self._asked = 0
        self._settlers: list[tuple[int, asyncio.Future[None]]] = []

    # -- lifecycle ---------------------------------------------------------

    async def start(self) -> None:
        """Recover attempts cut by a crash, then deliver in the background."""
        if self._task is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        self._clients = ReceiverClients(
            timeout=self.settings.attempt_timeout,
            transport=self._transport,
            max_connections=WORKERS,
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
        self._receivers.clear()
        self._sites.clear()
        self._release(self._asked)
        if self._clients is not None:
            await self._clients.aclose()
            self._clients = None

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

    @property
    def running(self) -> bool:
        """Whether the dispatcher is delivering (between ``start`` and ``stop``)."""
        return self._task is not None

    async def settle(self) -> None:
        """Return once every attempt due at the clock's current time has run and been journaled."""
        if self._task is None or self._loop is None:
            return
        self._asked += 1
        waiter = self._loop.create_future()
        self._settlers.append((self._asked, waiter))
        self.wake()
        task = self._task
        # Never wait on a scheduler that died: its failure is the answer.
        await asyncio.wait({waiter, task}, return_when=asyncio.FIRST_COMPLETED)
        if not waiter.done():
            waiter.cancel()
            raise RuntimeError("the webhook dispatcher stopped") from (
                None if task.cancelled() else task.exception()
            )

    def _release(self, seen: int) -> None:
        for ticket, waiter in self._settlers:
            if ticket <= seen and not waiter.done():
                waiter.set_result(None)
        self._settlers = [(ticket, w) for ticket, w in self._settlers if ticket > seen]

    def recover(self) -> int:
        """Mark attempts left in flight by a crash ``interrupted``; returns how many."""
        with self.db.transaction() as conn:
            count = mark_interrupted(conn, self.clock.now())
        if count:
            log.warning("resuming %d webhook attempt(s) cut by a restart", count)
        return count

    # -- scheduling --------------------------------------------------------

    async def _run(self) -> None:
        assert self._event is not None
        while True:
            self._event.clear()
            seen = self._asked
            now = self.clock.now()
            free = WORKERS - len(self._inflight)
            for call_id, receiver, site in self._due(now, free) if free > 0 else []:
                task = asyncio.create_task(self._attempt(call_id), name=f"webhook-call-{call_id}")
                self._inflight[call_id] = task
                self._receivers[call_id] = receiver
                self._sites[call_id] = site
            if WORKERS - len(self._inflight) <= 0:
                await self._event.wait()  # a worker finishing sets it
                continue
            wakeup = self._next_due()
            if not self._inflight and (wakeup is None or wakeup > now):
                self._release(seen)  # idle at ``now``: settle() callers may go on
            if wakeup is None:
                await self._event.wait()
            elif wakeup > now:
                await self._wait(wakeup - now)
            else:
                await asyncio.sleep(0)  # never spin without yielding to the loop

    def _due(self, now: float, limit: int) -> list[tuple[str, str, str]]:
        """Due calls to start now: round-robin by site, within each receiver's and site's cap."""
        with self.db.read() as conn:
            rows = due_candidates(conn, now, PER_RECEIVER, self._inflight)
        sites = {call_id: site for call_id, site, _ in rows}
        candidates = [(call_id, receiver_key(url, site)) for call_id, site, url in rows]
        chosen = pick(
            candidates,
            self._receivers,
            free=limit,
            per_receiver=PER_RECEIVER,
            site_of={**self._sites, **sites},
            per_site=PER_SITE,
        )
        taken = {call_id for call_id, _ in chosen}
        self._blocked = {sites[c] for c, _ in candidates if c not in taken}
        return [(call_id, receiver, sites[call_id]) for call_id, receiver in chosen]

    def _next_due(self) -> float | None:
        with self.db.read() as conn:
            return next_due(conn, self._inflight, self._blocked)

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
        except Exception as exc:
            # Never leave a due call behind to spin on: fail it, with the error on an
            # attempt of its own so that the journal says what happened.
            log.warning("webhook call %s: %s: %s", call_id, type(exc).__name__, exc)
            with self.db.transaction() as conn:
                record_error(conn, call_id, self.clock.now(), f"send_error:{type(exc).__name__}")
        finally:
            self._inflight.pop(call_id, None)
            self._receivers.pop(call_id, None)
            self._sites.pop(call_id, None)
            if self._event is not None:
                self._event.set()

    # -- one attempt -------------------------------------------------------

    async def _deliver(self, call_id: str) -> None:
        with self.db.read() as conn:
            call = get_call(conn, call_id)
            if call is None or call["status"] != "pending":
                return
            config = get_config(conn, call["website_id"])
            number, counted = attempts_made(conn, call_id)
        if config is None or not config.enabled:
            with self.db.transaction() as conn:
                finish_call(conn, call_id, "failed", None, None, "webhook_disabled")
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
        except ValueError as exc:  # UnicodeError from the IDNA codec of a stored URL, ...
            refused = f"bad_url:{type(exc).__name__}"
            self._record_unsent(call_id, number, config.url, refused, final=True)
            return

        assert self._clients is not None
        async with self._clients.lease(target) as client:
            started = self.clock.now()
            first_sent = call["first_sent_at"]
            request, sent_headers = build_request(
                client,
                target,
                secret=config.secret,
                body=bytes(call["body"]),
                delivery_id=call["delivery_id"],
                number=number,
                first_sent_at=started if first_sent is None else first_sent,
                now=started,
            )
            # Committed before the request leaves: a crash from here on leaves the
            # row in flight, and recover() resumes the call.
            with self.db.transaction() as conn:
                attempt_id = begin_attempt(conn, call_id, number, started, sent_headers, config.url)
            result = await send_attempt(
                client,
                request,
                timeout=self.settings.attempt_timeout,
                body_limit=self.settings.response_body_limit,
                now=self.clock.now,
            )

        status, error = result.status, result.error
        call_status, due, call_error = call_outcome(
            self.settings.retry_schedule,
            counted + 1,
            self.clock.now(),
            status,
            error,
            result.retry_after,
        )
        # One transaction completes the attempt row and moves the call on.
        with self.db.transaction() as conn:
            complete_attempt(conn, attempt_id, result)
            current = get_config(conn, call["website_id"])
            if call_status == "pending" and (current is None or not current.enabled):
                # Disabled while this attempt was in flight: no retry.
                call_status, due, call_error = "failed", None, "webhook_disabled"
            finish_call(conn, call_id, call_status, status, due, call_error, retries=number)
        log.debug("webhook call %s attempt %d: %s %s", call_id, number, status, error or "")

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
        status, due, call_error = call_outcome(
            self.settings.retry_schedule, counted + 1, now, None, error, final=final
        )
        with self.db.transaction() as conn:
            record_unsent(conn, call_id, number, now, error)
            finish_call(conn, call_id, status, None, due, call_error, url=url, retries=number)
