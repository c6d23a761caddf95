"""Repository READMEs as site pages, from one source.

A page whose only content is ``[[include: bridge/README.md]]`` shows that file: its
relative links are rewritten for the site, to the page that shows the target
(``PAGES``), or, for a file the site does not show, to its path in the repository
as code. So ``bridge/README.md`` reads well on a code host and on the site, and
nobody keeps two copies.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

__all__ = ["PAGES", "INCLUDE", "IMAGES", "expand"]

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = re.compile(r"^\[\[include: ([\w./-]+)\]\]$", re.M)
LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)")
IMAGE = re.compile(r"!\[([^\]\n]*)\]\(([^)\s]+)\)")
IMAGES = "docs_src/img"
"""Pictures the READMEs show; the site serves them as ``img/<name>``."""
# repository file -> the site page that shows it
PAGES = {
    "README.md": "index.md",
    "CONTRIBUTING.md": "contributing.md",
    "bridge/README.md": "reference/bridge-js.md",
    "bridge/platforms/README.md": "kits/index.md",
    "bridge/platforms/ios/README.md": "kits/ios.md",
    "bridge/platforms/android/README.md": "kits/android.md",
    "bridge/platforms/react-native/README.md": "kits/react-native.md",
    "harness/README.md": "guides/harness.md",
}


def _rewrite(source: str, page: str, text: str) -> str:
    base = posixpath.dirname(source)

    def link(match: re.Match[str]) -> str:
        label, target = match.group(1), match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match.group(0)
        path, _, fragment = target.partition("#")
        rel = posixpath.normpath(posixpath.join(base, path))
        if rel in PAGES:
            url = posixpath.relpath(PAGES[rel], posixpath.dirname(page) or ".")
            return f"[{label}]({url}{'#' + fragment if fragment else ''})"
        if rel.startswith("docs/"):  # a page of the site (mkdocs checks that it exists)
            url = posixpath.relpath(rel.removeprefix("docs/"), posixpath.dirname(page) or ".")
            return f"[{label}]({url}{'#' + fragment if fragment else ''})"
        shown = rel.rstrip("/") + ("/" if (ROOT / rel).is_dir() else "")
        if label.strip("`") in (shown, rel, path) or re.fullmatch(r"`[^`]+`", label):
            return f"`{shown}`"  # a path shown as a path: the repository's
        return f"{label} (`{shown}` in the repository)"

    def image(match: re.Match[str]) -> str:
        alt, target = match.group(1), match.group(2)
        rel = posixpath.normpath(posixpath.join(base, target))
        if rel.startswith(IMAGES + "/"):
            name = rel.removeprefix(IMAGES + "/")
            url = posixpath.relpath(f"img/{name}", posixpath.dirname(page) or ".")
            return f"![{alt}]({url})"
        return match.group(0)

    return IMAGE.sub(image, LINK.sub(link, text))


def expand(markdown: str, page: str) -> str:
    """Replace each ``[[include: FILE]]`` line of ``page`` with FILE, links rewritten.

    The page's own links that leave the site (``../../src/...``) become repository paths too.
    """

    def include(match: re.Match[str]) -> str:
        source = match.group(1)
        text = (ROOT / source).read_text(encoding="utf-8")
        return _rewrite(source, page, text)

    return INCLUDE.sub(include, _rewrite(f"docs/{page}", page, markdown))
