"""SSRF defence for webhook receivers.

Threat model: whoever sets up a site's webhook chooses the URL the emulator POSTs to,
which would make the service a proxy into its own network (loopback admin ports, cloud
metadata at 169.254.169.254, the private LAN). Unless ``allow_private_receivers``:

1. the URL must be ``https``, without userinfo, at most 2048 characters, and parse with
   the sender's own parser into a host DNS can look up (:func:`check_receiver_url`, also
   run at setup, so setup refuses what could never be sent to);
2. at send time EVERY resolved address must be public, IPv6 forms embedding an IPv4
   address judged by that address too (:func:`check_address`);
3. the connection is pinned to the checked address, the name kept in ``Host`` and TLS
   SNI (:func:`pin_request`), so a second DNS answer (rebinding) is never used.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from gcbridge.emulator.errors import ReceiverRefused

__all__ = [
    "MAX_URL_LENGTH",
    "Resolver",
    "system_resolver",
    "check_receiver_url",
    "check_address",
    "Target",
    "resolve_receiver",
    "pin_request",
]

MAX_URL_LENGTH = 2048
"""The longest receiver URL accepted."""

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""``await resolver(host, port)`` -> the host's IP addresses as text."""

IP = ipaddress.IPv4Address | ipaddress.IPv6Address

_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")
_IPV4_COMPAT = ipaddress.IPv6Network("::/96")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve with the system's ``getaddrinfo`` (without blocking the event loop)."""
    infos = await asyncio.get_running_loop().getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def check_receiver_url(url: str, *, allow_private: bool) -> SplitResult:
    """Check the shape of a receiver URL; returns its parts or raises ``ReceiverRefused``."""
    if len(url) > MAX_URL_LENGTH:
        raise ReceiverRefused(f"url longer than {MAX_URL_LENGTH} characters", reason="url_too_long")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ReceiverRefused(f"url is not valid: {exc}", reason="bad_url") from None
    schemes = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in schemes:
        raise ReceiverRefused(
            "url must be https (http only with --allow-private-receivers)", reason="not_https"
        )
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ReceiverRefused("url must not carry credentials (user:pass@)", reason="userinfo")
    if not parts.hostname or any(c.isspace() for c in url) or port == 0:
        raise ReceiverRefused("url needs a host (and no spaces)", reason="bad_url")
    _check_sendable(url, parts.hostname)
    if not allow_private:
        literal = _ip_or_none(parts.hostname)
        if literal is not None:
            check_address(str(literal))
    return parts


def _check_sendable(url: str, hostname: str) -> None:
    """Refuse (``bad_url``) what the dispatcher's HTTP client or DNS lookup would choke on.

    The same parser as the sender (``httpx.URL``: control characters, IDNA), then
    the DNS rules ``getaddrinfo`` enforces: labels of 1-63 octets, 253 in all.
    """
    import httpx

    try:
        host = httpx.URL(url).raw_host.decode("ascii")
    except (httpx.InvalidURL, UnicodeError, ValueError) as exc:
        shown = str(exc).encode("ascii", "backslashreplace").decode("ascii")[:200]
        raise ReceiverRefused(f"url is not valid: {shown}", reason="bad_url") from None
    if _ip_or_none(hostname) is not None:
        return
    labels = host.removesuffix(".").split(".")
    if len(host) > 253 or any(not 1 <= len(label) <= 63 for label in labels):
        raise ReceiverRefused(
            "url host: labels of 1-63 characters separated by single dots", reason="bad_url"
        )
    try:
        host.encode("idna")
    except UnicodeError:
        raise ReceiverRefused("url host is not a valid DNS name", reason="bad_url") from None


def _ip_or_none(text: str) -> IP | None:
    try:
        return ipaddress.ip_address(text.strip("[]").split("%")[0])
    except ValueError:
        return None


def _refusal(ip: IP) -> str | None:
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped
        if embedded is None and ((ip in _IPV4_COMPAT and int(ip) > 1) or ip in _NAT64):
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is None:
            embedded = ip.sixtofour
        if embedded is not None:
            return _refusal(embedded)
        if ip.teredo is not None:
            server, client = ip.teredo
            return _refusal(server) or _refusal(client)
    if ip.is_unspecified:
        return "unspecified_address"
    if ip.is_loopback:
        return "loopback_address"
    if ip.is_link_local:
        return "link_local_address"
    if ip.is_multicast:
        return "multicast_address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "shared_address"
    if ip.is_reserved:
        return "reserved_address"
    if ip.is_private:
        return "private_address"
    if not ip.is_global:  # documentation, benchmarking and other special-purpose ranges
        return "reserved_address"
    return None


def check_address(address: str) -> None:
    """Raise ``ReceiverRefused`` unless ``address`` is a public unicast IP address."""
    ip = _ip_or_none(address)
    if ip is None:
        raise ReceiverRefused(f"{address!r} is not an IP address", reason="bad_url")
    reason = _refusal(ip)
    if reason is not None:
        raise ReceiverRefused(f"receiver address {ip} is not public ({reason})", reason=reason)


@dataclass(frozen=True)
class Target:
    """Where to send: the URL, and the checked address to pin (``None``: not pinned)."""

    url: str
    address: str | None


async def resolve_receiver(url: str, *, allow_private: bool, resolver: Resolver) -> Target:
    """Check ``url``, resolve its host and check every address (``OSError`` if DNS fails).

    With ``allow_private`` nothing is resolved or pinned: development receivers
    on ``localhost`` answer on whichever of ``::1`` / ``127.0.0.1`` they bound.
    """
    parts = check_receiver_url(url, allow_private=allow_private)
    if allow_private:
        return Target(url=url, address=None)
    host = parts.hostname or ""
    literal = _ip_or_none(host)
    if literal is not None:
        return Target(url=url, address=str(literal))
    addresses = await resolver(host, parts.port or 443)
    if not addresses:
        raise ReceiverRefused(f"{host} has no address", reason="no_address")
    for address in addresses:
        check_address(address)
    return Target(url=url, address=addresses[0])


def pin_request(target: Target) -> tuple[str, dict[str, str], dict[str, object]]:
    """The URL to connect to, extra headers and httpx request extensions for ``target``.

    The URL's host becomes the checked IP; ``Host`` keeps the name for the
    receiver's routing, and ``sni_hostname`` keeps it for TLS (SNI and the
    certificate check are done against the name, not the IP).
    """
    import httpx

    if target.address is None:
        return target.url, {}, {}
    original = httpx.URL(target.url)
    pinned = original.copy_with(host=target.address)
    host_header = original.netloc.decode("ascii")
    extensions: dict[str, object] = {}
    if original.scheme == "https" and _ip_or_none(original.host) is None:
        extensions["sni_hostname"] = original.host
    return str(pinned), {"Host": host_header}, extensions
