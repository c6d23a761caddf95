"""OpenAPI fragments of the comments part (documentation only; see ``emulator.openapi``)."""

from __future__ import annotations

from typing import Any

from gcbridge.emulator.comments.validate import MAX_TITLE, MAX_UID, MAX_URL
from gcbridge.emulator.openapi import query_parameters

__all__ = ["THREAD_LOAD_EXTRA", "LIST_COMMENTS_EXTRA"]


def _text(limit: int) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": limit}


_TRUE = {"type": "string", "enum": ["true"]}

THREAD_LOAD_EXTRA = query_parameters(
    (
        "service_id",
        True,
        {"type": "string", "minLength": 1},
        "The site's shortname (website_id on the comment routes is the same value).",
    ),
    ("url", True, {**_text(MAX_URL), "format": "uri"}, "Canonical http(s) URL of the page."),
    ("uid", True, _text(MAX_UID), "Unique identifier of the thread."),
    ("page_title", True, _text(MAX_TITLE), "Title of the article."),
    ("inapp", True, _TRUE, "Always true for a standalone WebView."),
    ("redirect", True, _TRUE, "Always true, so that gc_url is returned."),
)
"""Thread-load's query; each given once, a repeated one is refused."""

LIST_COMMENTS_EXTRA = query_parameters(
    (
        "website_id",
        True,
        {"type": "string", "minLength": 1},
        "The site's shortname or its internal 24-hex website_id (either names the site here; "
        "the webhook routes take the 24-hex id only).",
    ),
    ("uid", True, _text(MAX_UID), "The thread's uid."),
)
