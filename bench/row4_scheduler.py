# ruff: noqa: E501  (report prose and SQL read better unbroken)
"""Row 4: the scheduler at scale: 1,000 -> 10,000 -> 100,000 pending retries in the journal.

For each N, a journal is filled with N pending calls (each with one failed
attempt, due between 1 and 2 hours from now), then a fresh child process
(``python bench/row4_scheduler.py child DB``) opens it with the real
``Dispatcher`` (transport: ``httpx.MockTransport``, so no network) and reports:

- RSS of the process after start (and the increase over the same process
  before the dispatcher opened the journal);
- CPU while idle: process CPU seconds over a few idle wall seconds, as % of
  one core (must be near zero: no hot polling);
- the next-due queries (``MIN(next_attempt_at)`` and the due batch) in ms;
- wake-to-send: one call made due + ``wake()``, until the transport sees it.

The growth from 1,000 to 100,000 is the curve reported.
"""

import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import Measure, Row, rss_kib

TITLE = "Scheduler scale: pending retries in the journal"

IDLE_SECONDS = 3.0


def build(path: Path, n: int) -> None:
    """A journal with ``n`` pending calls due in 1-2 hours, one failed attempt each."""
    from gcbridge.emulator.db import Database
    from gcbridge.emulator.testing import EXAMPLE_SITE
    from gcbridge.emulator.webhooks.journal import save_config

    db = Database(path)
    rng = random.Random(4)
    now = time.time()
    body = json.dumps({"event_type": "comment.created", "pad": "x" * 300}).encode()
    with db.transaction() as conn:
        save_config(
            conn,
            website_id=EXAMPLE_SITE.website_id,
            url="http://127.0.0.1:9/hook",
            events=("comment.created",),
            now=now,
        )
        conn.executemany(
            "INSERT INTO calls (id, seq, website_id, delivery_id, event_type, url, body, status, response_code, "
            "retry_count, created_at, next_attempt_at, first_sent_at) "
            "VALUES (?, ?, ?, ?, 'comment.created', 'http://127.0.0.1:9/hook', ?, 'pending', 500, 0, ?, ?, ?)",
            (
                (
                    f"{i:024x}",
                    i + 1,
                    EXAMPLE_SITE.website_id,
                    f"dlv_{i:032x}",
                    body,
                    now - 60,
                    now + 3600 + rng.random() * 3600,
                    now - 60,
                )
                for i in range(n)
            ),
        )
        conn.executemany(
            "INSERT INTO attempts (call_id, number, started_at, duration_ms, response_code, request_headers) "
            "VALUES (?, 0, ?, 5.0, 500, '{}')",
            ((f"{i:024x}", now - 60) for i in range(n)),
        )
    db.close()


async def _measure(path: Path) -> dict[str, Any]:
    import httpx

    from gcbridge.clock import SYSTEM_CLOCK
    from gcbridge.emulator.db import Database
    from gcbridge.emulator.settings import Settings
    from gcbridge.emulator.sites import Sites
    from gcbridge.emulator.testing import EXAMPLE_SITE
    from gcbridge.emulator.webhooks.dispatcher import Dispatcher

    rss_before = rss_kib()
    sent: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(time.perf_counter())
        return httpx.Response(200, text="ok")

    settings = Settings(
        sites=Sites([EXAMPLE_SITE]), data_dir=path.parent, allow_private_receivers=True
    )
    db = Database(path)
    dispatcher = Dispatcher(
        db, settings, clock=SYSTEM_CLOCK, transport=httpx.MockTransport(handler)
    )
    await dispatcher.start()
    await asyncio.sleep(0.5)  # settle: the first scheduling pass and imports are done
    cpu0, wall0 = time.process_time(), time.perf_counter()
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    await asyncio.sleep(IDLE_SECONDS)
    cpu1, wall1 = time.process_time(), time.perf_counter()
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    rss_idle = rss_kib()

    def timed(fn: Any, repeat: int = 30) -> float:
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1000)
        return statistics.median(times)

    # The scheduler's own queries (private helpers, timed directly: they are what scales with N).
    next_due_ms = timed(dispatcher._next_due)
    due_batch_ms = timed(lambda: dispatcher._due(time.time() + 5400, 4))

    wake_to_send = []
    with db.read() as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM calls ORDER BY random() LIMIT 5")]
    for call_id in ids:
        before = len(sent)
        with db.transaction() as conn:
            conn.execute(
                "UPDATE calls SET next_attempt_at = ? WHERE id = ?", (time.time(), call_id)
            )
        t0 = time.perf_counter()
        dispatcher.wake()
        while len(sent) == before:
            await asyncio.sleep(0.0005)
        wake_to_send.append((sent[-1] - t0) * 1000)
        await asyncio.sleep(0.05)  # let the attempt complete
    await dispatcher.stop()
    db.close()
    return {
        "rss_kib": rss_idle,
        "rss_increase_kib": rss_idle - rss_before,
        "idle_cpu_pct": 100 * (cpu1 - cpu0) / (wall1 - wall0),
        "idle_voluntary_switches": ru1.ru_nvcsw - ru0.ru_nvcsw,
        "next_due_ms": next_due_ms,
        "due_batch_ms": due_batch_ms,
        "wake_to_send_ms": statistics.median(wake_to_send),
    }


def _child(path: str) -> None:
    print(json.dumps(asyncio.run(_measure(Path(path)))))


def run(quick: bool) -> Row:
    """Build and measure each size in its own process."""
    row = Row(number=4, title=TITLE)
    sizes = (1_000, 10_000, 100_000)
    results: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"journal-{n}.sqlite3"
            t0 = time.perf_counter()
            build(path, n)
            built = time.perf_counter() - t0
            out = subprocess.run(
                [sys.executable, __file__, "child", str(path)],
                capture_output=True,
                text=True,
                timeout=300,
                check=True,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            )
            results[n] = json.loads(out.stdout.strip().splitlines()[-1])
            results[n]["build_s"] = built
            results[n]["db_mib"] = (
                path.stat().st_size + Path(str(path) + "-wal").stat().st_size
                if Path(str(path) + "-wal").exists()
                else path.stat().st_size
            ) / 2**20
    big, small = results[sizes[-1]], results[sizes[0]]
    row.measures.append(
        Measure(
            "idle CPU with 100,000 pending",
            "% of a core",
            big["idle_cpu_pct"],
            higher_is_better=False,
            goal="< 1% (no hot polling)",
            goal_value=1.0,
        )
    )
    row.measures.append(
        Measure(
            "RSS with 100,000 pending",
            "MiB",
            big["rss_kib"] / 1024,
            higher_is_better=False,
            note="whole process",
        )
    )
    row.measures.append(
        Measure("next-due query at 100,000", "ms", big["next_due_ms"], higher_is_better=False)
    )
    row.measures.append(
        Measure("wake-to-send at 100,000", "ms", big["wake_to_send_ms"], higher_is_better=False)
    )
    lines = [
        "| pending | journal MiB | RSS MiB | RSS increase MiB | idle CPU % | idle wake-ups | next-due ms | "
        "due batch ms | wake-to-send ms |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in sizes:
        r = results[n]
        lines.append(
            f"| {n:,} | {r['db_mib']:.1f} | {r['rss_kib'] / 1024:.1f} | {r['rss_increase_kib'] / 1024:.1f} |"
            f" {r['idle_cpu_pct']:.2f} | {r['idle_voluntary_switches']} | {r['next_due_ms']:.3f} |"
            f" {r['due_batch_ms']:.3f} | {r['wake_to_send_ms']:.2f} |"
        )
    row.extra["tables"] = ["\n".join(lines)]
    row.extra["by_size"] = results
    growth = {
        k: big[k] / small[k] if small[k] else None
        for k in ("rss_kib", "next_due_ms", "wake_to_send_ms")
    }
    row.notes.append(
        "Growth from 1,000 to 100,000 pending (100x): RSS "
        f"{growth['rss_kib']:.2f}x, next-due query {growth['next_due_ms']:.2f}x, wake-to-send "
        f"{growth['wake_to_send_ms']:.2f}x. The queue lives in SQLite (partial index on next_attempt_at), "
        "not in memory; an idle dispatcher awaits one timer until the earliest due call."
    )
    row.notes.append(
        f"Idle window {IDLE_SECONDS:.0f} s per size; each size measured in a fresh process."
    )
    return row


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "child":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        _child(sys.argv[2])
