"""Receiver connections: kept alive where safe, never shared across pinned host names."""

from __future__ import annotations

import asyncio

import httpx

from gcbridge.emulator.webhooks.connections import ReceiverClients
from gcbridge.emulator.webhooks.ssrf import Target
from tests.emulator.webhooks.support import Api, Receiver, Reply


def clients(**kw: object) -> ReceiverClients:
    return ReceiverClients(timeout=5.0, **kw)  # type: ignore[arg-type]


def lease_ids(*targets: Target, **kw: object) -> list[int]:
    """The id of the client each target is leased, in turn, from one new pool (then closed)."""

    async def go() -> list[int]:
        pool = clients(**kw)
        try:
            ids = []
            for target in targets:
                async with pool.lease(target) as client:
                    ids.append(id(client))
            return ids
        finally:
            await pool.aclose()

    return asyncio.run(go())


def test_pinned_names_on_one_address_never_share_a_client() -> None:
    a1, b, a2 = lease_ids(
        Target("https://a.example/hook", "93.184.215.14"),
        Target("https://b.example/hook", "93.184.215.14"),
        Target("https://a.example/other", "93.184.215.14"),
    )
    assert a1 != b  # a TLS connection checked for a.example must not carry b.example
    assert a1 == a2  # the same name and address reuse their connections


def test_a_new_dns_answer_gets_a_new_client() -> None:
    first, second = lease_ids(
        Target("https://a.example/hook", "93.184.215.14"),
        Target("https://a.example/hook", "93.184.215.15"),
    )
    assert first != second


def test_unpinned_targets_share_one_pooled_client() -> None:
    first, second = lease_ids(
        Target("http://localhost:9/a", None),
        Target("http://127.0.0.1:9/b", None),
    )
    assert first == second


def test_evicted_client_is_closed_only_when_its_attempt_ends() -> None:
    async def go() -> tuple[bool, bool, bool]:
        pool = clients(max_pinned=1)
        try:
            async with pool.lease(Target("https://a.example/", "93.184.215.14")) as held:
                async with pool.lease(Target("https://b.example/", "93.184.215.14")) as other:
                    pass
                closed_while_leased = held.is_closed
            return closed_while_leased, held.is_closed, other.is_closed
        finally:
            await pool.aclose()

    while_leased, after, newest = asyncio.run(go())
    assert not while_leased  # an attempt in flight keeps its connection
    assert after  # evicted, closed once released
    assert not newest


def test_injected_transport_gets_one_client() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200))
    first, second = lease_ids(
        Target("https://a.example/hook", "93.184.215.14"),
        Target("https://b.example/hook", "93.184.215.99"),
        transport=transport,
    )
    assert first == second


def test_leasing_after_close_is_refused() -> None:
    async def go() -> None:
        pool = clients()
        await pool.aclose()
        async with pool.lease(Target("http://localhost:9/", None)):
            pass

    try:
        asyncio.run(go())
    except RuntimeError as exc:
        assert "closed" in str(exc)
    else:
        raise AssertionError("lease after aclose should fail")


def test_deliveries_succeed_when_the_receiver_closes_each_connection(
    api: Api, receiver: Receiver
) -> None:
    # A kept-alive connection the receiver has closed must not turn into a failed attempt.
    receiver.script = [Reply(200, headers={"Connection": "close"}) for _ in range(5)]
    api.setup(receiver.url)
    for _ in range(5):
        api.comment()
    calls = api.wait_settled(5)
    assert [c["status"] for c in calls] == ["succeeded"] * 5
    assert all(len(c["attempts"]) == 1 for c in calls)
    assert len(receiver.deliveries) == 5
