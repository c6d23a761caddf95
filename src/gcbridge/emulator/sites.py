"""Sites of the emulator: read from a TOML file, or one generated demo site.

A site has a public ``shortname`` and an internal 24-hex ``website_id`` (the webhook
routes'), plus its credentials: docs/guides/emulator.md, "Sites". A bad sites file is one
line naming the line at fault and a reason. A weak ``sso_secret`` loads, since the example
credentials must, but never silently (a ``weak_secret`` line in :attr:`Sites.warnings`).
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gcbridge.emulator.datadir import create_private_file, secure_data_dir
from gcbridge.emulator.errors import ConfigError
from gcbridge.sso.issuer import MIN_SECRET_BYTES

__all__ = ["Site", "Sites", "load_sites", "generate_demo_site", "load_or_create_demo_site"]

WEBSITE_ID = re.compile(r"[0-9a-f]{24}")
SHORTNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_FIELDS = (
    "shortname",
    "website_id",
    "sso_public_key",
    "sso_secret",
    "account_token",
    "site_key_id",
    "site_key_secret",
)
_SITE_HEADER = re.compile(r"^\s*\[\[\s*site\s*\]\]")
_AT_LINE = re.compile(r"at line (\d+)")
_UNIQUE_FIELDS = ("shortname", "website_id", "sso_public_key", "site_key_id")
_SECRET_FIELDS = frozenset({"sso_secret", "account_token", "site_key_secret"})


@dataclass(frozen=True)
class Site:
    """One site of the service and its credentials (secrets masked in ``repr``)."""

    shortname: str
    website_id: str
    sso_public_key: str
    sso_secret: str = field(repr=False)
    account_token: str = field(repr=False)
    site_key_id: str
    site_key_secret: str = field(repr=False)

    def __post_init__(self) -> None:
        for name in _FIELDS:
            value = getattr(self, name)
            if not isinstance(value, str):
                shown = "" if name in _SECRET_FIELDS else f" {value!r}"
                raise ConfigError(
                    f"site {self.shortname!r}: {name} must be a quoted string, "
                    f"not {type(value).__name__}{shown}",
                    reason="wrong_type",
                )
        if not SHORTNAME.fullmatch(self.shortname):
            raise ConfigError(
                f"site shortname {self.shortname!r} must be 1-64 of [A-Za-z0-9_-]",
                reason="bad_shortname",
            )
        if not WEBSITE_ID.fullmatch(self.website_id):
            raise ConfigError(
                f"site {self.shortname!r}: website_id {self.website_id!r} "
                "must be 24 lowercase hex characters",
                reason="bad_website_id",
            )
        for name in _FIELDS[2:]:
            value = getattr(self, name)
            if not value:
                raise ConfigError(
                    f"site {self.shortname!r}: {name} must be a non-empty string",
                    reason="missing_field",
                )

    def public(self) -> dict[str, str]:
        """The fields safe to show anywhere (no secrets)."""
        return {k: v for k, v in asdict(self).items() if k not in _SECRET_FIELDS}


class Sites:
    """Lookup of sites by shortname, website_id, public key, site key id or account token."""

    def __init__(self, sites: Iterable[Site], *, warnings: Iterable[str] = ()) -> None:
        self._all = tuple(sites)
        self.warnings: tuple[str, ...] = tuple(warnings)
        """One line per thing that loads but should not be left so (reason in brackets)."""
        if not self._all:
            raise ConfigError("at least one site is required", reason="no_sites")
        self._by = {attr: {getattr(s, attr): s for s in self._all} for attr in _UNIQUE_FIELDS}
        for attr, sites_by_value in self._by.items():
            if len(sites_by_value) != len(self._all):
                raise ConfigError(f"duplicate {attr} among sites", reason="duplicate_site")
        # The widget and comment routes take either name of a site: neither may name two.
        for site in self._all:
            other = self._by["website_id"].get(site.shortname)
            if other is not None and other is not site:
                raise ConfigError(
                    f"site {site.shortname!r}: its shortname is the website_id of site "
                    f"{other.shortname!r}",
                    reason="duplicate_site",
                )

    def __iter__(self) -> Iterator[Site]:
        return iter(self._all)

    def __len__(self) -> int:
        return len(self._all)

    def by_shortname(self, shortname: str) -> Site | None:
        """The site whose shortname is ``shortname``."""
        return self._by["shortname"].get(shortname)

    def by_shortname_or_id(self, name: str) -> Site | None:
        """The site whose shortname, or else whose internal 24-hex id, is ``name``.

        The widget and comment routes take either (the service's take the
        shortname); the webhook routes take the 24-hex id only.
        """
        return self._by["shortname"].get(name) or self._by["website_id"].get(name)

    def by_website_id(self, website_id: str) -> Site | None:
        """The site whose internal 24-hex id is ``website_id``."""
        return self._by["website_id"].get(website_id)

    def by_public_key(self, key: str) -> Site | None:
        """The site whose SSO public key is ``key``."""
        return self._by["sso_public_key"].get(key)

    def by_site_key_id(self, key_id: str) -> Site | None:
        """The site whose server-to-server key id is ``key_id``."""
        return self._by["site_key_id"].get(key_id)

    def by_account_token(self, token: str) -> Site | None:
        """The site whose account token is ``token``.

        Compared with every site's, in constant time, so the time taken does not tell
        which site matched (or whether any did).
        """
        matched: Site | None = None
        for site in self._all:
            if hmac.compare_digest(token.encode("utf-8"), site.account_token.encode("utf-8")):
                matched = site
        return matched


def _site_from(raw: Mapping[str, Any], where: str, *, warnings: list[str] | None = None) -> Site:
    unknown = set(raw) - set(_FIELDS) - {"allow_weak_secret"}
    if unknown:
        raise ConfigError(f"{where}: unknown keys {sorted(unknown)}", reason="unknown_field")
    missing = [k for k in _FIELDS if k not in raw]
    if missing:
        raise ConfigError(f"{where}: missing keys {missing}", reason="missing_field")
    weak_ok = raw.get("allow_weak_secret", False)
    if not isinstance(weak_ok, bool):
        raise ConfigError(f"{where}: allow_weak_secret must be true or false", reason="wrong_type")
    try:
        site = Site(**{k: raw[k] for k in _FIELDS})
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}", reason=exc.reason) from None
    size = len(site.sso_secret.encode("utf-8"))
    if warnings is not None and not weak_ok and size < MIN_SECRET_BYTES:
        warnings.append(
            f"[weak_secret] {where}: site {site.shortname!r}: sso_secret is {size} bytes; an"
            f" ssoData issuer needs at least {MIN_SECRET_BYTES} (SsoIssuer refuses it): use a"
            " random one such as secrets.token_urlsafe(32), or say allow_weak_secret = true"
            " for an example site"
        )
    return site


def _duplicates(tables: list[Mapping[str, Any]], places: list[str]) -> None:
    """Refuse two tables naming one site: the key, the value (never a secret) and both lines."""
    for attr in _UNIQUE_FIELDS:
        first: dict[Any, int] = {}
        for index, table in enumerate(tables):
            value = table.get(attr)
            if value in first:
                raise ConfigError(
                    f"{places[index]}: {attr} {value!r} is already that of {places[first[value]]}",
                    reason="duplicate_site",
                )
            first[value] = index
    ids = {t.get("website_id"): i for i, t in enumerate(tables)}
    for index, table in enumerate(tables):
        other = ids.get(table.get("shortname"))
        if other is not None and other != index:
            raise ConfigError(
                f"{places[index]}: shortname {table['shortname']!r} is the website_id of "
                f"{places[other]} (the comment routes take either name)",
                reason="duplicate_site",
            )


def _read_sites_text(p: Path) -> str:
    if p.is_dir():
        raise ConfigError(
            f"sites file {p} is a directory; give the TOML file itself (see examples/sites.toml)",
            reason="sites_file_is_directory",
        )
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"sites file {p} does not exist", reason="sites_file_missing") from None
    except UnicodeDecodeError:
        raise ConfigError(
            f"sites file {p} is not UTF-8 text", reason="sites_file_invalid"
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"cannot read sites file {p}: {exc.strerror or exc}", reason="sites_file_unreadable"
        ) from None


def load_sites(path: str | Path) -> Sites:
    """Read a sites file (TOML, ``[[site]]`` tables); errors name the line at fault."""
    p = Path(path)
    text = _read_sites_text(p)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at_line = _AT_LINE.search(str(exc))  # Python < 3.14: only in the message
        line = getattr(exc, "lineno", None) or (int(at_line.group(1)) if at_line else None)
        shown = ""
        if line and 0 < line <= len(text.splitlines()):
            shown = f": {text.splitlines()[line - 1].strip()!r}"
        where = f"{p}:{line}" if line else str(p)
        raise ConfigError(
            f"sites file {where} is not valid TOML{shown}: {exc}", reason="sites_file_invalid"
        ) from None
    tables = data.get("site")
    if not isinstance(tables, list) or not tables:
        raise ConfigError(
            f"sites file {p} has no [[site]] table (see examples/sites.toml)", reason="no_sites"
        )
    if not all(isinstance(t, dict) for t in tables):
        raise ConfigError(f"sites file {p}: site must be [[site]] tables", reason="wrong_type")
    lines = [n for n, row in enumerate(text.splitlines(), start=1) if _SITE_HEADER.match(row)]
    places = [
        f"{p}:{lines[i]} [[site]] #{i + 1}" if i < len(lines) else f"{p} #{i + 1}"
        for i in range(len(tables))
    ]
    warnings: list[str] = []
    sites = [_site_from(t, places[i], warnings=warnings) for i, t in enumerate(tables)]
    _duplicates(tables, places)
    return Sites(sites, warnings=warnings)


def generate_demo_site(shortname: str = "demo") -> Site:
    """A fresh site with random credentials."""
    return Site(
        shortname=shortname,
        website_id=secrets.token_hex(12),
        sso_public_key="pk_" + secrets.token_urlsafe(12),
        sso_secret=secrets.token_urlsafe(32),
        account_token="acct_" + secrets.token_urlsafe(24),
        site_key_id="sk_" + secrets.token_urlsafe(9),
        site_key_secret=secrets.token_urlsafe(32),
    )


def load_or_create_demo_site(data_dir: Path) -> tuple[Site, bool]:
    """The demo site saved in ``data_dir/demo-site.json``; ``True`` if just created."""
    path = data_dir / "demo-site.json"
    if path.exists():
        return _site_from(json.loads(path.read_text(encoding="utf-8")), str(path)), False
    site = generate_demo_site()
    secure_data_dir(data_dir)
    create_private_file(path)
    path.write_text(json.dumps(asdict(site), indent=2) + "\n", encoding="utf-8")
    return site, True
