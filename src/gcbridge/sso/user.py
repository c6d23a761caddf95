"""The SSO user inside ssoData: id, username, email, language?, bio?, picture? (contract.md)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["SsoUser"]

# Deliberately simple: one "@", no spaces, a dot in the domain. Full RFC 5322 is
# neither needed nor what the service checks; this catches typos and garbage.
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
# BCP 47-ish: "en", "fr-FR", "pt_BR", "zh-Hant-TW".
_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")


class SsoUser(BaseModel):
    """A user as the customer's server vouches for it; immutable."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=False)

    id: str = Field(min_length=1, max_length=255, description="The customer's own user id.")
    username: str = Field(min_length=1, max_length=255, description="Display name.")
    email: str = Field(max_length=320, description="E-mail address.")
    language: str | None = Field(default=None, description="UI language, e.g. 'en' or 'fr-FR'.")
    bio: str | None = Field(default=None, max_length=10_000, description="Free text.")
    picture: str | None = Field(default=None, max_length=2048, description="Avatar http(s) URL.")

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        # Backends often key users by integer; the wire format carries text.
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    @field_validator("id", "username")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        if not _EMAIL.match(value):
            raise ValueError("is not an e-mail address (expected name@domain.tld)")
        return value

    @field_validator("language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        if value is not None and not _LANGUAGE.match(value):
            raise ValueError("is not a language tag (expected e.g. 'en' or 'fr-FR')")
        return value

    @field_validator("picture")
    @classmethod
    def _picture(cls, value: str | None) -> str | None:
        if value is None:
            return value
        try:
            parts = urlsplit(value)
        except ValueError:
            parts = None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an absolute http(s) URL")
        if any(ch.isspace() for ch in value):
            raise ValueError("must be an absolute http(s) URL without spaces")
        return value

    def claims(self) -> dict[str, str]:
        """The JSON object signed into ssoData (optional fields left out when unset)."""
        return self.model_dump(exclude_none=True)
