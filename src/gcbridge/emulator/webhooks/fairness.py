"""Fair scheduling of webhook attempts: per-receiver and per-site caps, round-robin by site.

One receiver that hangs (every attempt waits the whole ``attempt_timeout``) must
not delay another site's deliveries. Two rules, applied by the dispatcher each
time it picks due calls:

1. **Per-receiver cap.** At most ``per_receiver`` attempts are in flight to one
   receiver (the scheme, host and port of the site's configured URL), out of the
   dispatcher's ``workers``. A hanging receiver holds at most its cap; the other
   workers stay free for everyone else.
2. **Per-site cap.** At most ``per_site`` attempts are in flight for one site,
   whatever its receivers: a site that re-runs setup across several hanging
   receivers (each under its own receiver cap) still holds at most its cap, so
   the other sites' deliveries always find a free worker.
3. **Round-robin due queue.** The candidates come out of the journal interleaved
   by site: first every site's oldest due call, then every site's second, ...
   (:func:`~gcbridge.emulator.webhooks.outbox.due_candidates`), so 10,000 due calls
   of one site never sit in front of another site's one.

The default caps (8 per receiver, 8 per site) are the old total worker count,
so one healthy receiver gets the concurrency it always had; the total (32)
leaves room for three sites hanging at once before a fourth site could wait.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

__all__ = ["DEFAULT_PER_RECEIVER", "DEFAULT_PER_SITE", "receiver_key", "pick"]

DEFAULT_PER_RECEIVER = 8
"""Attempts in flight at once to one receiver (scheme, host, port)."""

DEFAULT_PER_SITE = 8
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
    site_of: Mapping[str, str] | None = None,
    per_site: int | None = None,
) -> list[tuple[str, str]]:
    """Up to ``free`` of ``candidates`` ``(call id, receiver)`` in order, within each cap.

    ``inflight`` maps the calls in flight to their receivers; ``site_of`` maps
    call ids (candidates and in flight) to their sites, for the ``per_site`` cap.
    """
    sites = site_of or {}
    busy = Counter(inflight.values())
    busy_sites = Counter(sites.get(call_id, "") for call_id in inflight)
    chosen: list[tuple[str, str]] = []
    for call_id, receiver in candidates:
        if len(chosen) >= free:
            break
        site = sites.get(call_id, "")
        if call_id in inflight or busy[receiver] >= per_receiver:
            continue
        if per_site is not None and site and busy_sites[site] >= per_site:
            continue
        busy[receiver] += 1
        busy_sites[site] += 1
        chosen.append((call_id, receiver))
    return chosen
