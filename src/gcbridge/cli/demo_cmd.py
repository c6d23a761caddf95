"""Placeholder sub-command; replaced by its owner."""

import argparse


def register(parser: argparse.ArgumentParser) -> None:
    """Register the sub-command's arguments."""
    parser.set_defaults(func=None)
