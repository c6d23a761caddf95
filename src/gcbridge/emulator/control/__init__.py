"""The emulator as a test instrument: its clock, reset and snapshots, health and admin token."""

from __future__ import annotations

from gcbridge.emulator.control.clock import ControlledClock

__all__ = ["ControlledClock"]
