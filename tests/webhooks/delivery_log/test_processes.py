"""Receiver PROCESSES sharing one delivery log: each delivery handled exactly once.

2 and 4 uvicorn processes (delivery_worker.py) on one log, per backend. The test
plays the service: the same delivery id to every instance at once, each copy
retried on another instance (fresh signature) on 503 or 500 until it is
answered 200, first attempts of some ids failing, and captured requests replayed
under new ids at another instance. Then a process killed mid-handler: its claim
is taken over once the (short) lease has run out.
"""

import collections
import concurrent.futures
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from gcbridge.webhooks.testing import signed_headers
from tests.webhooks.support import SECRET, event_body

WORKER = Path(__file__).with_name("delivery_worker.py")
BODY = event_body()
_ts_lock = threading.Lock()
_last_ts = 0


def fresh_timestamp_ms():
    """Now, in epoch ms, and never the same twice: a fresh signature per attempt.

    Taken when a request is signed, never at import: a run that reaches this file
    minutes after collection must still sign with the time of sending.
    """
    global _last_ts
    with _ts_lock:
        _last_ts = max(int(time.time() * 1000), _last_ts + 1)
        return _last_ts


def headers(delivery_id, retry=0, ts=None):
    if ts is None:
        ts = fresh_timestamp_ms()
    return {
        **signed_headers(SECRET, BODY, timestamp_ms=ts),
        "X-Webhook-Delivery-Id": delivery_id,
        "X-Webhook-Retry-Count": str(retry),
        "Content-Type": "application/json",
    }


@contextlib.contextmanager
def receivers(url, count, tmp_path, *, lease=60.0):
    """``count`` receiver processes on one log; yields (clients, processes, sink path)."""
    sink, markers = tmp_path / "sink.log", tmp_path / "markers"
    markers.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    cmd = [sys.executable, str(WORKER), url, str(sink), "--markers", str(markers)]
    procs = [
        subprocess.Popen([*cmd, "--lease", str(lease)], stdout=subprocess.PIPE, env=env, text=True)
        for _ in range(count)
    ]
    clients = []
    try:
        for proc in procs:
            line = proc.stdout.readline()
            assert line.startswith("PORT "), f"receiver did not start: {line!r}"
            clients.append(httpx.Client(base_url=f"http://127.0.0.1:{line.split()[1]}", timeout=60))
        yield clients, procs, sink
    finally:
        for client in clients:
            client.close()
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)
            proc.stdout.close()


def sink_lines(sink):
    if not sink.exists():
        return []
    return [line.split() for line in sink.read_text().splitlines()]


def deliver_chain(clients, start, delivery_id, stats, captured=None):
    """One attempt chain of the service: retry on another instance until a 200."""
    for attempt in range(400):
        client = clients[(start + attempt) % len(clients)]
        sent = headers(delivery_id, retry=attempt)
        if captured is not None and attempt == 0:
            captured.append(sent)
        response = client.post("/hook", content=BODY, headers=sent)
        body = response.json()
        if response.status_code == 200:
            stats["duplicate" if body.get("duplicate") else "handled"] += 1
            return
        assert response.status_code in (500, 503), (response.status_code, body)
        if response.status_code == 503:
            assert body["error"] == "delivery_in_flight" and response.headers["Retry-After"]
        stats[body.get("error", "failed")] += 1
        time.sleep(0.02)  # the service would wait Retry-After: long, and not under test
    raise AssertionError(f"{delivery_id} never answered 200")


@pytest.mark.slow
@pytest.mark.parametrize("instances", [2, 4])
def test_each_delivery_is_handled_exactly_once_across_processes(
    shared_log_url, tmp_path, instances
):
    ids = [f"e-{i}" for i in range(16)] + [f"flaky-{i}" for i in range(6)]
    stats = collections.Counter()
    captured = collections.defaultdict(list)
    with receivers(shared_log_url, instances, tmp_path) as (clients, _, sink):
        with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
            chains = [
                pool.submit(
                    deliver_chain, clients, start, delivery_id, stats, captured[delivery_id]
                )
                for delivery_id in ids
                for start in range(instances)  # the same id to every instance at once
            ]
            for chain in chains:
                chain.result()
            replays = [  # a captured request under a new id, at another instance
                pool.submit(
                    clients[(n + 1) % instances].post,
                    "/hook",
                    content=BODY,
                    headers={**captured[delivery_id][0], "X-Webhook-Delivery-Id": f"replay-{n}"},
                )
                for n, delivery_id in enumerate(ids)
            ]
            for replay in replays:
                answer = replay.result()
                assert answer.status_code == 401
                assert answer.json()["error"] == "replayed_signature"
        lines = sink_lines(sink)
    done = collections.Counter(delivery_id for what, delivery_id, *_ in lines if what == "done")
    failed = collections.Counter(delivery_id for what, delivery_id, *_ in lines if what == "fail")
    assert done == collections.Counter(ids)  # every delivery handled, and exactly once
    assert failed == collections.Counter(i for i in ids if i.startswith("flaky-"))
    assert stats["handled"] == len(ids)
    assert stats["duplicate"] + stats["delivery_in_flight"] > 0  # copies did collide
    assert len({pid for *_, pid, _ in lines}) > 1  # more than one process handled deliveries


@pytest.mark.slow
def test_a_receiver_killed_mid_handler_releases_its_claim_after_the_lease(shared_log_url, tmp_path):
    lease = 3.0
    with receivers(shared_log_url, 2, tmp_path, lease=lease) as (clients, procs, sink):
        hung = threading.Thread(
            target=_post_quietly, args=(clients[0], headers("hang-1")), daemon=True
        )
        hung.start()
        deadline = time.monotonic() + 30
        while not any(line[:2] == ["start", "hang-1"] for line in sink_lines(sink)):
            assert time.monotonic() < deadline, "the handler never started"
            time.sleep(0.02)
        claimed_at = float(sink_lines(sink)[0][3])
        procs[0].send_signal(signal.SIGKILL)
        procs[0].wait(timeout=30)
        answers = []
        while True:
            sent_at = time.time()
            response = clients[1].post("/hook", content=BODY, headers=headers("hang-1", retry=1))
            answers.append((sent_at, response.status_code))
            if response.status_code == 200:
                break
            assert response.status_code == 503
            assert response.json()["error"] == "delivery_in_flight"
            assert sent_at < claimed_at + lease + 30, "the dead claim was never taken over"
            time.sleep(0.1)
        hung.join(timeout=5)
        lines = sink_lines(sink)
    early = [code for sent_at, code in answers if sent_at < claimed_at + lease - 0.5]
    assert all(code == 503 for code in early)  # a live lease keeps the retry out...
    assert answers[-1][0] >= claimed_at + lease - 1.0  # ...until it runs out
    assert [line[:2] for line in lines if line[0] == "done"] == [["done", "hang-1"]]


def _post_quietly(client, sent):
    with contextlib.suppress(httpx.HTTPError):  # the process was killed under the request
        client.post("/hook", content=BODY, headers=sent)
