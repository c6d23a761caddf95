"""gc-bridge: put a hosted comment widget into native apps and wire it to customer backends.

Parts: :mod:`gcbridge.bridge`, :mod:`gcbridge.sso`, :mod:`gcbridge.webhooks`,
:mod:`gcbridge.emulator` (extra ``emulator``), :mod:`gcbridge.demo` (extra ``demo``):
docs/explanation/architecture.md.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
