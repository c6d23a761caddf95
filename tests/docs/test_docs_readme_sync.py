"""The README's code blocks are the docs_src modules, verbatim (those run in their own tests)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```python\n# (docs_src/[\w/]+\.py)\n(.*?)```", re.S)


def test_readme_examples_are_the_tested_modules():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = BLOCK.findall(readme)
    assert {name for name, _ in blocks} >= {
        "docs_src/receiver_fastapi.py",
        "docs_src/sso_backend.py",
        "docs_src/receiver_tests.py",
    }
    for name, body in blocks:
        assert body == (ROOT / name).read_text(encoding="utf-8"), (
            f"README block drifted from {name}"
        )


def test_readme_images_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for img in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme):
        assert (ROOT / img).is_file(), img
