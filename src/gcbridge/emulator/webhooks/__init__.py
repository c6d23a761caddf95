"""The emulator's webhook delivery engine.

What it owns and may import: docs/explanation/architecture.md, "Packages and what each owns".
It knows nothing of comments: the comments part hands :func:`journal.enqueue_event` a
function that builds the body.
"""
