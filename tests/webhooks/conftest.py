"""The ``gc_webhook`` fixture for this directory, whether or not the package's pytest11
entry point is installed in the environment running the suite (a conftest fixture
simply takes precedence over the plugin's)."""

from gcbridge.webhooks.pytest_plugin import gc_webhook

__all__ = ["gc_webhook"]
