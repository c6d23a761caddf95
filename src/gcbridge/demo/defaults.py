"""Defaults of the demo, importable without its heavy parts (the CLI parser reads them)."""

__all__ = ["DEFAULT_PORT"]

# Fixed, not random: the widget keeps its session in localStorage, which is per
# origin, so a relaunch must come back on the same host and port.
DEFAULT_PORT = 8470
