"""The sample customer backend the scenarios sign in with: :mod:`gcbridge.sample_backend`.

It is shared with the demo and belongs to neither; the harness uses it as is.
"""

from __future__ import annotations

from gcbridge.sample_backend import (
    DEMO_USERS,
    AppUser,
    CustomerBackend,
    UserDirectory,
    create_app,
    running_backend,
)

__all__ = [
    "AppUser",
    "UserDirectory",
    "DEMO_USERS",
    "create_app",
    "running_backend",
    "CustomerBackend",
]
