"""Crash safety: comments are posted while the emulator process is SIGKILLed at random moments.

``gcbridge emulator`` runs as a child process on one data dir and port; a
killer thread SIGKILLs it at seeded random moments (while comments are being
posted and webhooks delivered) and starts it again on the same data dir and
port. At the end, with the emulator left running:

- every comment that was committed (a 201, or found in the database after an
  unanswered post) has exactly one comment.created call, and every call ended
  ``succeeded``: none lost;
- the receiver got every call's delivery id at least once, with a valid
  signature, and no delivery id that the journal does not know;
- the journal is consistent: ``PRAGMA integrity_check`` is ``ok``, attempt
  numbers run 0..n-1 per call, no attempt is left in flight.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from tests.emulator.fault_support import (
    ACCOUNT,
    SITES_TOML,
    WEBSITE_ID,
    Action,
    EmulatorProcess,
    FaultReceiver,
    subscribe,
    wait_until,
)

pytestmark = pytest.mark.slow

SEED = 20240606
COMMENTS = 40
KILLS = 4
assert WEBSITE_ID in SITES_TOML


def _up(url: str) -> bool:
    try:
        return httpx.get(url + "/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def test_sigkill_loses_nothing(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    print(f"crash: seed {SEED}, {COMMENTS} comments, {KILLS} kills")
    emu = EmulatorProcess(
        tmp_path / "data", retry_schedule="0,0.1,0.2,0.4,0.8,1.6", attempt_timeout=2
    )
    # A slow receiver (30-150 ms): kills often land while attempts are in flight.
    slow = random.Random(SEED + 2)
    receiver = FaultReceiver(
        behaviour=lambda body, headers: Action("status", 200, delay=slow.uniform(0.03, 0.15))
    )
    with receiver:
        emu.start()
        try:
            subscribe(emu.url, receiver, ["comment.created"])
            r = httpx.post(
                emu.url + "/api/pub/auth/register",
                timeout=10,
                json={
                    "website_id": "demo",
                    "username": "crasher",
                    "email": "c@example.com",
                    "password": "a long enough password",
                },
            )
            assert r.status_code == 201, r.text
            user = {"Authorization": f"Bearer {r.json()['token']}"}

            done = threading.Event()
            kills: list[float] = []
            killer_error: list[BaseException] = []

            def killer() -> None:
                try:
                    while len(kills) < KILLS and not done.is_set():
                        time.sleep(rng.uniform(0.2, 0.9))
                        emu.kill()
                        kills.append(time.time())
                        emu.start()
                except BaseException as exc:  # surfaced below
                    killer_error.append(exc)

            thread = threading.Thread(target=killer, name="killer", daemon=True)
            thread.start()
            confirmed: list[str] = []
            unanswered = 0
            pace = random.Random(SEED + 1)
            for i in range(COMMENTS):
                try:
                    r = httpx.post(
                        emu.url + "/api/pub/comments",
                        headers=user,
                        timeout=5,
                        json={
                            "website_id": "demo",
                            "uid": "crash",
                            "url": "https://example.com/crash",
                            "page_title": "Crash",
                            "content": f"comment #{i}",
                        },
                    )
                    assert r.status_code == 201, r.text
                    confirmed.append(r.json()["id"])
                except httpx.HTTPError:
                    unanswered += 1  # may or may not have committed: the database decides
                    wait_until(lambda: _up(emu.url), timeout=60, what="the emulator back up")
                time.sleep(pace.uniform(0, 0.12))
            thread.join(timeout=120)
            done.set()
            assert not killer_error, killer_error
            assert len(kills) == KILLS
            wait_until(lambda: _up(emu.url), timeout=60, what="the emulator back up")

            def settled() -> list[dict[str, object]] | None:
                r = httpx.get(
                    f"{emu.url}/webhook/website/{WEBSITE_ID}/calls",
                    headers=ACCOUNT,
                    params={"limit": 200},
                    timeout=10,
                )
                calls = r.json()["calls"]
                return None if any(c["status"] == "pending" for c in calls) else calls

            wait_until(settled, timeout=90, interval=0.2, what="every call delivered")
        finally:
            emu.stop()

    db = sqlite3.connect(emu.db_path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        comments = {row[0] for row in db.execute("SELECT id FROM comments")}
        calls = db.execute("SELECT id, delivery_id, status, body FROM calls").fetchall()
        attempts = db.execute("SELECT call_id, number, duration_ms, error FROM attempts").fetchall()
    finally:
        db.close()

    print(
        f"crash: {len(kills)} kills, {unanswered} unanswered posts, "
        f"{len(comments)} comments committed, "
        f"{len(calls)} calls, {len(attempts)} attempts, "
        f"{sum(1 for a in attempts if a[3] == 'interrupted')} interrupted, "
        f"{len(receiver.snapshot())} hits"
    )
    assert set(confirmed) <= comments  # a 201 is durable
    assert len(comments) >= COMMENTS - unanswered
    per_comment = Counter(json.loads(body)["data"]["comment"]["id"] for _, _, _, body in calls)
    assert set(per_comment) == comments  # every committed comment has its event...
    assert set(per_comment.values()) == {1}  # ...exactly once in the outbox
    assert {status for _, _, status, _ in calls} == {"succeeded"}

    hits = receiver.snapshot()
    delivered = {h.delivery_id for h in hits}
    known = {delivery_id for _, delivery_id, _, _ in calls}
    assert known <= delivered  # at least once, with its delivery id
    assert delivered <= known  # nothing invented
    assert all(h.signature_ok for h in hits)

    by_call: dict[str, list[int]] = {}
    for call_id, number, duration, error in attempts:
        by_call.setdefault(call_id, []).append(number)
        assert duration is not None or error is not None, "an attempt left in flight"
    for call_id, _, _, _ in calls:
        assert sorted(by_call.get(call_id, [])) == list(range(len(by_call.get(call_id, [])))), (
            call_id
        )
        assert by_call.get(call_id), f"call {call_id} succeeded without an attempt"
