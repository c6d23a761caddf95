"""mkdocs hooks: the generated reference pages, and figures kept in one place.

``[[include: FILE]]`` shows a repository README as a page (``include_readme.py``).
``on_files`` adds the pages written from the code at build time (never committed):
``reference/cli.md`` from the argparse parser, ``reference/http-api.md`` from the
emulator's OpenAPI schema, ``reference/reason-codes.md`` from the exception trees
and raise sites. ``on_page_markdown`` puts the harness matrix's size and cost
wherever a page says ``[[harness-matrix]]``, and refuses a page that cites the
service's specification (``SPEC_CITATION``): readers do not have that document.
The defaults a page prints are formatted from their constants (:func:`defaults`):
``[[retry-delays]]``, ``[[retry-span]]``, ``[[retry-table]]``, ``[[webhook-tolerance]]``,
``[[emulator-clock-timeout]]``, ``[[attempt-timeout]]``, ``[[delivery-log-timeout]]``,
``[[delivery-log-busy-timeout]]``, ``[[http-timeout]]``, ``[[calls-interval]]``,
``[[max-answer]]``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from include_readme import IMAGES, ROOT, expand  # noqa: E402
from mkdocs.exceptions import PluginError  # noqa: E402
from ref_cli import cli_reference  # noqa: E402
from ref_harness import MARKER, matrix_text  # noqa: E402
from ref_http import http_reference  # noqa: E402
from ref_reasons import reasons_reference  # noqa: E402

GENERATED = {
    "reference/cli.md": cli_reference,
    "reference/http-api.md": http_reference,
    "reference/reason-codes.md": reasons_reference,
}
SPEC_CITATION = re.compile(
    r"\bspec(?:ification)?\s*§?\s*\d+(?:\.\d+)?\b|§\s*\d|\b(?:spec|contract)\.md\b|\bthe spec\b",
    re.IGNORECASE,
)
"""A citation of the service's specification (its sections, its file, "the spec"): readers do
not have it. Pages fail the build on one; tests/docs/test_citations.py holds the code to it."""


def on_files(files: Any, config: Any) -> Any:
    """Add the generated reference pages."""
    from mkdocs.structure.files import File

    for path, build in GENERATED.items():
        files.append(File.generated(config, path, content=build()))
    for picture in sorted((ROOT / IMAGES).glob("*.png")):
        files.append(File.generated(config, f"img/{picture.name}", abs_src_path=str(picture)))
    return files


def defaults() -> dict[str, str]:
    """The defaults pages print, each formatted from its constant in the code."""
    from gcbridge.cli.webhooks_remote import MAX_ANSWER_BYTES
    from gcbridge.cli.webhooks_remote_cmd import DEFAULT_HTTP_TIMEOUT, DEFAULT_INTERVAL
    from gcbridge.emulator.settings import DEFAULT_ATTEMPT_TIMEOUT
    from gcbridge.emulator.settings import DEFAULT_RETRY_SCHEDULE as schedule
    from gcbridge.emulator.webhooks.schedule import duration_text, schedule_text
    from gcbridge.webhooks.delivery_log.base import DEFAULT_TIMEOUT as log_timeout
    from gcbridge.webhooks.delivery_log.sqlite_store import DEFAULT_BUSY_TIMEOUT
    from gcbridge.webhooks.emulator_clock import DEFAULT_TIMEOUT as clock_timeout
    from gcbridge.webhooks.signature import DEFAULT_TOLERANCE

    ordinals = {1: "1st", 2: "2nd", 3: "3rd"}
    rows = [
        f"| {ordinals.get(n, f'{n}th')} | {duration_text(delay) if delay else 'at once'} |"
        for n, delay in enumerate(schedule, start=1)
    ]
    total = int(sum(schedule))
    span = f"{total // 3600} h {total % 3600 // 60} min"
    return {
        "[[retry-delays]]": schedule_text(schedule),
        "[[retry-span]]": f"{len(schedule)} attempts over {span}",
        "[[retry-table]]": "\n".join(["| attempt | after the previous one |", "|---|---|", *rows]),
        "[[webhook-tolerance]]": f"±{duration_text(DEFAULT_TOLERANCE)}",
        "[[emulator-clock-timeout]]": f"{clock_timeout:g} s",
        "[[attempt-timeout]]": f"{DEFAULT_ATTEMPT_TIMEOUT:g} s",
        "[[delivery-log-timeout]]": f"{log_timeout:g} s",
        "[[delivery-log-busy-timeout]]": f"{DEFAULT_BUSY_TIMEOUT:g} s",
        "[[http-timeout]]": f"{DEFAULT_HTTP_TIMEOUT:g} s",
        "[[calls-interval]]": f"{DEFAULT_INTERVAL:g} s",
        "[[max-answer]]": f"{MAX_ANSWER_BYTES // 2**20} MiB",
    }


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Include READMEs, fill ``[[harness-matrix]]`` and the defaults; fail on a spec citation."""
    markdown = expand(markdown, page.file.src_uri)
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, matrix_text())
    for marker, text in defaults().items():
        markdown = markdown.replace(marker, text)
    cited = SPEC_CITATION.search(markdown)
    if cited:
        raise PluginError(
            f"docs: {page.file.src_uri} cites {cited.group(0)!r}: readers do not have the "
            "specification; say what it says (see explanation/service.md)"
        )
    return markdown
