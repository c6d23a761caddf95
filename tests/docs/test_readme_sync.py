"""The documentation's examples are the tested files: pages include docs_src files (never a
pasted copy), every docs_src file is shown on a page and run by a test, and the README's
pictures and links exist."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = re.compile(r'^--8<-- "([^":]+)(?::[\w-]+)?"$', re.M)
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
EXAMPLES = sorted(
    p for p in (ROOT / "docs_src").rglob("*") if p.suffix in {".py", ".sh", ".yml", ".mjs", ".toml"}
)


def included() -> set[str]:
    return {m for page in PAGES for m in INCLUDE.findall(page.read_text(encoding="utf-8"))}


def test_every_example_is_shown_on_a_page_from_its_file() -> None:
    shown = included()
    for path in shown:
        assert (ROOT / path).is_file(), path
    missing = [str(p.relative_to(ROOT)) for p in EXAMPLES if str(p.relative_to(ROOT)) not in shown]
    # check_vectors.mjs's helper module and the harness recipes' file are included too
    assert not missing, f"docs_src files no page includes: {missing}"


def test_every_example_is_run_by_a_test() -> None:
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    for path in EXAMPLES:
        if path.name.startswith("test_"):
            continue  # run by `pytest docs_src` (tests/docs/test_examples.py)
        assert path.name in tests or path.stem in tests, f"no test runs {path.relative_to(ROOT)}"


def test_no_page_pastes_a_python_example() -> None:
    """A python block that opens like a docs_src module must be its include instead."""
    for page in PAGES:
        for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            assert not block.startswith(('"""', "# docs_src/")), (page, block[:80])


def test_readme_images_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for img in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme):
        assert (ROOT / img).is_file(), img


def test_readme_links_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"(?<!!)\[[^\]]*\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert any(link.startswith("docs/quickstart/") for link in links)
    for link in links:
        if not link.startswith(("http:", "https:")):
            assert (ROOT / link).exists(), link
