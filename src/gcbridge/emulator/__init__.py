"""A faithful local stand-in for the commenting service (extra ``emulator``).

``create_app`` builds the FastAPI app; ``gcbridge emulator`` runs it.
"""

from gcbridge.emulator.errors import ApiError, ConfigError, EmulatorError, ReceiverRefused
from gcbridge.emulator.settings import Settings
from gcbridge.emulator.sites import Site, Sites

__all__ = [
    "ApiError",
    "ConfigError",
    "EmulatorError",
    "ReceiverRefused",
    "Settings",
    "Site",
    "Sites",
    "create_app",
]


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    if name == "create_app":
        from gcbridge.emulator.service import create_app

        return create_app
    raise AttributeError(name)
