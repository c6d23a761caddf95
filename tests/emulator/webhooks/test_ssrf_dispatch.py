"""SSRF at send time: the dispatcher resolves, refuses private answers and pins the address."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from gcbridge.emulator.testing import running_emulator
from tests.emulator.webhooks.support import Api


def resolver_for(address: str):  # type: ignore[no-untyped-def]
    async def resolve(host: str, port: int) -> list[str]:
        return [address]

    return resolve


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback_address"),
        ("::ffff:127.0.0.1", "loopback_address"),
        ("10.0.0.7", "private_address"),
    ],
)
def test_name_resolving_to_a_private_address_is_refused(
    make_api: Callable[..., Api], address: str, reason: str
) -> None:
    api = make_api(allow_private_receivers=False)
    api.emu.state.dispatcher.resolver = resolver_for(address)
    api.setup("https://rebind.example/hook")
    api.comment()
    [call] = api.wait_settled(1)
    assert call["status"] == "failed" and call["error"] == f"ssrf:{reason}"
    assert [a["error"] for a in call["attempts"]] == [f"ssrf:{reason}"]  # no retry


def test_dns_failure_is_a_retried_network_error(make_api: Callable[..., Api]) -> None:
    api = make_api(allow_private_receivers=False, retry_schedule=(0, 5))

    async def fail(host: str, port: int) -> list[str]:
        raise OSError("no such host")

    api.emu.state.dispatcher.resolver = fail
    api.setup("https://nowhere.example/hook")
    api.comment()
    [call] = api.wait_settled(1)
    assert [a["error"] for a in call["attempts"]] == ["dns_error", "dns_error"]
    assert call["error"] == "retries_exhausted:dns_error"


def test_delivery_is_pinned_to_the_checked_address(tmp_path, clock) -> None:  # type: ignore[no-untyped-def]
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200)

    with running_emulator(
        tmp_path, clock=clock, transport=httpx.MockTransport(handler), allow_private_receivers=False
    ) as emu:
        emu.state.dispatcher.resolver = resolver_for("93.184.215.14")
        api = Api(emu)
        api.setup("https://receiver.example/hook")
        api.comment()
        [call] = api.wait_settled(1)
        api.close()
    assert call["status"] == "succeeded"
    [request] = seen
    assert str(request.url) == "https://93.184.215.14/hook"
    assert request.headers["host"] == "receiver.example"
    assert request.extensions["sni_hostname"] == "receiver.example"
    assert call["attempts"][0]["request_headers"]["Host"] == "receiver.example"
