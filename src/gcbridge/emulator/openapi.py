"""What the emulator's OpenAPI schema says beyond what FastAPI infers: documentation only.

The routes answer errors as ``{"gcCode", "error", "message"}`` (see ``service.py``),
validation errors as HTTP 400 (not FastAPI's 422), and some read their query
string or raw body by hand (so that validation messages and site-key
signatures stay under the route's control). Nothing here changes what a route
accepts or answers: the ``responses`` dicts and ``openapi_extra`` fragments only
describe it, so that clients and schema-driven fuzzers see the truth.

FastAPI adds its default 422 response only when an operation documents none of
``422``, ``4XX`` or ``default``; :data:`CLIENT_ERRORS` documents ``4XX``, which
is true of every route and removes the 422 that no route ever answers.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ErrorBody",
    "Problem",
    "CLIENT_ERRORS",
    "SITE_AUTH_OK",
    "site_auth_responses",
    "error_responses",
    "query_parameters",
    "json_request_body",
]

Responses = dict[int | str, dict[str, Any]]


class Problem(BaseModel):
    """One rejected field of a validation error."""

    field: str = Field(description="Dotted path of the field; empty for the body as a whole.")
    message: str


class ErrorBody(BaseModel):
    """Every error answer: ``gcCode`` first, then a reason code and a human message."""

    # Some errors carry more (``problems`` on validation, ``username`` on a conflict).
    model_config = ConfigDict(extra="allow")
    gcCode: int = Field(  # noqa: N815 (the wire name)
        description="The error's code: the HTTP status, or 410 on a site-auth failure (HTTP 200)."
    )
    error: str = Field(description="Machine-readable reason code, e.g. invalid_request.")
    message: str = Field(description="What went wrong, for a human.")
    problems: list[Problem] | None = Field(
        default=None, description="On a validation error (400 invalid_request): each bad field."
    )


_DESCRIPTIONS: dict[int, str] = {
    400: "Invalid request: a parameter or the body is wrong (error names it).",
    401: "Not signed in, or the credential is not valid.",
    403: "The credential is valid but not allowed here.",
    404: "Not found (unknown site, comment or call; another site's ids are not found either).",
    409: "Conflict with the current state (e.g. a username already held).",
}

CLIENT_ERRORS: Responses = {
    "4XX": {
        "model": ErrorBody,
        "description": "A client error, answered as {gcCode, error, message}.",
    },
}
"""The ``4XX`` answer every route may give; replaces FastAPI's unused 422."""


def error_responses(*statuses: int) -> Responses:
    """``responses=`` entries for the given 4xx statuses, plus the ``4XX`` catch-all."""
    out: Responses = dict(CLIENT_ERRORS)
    for status in statuses:
        out[status] = {"model": ErrorBody, "description": _DESCRIPTIONS.get(status, "Error.")}
    return out


_ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}

SITE_AUTH_OK: dict[str, Any] = {
    "description": (
        "The answer; or, when the credential is missing, wrong or of another site, "
        'HTTP 200 with {"gcCode": 410, "error", "message"}, as the service does: '
        "check gcCode first."
    ),
    "content": {"application/json": {"schema": {"anyOf": [{"type": "object"}, _ERROR_REF]}}},
}
"""The HTTP 200 of routes authenticated by account token or site key (webhooks, dashboard)."""


def site_auth_responses(*statuses: int) -> Responses:
    """``responses=`` of a site-authenticated route: its 200 (or gcCode 410) and its 4xx."""
    return {200: SITE_AUTH_OK, **error_responses(*statuses)}


def query_parameters(*params: tuple[str, bool, dict[str, Any], str]) -> dict[str, Any]:
    """``openapi_extra`` documenting query parameters ``(name, required, schema, description)``.

    For routes that read their query string by hand: declaring them with ``Query``
    would hand their validation (and its messages) to FastAPI.
    """
    return {
        "parameters": [
            {
                "name": name,
                "in": "query",
                "required": required,
                "schema": schema,
                "description": description,
            }
            for name, required, schema, description in params
        ]
    }


def json_request_body(
    schema: dict[str, Any], description: str, *, required: bool
) -> dict[str, Any]:
    """``openapi_extra`` documenting a body the route reads raw."""
    return {
        "requestBody": {
            "required": required,
            "description": description,
            "content": {"application/json": {"schema": schema}},
        }
    }
