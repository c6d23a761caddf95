"""The emulator's webhook delivery engine (docs/explanation/service.md#webhooks).

Owns: the ``/webhook/...`` routes (``routes``), the outbox/journal rows (``journal``,
``outbox``), the dispatcher and its workers (``dispatcher``), one HTTP attempt
(``attempt``), the retry policy (``schedule``), the SSRF policy (``ssrf``) and the
receiver connections (``connections``).

May import: the emulator core (``state``, ``settings``, ``sites``, ``db``, ``errors``,
``openapi``), ``auth`` (site-key authentication of the routes) and the SDKs
(``gcbridge.webhooks`` signs every attempt). It knows nothing of comments: the
comments part hands :func:`journal.enqueue_event` a function that builds the body.
"""
