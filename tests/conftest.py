"""Suite-wide ordering.

pytest-playwright's sync API keeps an asyncio event loop running in the main
thread from the first browser test to the end of the session, and any later
``asyncio.run`` then fails. Browser tests therefore run last; their relative
order is kept.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def uses_browser(item: pytest.Item) -> bool:
        fixtures = getattr(item, "fixturenames", ())
        return item.get_closest_marker("browser") is not None or "playwright" in fixtures

    items.sort(key=uses_browser)
