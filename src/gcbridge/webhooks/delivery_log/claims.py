"""A claim held by one handler, and the settlements an outage kept from reaching the log.

A :class:`Claim` carries its own token: completing or releasing it touches the
delivery id only while that token holds it. A handler that outlived its lease
(the service's retry claimed the id afresh, under another token) and then
fails or finishes leaves the retry's live claim alone.

When the log cannot be reached at the moment a claim is settled (the handler
has already run), the settlement is kept in :class:`PendingSettlements` and
written before this log's next call: the service's retry then meets the
processed id (``duplicate``) instead of a claim left to run out its lease and
be handled a second time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

__all__ = ["Claim", "PendingSettlements", "MAX_DELIVERY_ID_LENGTH", "Settlement"]

MAX_DELIVERY_ID_LENGTH = 200
"""Longest delivery id accepted (the service's ids are short; the header is not signed)."""

Settlement = Literal["complete", "release"]


@dataclass(frozen=True)
class Claim:
    """The outcome of :meth:`DeliveryLog.acquire`; ``token`` is set when ``status`` is ``new``."""

    status: Literal["new", "duplicate", "in_flight"]
    delivery_id: str
    signature: str
    timestamp_ms: int
    token: str | None = None

    @property
    def held(self) -> bool:
        """Whether the caller holds this claim (and must complete or release it)."""
        return self.token is not None


class PendingSettlements:
    """Settlements not yet written (the log was down), oldest first, bounded."""

    def __init__(self, limit: int = 10_000) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._items: OrderedDict[str, tuple[Settlement, Claim]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def add(self, what: Settlement, claim: Claim) -> None:
        """Keep a settlement for later (past the limit the oldest goes: its lease runs out)."""
        assert claim.token is not None
        with self._lock:
            self._items[claim.token] = (what, claim)
            while len(self._items) > self._limit:
                self._items.popitem(last=False)

    def take(self) -> list[tuple[Settlement, Claim]]:
        """All pending settlements, removed (put back what could not be written)."""
        with self._lock:
            items = list(self._items.values())
            self._items.clear()
        return items

    def put_back(self, items: list[tuple[Settlement, Claim]]) -> None:
        """Return settlements still unwritten, ahead of newer ones."""
        with self._lock:
            newer = list(self._items.items())
            self._items.clear()
            for what, claim in items:
                assert claim.token is not None
                self._items[claim.token] = (what, claim)
            for key, value in newer:
                self._items[key] = value
            while len(self._items) > self._limit:
                self._items.popitem(last=False)
