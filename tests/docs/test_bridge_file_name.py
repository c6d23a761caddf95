"""One name for bridge.js in an app, everywhere: the name the kits load it by.

The app quick start, the CI recipes, the harness's and the kits' pages and the commands'
own help all show the file an app ships at the same name, ``gcbridge.bridge.APP_FILE_NAME``,
which is the name ``bridge/platforms/sync_kits.py`` writes into the kits.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from gcbridge.bridge import APP_FILE_NAME

ROOT = Path(__file__).resolve().parents[2]
SHOWN = [
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted((ROOT / "docs_src").rglob("*.sh")),
    *sorted((ROOT / "docs_src").rglob("*.yml")),
    ROOT / "README.md",
    ROOT / "harness" / "README.md",
    *sorted((ROOT / "bridge").rglob("README.md")),
    *sorted((ROOT / "src" / "gcbridge" / "cli").glob("*.py")),
    *sorted((ROOT / "harness" / "gcbridge_harness").rglob("*.py")),
]
# the file given to the harness, or written from `gcbridge bridge --print`
BRIDGE_FILE = re.compile(r"(?:--gc-bridge[= ]|--bridge[= ]|--print\s*>\s*)([\w./-]+\.js)\b")


def bridge_files(text: str) -> list[str]:
    """The bridge.js paths a text shows an app keeping."""
    return BRIDGE_FILE.findall(text)


def test_the_pattern_finds_each_way_a_page_names_the_file() -> None:
    text = (
        "gcbridge bridge --print > App/Resources/x.js\n"
        "gcbridge harness run --bridge App/y.js --report r\n"
        "pytest --pyargs gcbridge_harness.scenarios --gc-bridge=path/z.js\n"
        "gcbridge harness run --bridge src/bridgeSource.ts\n"
    )
    assert bridge_files(text) == ["App/Resources/x.js", "App/y.js", "path/z.js"]


def test_every_page_shows_the_file_at_the_name_the_kits_load() -> None:
    shown = {
        f"{path.relative_to(ROOT)}: {found}"
        for path in SHOWN
        for found in bridge_files(path.read_text("utf-8"))
        if Path(found).name != APP_FILE_NAME
    }
    assert shown == set()
    quick_start = (ROOT / "docs_src" / "quickstart" / "app.sh").read_text("utf-8")
    recipes = (ROOT / "harness" / "README.md").read_text("utf-8")
    assert f"Resources/{APP_FILE_NAME}" in quick_start
    assert f"Resources/{APP_FILE_NAME}" in recipes


def test_the_kits_load_the_file_by_that_name() -> None:
    path = ROOT / "bridge" / "platforms" / "sync_kits.py"
    spec = importlib.util.spec_from_file_location("gc_sync_kits_name", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    copies = [p for p in module.generated_files() if p.suffix == ".js"]
    assert copies and {p.name for p in copies} == {APP_FILE_NAME}
