"""The SSO user inside ssoData: id, username, email, language?, bio?, picture?."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gcbridge.sso.fields import email_ok, language_ok, picture_problem, unsafe_text

__all__ = ["SsoUser"]


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
        if unsafe_text(value):
            raise ValueError("must not contain control or bidi-override characters")
        return value

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        if not email_ok(value):
            raise ValueError("is not an e-mail address (expected name@domain.tld)")
        return value

    @field_validator("language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        if value is not None and not language_ok(value):
            raise ValueError("is not a language tag (expected e.g. 'en' or 'fr-FR')")
        return value

    @field_validator("picture")
    @classmethod
    def _picture(cls, value: str | None) -> str | None:
        problem = None if value is None else picture_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    def claims(self) -> dict[str, str]:
        """The JSON object signed into ssoData (optional fields left out when unset)."""
        # model_dump(exclude_none=True), read from the fields directly: all are text.
        return {name: value for name, value in self.__dict__.items() if value is not None}
