"""Accounts and authentication of the emulator.

Owns: SSO login and the service's own accounts (``accounts``), session tokens
(``sessions``), password hashing (``passwords``), the users table and its JSON
(``users``), and the account-token / site-key authentication of the webhook routes
(``siteauth``).

May import: the emulator core (``state``, ``settings``, ``sites``, ``db``, ``errors``,
``openapi``) and the SDKs (``gcbridge.sso`` verifies ssoData). Never the comments or
webhooks parts.
"""
