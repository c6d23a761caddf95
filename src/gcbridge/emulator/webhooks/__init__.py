"""The emulator's webhook delivery engine (spec 2.3-2.6, 4.2-4.7, 7, 8).

Owns: the ``/webhook/...`` routes (``routes``), the outbox/journal rows (``journal``,
``outbox``), the dispatcher and its workers (``dispatcher``), one HTTP attempt
(``attempt``), the retry policy (``schedule``), the SSRF policy (``ssrf``) and the
receiver connections (``connections``).

May import: the emulator core (``state``, ``settings``, ``sites``, ``db``, ``errors``,
``openapi``), ``auth`` (site-key authentication of the routes) and the SDKs
(``gcbridge.webhooks`` signs every attempt). It knows nothing of comments: the
comments part hands :func:`journal.enqueue_event` a function that builds the body.
"""
