"""docs_src/test_receiver.py (guide "Receive webhooks") passes in a suite of its own,
against docs_src/receiver_fastapi.py, with nothing but the package's pytest plugin."""

from importlib.metadata import entry_points
from pathlib import Path

DOCS_SRC = Path(__file__).parents[2] / "docs_src"
pytest_plugins = ["pytester"]


def test_the_readme_receiver_tests_pass(pytester):
    pytester.makepyfile(
        receiver_fastapi=(DOCS_SRC / "receiver_fastapi.py").read_text(encoding="utf-8"),
        test_receiver=(DOCS_SRC / "test_receiver.py").read_text(encoding="utf-8"),
    )
    installed = {ep.name for ep in entry_points(group="pytest11")}
    plugin = [] if "gcbridge_webhooks" in installed else ["-p", "gcbridge.webhooks.pytest_plugin"]
    result = pytester.runpytest_subprocess(*plugin, "-p", "no:cacheprovider", "test_receiver.py")
    result.assert_outcomes(passed=2)
