# ruff: noqa: E501  (report prose reads better unbroken)
"""Row 9: DeliveryLog claims per second on SQLite, PostgreSQL and Redis with 1, 2, 4 processes.

Each backend runs on this machine: SQLite on a temp file, PostgreSQL and Redis as
throwaway servers on loopback (started here like the tests do; a missing server
binary skips that backend with the install command). For P in 1, 2, 4, P
receiver processes (``multiprocessing``, spawned, each with its own
``DeliveryLog.from_url``) race through the SAME N delivery ids, each in its own
order: ``claim`` (fresh signature), and on ``new`` ``complete``. Rate: claim
calls (P x N) per wall second, from the barrier to the last process done.
Exactly-once is counted in the same run: every id must be ``new`` for exactly
one process (the others see ``in_flight`` or ``duplicate``).

Baseline column: SQLite with the same number of processes (how a shared backend
compares with the embedded default).
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from benchlib import REPO, Measure, Row

TITLE = "Shared delivery log: claims/s on SQLite, PostgreSQL, Redis with 1, 2, 4 processes"

PROCESSES = (1, 2, 4)


def _worker(url: str, ids: list[str], seed: int, barrier: Any, out: Any) -> None:
    try:
        _claim_all(url, ids, seed, barrier, out)
    except BaseException as exc:
        barrier.abort()
        out.put(("error", f"{type(exc).__name__}: {exc}"))
        raise


def _claim_all(url: str, ids: list[str], seed: int, barrier: Any, out: Any) -> None:
    sys.path[:0] = [str(REPO / "src")]
    from gcbridge.webhooks import DeliveryLog

    log = DeliveryLog.from_url(url)
    order = ids[:]
    random.Random(seed).shuffle(order)
    ts = int(time.time() * 1000)
    won: list[str] = []
    outcomes: collections.Counter[str] = collections.Counter()
    barrier.wait()
    start = time.perf_counter()
    for n, delivery_id in enumerate(order):
        signature = hashlib.sha256(f"{ids[0]}:{seed}:{n}".encode()).hexdigest()
        claim = log.acquire(delivery_id, signature, ts)
        outcomes[claim.status] += 1
        if claim.status == "new":
            log.complete(claim)
            won.append(delivery_id)
    end = time.perf_counter()
    log.close()
    out.put((start, end, won, dict(outcomes)))


def measure(url: str, processes: int, n: int, run: int) -> dict[str, Any]:
    """P processes over the same ``n`` ids on ``url``: rate and the exactly-once count."""
    ctx = multiprocessing.get_context("spawn")
    ids = [f"r{run}-p{processes}-{time.time_ns()}-{i}" for i in range(n)]
    barrier, out = ctx.Barrier(processes), ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(url, ids, seed, barrier, out))
        for seed in range(processes)
    ]
    for proc in procs:
        proc.start()
    results = [out.get(timeout=600) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
    errors = [r[1] for r in results if r[0] == "error"]
    if errors:
        raise RuntimeError(f"a worker failed: {errors[0]}")
    wall = max(r[1] for r in results) - min(r[0] for r in results)
    winners = collections.Counter(i for r in results for i in r[2])
    outcomes: collections.Counter[str] = collections.Counter()
    for r in results:
        outcomes.update(r[3])
    return {
        "rate": processes * n / wall,
        "delivered": n / wall,
        "ids": n,
        "once": sum(1 for i in ids if winners[i] == 1),
        "twice": sum(1 for i in ids if winners[i] > 1),
        "never": sum(1 for i in ids if winners[i] == 0),
        "outcomes": dict(outcomes),
    }


@contextlib.contextmanager
def backends(tmp: str, notes: list[str]) -> Iterator[dict[str, str]]:
    """URLs of the three backends; a missing server is left out with a note."""
    sys.path[:0] = [str(REPO)]  # the tests' helpers (tests/ is a package)
    from tests.webhooks.delivery_servers import (
        ServerUnavailable,
        postgres_server,
        redis_server,
    )

    urls = {"SQLite": f"sqlite:///{tmp}/deliveries.db"}
    with contextlib.ExitStack() as stack:
        for name, server in (("PostgreSQL", postgres_server), ("Redis", redis_server)):
            try:
                urls[name] = stack.enter_context(server())
            except ServerUnavailable as exc:
                notes.append(f"{name} not measured: {exc}")
        yield urls


def _merge(by_p: dict[int, dict[str, Any]], processes: int, r: dict[str, Any]) -> None:
    """Fold one round in: median rates, exactly-once counts summed over the rounds."""
    seen = by_p.setdefault(processes, {"rates": [], "delivered_rates": [], "ids": 0})
    seen["rates"].append(r["rate"])
    seen["delivered_rates"].append(r["delivered"])
    seen["rate"] = statistics.median(seen["rates"])
    seen["delivered"] = statistics.median(seen["delivered_rates"])
    for key in ("ids", "once", "twice", "never"):
        seen[key] = seen.get(key, 0) + r[key]


def run(quick: bool) -> Row:
    """Every backend at 1, 2 and 4 processes, side by side, exactly-once counted."""
    row = Row(number=9, title=TITLE)
    n = 300 if quick else 2000
    rounds = 1 if quick else 3
    results: dict[str, dict[int, dict[str, Any]]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="gcbridge-bench-") as tmp,
        backends(tmp, row.notes) as urls,
    ):
        for run_no in range(rounds):
            for processes in PROCESSES:
                for name, url in urls.items():  # interleaved: backends side by side
                    r = measure(url, processes, n, run_no)
                    _merge(results.setdefault(name, {}), processes, r)
    for name, by_p in results.items():
        for processes, r in by_p.items():
            base = results["SQLite"][processes]["rate"] if name != "SQLite" else None
            row.measures.append(
                Measure(
                    name=f"{name}, {processes} process{'es' if processes > 1 else ''}",
                    unit="claims/s",
                    ours=round(r["rate"]),
                    baseline=None if base is None else round(base),
                    baseline_name="SQLite" if base is not None else "",
                    rounds=rounds,
                )
            )
    doubles = sum(r["twice"] + r["never"] for by_p in results.values() for r in by_p.values())
    row.measures.append(
        Measure(
            name="ids not handled exactly once (all backends and process counts)",
            unit="ids",
            ours=doubles,
            higher_is_better=False,
            goal="0",
            goal_value=0,
        )
    )
    header = (
        "| backend | "
        + " | ".join(f"{p} proc: claims/s (deliveries/s)" for p in PROCESSES)
        + " | exactly once |"
    )
    lines = [header, "|---|" + "---:|" * len(PROCESSES) + "---|"]
    for name, by_p in results.items():
        rates = " | ".join(
            f"{by_p[p]['rate']:,.0f} ({by_p[p]['delivered']:,.0f})" for p in PROCESSES
        )
        once = ", ".join(f"{by_p[p]['once']}/{by_p[p]['ids']}" for p in PROCESSES)
        lines.append(f"| {name} | {rates} | {once} |")
    row.extra["tables"] = ["\n".join(lines)]
    row.extra["results"] = results
    row.notes.append(
        f"Median of {rounds} interleaved round(s); exactly-once counted over all of them. "
        f"N = {n} delivery ids per run; every process claims all N (its own order), so with P processes "
        "each id is claimed P times at once and must be `new` for exactly one; a `new` claim is "
        "then completed (one more round trip). Rate = P x N claim calls per wall second; deliveries/s = "
        "N / wall (ids claimed and completed). With 1 process every claim is a new one plus its completion; "
        "with more, most calls are cheaper `in_flight`/`duplicate` answers, so compare backends within a column."
    )
    row.notes.append(
        "PostgreSQL: one connection per process (a claim is one statement, a "
        "completion one more), fsync off in the throwaway cluster; Redis: one Lua script per call; "
        "SQLite: one WAL file on a local disk (processes on one host only)."
    )
    return row


if __name__ == "__main__":
    result = run(quick="--quick" in sys.argv)
    print(result.extra["tables"][0])
    print(result.notes)
