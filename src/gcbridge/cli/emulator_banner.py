"""What ``gcbridge emulator`` prints once it listens, before its ``ready`` line.

Where to look: the dashboard (site, webhook configuration, the delivery journal
with replays) and the API pages, served by the emulator itself::

    gcbridge emulator: dashboard http://127.0.0.1:8000/dashboard/ · API http://127.0.0.1:8000/docs
"""

from __future__ import annotations

__all__ = ["start_lines"]


def start_lines(base_url: str) -> list[str]:
    """The lines naming the dashboard and the API pages of the emulator at ``base_url``."""
    base = base_url.rstrip("/")
    return [f"gcbridge emulator: dashboard {base}/dashboard/ · API {base}/docs"]
