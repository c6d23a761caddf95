"""The pytest plugin ``gcbridge_webhooks``: the ``gc_webhook`` fixture for receivers' tests.

Installed with the package (entry point ``pytest11``), so a receiver's own test
suite gets it without configuration (``CREATED``: :mod:`gcbridge.webhooks.catalog`)::

    def test_receiver(gc_webhook):
        gc_webhook.configure(app, secret="whsec_test", path="/webhooks/gc")
        assert gc_webhook(CREATED.name, content="Hi").status_code == 200
        assert gc_webhook(duplicate=True).json()["duplicate"] is True
        assert gc_webhook(stale=True).status_code == 401
        assert gc_webhook(wrong_secret=True).json()["error"] == "signature_mismatch"

pytest itself is imported only here, and only pytest loads this module.
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
