"""Concurrent replays of one call make one fresh delivery.

Before the fix, ten concurrent replays of one failed call gave ten deliveries
under ten delivery ids, which no receiver can de-duplicate.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.emulator.webhooks.support import Api, Receiver, Reply, bearer


def _failed_call(api: Api, receiver: Receiver) -> dict:
    api.setup(receiver.url)
    receiver.script = [Reply(404)]
    api.comment()
    [failed] = api.wait_settled(1)
    assert failed["status"] == "failed"
    return failed


def _replay(api: Api, call_id: str) -> httpx.Response:
    with httpx.Client(base_url=str(api.http.base_url), timeout=30) as http:
        return http.post(f"/webhook/call/{call_id}/replay", headers=bearer())


def test_ten_concurrent_replays_make_one_delivery(api: Api, receiver: Receiver) -> None:
    failed = _failed_call(api, receiver)
    receiver.script = [Reply(200)]
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda _: _replay(api, failed["id"]), range(10)))
    assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
    calls = {r.json()["call"]["id"] for r in answers}
    deliveries = {r.json()["call"]["delivery_id"] for r in answers}
    assert len(calls) == 1 and len(deliveries) == 1
    assert sorted(r.json()["fresh"] for r in answers) == [False] * 9 + [True]
    settled = api.wait_settled(2)
    assert len(settled) == 2  # the original and one replay, nothing more
    assert len(receiver.deliveries) == 2


def test_a_replay_after_the_replay_succeeded_answers_it_again(api: Api, receiver: Receiver) -> None:
    failed = _failed_call(api, receiver)
    receiver.script = [Reply(200)]
    first = _replay(api, failed["id"]).json()["call"]
    api.wait_settled(2)
    again = _replay(api, failed["id"])
    assert again.status_code == 200
    assert again.json()["call"]["id"] == first["id"] and again.json()["fresh"] is False
    assert again.json()["call"]["status"] == "succeeded"
    assert len(receiver.deliveries) == 2


def test_once_the_replay_failed_a_call_may_be_replayed_again(api: Api, receiver: Receiver) -> None:
    failed = _failed_call(api, receiver)
    receiver.script = [Reply(410)]
    first = _replay(api, failed["id"]).json()["call"]
    settled = api.wait_settled(2)
    assert settled[0]["id"] == first["id"] and settled[0]["status"] == "failed"
    receiver.script = [Reply(200)]
    second = _replay(api, failed["id"]).json()
    assert second["fresh"] is True and second["call"]["replay_of"] == first["id"]
    assert _replay(api, first["id"]).json()["call"]["id"] == second["call"]["id"]
    assert len(api.wait_settled(3)) == 3
