"""Errors of the emulator; the app renders ``ApiError`` as ``{"gcCode", "error", "message"}``."""

from __future__ import annotations

from gcbridge.errors import GcBridgeError

__all__ = ["EmulatorError", "ConfigError", "ApiError", "ReceiverRefused", "invalid", "bad_request"]


class EmulatorError(GcBridgeError):
    """Base of the emulator's errors."""

    reason = "emulator_error"


class ConfigError(EmulatorError):
    """Settings or the sites file are wrong; the message says what to fix."""

    reason = "config_error"


class ApiError(EmulatorError):
    """An error answer of the emulator's HTTP API."""

    def __init__(
        self, status: int, reason: str, message: str, *, gc_code: int | None = None
    ) -> None:
        super().__init__(message, reason=reason)
        self.status = status
        self.gc_code = status if gc_code is None else gc_code


class ReceiverRefused(EmulatorError):
    """A receiver URL or address refused by the SSRF policy."""

    reason = "receiver_refused"


def invalid(name: str, message: str) -> ApiError:
    """The 400 ``invalid_parameter`` error for field ``name``."""
    return ApiError(400, "invalid_parameter", f"{name}: {message}")


def bad_request(message: str, reason: str = "invalid_request") -> ApiError:
    """The 400 error of a request the route refuses (``invalid_request`` unless said)."""
    return ApiError(400, reason, message)
