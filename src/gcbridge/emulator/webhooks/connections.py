"""The dispatcher's httpx clients, and when a receiver connection may be reused.

Keep-alive matters for throughput (a fresh TCP, and TLS, handshake per attempt
costs more than the attempt itself on loopback), but a reused connection must
never carry a request its first handshake did not check:

- Unpinned targets (``allow_private_receivers``, development): one shared
  client. httpx keys its pool by the URL's scheme, host name and port, and the
  TLS certificate was checked against that same name.
- Pinned targets: the URL holds the checked IP and the name travels in ``Host``
  and the TLS ``sni_hostname``. httpx would key the pool by the IP alone, so two
  names behind one address could share a TLS connection checked for only one
  of them. Each ``(scheme, address, port, host name)`` therefore gets its own
  client: a connection is reused only for the very name and address it was
  opened (and its certificate checked) for. A new DNS answer is a new key, so
  rebinding never rides an old connection to a new address either.

Pinned clients are kept for the ``max_pinned`` most recent keys; an evicted
client is closed once no attempt is using it. Idle connections are dropped
after ``keepalive_expiry`` seconds, below the usual server idle timeouts, so
that a connection the receiver is closing is seldom picked.

An injected transport (tests) gets one client for everything: the transport,
not the pool, decides what a connection is.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import httpx

from gcbridge.emulator.webhooks.attempt import keep_location
from gcbridge.emulator.webhooks.ssrf import Target

__all__ = ["ReceiverClients", "KEEPALIVE_EXPIRY", "MAX_PINNED_CLIENTS"]

KEEPALIVE_EXPIRY = 2.0
"""Seconds an idle receiver connection is kept (uvicorn and Node close after 5 s)."""

MAX_PINNED_CLIENTS = 32
"""Pinned (address, host name) clients kept open at once."""

_Key = tuple[str, str, int | None, str]


class ReceiverClients:
    """httpx clients for webhook attempts; ``async with clients.lease(target) as client``."""

    def __init__(
        self,
        *,
        timeout: float,
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int = 8,
        max_pinned: int = MAX_PINNED_CLIENTS,
    ) -> None:
        self._timeout = timeout
        self._transport = transport
        self._max_connections = max(1, max_connections)
        self._max_pinned = max(1, max_pinned)
        self._shared: httpx.AsyncClient | None = None
        self._pinned: OrderedDict[_Key, httpx.AsyncClient] = OrderedDict()
        self._leases: dict[int, int] = {}  # id(client) -> attempts using it
        self._retired: dict[int, httpx.AsyncClient] = {}  # evicted, closed when unused
        self._closed = False

    def _new_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            transport=self._transport,
            follow_redirects=False,
            timeout=self._timeout,
            trust_env=False,  # an HTTP(S)_PROXY must not bypass the address pinning
            event_hooks={"response": [keep_location]},  # a 30x is journaled, never parsed
            limits=httpx.Limits(
                max_connections=self._max_connections,
                max_keepalive_connections=self._max_connections,
                keepalive_expiry=KEEPALIVE_EXPIRY,
            ),
        )

    def _key(self, target: Target) -> _Key | None:
        if target.address is None or self._transport is not None:
            return None
        parts = urlsplit(target.url)
        return (parts.scheme, target.address, parts.port, parts.netloc.rpartition("@")[2])

    def _client_for(self, key: _Key | None) -> httpx.AsyncClient:
        if key is None:
            if self._shared is None:
                self._shared = self._new_client()
            return self._shared
        client = self._pinned.get(key)
        if client is None:
            client = self._pinned[key] = self._new_client()
        self._pinned.move_to_end(key)
        while len(self._pinned) > self._max_pinned:
            _, old = self._pinned.popitem(last=False)
            self._retired[id(old)] = old
        return client

    @contextlib.asynccontextmanager
    async def lease(self, target: Target) -> AsyncIterator[httpx.AsyncClient]:
        """The client to use for one attempt to ``target`` (kept open while leased)."""
        if self._closed:
            raise RuntimeError("receiver clients are closed")
        client = self._client_for(self._key(target))
        ident = id(client)
        self._leases[ident] = self._leases.get(ident, 0) + 1
        try:
            yield client
        finally:
            left = self._leases[ident] = self._leases[ident] - 1
            if left == 0:
                del self._leases[ident]
            for unused in [i for i in self._retired if i not in self._leases]:
                await self._retired.pop(unused).aclose()

    async def aclose(self) -> None:
        """Close every client (attempts still leasing one are cut by the caller first)."""
        self._closed = True
        clients = [*self._pinned.values(), *self._retired.values()]
        if self._shared is not None:
            clients.append(self._shared)
        self._pinned.clear()
        self._retired.clear()
        self._leases.clear()
        self._shared = None
        for client in clients:
            with contextlib.suppress(Exception):
                await client.aclose()
