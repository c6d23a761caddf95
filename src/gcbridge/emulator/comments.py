"""Placeholder router; replaced by its owner."""

from fastapi import APIRouter

router = APIRouter()
