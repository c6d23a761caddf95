# ruff: noqa: E501  (report prose and SQL read better unbroken)
"""Row 6: emulator thread-load, requests/s and p99 under a loopback load generator.

Ours: ``gcbridge emulator`` (the real CLI, one process, SQLite upsert of the
thread on every request) answering ``GET /api/pub/thread-load/``.
Baseline: a bare FastAPI route on the same uvicorn settings that reads and
checks the same six parameters and builds the same gc_url, without the
database: the floor of the web stack.

Load generator: ``wrk`` (Debian package ``wrk``) with one thread and 16
connections when it is installed, else an httpx async generator in this
process; both are a second process from the server. Interleaved rounds.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from benchlib import BENCH_DIR, Measure, Row, percentile
from servers import start

TITLE = "Emulator thread-load under load (loopback)"

SITES = """
[[site]]
shortname = "bench"
website_id = "5f1c0ffee0ddba11c0ffee00"
sso_public_key = "pk_bench"
sso_secret = "bench-sso-secret-0123456789"
account_token = "acct-token"
site_key_id = "sk_bench"
site_key_secret = "site-key-secret"
"""

QUERY = urlencode(
    {
        "service_id": "bench",
        "url": "https://news.example.com/articles/42?x=1",
        "uid": "article-42",
        "page_title": "An article about benchmarks",
        "inapp": "true",
        "redirect": "true",
    }
)
PATH = "/api/pub/thread-load/?" + QUERY
CONNECTIONS = 16


def _unit_ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def _wrk(url: str, seconds: float) -> tuple[float, float, float, int]:
    """(requests/s, p50 ms, p99 ms, non-2xx or socket errors) from one wrk run."""
    out = subprocess.run(
        ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{seconds:.0f}s", "--latency", url],
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    lat = dict(re.findall(r"^\s+(50|99)%\s+([\d.]+\w+)", out, re.MULTILINE))
    p50, p99 = (_unit_ms(*re.match(r"([\d.]+)(\w+)", lat[k]).groups()) for k in ("50", "99"))  # type: ignore[union-attr]
    errors = 0
    for pattern in (r"Non-2xx or 3xx responses:\s+(\d+)", r"Socket errors:.*?(\d+)"):
        m = re.search(pattern, out)
        errors += int(m.group(1)) if m else 0
    return rps, p50, p99, errors


def _httpx_load(url: str, seconds: float) -> tuple[float, float, float, int]:
    import httpx

    async def main() -> tuple[float, float, float, int]:
        latencies: list[float] = []
        errors = 0
        deadline = time.perf_counter() + seconds
        limits = httpx.Limits(max_connections=CONNECTIONS, max_keepalive_connections=CONNECTIONS)
        async with httpx.AsyncClient(limits=limits, timeout=10) as client:

            async def worker() -> None:
                nonlocal errors
                while time.perf_counter() < deadline:
                    t0 = time.perf_counter()
                    try:
                        r = await client.get(url)
                        ok = r.status_code == 200
                    except httpx.HTTPError:
                        ok = False
                    latencies.append((time.perf_counter() - t0) * 1000)
                    errors += not ok

            t0 = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))
            elapsed = time.perf_counter() - t0
        return (
            len(latencies) / elapsed,
            percentile(latencies, 50),
            percentile(latencies, 99),
            errors,
        )

    return asyncio.run(main())


def run(quick: bool) -> Row:
    """Load both servers in interleaved rounds."""
    row = Row(number=6, title=TITLE)
    use_wrk = shutil.which("wrk") is not None
    load = _wrk if use_wrk else _httpx_load
    if not use_wrk:
        print(
            "    hint: `apt-get install wrk` for a load generator that is not itself the bottleneck"
        )
    seconds = 3.0 if quick else 5.0
    rounds = 2 if quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        sites = Path(tmp) / "sites.toml"
        sites.write_text(SITES, encoding="utf-8")
        emu_url, emu = start(
            [
                sys.executable,
                "-m",
                "gcbridge",
                "emulator",
                "--port",
                "0",
                "--data-dir",
                str(Path(tmp) / "data"),
                "--sites",
                str(sites),
            ],
            ready_prefix="gcbridge emulator ready on",
        )
        floor_url, floor = start(
            [sys.executable, str(BENCH_DIR / "servers.py"), "floor"], ready_prefix="ready on"
        )
        try:
            import httpx

            for url in (emu_url, floor_url):
                r = httpx.get(url + PATH, timeout=10)
                r.raise_for_status()
                assert "gc_url" in r.json()
            results: dict[str, list[tuple[float, float, float, int]]] = {"ours": [], "floor": []}
            load(emu_url + PATH, 1.0)  # warm-up
            load(floor_url + PATH, 1.0)
            for _ in range(rounds):
                results["ours"].append(load(emu_url + PATH, seconds))
                results["floor"].append(load(floor_url + PATH, seconds))
        finally:
            for proc in (emu, floor):
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()

    def med(name: str, i: int) -> float:
        return statistics.median(r[i] for r in results[name])

    errors = {k: sum(r[3] for r in v) for k, v in results.items()}
    row.measures.append(
        Measure(
            "thread-load throughput",
            "req/s",
            med("ours", 0),
            med("floor", 0),
            "bare FastAPI route",
            rounds=rounds,
        )
    )
    row.measures.append(
        Measure(
            "thread-load p50 latency",
            "ms",
            med("ours", 1),
            med("floor", 1),
            "bare FastAPI route",
            higher_is_better=False,
            rounds=rounds,
        )
    )
    row.measures.append(
        Measure(
            "thread-load p99 latency",
            "ms",
            med("ours", 2),
            med("floor", 2),
            "bare FastAPI route",
            higher_is_better=False,
            rounds=rounds,
        )
    )
    generator = "wrk -t1 -c16" if use_wrk else "httpx async generator, 16 connections"
    row.notes.append(
        f"Load generator: {generator}, {seconds:.0f} s per round, median of {rounds} interleaved rounds; "
        f"the server and the generator share the machine's cores. Errors (non-2xx or socket): "
        f"ours {errors['ours']}, floor {errors['floor']}."
    )
    row.notes.append(
        "Every emulator request runs a SQLite upsert of the thread (BEGIN IMMEDIATE/COMMIT, WAL) "
        "in the thread pool; the floor has no database."
    )
    return row
