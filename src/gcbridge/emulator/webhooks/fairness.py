"""Fair scheduling of webhook attempts: per-receiver and per-site caps, round-robin by site.

One receiver that hangs (each attempt waits the whole ``attempt_timeout``) must not delay
another site's deliveries. So at most ``per_receiver`` attempts are in flight to one
receiver (scheme, host, port) and ``per_site`` for one site over all its receivers (a site
re-running setup across several hanging receivers still holds one cap), and the due calls
come interleaved by site (:func:`~gcbridge.emulator.webhooks.outbox.due_candidates`). The
defaults (8 and 8, of 32 workers) leave room for three sites hanging at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

__all__ = ["PER_RECEIVER", "PER_SITE", "receiver_key", "pick"]

PER_RECEIVER = 8
"""Attempts in flight at once to one receiver (scheme, host, port)."""

PER_SITE = 8
"""Attempts in flight at once for one site, over all its receivers."""


def receiver_key(url: str | None, website_id: str) -> str:
    """Who receives: ``scheme://host:port`` of ``url`` (lower case); the site for no URL."""
    if not url:
        return f"site:{website_id}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return f"site:{website_id}"
    scheme = parts.scheme.lower()
    default = 443 if scheme == "https" else 80
    return f"{scheme}://{(parts.hostname or '').lower()}:{port or default}"


def pick(
    candidates: Iterable[tuple[str, str]],
    inflight: Mapping[str, str],
    *,
    free: int,
    per_receiver: int,
    site_of: Mapping[str, str],
    per_site: int,
) -> list[tuple[str, str]]:
    """Up to ``free`` of ``candidates`` ``(call id, receiver)`` in order, within each cap.

    ``inflight`` maps the calls in flight to their receivers; ``site_of`` maps
    call ids (candidates and in flight) to their sites, for the ``per_site`` cap.
    """
    busy = Counter(inflight.values())
    busy_sites = Counter(site_of.get(call_id, "") for call_id in inflight)
    chosen: list[tuple[str, str]] = []
    for call_id, receiver in candidates:
        if len(chosen) >= free:
            break
        site = site_of.get(call_id, "")
        if call_id in inflight or busy[receiver] >= per_receiver:
            continue
        if site and busy_sites[site] >= per_site:
            continue
        busy[receiver] += 1
        busy_sites[site] += 1
        chosen.append((call_id, receiver))
    return chosen
