"""Threads and comments of the emulator (spec 2.1, 2.2, 2.4 data, 4.1, 6.1).

Owns: thread-load (``threadload``), the comment and moderation routes (``routes``),
the JSON shapes of spec 2.4 (``payloads``), input checks (``validate``) and the
threads/comments rows (``store``).

May import: the emulator core, ``auth`` (who is signed in) and ``webhooks``
(each comment change queues its event in the same transaction). Nothing imports it
but the app factory.
"""
