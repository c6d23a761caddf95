"""Suite-wide ordering.

pytest-playwright's sync API keeps an asyncio event loop running in the main
thread from the first browser test to the end of the session, and any later
``asyncio.run`` then fails. Browser tests therefore run last; their relative
order is kept.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def uses_browser(item: pytest.Item) -> bool:
        fixtures = getattr(item, "fixturenames", ())
        return item.get_closest_marker("browser") is not None or "playwright" in fixtures

    items.sort(key=uses_browser)


@pytest.fixture(scope="session")
def gc_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built once per session for every test that installs it."""
    dist = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        timeout=300,
    )
    (built,) = dist.glob("gc_bridge-*-py3-none-any.whl")
    return built
