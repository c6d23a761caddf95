"""The pytest plugin ``gcbridge_webhooks``: the ``gc_webhook`` fixture for receivers' tests.

Installed with the package (entry point ``pytest11``): docs/guides/webhooks.md, "Testing your
receiver". pytest itself is imported only here, and only pytest loads this module.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gcbridge.webhooks.testing import WebhookPoster

__all__ = ["gc_webhook"]


@pytest.fixture
def gc_webhook() -> Iterator[WebhookPoster]:
    """A :class:`~gcbridge.webhooks.testing.WebhookPoster`: configure it, then call it."""
    yield WebhookPoster()
