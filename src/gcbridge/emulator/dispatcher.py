"""Placeholder dispatcher; replaced by its owner (interface is fixed)."""

from __future__ import annotations

from typing import Any


class Dispatcher:
    def __init__(self, db: Any, settings: Any, *, clock: Any, sleep: Any = None, transport: Any = None) -> None:
        self.db = db

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def wake(self) -> None: ...
