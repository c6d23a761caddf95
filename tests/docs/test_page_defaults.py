"""The defaults the pages print are formatted from their constants: a changed default shows
on every page that prints it, and no page keeps a copy of the old value."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import gcbridge.cli.webhooks_remote as remote
import gcbridge.cli.webhooks_remote_cmd as remote_cmd
import gcbridge.emulator.settings as emulator_settings
import gcbridge.webhooks.delivery_log.base as log_base
import gcbridge.webhooks.delivery_log.sqlite_store as sqlite_store

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "gen"))

from hooks import on_page_markdown  # noqa: E402

# (module, constant, an unusual value, how pages print it, a page that prints it)
CHANGED = [
    (log_base, "DEFAULT_TIMEOUT", 7.0, "7 s", "how-to/share-delivery-log.md"),
    (sqlite_store, "DEFAULT_BUSY_TIMEOUT", 13.0, "13 s", "guides/webhooks.md"),
    (emulator_settings, "DEFAULT_ATTEMPT_TIMEOUT", 11.0, "11 s", "guides/webhooks.md"),
    (remote_cmd, "DEFAULT_HTTP_TIMEOUT", 17.0, "17 s", "how-to/replay-and-calls.md"),
    (remote_cmd, "DEFAULT_INTERVAL", 3.0, "3 s", "how-to/replay-and-calls.md"),
    (remote, "MAX_ANSWER_BYTES", 9 * 2**20, "9 MiB", "how-to/replay-and-calls.md"),
]


def rendered(page: str) -> str:
    markdown = (ROOT / "docs" / page).read_text(encoding="utf-8")
    return on_page_markdown(
        markdown, SimpleNamespace(file=SimpleNamespace(src_uri=page)), None, None
    )


@pytest.mark.parametrize(
    ("module", "name", "value", "printed", "page"),
    CHANGED,
    ids=[name for _, name, *_ in CHANGED],
)
def test_a_changed_default_shows_on_the_page_that_prints_it(
    monkeypatch: pytest.MonkeyPatch,
    module: object,
    name: str,
    value: float,
    printed: str,
    page: str,
) -> None:
    before = rendered(page)
    assert printed not in before
    monkeypatch.setattr(module, name, value)
    after = rendered(page)
    assert printed in after
    assert "[[" not in after.replace("[[include:", "")
