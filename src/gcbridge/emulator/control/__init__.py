"""The emulator as a test instrument: its clock, reset and snapshots, health and admin token.

- :mod:`.clock`        ``ControlledClock``: running (``system``) or frozen (``manual``)
- :mod:`.operations`   ``Control``: advance through due attempts, reset, snapshots
- :mod:`.state_store`  the database as a whole (SQLite backup API)
- :mod:`.token`        the admin token (generated into the data dir, or from the env)
- :mod:`.routes`       ``/_emulator/...``
"""

from __future__ import annotations

from gcbridge.emulator.control.clock import ControlledClock

__all__ = ["ControlledClock"]
