"""Threads and comments of the emulator.

What it owns and may import: docs/explanation/architecture.md, "Packages and what each owns".
"""
