"""Where ssoData must never show up, checked after every scenario
(docs/explanation/service.md#handling-ssodata).

ssoData is a bearer credential for about five minutes. It may travel in one
place only: the JSON body of ``POST /api/pub/sso/login`` on the widget's own
origin. :class:`SsoLeakChecker` watches a browser context while a scenario runs
(every request URL, Referer and body, every navigation, console messages) and,
at the end, reads what the browser kept: the navigation history of each page
(through the DevTools protocol, so pushState entries count), ``location``,
``history.state``, ``document.referrer``, ``document.cookie``, localStorage and
sessionStorage of the page and of every origin in the context's storage state.

Each ssoData is searched in the forms a leak would take: as is, URL-encoded
(``%20`` and ``+``), and by its signature and message parts alone, so a partial
or re-encoded copy is found too.

Nothing the harness writes shows an ssoData part in clear: :func:`mask_sso`
masks every form of every part (message, signature, and the timestamp wherever it
stands as a number of its own) in a leak's place and excerpt, and
:func:`mask_trace` does the same in every file of a Playwright trace before the
report keeps it. Each :class:`SsoLeak` names its place in an app team's words
(:attr:`SsoLeak.place`): the console, localStorage, a request body, ...
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit

from gcbridge_harness.report.timeline import mask

__all__ = [
    "SsoLeakChecker",
    "SsoLeak",
    "needles_for",
    "mask_sso",
    "mask_trace",
    "place_of",
    "PLACES",
    "PAGE_STATE_JS",
]

LOGIN_PATH = "/api/pub/sso/login"

# Storage as the page sees it; the context's storage state (read by the
# browser, not by page JavaScript) is checked as well.
PAGE_STATE_JS = """() => {
  const read = (name) => {
    try {
      const store = window[name];
      const out = {};
      for (let i = 0; i < store.length; i++) { const k = store.key(i); out[k] = store.getItem(k); }
      return out;
    } catch (e) { return {}; }
  };
  let state = null;
  try { state = JSON.stringify(history.state); } catch (e) { state = String(history.state); }
  return {
    href: location.href, referrer: document.referrer, cookie: document.cookie,
    historyState: state, localStorage: read('localStorage'), sessionStorage: read('sessionStorage'),
  };
}"""


# (how what the checker records starts, the place in an app team's words), in the
# order a diagnosis names them; "GET request URL" matches "request URL".
PLACES = (
    ("page href", "appeared in the page URL"),
    ("history entry", "appeared in the navigation history"),
    ("navigation URL", "appeared in a navigated URL"),
    ("request URL", "was sent in a request URL"),
    ("Referer header", "was sent in a Referer header"),
    ("Cookie header", "was sent in a cookie"),
    ("body of", "was sent in a request body other than the login call's"),
    ("page referrer", "appeared in document.referrer"),
    ("page cookie", "was stored in a cookie"),
    ("page historyState", "was stored in history.state"),
    ("page sessionStorage", "was stored in sessionStorage"),
    ("page localStorage", "was stored in localStorage"),
    ("localStorage", "was stored in localStorage"),
    ("storage state", "was kept in the WebView's storage state"),
    ("console.", "was printed to the console"),
)


def place_of(where: str) -> str:
    """Where a leak was found, in an app team's words (``was printed to the console``)."""
    after_method = where.split(" ", 1)[-1]
    for start, words in PLACES:
        if where.startswith(start) or after_method.startswith(start):
            return words
    return f"was found in {where}"


@dataclass(frozen=True)
class SsoLeak:
    """One place where (part of) an ssoData was found (both fields already masked)."""

    where: str
    excerpt: str

    @property
    def place(self) -> str:
        """The place in an app team's words, e.g. ``was stored in localStorage``."""
        return place_of(self.where)

    def __str__(self) -> str:
        return f"{self.where} ({self.place}): {self.excerpt}"


def needles_for(sso_data: str) -> set[str]:
    """The strings whose presence means this ssoData leaked (whole, encoded, or its parts)."""
    needles = {sso_data, quote(sso_data, safe=""), quote_plus(sso_data)}
    parts = sso_data.split(" ")
    for part in parts:
        # Short parts (a timestamp) would match innocent text; signatures and
        # base64 payloads are long and random enough to be unmistakable.
        if len(part) >= 16:
            needles |= {part, quote(part, safe=""), quote_plus(part)}
    return {n for n in needles if n}


def _forms(sso_data: str) -> list[str]:
    """Every string to mask for ``sso_data``, longest first (so a whole one goes as one)."""
    forms = set(needles_for(sso_data))
    parts = sso_data.split(" ")
    if len(parts) == 3:
        # The timestamp alone is too short to search for, but never stays beside its signature.
        _, signature, timestamp = parts
        for sep in (" ", "%20", "+"):
            forms.add(f"{signature}{sep}{timestamp}")
    return sorted(forms, key=len, reverse=True)


def _timestamp(sso_data: str) -> str | None:
    parts = sso_data.split(" ")
    return parts[2] if len(parts) == 3 and parts[2].isdigit() else None


def mask_sso(text: str, sso_data: Iterable[str]) -> str:
    """``text`` with every form of every part of each ``sso_data`` masked.

    The timestamp is masked wherever it stands as a number of its own (``ts=1700000000``,
    ``"issued": 1700000000``), not only beside its signature: it is too short to search
    for as a sign of a leak, but what the harness writes never shows it.
    """
    sso_data = list(sso_data)
    for form in sorted({f for s in sso_data for f in _forms(s)}, key=len, reverse=True):
        if form in text:
            text = text.replace(form, mask(form))
    for timestamp in {t for s in sso_data if (t := _timestamp(s))}:
        text = re.sub(rf"(?<!\d){timestamp}(?!\d)", mask(timestamp), text)
    return text


def mask_trace(path: Path, sso_data: Iterable[str]) -> None:
    """Rewrite the Playwright trace ``path`` with every ssoData part masked in every file.

    A trace keeps request bodies, evaluated arguments and DOM snapshots in clear;
    the report's copy must not. Files that hold none are copied unchanged.
    """
    forms = sorted({f for s in sso_data for f in _forms(s)}, key=len, reverse=True)
    if not forms:
        return
    encoded = [(f.encode(), mask(f).encode()) for f in forms]
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".zip")
    os.close(fd)
    try:
        with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                data = src.read(info)
                for form, masked in encoded:
                    if form in data:
                        data = data.replace(form, masked)
                dst.writestr(info, data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@dataclass
class SsoLeakChecker:
    """Collects what a browser context sends and keeps; :meth:`check` lists leaks of ssoData."""

    login_origin: str
    # repr=False: a traceback shows this object's repr, and must not show ssoData.
    sso_data: list[str] = field(default_factory=list, repr=False)
    _seen: list[tuple[str, str]] = field(default_factory=list, repr=False)

    def watch(self, context: Any) -> None:
        """Record the requests of ``context`` and the navigations and console of its pages."""
        context.on("request", self._on_request)
        context.on("page", self.watch_page)
        for page in context.pages:
            self.watch_page(page)

    def watch_page(self, page: Any) -> None:
        """Record navigations and console output of one page."""
        page.on("framenavigated", lambda frame: self._seen.append(("navigation URL", frame.url)))
        page.on("console", lambda msg: self._seen.append((f"console.{msg.type}", msg.text)))

    def record(self, where: str, text: str) -> None:
        """Record one place the browser sent or kept ``text`` (engines without events use this)."""
        self._seen.append((where, text))

    def remember(self, sso_data: str) -> None:
        """Register an ssoData handed to the page (every one is searched for at the end)."""
        self.sso_data.append(sso_data)

    def _on_request(self, request: Any) -> None:
        self._seen.append((f"{request.method} request URL", request.url))
        headers = request.headers
        for name in ("referer", "cookie"):
            if name in headers:
                self._seen.append((f"{name.title()} header of {request.url}", headers[name]))
        body = request.post_data
        if body and not self._login_request(request):
            self._seen.append((f"body of {request.method} {request.url}", body))

    def _login_request(self, request: Any) -> bool:
        parts = urlsplit(request.url)
        return (
            request.method == "POST"
            and parts.path == LOGIN_PATH
            and f"{parts.scheme}://{parts.netloc}" == self.login_origin
        )

    def snapshot(self, context: Any) -> None:
        """Read what the browser kept: history, location, storage, cookies of every open page."""
        for page in context.pages:
            if page.is_closed():
                continue
            state = page.evaluate(PAGE_STATE_JS)
            for key, value in state.items():
                self._seen.append((f"page {key}", json.dumps(value)))
            try:
                cdp = context.new_cdp_session(page)
                history = cdp.send("Page.getNavigationHistory")
                cdp.detach()
            except Exception:  # noqa: BLE001 - not Chromium: the page's own view above still counts
                history = {"entries": []}
            for entry in history.get("entries", []):
                self._seen.append(
                    ("history entry", f"{entry.get('url', '')} {entry.get('title', '')}")
                )
        self._seen.append(("storage state", json.dumps(context.storage_state())))

    def leaks(self) -> list[SsoLeak]:
        """Every recorded place holding one of the remembered ssoData (masked)."""
        found: list[SsoLeak] = []
        for sso_data in self.sso_data:
            needles = needles_for(sso_data)
            markers = {mask(form) for form in _forms(sso_data)}
            for where, text in self._seen:
                if not any(n in text for n in needles):
                    continue
                # Masked whole first, then cut: an excerpt's edge never bares part of a secret.
                masked = mask_sso(text, self.sso_data)
                at = min((masked.find(m) for m in markers if m in masked), default=0)
                excerpt = masked[max(0, at - 40) : at + 60]
                found.append(SsoLeak(mask_sso(where, self.sso_data), excerpt))
        return found

    def check(self, context: Any | None = None) -> None:
        """Snapshot ``context`` (if given) and fail with every leak found, each place named."""
        if context is not None:
            self.snapshot(context)
        found = self.leaks()
        if found:
            lines = "\n  ".join(str(leak) for leak in found[:20])
            raise AssertionError(
                f"ssoData leaked outside the login call (POST {LOGIN_PATH}):\n  {lines}"
            )
