"""Citations a reader can follow: where the code (src/, harness/, bridge/) points to a page,
the page is in the repository (or generated into the site from it) and so is the heading or
anchor it names; nothing (code, tests, bench) cites the service's specification, which readers
do not have; and no code or test names an issue instead of saying what it does or guards.

A citation is a repository path of a Markdown page, with an anchor or a quoted heading:
``docs/explanation/service.md#webhooks`` or ``docs/reference/wire-formats.md, "Retries"``.
An anchor cited from code must be explicit on a docs page (``## Webhooks {#webhooks}``), so
that rewording a heading cannot break it. The pattern of a specification citation is the
docs build's own (``SPEC_CITATION`` in docs/gen/hooks.py), so pages and code follow one rule.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "gen"))

from hooks import GENERATED, SPEC_CITATION  # noqa: E402

SOURCES = ("src", "harness", "bridge")
CHECKED = (*SOURCES, "tests", "bench")
"""Where no specification citation and no issue number may appear."""
SHOWS_THE_PATTERNS = {
    # these two test the patterns themselves, so they hold examples of them
    ROOT / "tests" / "docs" / "test_citations.py",
    ROOT / "tests" / "docs" / "test_site.py",
}
ISSUE_NUMBER = re.compile(r"\bissues? ?#?\d+", re.IGNORECASE)
"""Our own issue numbers ("issue 30", "Issue #6"); another project's are written
``react-native-webview#1609``, which says whose they are."""
TEXT = {
    ".py",
    ".js",
    ".mjs",
    ".ts",
    ".tsx",
    ".swift",
    ".kt",
    ".kts",
    ".json",
    ".md",
    ".html",
    ".css",
    ".toml",
    ".txt",
    ".gradle",
    ".sh",
}
SKIPPED_DIRS = {"node_modules", "__pycache__", "build", "dist", "Pods", "DerivedData"}
FOREIGN = {
    # react-native-webview's own reference page, cited with that repository's name
    "docs/Reference.md",
}
CITATION = re.compile(
    r"(?<![\w/.-])((?:docs|src|harness|bridge)/[\w./-]*?\.md)"
    r"(?:#([\w-]+))?"
    r"""(?:,\s*(?:"([^"\n]+)"|'([^'\n]+)'))?"""
)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
EXPLICIT_ID = re.compile(r"\{[^}\n]*#([\w-]+)[^}\n]*\}")


def source_files(tops: tuple[str, ...] = SOURCES) -> Iterator[Path]:
    for top in tops:
        for folder, dirs, files in os.walk(ROOT / top):
            dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")]
            for name in files:
                path = Path(folder, name)
                if (
                    path.suffix in TEXT
                    and name != "CHANGELOG.md"
                    and path not in SHOWS_THE_PATTERNS
                ):
                    yield path


def where(path: Path, text: str, at: int) -> str:
    return f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, at) + 1}"


@cache
def markdown_of(page: str) -> str | None:
    """The Markdown a reader finds at ``page``: the file, or the page the site generates."""
    generated = GENERATED.get(page.removeprefix("docs/"))
    if page.startswith("docs/") and generated is not None:
        return generated()
    file = ROOT / page
    return file.read_text(encoding="utf-8") if file.is_file() else None


def headings(markdown: str) -> Iterator[tuple[str, set[str]]]:
    """Each heading outside code fences: its text, and the explicit ids it carries."""
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        found = HEADING.match(line)
        if fenced or found is None:
            continue
        text = found.group(2)
        ids = set(EXPLICIT_ID.findall(text))
        yield EXPLICIT_ID.sub("", text).strip().strip("`").strip(), ids


def slug(heading: str) -> str:
    """A heading's anchor where the page has no explicit one (a README on a code host)."""
    text = re.sub(r"[^\w\s-]", "", heading.lower())
    return re.sub(r"\s+", "-", text.strip())


def followable(page: str, anchor: str | None, heading: str | None) -> str | None:
    """Why this citation cannot be followed, or None."""
    markdown = markdown_of(page)
    if markdown is None:
        return f"{page} is not in the repository"
    found = list(headings(markdown))
    if anchor is not None:
        explicit = {i for _, ids in found for i in ids} | set(
            re.findall(r"\{:?\s*#([\w-]+)\s*\}", markdown)
        )
        if anchor in explicit:
            return None
        if page.startswith("docs/"):
            return f"{page} has no explicit {{#{anchor}}} (give the heading one)"
        if anchor not in {slug(text) for text, _ in found}:
            return f"{page} has no heading #{anchor}"
    if heading is not None and heading.strip("`") not in {text for text, _ in found}:
        return f"{page} has no heading {heading!r}"
    return None


def test_every_page_cited_by_the_code_has_the_heading_or_anchor_it_names() -> None:
    broken = []
    seen = 0
    for path in source_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in CITATION.finditer(text):
            page, anchor = match.group(1), match.group(2)
            heading = match.group(3) or match.group(4)
            if page in FOREIGN:
                continue
            seen += 1
            why = followable(page, anchor, heading)
            if why is not None:
                broken.append(f"{where(path, text, match.start())}: {match.group(0)!r}: {why}")
    assert seen > 20, "the citation pattern no longer finds the code's citations"
    assert not broken, "\n".join(broken)


def test_no_code_cites_the_service_specification() -> None:
    cited = []
    for path in source_files(CHECKED):
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in SPEC_CITATION.finditer(text):
            cited.append(f"{where(path, text, match.start())}: {match.group(0)!r}")
    assert not cited, (
        "readers do not have the specification: cite docs/explanation/service.md (or the "
        "reference page) by path and heading instead\n" + "\n".join(cited)
    )


def test_no_code_or_test_names_an_issue_instead_of_the_behaviour() -> None:
    named = []
    for path in source_files(CHECKED):
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in ISSUE_NUMBER.finditer(text):
            named.append(f"{where(path, text, match.start())}: {match.group(0)!r}")
    assert not named, (
        "say what the code does or the test guards, not which issue asked for it\n"
        + "\n".join(named)
    )


@pytest.mark.parametrize(
    ("text", "names_an_issue"),
    [
        ("(issue 30)", True),
        ('"""Issue 16, item 2: ...', True),
        ("the goal of issue #6", True),
        ("react-native-webview#1609", False),
        ("ssoData issue + verify", False),
    ],
)
def test_an_issue_number_is_told_from_other_numbers(text: str, names_an_issue: bool) -> None:
    assert bool(ISSUE_NUMBER.search(text)) is names_an_issue


@pytest.mark.parametrize(
    ("page", "anchor", "heading", "why"),
    [
        ("docs/explanation/service.md", "webhooks", None, None),
        ("docs/reference/wire-formats.md", None, "Retries", None),
        ("harness/README.md", "what-runs", None, None),
        ("docs/explanation/service.md", "no-such-section", None, "no explicit {#no-such-section}"),
        ("docs/reference/wire-formats.md", None, "No such heading", "no heading 'No such heading'"),
        ("docs/explanation/no-such-page.md", None, None, "not in the repository"),
    ],
)
def test_a_citation_is_followable_only_to_a_page_and_heading_that_exist(
    page: str, anchor: str | None, heading: str | None, why: str | None
) -> None:
    found = followable(page, anchor, heading)
    assert (found is None) if why is None else (found is not None and why in found)


@pytest.mark.parametrize(
    "text",
    ["(spec 6.2)", "Spec 2.4 says string", "spec §5.1", "§ 7", "see contract.md", "the spec says"],
)
def test_each_form_of_a_specification_citation_is_caught(text: str) -> None:
    assert SPEC_CITATION.search(text)


@pytest.mark.parametrize(
    "text",
    ["importlib.util.spec_from_file_location", "the published contract", "OpenAPI 3.1"],
)
def test_words_near_a_specification_citation_are_not_one(text: str) -> None:
    assert SPEC_CITATION.search(text) is None
