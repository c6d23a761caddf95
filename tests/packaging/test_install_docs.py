"""The README says how to install from a checkout and from a
wheel, names every extra of pyproject.toml with what it brings, and no document sends a user
to a package index that does not have gc-bridge. (tests/packaging/test_install.py runs
the commands.)"""

from __future__ import annotations

import re
import tomllib

from tests.as_user import ROOT, readme


def test_every_extra_is_named_with_what_it_brings() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    rows = {
        m.group(1): m.group(2) for m in re.finditer(r"^\| `([a-z]+)` \| ([^|]+) \|", readme(), re.M)
    }
    assert set(extras) <= set(rows), sorted(set(extras) - set(rows))
    assert "FastAPI" in rows["fastapi"] and "uvicorn" in rows["emulator"]
    assert "Playwright" in rows["harness"] and "pywebview" in rows["demo"]


def test_both_ways_to_install_are_shown() -> None:
    text = readme()
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"
    ]
    assert 'pip install -e ".[harness]"' in text
    assert f'pip install "./dist/gc_bridge-{version}-py3-none-any.whl[harness]"' in text
    assert "pip wheel --no-deps -w dist ." in text


def test_no_document_sends_users_to_a_package_index() -> None:
    readmes = [ROOT / "README.md", *ROOT.glob("*/README.md"), *ROOT.glob("*/*/README.md")]
    for doc in [*readmes, *ROOT.glob("docs/**/*.md")]:
        text = doc.read_text(encoding="utf-8")
        claim = re.search(r"pip install ['\"]?gc-bridge\b", text)
        assert claim is None, f"{doc.relative_to(ROOT)}: {claim.group(0)!r}"
