"""Public surface: __all__ of every module, and no FastAPI/uvicorn behind the core imports."""

import importlib
import inspect
import subprocess
import sys

import pytest

MODULES = [
    "gcbridge.sso",
    "gcbridge.sso.errors",
    "gcbridge.sso.fields",
    "gcbridge.sso.format",
    "gcbridge.sso.issuer",
    "gcbridge.sso.policy",
    "gcbridge.sso.user",
    "gcbridge.sso.verifier",
    "gcbridge.sso.fastapi",
    "gcbridge.webhooks",
    "gcbridge.webhooks.errors",
    "gcbridge.webhooks.signature",
    "gcbridge.webhooks.events",
    "gcbridge.webhooks.construct",
    "gcbridge.webhooks.delivery_log",
    "gcbridge.webhooks.delivery_log.base",
    "gcbridge.webhooks.delivery_log.sqlite_store",
    "gcbridge.webhooks.delivery_log.postgres_store",
    "gcbridge.webhooks.delivery_log.redis_store",
    "gcbridge.webhooks.delivery_log.postgres_schema",
    "gcbridge.webhooks.delivery_log.claims",
    "gcbridge.webhooks.delivery_log.deadline",
    "gcbridge.webhooks.receiver",
    "gcbridge.webhooks.listen",
    "gcbridge.webhooks.testing",
    "gcbridge.webhooks.pytest_plugin",
    "gcbridge.cli.webhooks_remote",
]


@pytest.mark.parametrize("name", MODULES)
def test_all_lists_existing_documented_names(name):
    module = importlib.import_module(name)
    assert module.__doc__
    assert len(set(module.__all__)) == len(module.__all__)
    for exported in module.__all__:
        obj = getattr(module, exported)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert obj.__doc__, f"{name}.{exported} has no docstring"


def test_package_all_covers_the_contract_names():
    import gcbridge.webhooks as webhooks

    for required in (
        "sign",
        "verify_signature",
        "construct_event",
        "WebhookVerificationError",
        "WebhookEvent",
        "SIGNATURE_HEADER",
        "TIMESTAMP_HEADER",
    ):
        assert required in webhooks.__all__
    import gcbridge.sso as sso

    for required in ("SsoIssuer", "SsoVerifier", "SsoUser", "SsoExpired", "SsoInvalid", "SsoError"):
        assert required in sso.__all__


def test_core_imports_need_no_web_framework():
    code = (
        "import sys, gcbridge.sso, gcbridge.webhooks, gcbridge.webhooks.testing\n"
        "import gcbridge.cli.sso_cmd, gcbridge.cli.webhooks_cmd\n"
        "from gcbridge.cli import build_parser; build_parser()\n"
        "heavy = ('fastapi', 'starlette', 'uvicorn', 'httpx', 'playwright', 'pytest',"
        " 'psycopg', 'redis')\n"
        "print(','.join(sorted(m for m in heavy if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
