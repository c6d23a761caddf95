"""What every route of the emulator can reach: :class:`EmulatorState` and :func:`state_of`.

This module imports no router and no part of the emulator above the core, so that
routers (``auth``, ``comments``, ``webhooks``, ``dashboard``) can import it and the
app factory (``service.py``) can import them without a circle. The delivery engine is
seen here only through the small :class:`DeliveryEngine` protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from fastapi import Request

from gcbridge.clock import Clock
from gcbridge.emulator.db import Database
from gcbridge.emulator.errors import ApiError
from gcbridge.emulator.settings import Settings
from gcbridge.emulator.sites import Site

__all__ = ["DeliveryEngine", "EmulatorState", "state_of"]


class DeliveryEngine(Protocol):
    """The part of the webhook dispatcher that routes and the app use."""

    def wake(self) -> None:
        """Look for due calls now (a change just committed one)."""

    async def start(self) -> None:
        """Start the workers."""

    async def stop(self) -> None:
        """Stop the workers; interrupted attempts resume on the next start."""


@dataclass
class EmulatorState:
    """What every route of the emulator can reach."""

    settings: Settings
    db: Database
    clock: Clock
    dispatcher: DeliveryEngine

    def site(self, website_id: str) -> Site:
        """The site of ``website_id`` (shortname or 24-hex id); ``unknown_site`` (404) if none."""
        site = self.settings.sites.by_shortname_or_id(website_id)
        if site is None:
            raise ApiError(
                404,
                "unknown_site",
                f"website_id: no site has the shortname or 24-hex id {website_id[:64]!r}",
            )
        return site


def state_of(request: Request) -> EmulatorState:
    """The emulator state of the app serving ``request``."""
    state: EmulatorState = request.app.state.emulator
    return state
