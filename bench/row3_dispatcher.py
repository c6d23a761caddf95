# ruff: noqa: E501  (report prose and SQL read better unbroken)
"""Row 3: dispatcher throughput and commit-to-receiver latency.

Ours: the emulator's dispatcher (durable SQLite journal: an attempt row is
committed before each send and completed after it, SSRF resolution, a fresh
connection per attempt) delivering N events, queued by ``enqueue_event`` in
one transaction, to a receiver that verifies every signature
(``bench/servers.py receiver``, uvicorn in its own process).
Baseline: a bare httpx async loop, as many concurrent senders as the
dispatcher has workers, posting the same bodies, signed, to the same receiver
(keep-alive connections, no journal).

Then the latency: events committed one per transaction at half the
dispatcher's measured maximum rate for a few seconds; latency = the receiver's
arrival time - the call's ``created_at`` (the commit), p50 and p99.
Goals: >= 0.6x the bare loop; p99 < 100 ms at half the maximum rate.
"""

import asyncio
import statistics
import sys
import tempfile
import time
from typing import Any

from benchlib import BENCH_DIR, Measure, Row, percentile
from servers import start

TITLE = "Dispatcher throughput and commit-to-receiver latency"


def _seed_comment(state: Any) -> tuple[Any, str]:
    """One user, thread and comment to build event bodies from (no HTTP, no event)."""
    from gcbridge.emulator.auth.users import insert_user
    from gcbridge.emulator.comments.store import upsert_thread
    from gcbridge.emulator.db import new_id

    site = next(iter(state.settings.sites))
    now = time.time()
    with state.db.transaction() as conn:
        user = insert_user(
            conn,
            site=site.shortname,
            username="bench",
            email="b@example.com",
            avatar="https://example.com/a.png",
            now=now,
        )
        thread = upsert_thread(
            conn,
            site=site.shortname,
            uid="bench",
            url="https://example.com/b",
            page_title="Bench",
            now=now,
        )
        comment = new_id()
        conn.execute(
            "INSERT INTO comments (id, site, thread_id, parent_id, external_id, author_id, content, status, "
            "created_at, updated_at) VALUES (?, ?, ?, NULL, NULL, ?, ?, 'approved', ?, ?)",
            (
                comment,
                site.shortname,
                thread,
                user,
                "a comment of about a hundred bytes " * 3,
                now,
                now,
            ),
        )
    return site, comment


def _enqueue(state: Any, site: Any, comment: str, n: int) -> list[str]:
    """Queue ``n`` events in one transaction; returns their delivery ids."""
    from gcbridge.emulator.comments.payloads import event_body
    from gcbridge.emulator.webhooks.journal import enqueue_event

    def body(conn: Any, ts: int) -> bytes:
        return event_body(
            conn,
            website_id=site.website_id,
            event_type="comment.updated",
            comment_id=comment,
            timestamp_ms=ts,
        )

    with state.db.transaction() as conn:
        calls = [
            enqueue_event(
                conn,
                site=site,
                event_type="comment.updated",
                body=lambda ts, c=conn: body(c, ts),
                now=time.time(),
            )
            for _ in range(n)
        ]
        return [
            conn.execute("SELECT delivery_id FROM calls WHERE id = ?", (c,)).fetchone()[0]
            for c in calls
        ]


def _arrivals(client: Any, receiver: str) -> dict[str, float]:
    data: dict[str, float] = client.get(receiver + "/arrivals").json()["arrivals"]
    return data


def _wait_for(client: Any, receiver: str, ids: set[str], timeout: float = 60) -> dict[str, float]:
    deadline = time.monotonic() + timeout
    while True:
        got = _arrivals(client, receiver)
        if ids <= got.keys():
            return got
        if time.monotonic() > deadline:
            raise RuntimeError(f"{len(ids - got.keys())} deliveries never arrived")
        time.sleep(0.05)


async def _bare_loop(url: str, secret: str, bodies: list[bytes], workers: int) -> float:
    import httpx

    from gcbridge.webhooks import sign

    queue = list(enumerate(bodies))
    async with httpx.AsyncClient(timeout=10) as client:

        async def worker() -> None:
            while queue:
                i, body = queue.pop()
                ts = int(time.time() * 1000)
                r = await client.post(
                    url,
                    content=body,
                    headers={
                        "Content-Type": "application/json",
                        "X-Webhook-Signature": sign(secret, ts, body),
                        "X-Webhook-Timestamp": str(ts),
                        "X-Webhook-Delivery-Id": f"bare-{time.time_ns()}-{i}",
                        "X-Webhook-Retry-Count": "0",
                        "User-Agent": "bench",
                    },
                )
                r.raise_for_status()

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(workers)))
        return time.perf_counter() - t0


def run(quick: bool) -> Row:
    """Throughput (ours vs bare loop) in rounds, then latency at half rate."""
    import httpx

    from gcbridge.emulator.testing import EXAMPLE_SITE, running_emulator

    # One receiver gets at most PER_RECEIVER attempts at once: that many bare senders.
    from gcbridge.emulator.webhooks.fairness import PER_RECEIVER as WORKERS

    row = Row(number=3, title=TITLE)
    n = 300 if quick else 1000
    rounds = 2 if quick else 3
    receiver_url, receiver = start(
        [sys.executable, str(BENCH_DIR / "servers.py"), "receiver"], ready_prefix="ready on"
    )
    client = httpx.Client(timeout=30)
    try:
        with tempfile.TemporaryDirectory() as tmp, running_emulator(tmp, attempt_timeout=10) as emu:
            r = client.post(
                f"{emu.url}/webhook/website/{EXAMPLE_SITE.website_id}/setup",
                headers={"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"},
                json={"url": receiver_url + "/hook", "events": ["comment.updated"]},
            )
            r.raise_for_status()
            secret = r.json()["secret"]
            client.post(receiver_url + "/configure", json={"secret": secret}).raise_for_status()
            state = emu.state
            site, comment = _seed_comment(state)
            ours_rates, bare_rates = [], []
            for rnd in range(rounds + 1):  # round 0 warms up both
                ids = _enqueue(state, site, comment, n)
                t0 = time.time()
                state.dispatcher.wake()
                got = _wait_for(client, receiver_url, set(ids))
                ours = n / (max(got[i] for i in ids) - t0)
                with state.db.read() as conn:
                    marks = ",".join("?" * len(ids))
                    bodies = [
                        bytes(b[0])
                        for b in conn.execute(
                            f"SELECT body FROM calls WHERE delivery_id IN ({marks})", ids
                        ).fetchall()
                    ]
                bare = n / asyncio.run(_bare_loop(receiver_url + "/hook", secret, bodies, WORKERS))
                if rnd:
                    ours_rates.append(ours)
                    bare_rates.append(bare)
            ours_rate, bare_rate = statistics.median(ours_rates), statistics.median(bare_rates)
            row.measures.append(
                Measure(
                    "deliveries per second",
                    "deliveries/s",
                    ours_rate,
                    bare_rate,
                    f"bare httpx loop, {WORKERS} senders",
                    goal=">= 0.6x",
                    goal_ratio=0.6,
                    rounds=rounds,
                )
            )

            # Latency at half the maximum rate: commits paced in real time.
            rate = ours_rate / 2
            seconds = 3.0 if quick else 5.0
            count = max(50, int(rate * seconds))
            ids = []
            t0 = time.perf_counter()
            for k in range(count):
                target = t0 + k / rate
                pause = target - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
                ids += _enqueue(state, site, comment, 1)
                state.dispatcher.wake()
            got = _wait_for(client, receiver_url, set(ids))
            with state.db.read() as conn:
                marks = ",".join("?" * len(ids))
                created = dict(
                    conn.execute(
                        f"SELECT delivery_id, created_at FROM calls WHERE delivery_id IN ({marks})",
                        ids,
                    ).fetchall()
                )
            latencies = [(got[d] - created[d]) * 1000 for d in created]
            p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
            row.measures.append(
                Measure(
                    f"p50 commit-to-receiver at {rate:.0f}/s (half max)",
                    "ms",
                    p50,
                    higher_is_better=False,
                )
            )
            row.measures.append(
                Measure(
                    f"p99 commit-to-receiver at {rate:.0f}/s (half max)",
                    "ms",
                    p99,
                    higher_is_better=False,
                    goal="< 100 ms",
                    goal_value=100,
                )
            )
            row.extra["latency_ms"] = {
                "p50": p50,
                "p90": percentile(latencies, 90),
                "p99": p99,
                "max": max(latencies),
                "count": len(latencies),
                "rate": rate,
            }
    finally:
        client.close()
        receiver.terminate()
        receiver.wait(15)
    row.notes.append(
        f"{n} events per round, median of {rounds} rounds after a warm-up; deliveries/s = N / (last arrival - "
        "wake-up). The dispatcher runs in the emulator (uvicorn thread of this process), the receiver (which verifies every "
        "signature, for both contenders) in its own process. Latency: the call's created_at (commit) to the receiver's "
        "arrival time, same machine clock."
    )
    row.notes.append(
        "Per attempt the dispatcher commits an attempt row before sending and completes it after (two "
        "write transactions plus reads), resolves and checks the receiver address (SSRF), and opens a new "
        "connection (no keep-alive across attempts, by design: pinned addresses); the bare loop does none of this."
    )
    return row
