"""Each public module declares ``__all__``; every exported name exists and has a docstring."""

import importlib
import inspect

import pytest

PUBLIC = [
    "gcbridge",
    "gcbridge.bridge",
    "gcbridge.browser",
    "gcbridge.clock",
    "gcbridge.errors",
    "gcbridge.serving",
    "gcbridge.sso",
    "gcbridge.sso.fastapi",
    "gcbridge.webhooks",
    "gcbridge.webhooks.receiver",
    "gcbridge.emulator",
    "gcbridge.emulator.testing",
]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_module_exports(name):
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} has no __all__"
    assert len(set(exported)) == len(exported)
    for attr in exported:
        obj = getattr(module, attr)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), f"{name}.{attr} has no docstring"


@pytest.mark.parametrize("name", ["gcbridge.sso", "gcbridge.webhooks"])
def test_error_trees_root_at_gcbridge_error(name):
    from gcbridge.errors import GcBridgeError

    module = importlib.import_module(name)
    errors = [
        getattr(module, a) for a in module.__all__ if a.endswith("Error") or a.startswith("Sso")
    ]
    errors = [e for e in errors if inspect.isclass(e) and issubclass(e, Exception)]
    assert errors
    for err in errors:
        assert issubclass(err, GcBridgeError), err
