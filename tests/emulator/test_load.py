"""Load: concurrent thread-load, SSO login and comment traffic against an emulator process.

``gcbridge emulator`` runs as its own process; this test process is the load
generator (httpx async, ``WORKERS`` concurrent clients for ``SECONDS``), with a
seeded mix of requests. Every request must get its success status (no error,
no timeout), and afterwards the webhook journal must catch up: one call per
comment posted, all delivered, within a bound. No timing is asserted beyond
"it finishes".
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from gcbridge.sso import SsoIssuer
from tests.emulator.fault_support import (
    ACCOUNT,
    WEBSITE_ID,
    EmulatorProcess,
    FaultReceiver,
    subscribe,
    wait_until,
)

pytestmark = pytest.mark.slow

SEED = 20240607
SECONDS = 4.0
WORKERS = 12


async def _generate(url: str) -> tuple[Counter[str], list[str], int]:
    """Run the mix; returns (requests per kind, failures, comments posted)."""
    issuer = SsoIssuer("sso-secret", allow_weak_secret=True)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    posted = 0
    limits = httpx.Limits(max_connections=WORKERS, max_keepalive_connections=WORKERS)
    async with httpx.AsyncClient(base_url=url, timeout=15, limits=limits) as client:

        async def worker(n: int) -> None:
            nonlocal posted
            rng = random.Random(f"{SEED}-{n}")
            token = None
            deadline = time.monotonic() + SECONDS
            while time.monotonic() < deadline:
                x = rng.random()
                uid = f"load-{rng.randrange(20)}"
                try:
                    if x < 0.5 or (x >= 0.7 and token is None and x < 0.75):
                        kind = "thread-load"
                        r = await client.get(
                            "/api/pub/thread-load/",
                            params={
                                "service_id": "demo",
                                "url": f"https://example.com/{uid}",
                                "uid": uid,
                                "page_title": f"Page {uid}",
                                "inapp": "true",
                                "redirect": "true",
                            },
                        )
                        ok = r.status_code == 200 and "gc_url" in r.json()
                    elif x < 0.7 or token is None:
                        kind = "sso-login"
                        k = rng.randrange(3)
                        user = {
                            "id": f"user-{n}-{k}",
                            "username": f"user{n}x{k}",
                            "email": f"u{n}@example.com",
                        }
                        r = await client.post(
                            "/api/pub/sso/login",
                            json={"api_public_key": "pk_demo", "ssoData": issuer.issue(user)},
                        )
                        ok = r.status_code == 200
                        if ok:
                            token = r.json()["token"]
                    else:
                        kind = "comment"
                        r = await client.post(
                            "/api/pub/comments",
                            headers={"Authorization": f"Bearer {token}"},
                            json={
                                "website_id": "demo",
                                "uid": uid,
                                "url": f"https://example.com/{uid}",
                                "page_title": f"Page {uid}",
                                "content": f"load {n}",
                            },
                        )
                        ok = r.status_code == 201
                        posted += ok
                    counts[kind] += 1
                    if not ok:
                        failures.append(f"{kind}: {r.status_code} {r.text[:200]}")
                except httpx.HTTPError as exc:
                    failures.append(f"{type(exc).__name__}: {exc}")

        await asyncio.gather(*(worker(n) for n in range(WORKERS)))
    return counts, failures, posted


def test_emulator_under_mixed_load(tmp_path: Path) -> None:
    print(f"load: seed {SEED}, {WORKERS} clients for {SECONDS}s")
    emu = EmulatorProcess(
        tmp_path / "data", retry_schedule="0,0.2,0.4,0.8,1.6,3.2", attempt_timeout=5
    )
    with FaultReceiver() as receiver:
        emu.start()
        try:
            subscribe(emu.url, receiver, ["comment.created"])

            # Its own thread and loop: a browser test before this one may leave a loop running here.
            with ThreadPoolExecutor(1) as pool:
                counts, failures, posted = pool.submit(
                    lambda: asyncio.run(_generate(emu.url))
                ).result()
            print(f"load: {dict(counts)}, {posted} comments, {len(failures)} failures")
            assert failures == []
            assert min(counts.values()) > 0 and len(counts) == 3

            def caught_up() -> bool:
                r = httpx.get(
                    f"{emu.url}/webhook/website/{WEBSITE_ID}/calls",
                    headers=ACCOUNT,
                    params={"limit": 200, "status": "succeeded"},
                    timeout=10,
                )
                seen, cursor = len(r.json()["calls"]), r.json()["next_cursor"]
                while cursor:
                    r = httpx.get(
                        f"{emu.url}/webhook/website/{WEBSITE_ID}/calls",
                        headers=ACCOUNT,
                        params={"limit": 200, "status": "succeeded", "cursor": cursor},
                        timeout=10,
                    )
                    seen, cursor = seen + len(r.json()["calls"]), r.json()["next_cursor"]
                return seen == posted

            wait_until(
                caught_up, timeout=60, interval=0.25, what="the journal to deliver every comment"
            )
        finally:
            emu.stop()
    hits = receiver.snapshot()
    assert len({h.delivery_id for h in hits}) == posted
    assert all(h.signature_ok for h in hits)
