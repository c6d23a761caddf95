"""SSRF defence: URL shape, address classes, resolution of every address, pinning."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from gcbridge.emulator.errors import ReceiverRefused
from gcbridge.emulator.webhooks.ssrf import (
    Target,
    check_address,
    check_receiver_url,
    pin_request,
    resolve_receiver,
)

PUBLIC = "93.184.215.14"


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback_address"),
        ("127.8.9.10", "loopback_address"),
        ("::1", "loopback_address"),
        ("10.1.2.3", "private_address"),
        ("172.16.0.1", "private_address"),
        ("192.168.1.1", "private_address"),
        ("fd00::1", "private_address"),
        ("169.254.169.254", "link_local_address"),
        ("fe80::1", "link_local_address"),
        ("100.64.0.1", "shared_address"),
        ("100.127.255.254", "shared_address"),
        ("224.0.0.1", "multicast_address"),
        ("ff02::1", "multicast_address"),
        ("0.0.0.0", "unspecified_address"),
        ("::", "unspecified_address"),
        ("240.0.0.1", "reserved_address"),
        ("255.255.255.255", "reserved_address"),
        ("192.0.2.1", "private_address"),  # documentation range
        ("::ffff:127.0.0.1", "loopback_address"),  # IPv4-mapped
        ("::ffff:10.0.0.1", "private_address"),
        ("::ffff:169.254.169.254", "link_local_address"),
        ("::127.0.0.1", "loopback_address"),  # IPv4-compatible (deprecated)
        ("64:ff9b::a9fe:a9fe", "link_local_address"),  # NAT64 of 169.254.169.254
        ("2002:7f00:1::1", "loopback_address"),  # 6to4 of 127.0.0.1
        ("2002:0a00:0001::1", "private_address"),  # 6to4 of 10.0.0.1
    ],
)
def test_non_public_addresses_are_refused(address: str, reason: str) -> None:
    with pytest.raises(ReceiverRefused) as info:
        check_address(address)
    assert info.value.reason == reason


@pytest.mark.parametrize("address", [PUBLIC, "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address: str) -> None:
    check_address(address)


def test_teredo_embedding_a_private_client_is_refused() -> None:
    # Teredo: server 65.54.227.120, client (obfuscated) 192.168.1.1
    with pytest.raises(ReceiverRefused):
        check_address("2001:0:4136:e378:8000:63bf:3f57:fefe")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://receiver.example/hook", "not_https"),
        ("ftp://receiver.example/hook", "not_https"),
        ("receiver.example/hook", "not_https"),
        ("https://user:pw@receiver.example/hook", "userinfo"),
        ("https://user@receiver.example/hook", "userinfo"),
        ("https://receiver.example/" + "a" * 2048, "url_too_long"),
        ("https:///nohost", "bad_url"),
        ("https://receiver.example:99999/", "bad_url"),
        ("https://127.0.0.1/hook", "loopback_address"),
        ("https://[::ffff:10.0.0.1]/hook", "private_address"),
    ],
)
def test_receiver_url_shape(url: str, reason: str) -> None:
    with pytest.raises(ReceiverRefused) as info:
        check_receiver_url(url, allow_private=False)
    assert info.value.reason == reason


def test_private_receivers_allowed_admit_http_and_loopback() -> None:
    check_receiver_url("http://127.0.0.1:8080/hook", allow_private=True)
    with pytest.raises(ReceiverRefused) as info:
        check_receiver_url("http://u:p@127.0.0.1/hook", allow_private=True)
    assert info.value.reason == "userinfo"


def _resolver(table: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    async def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError("name not known")
        return table[host]

    return resolve


def _resolve(url: str, table: dict[str, list[str]], allow_private: bool = False) -> Target:
    return asyncio.run(
        resolve_receiver(url, allow_private=allow_private, resolver=_resolver(table))
    )


def test_hostname_resolving_to_loopback_is_refused() -> None:
    with pytest.raises(ReceiverRefused) as info:
        _resolve("https://rebind.example/hook", {"rebind.example": ["127.0.0.1"]})
    assert info.value.reason == "loopback_address"


def test_one_private_address_among_public_ones_is_enough_to_refuse() -> None:
    with pytest.raises(ReceiverRefused) as info:
        _resolve("https://mixed.example/hook", {"mixed.example": [PUBLIC, "::ffff:192.168.0.1"]})
    assert info.value.reason == "private_address"


def test_no_address_and_dns_failure() -> None:
    with pytest.raises(ReceiverRefused) as info:
        _resolve("https://empty.example/", {"empty.example": []})
    assert info.value.reason == "no_address"
    with pytest.raises(OSError):
        _resolve("https://unknown.example/", {})


def test_public_host_is_pinned_to_its_checked_address() -> None:
    target = _resolve("https://receiver.example:8443/hook?x=1", {"receiver.example": [PUBLIC]})
    assert target == Target(url="https://receiver.example:8443/hook?x=1", address=PUBLIC)
    url, headers, extensions = pin_request(target)
    assert url == f"https://{PUBLIC}:8443/hook?x=1"
    assert headers == {"Host": "receiver.example:8443"}
    assert extensions == {"sni_hostname": "receiver.example"}


def test_ipv6_pin() -> None:
    url, headers, _ = pin_request(Target(url="https://receiver.example/h", address="2606:4700::1"))
    assert url == "https://[2606:4700::1]/h"
    assert headers == {"Host": "receiver.example"}


def test_allow_private_does_not_resolve_or_pin() -> None:
    target = _resolve("http://localhost:9/hook", {}, allow_private=True)
    assert target.address is None
    assert pin_request(target) == ("http://localhost:9/hook", {}, {})


def test_pinned_request_reaches_the_ip_with_host_and_sni() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(204)

    async def go() -> None:
        url, headers, extensions = pin_request(Target("https://receiver.example/hook", PUBLIC))
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            await client.post(url, headers=headers, extensions=extensions, content=b"{}")

    asyncio.run(go())
    assert seen[0].url.host == PUBLIC
    assert seen[0].headers["host"] == "receiver.example"
    assert seen[0].extensions["sni_hostname"] == "receiver.example"
