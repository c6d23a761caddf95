"""Placeholder; replaced by its owner."""

from fastapi import FastAPI


def mount(app: FastAPI) -> None:
    """Mount nothing yet."""
