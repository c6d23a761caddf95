"""Threads and comments of the emulator (docs/explanation/service.md#loading-the-widget).

Owns: thread-load (``threadload``), the comment and moderation routes (``routes``),
the webhook body's JSON (``payloads``), input checks (``validate``) and the
threads/comments rows (``store``).

May import: the emulator core, ``auth`` (who is signed in) and ``webhooks``
(each comment change queues its event in the same transaction). Nothing imports it
but the app factory.
"""
