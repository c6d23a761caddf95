"""What each reason code means and how to fix it: the one place both are written.

Every gc-bridge error carries a string ``reason`` (:class:`gcbridge.errors.GcBridgeError`,
the emulator's ``{"gcCode", "error", "message"}``, the receiver's ``{"error": ...}``).
The codes are raised where the errors happen; :data:`REASONS` says, for each, what it
means and what fixes it, in a user's words. The reason codes page of the docs is
formatted from it, and a test checks that every code the source raises is here, with
both, and that nothing here is stale.
"""

from __future__ import annotations

__all__ = ["REASONS", "meaning", "fix"]

REASONS: dict[str, tuple[str, str]] = {
    # --- sso: ssoData and the issuer
    "sso_error": (
        "an ssoData problem (the base of the SSO errors)",
        "read the more specific reason",
    ),
    "malformed": (
        "not three non-empty fields with single spaces (ssoData), or not a session token",
        "send `<message> <signature> <timestamp>` as issued; never edit or re-join it",
    ),
    "bad_base64": (
        "the message is not standard base64",
        "base64-encode the UTF-8 JSON user with `A-Z a-z 0-9 + / =`",
    ),
    "bad_json": (
        "the message does not decode to a UTF-8 JSON object",
        "encode the user as a JSON object before base64",
    ),
    "bad_timestamp": (
        "the timestamp is not 1 to 12 decimal digits",
        "use Unix time in whole seconds, not milliseconds",
    ),
    "bad_signature": (
        "the signature is not 40 lowercase hex digits or does not match (ssoData, a session token)",
        "sign `<message> <timestamp>` with HMAC-SHA1 and the site's SSO secret; "
        "pass tokens on unchanged",
    ),
    "bad_user": (
        "a user field is missing, blank or of the wrong form",
        "send `id`, `username` and `email` (see the wire formats)",
    ),
    "expired": (
        "older than max_age + leeway (ssoData), or a session past its lifetime",
        "fetch fresh ssoData right before injecting it; sign in again",
    ),
    "issued_in_future": (
        "the timestamp is ahead of the verifier's clock by more than the leeway",
        "issue with the current Unix time; synchronise the server's clock",
    ),
    "weak_secret": (
        "the SSO secret is shorter than 16 bytes",
        "use the site's secret, or `secrets.token_urlsafe(32)`",
    ),
    # --- webhooks: the receiver SDK
    "webhook_error": (
        "a webhook problem (the base of the receiver's errors)",
        "read the more specific reason",
    ),
    "missing_header": (
        "a delivery header is missing (signature, timestamp or delivery id)",
        "pass the request's headers unchanged to the verifier",
    ),
    "malformed_signature": (
        "X-Webhook-Signature is not 64 lowercase hex digits",
        "pass the header's value unchanged",
    ),
    "malformed_timestamp": (
        "X-Webhook-Timestamp is not Unix milliseconds",
        "pass the header's value unchanged",
    ),
    "signature_mismatch": (
        "the HMAC-SHA256 of the body does not match",
        "verify the raw body bytes with the site's current webhook secret",
    ),
    "timestamp_too_old": (
        "the delivery is older than the tolerance",
        "check the receiver's clock; never queue deliveries before verifying them",
    ),
    "timestamp_too_new": (
        "the delivery is ahead of the receiver's clock",
        "synchronise the receiver's clock (NTP)",
    ),
    "body_not_bytes": (
        "the body given to the verifier is not bytes",
        "pass the raw request body (`await request.body()`), never parsed JSON",
    ),
    "delivery_id_too_long": (
        "X-Webhook-Delivery-Id is longer than the delivery log keeps",
        "pass the header unchanged; a real delivery id is short",
    ),
    "replayed_signature": (
        "a signature already accepted came back with another delivery id",
        "none: a captured delivery was replayed; answer it as refused",
    ),
    "malformed_payload": (
        "the body is authentic but not a valid event",
        "check the event's fields against the event schemas",
    ),
    "unknown_event_type": (
        "the event type is not one of the catalog's",
        "use an event type of the catalog (`gcbridge webhooks schema`)",
    ),
    "schema_mismatch": (
        "a body does not match its event's JSON Schema",
        "fix each field the problems name",
    ),
    "missing_dependency": (
        "checking a JSON Schema needs the jsonschema package",
        "`pip install jsonschema`",
    ),
    "bad_respond_steps": (
        "`--respond` steps cannot be read or sent",
        "give comma-separated statuses such as `500,500,200`",
    ),
    "emulator_clock_unavailable": (
        "the emulator's clock could not be read",
        "check `--emulator URL` and that the emulator runs",
    ),
    "delivery_log_unavailable": (
        "the delivery log's store cannot be reached",
        "check its URL and that the database or Redis runs",
    ),
    "unsupported_url": (
        "the delivery log URL has an unknown scheme",
        "use `sqlite:///path`, `postgresql://...` or `redis://...`",
    ),
    "missing_extra": (
        "a part needs an optional dependency that is not installed",
        "install the extra the message names, e.g. `pip install 'gc-bridge[emulator]'`",
    ),
    "missing_privilege": (
        "the database role lacks a privilege the delivery log needs",
        "grant the privileges the message names, or create the schema as its owner",
    ),
    "schema_missing": (
        "the delivery log's tables do not exist",
        "create them once (the message gives the command)",
    ),
    "schema_too_new": (
        "the delivery log's tables are of a newer version",
        "upgrade gc-bridge to the version that created them",
    ),
    "unknown_role": (
        "the role to grant the delivery log to does not exist",
        "create the role first, or name an existing one",
    ),
    # --- emulator: HTTP answers
    "invalid_request": (
        "a parameter or the body is wrong (the message names it)",
        "fix the named field; see the HTTP API page",
    ),
    "invalid_parameter": (
        "a parameter has a wrong value",
        "give a value of the range the message states",
    ),
    "not_found": ("no such page or route", "check the path (see the HTTP API page)"),
    "unknown_site": (
        "no site has this id or shortname",
        "use the site's shortname on the widget routes, its 24-hex id on the webhook routes",
    ),
    "unknown_public_key": (
        "api_public_key is not any site's public key",
        "put the site's SSO public key in the widget URL",
    ),
    "sso_invalid": (
        "the service refused the ssoData (the message gives its reason)",
        "fix what the inner reason names; `gcbridge sso check` shows it",
    ),
    "sso_expired": (
        "the ssoData had expired when the service got it",
        "fetch ssoData right before injecting it; check the backend's clock",
    ),
    "username_conflict": (
        "another user of the site holds this username or a look-alike of it",
        "answer gc-sso-conflict: ask the user for another name and issue ssoData with it",
    ),
    "username_taken": (
        "an account with this username or a look-alike exists",
        "pick another username",
    ),
    "bad_credentials": ("wrong username or password", "check both; passwords are case-sensitive"),
    "auth_required": (
        "the route needs a credential and got none",
        "send `Authorization: Bearer <token>`",
    ),
    "invalid_session": (
        "the session token is not valid (signed out, expired, or of a reset emulator)",
        "sign in again",
    ),
    "revoked": ("the session was signed out", "sign in again"),
    "unknown_user": ("the session's user no longer exists (a reset or restore)", "sign in again"),
    "not_author": (
        "only the author may edit or delete this comment",
        "act as the comment's author, or moderate with the account token",
    ),
    "comment_not_found": ("no such comment on this site", "check the comment id and the site"),
    "comment_deleted": ("a deleted comment cannot be edited", "post a new comment instead"),
    "wrong_site": (
        "the credential belongs to another site",
        "use the credential of the site in the request",
    ),
    "invalid_account_token": (
        "the account token is not valid",
        "use the site's account token (the emulator prints it at start)",
    ),
    "invalid_token": (
        "the account token is missing or not valid (webhook routes: gcCode 410)",
        "send `Authorization: Bearer <account token>` of this site",
    ),
    "missing_site_signature": (
        "a site-key signature header is missing",
        "send the signature and timestamp headers with the site key",
    ),
    "invalid_site_signature": (
        "the site-key signature does not match",
        "sign with the site's key exactly as the wire formats say",
    ),
    "malformed_site_timestamp": (
        "the site-key timestamp is not a number",
        "send Unix time in seconds",
    ),
    "stale_site_timestamp": (
        "the site-key timestamp is too far from the emulator's clock",
        "sign with the current time; check the clock",
    ),
    "wrong_website": (
        "the site-key signature is for another website id",
        "sign for the website id in the path",
    ),
    "webhook_not_configured": (
        "the site has no webhook set up",
        "set one up first: `POST /webhook/website/{id}/setup`",
    ),
    "webhook_disabled": (
        "the webhook was disabled, so the call was not sent",
        "set the webhook up again",
    ),
    "call_not_found": (
        "no such call in this site's delivery journal",
        "check the call id (`gcbridge webhooks calls`)",
    ),
    "not_replayable": (
        "only a failed call can be replayed",
        "wait until the call has failed, or let it finish",
    ),
    "receiver_refused": (
        "the receiver URL was refused by the SSRF policy",
        "use a public https URL, or `--allow-private-receivers` for a local one",
    ),
    "not_https": (
        "the receiver URL is not https",
        "use https, or `--allow-private-receivers` for a local receiver",
    ),
    "bad_url": ("a URL cannot be parsed or used", "give an absolute http(s) URL"),
    "no_address": ("the receiver's host has no address", "check the host name and DNS"),
    "userinfo": (
        "the receiver URL carries credentials (`user:pass@`)",
        "drop them; authenticate by the webhook signature",
    ),
    "url_too_long": ("the receiver URL is too long", "use a shorter URL"),
    "admin_token_required": (
        "a control route needs the admin token",
        "send `Authorization: Bearer <admin token>` (the data dir's `admin-token`)",
    ),
    "invalid_action": (
        "the clock action is not freeze, resume or advance",
        "send one of the actions the message lists",
    ),
    "clock_not_controllable": (
        "this emulator's clock cannot be set (built with its own clock, or system mode)",
        "start it with `--clock manual`, or freeze it first",
    ),
    "dispatcher_stopped": ("the delivery dispatcher has stopped", "restart the emulator"),
    "advance_interrupted": (
        "the advance stopped where it stood: its client disconnected, or a reset or a restore came",
        "advance again once the reset or restore is done; the clock stays where it had moved",
    ),
    "invalid_snapshot_name": (
        "a snapshot name of letters, digits, `-`, `_` and `.` is expected",
        "use a plain name such as `before-test`",
    ),
    "snapshot_not_found": ("no snapshot of this name", "list them: `GET /_emulator/snapshots`"),
    "snapshot_unreadable": ("the snapshot cannot be restored", "save it again with this version"),
    "snapshot_too_new": (
        "the snapshot was saved by a newer gc-bridge (a later schema version)",
        "restore it with that version, or save a new snapshot with this one",
    ),
    # --- emulator: configuration and start-up
    "emulator_error": (
        "an emulator problem (the base of its errors)",
        "read the more specific reason",
    ),
    "config_error": (
        "the emulator's configuration is wrong",
        "fix the option or file the message names",
    ),
    "bad_clock": ("`--clock` is not system or manual", "give `--clock system` or `--clock manual`"),
    "bad_data_dir": (
        "the data directory cannot be created or used",
        "give a writable directory with `--data-dir`",
    ),
    "data_dir_too_new": (
        "the data directory was written by a newer gc-bridge (a later schema version)",
        "run that version on it, or give this one another `--data-dir`",
    ),
    "data_dir_in_use": (
        "another emulator uses this data directory",
        "stop it, or give this one another `--data-dir`",
    ),
    "bad_port": ("the port is not a number from 0 to 65535", "give a valid `--port`"),
    "bad_schedule": (
        "the retry schedule cannot be read",
        "give increasing delays in seconds, e.g. `0,60,300`",
    ),
    "bad_session_key": (
        "the data directory's session key is damaged",
        "delete `session.key` (sessions then end)",
    ),
    "bad_shortname": (
        "a site shortname of lowercase letters, digits and `-` is expected",
        "fix the shortname in the sites file",
    ),
    "bad_website_id": (
        "a website id of 24 hex digits is expected",
        "fix the website id in the sites file",
    ),
    "duplicate_site": ("two sites share a shortname, id or key", "give each site its own"),
    "no_sites": ("the sites file lists no site", "add at least one site"),
    "missing_field": ("a site lacks a required key", "add the keys the message names"),
    "unknown_field": (
        "a site has a key the emulator does not know",
        "remove or rename it (the message names it)",
    ),
    "wrong_type": (
        "a site's key has a value of the wrong type",
        "give the type the message states",
    ),
    "sites_file_missing": ("the sites file does not exist", "check `--sites`"),
    "sites_file_is_directory": ("the sites path is a directory", "give the JSON file itself"),
    "sites_file_unreadable": ("the sites file cannot be read", "check its permissions"),
    "sites_file_invalid": (
        "the sites file is not UTF-8 JSON of the expected shape",
        "fix the JSON (the message says where)",
    ),
    # --- cli
    "usage": ("a command was called wrongly", "see `gcbridge <command> --help`"),
    "bad_admin_token": (
        "the admin token from `--admin-token-env` holds characters an HTTP header cannot carry",
        "use at least 16 visible ASCII characters, e.g. `secrets.token_urlsafe(32)`",
    ),
    "bad_admin_token_file": (
        "the data dir's `admin-token` cannot be read, or holds something else than a token",
        "remove the file (a new token is generated at start) or put a visible-ASCII token in it",
    ),
    "copy_dir_unusable": (
        "the directory given to `--copy` cannot be created or written to",
        "give a writable directory, not a path under a regular file",
    ),
    "copy_target_exists": (
        "a file `--copy` would write is already there",
        "remove it, or pass `--force` to replace it",
    ),
    "copy_target_symlink": (
        "a file `--copy` would write is a symbolic link (never written through)",
        "remove the link, or copy into another directory",
    ),
    "admin_token_env_unset": (
        "the variable named by `--admin-token-env` is not set",
        "export it, or leave the option out",
    ),
    "token_env_unset": (
        "the variable holding the token is not set",
        "export it before the command",
    ),
    "secret_env_unset": (
        "the variable named by `--secret-env` is not set",
        "export it before the command",
    ),
    "secret_missing": ("no secret was given", "pass `--secret-env VAR`"),
    "header_env_unset": (
        "the variable named by `--header-env` is not set",
        "export it with `Name: value`",
    ),
    "bad_header": ("a header is not `Name: value`", "give one header per option as `Name: value`"),
    "credential_in_argv": (
        "a credential was given on the command line",
        "use `--header-env VAR` or `--headers-stdin`",
    ),
    "bad_front_url": (
        "`--front-url` is not an absolute http(s) URL",
        "give the URL the browser reaches the emulator at",
    ),
    "bad_timeout": ("a timeout is not a positive number", "give seconds greater than 0"),
    "bind_failed": ("the address could not be bound", "check the host and port"),
    "port_in_use": ("the port is in use", "pick another with `--port`, or 0 for any free port"),
    "startup_failed": (
        "the emulator did not start",
        "read the lines above; fix the option they name",
    ),
    "not_ready": (
        "the emulator did not answer health in time",
        "check the URL and start it, or raise `--timeout`",
    ),
    "no_command": (
        "`emulator exec` needs a command after `--`",
        "e.g. `gcbridge emulator exec -- npm test`",
    ),
    "command_failed": ("the command could not be run", "check that it exists and is executable"),
    "file_unreadable": (
        "a file given on the command line cannot be read",
        "check the path and its permissions",
    ),
    "unreachable": ("the URL could not be reached", "check the URL and that the server runs"),
    "timeout": ("no complete answer within the deadline", "check the server, or raise the timeout"),
    "too_large": ("the answer is over the size cap", "check the URL: it is not the endpoint meant"),
    "api_error": ("the emulator answered with an error", "read its reason in the message"),
    "bad_answer": (
        "the answer is not what the emulator of this version gives",
        "check that the URL is a gcbridge emulator of this version",
    ),
    "ambiguous_id": ("a call id prefix matches several calls", "give more characters of the id"),
    "extra_missing": (
        "the harness needs the `harness` extra",
        "`pip install 'gc-bridge[harness]'`",
    ),
    "xdist_missing": ("`-n` needs pytest-xdist", "`pip install pytest-xdist`"),
    "engine_unavailable": ("this harness version runs Chromium only", "drop `--engine webkit`"),
    "no_scenarios": ("no scenario matches the selection", "check `-k` and the scenario names"),
    "bridge_not_found": ("the `--bridge` file does not exist", "give the path of your bridge.js"),
    "bridge_unreadable": (
        "the `--bridge` path cannot be read as bridge.js",
        "give a readable file, not a directory",
    ),
    # --- core, demo, harness
    "kit_error": (
        "a kit's tarball could not be written (the base of the kit errors)",
        "read the more specific reason",
    ),
    "unknown_kit": ("`--kit` names no kit of gc-bridge", "give `--kit react-native DIR`"),
    "kit_missing": (
        "this installation holds no copy of the kit",
        "reinstall gc-bridge from its wheel, or run from a checkout",
    ),
    "bad_kit_dir": (
        "DIR of `--kit` is not a directory that can be written",
        "give a writable directory (it is created when missing)",
    ),
    "kit_exists": (
        "DIR already holds a tarball of that name (or something else by that name)",
        "pass `--force` to replace a tarball, or choose another DIR",
    ),
    "error": ("a gc-bridge error (the root of the tree)", "read the message"),
    "bridge_missing": ("the packaged bridge.js is missing", "reinstall gc-bridge"),
    "bridge_not_utf8": ("the packaged bridge.js is not UTF-8", "reinstall gc-bridge"),
    "bridge_no_version": (
        "bridge.js declares no `var VERSION`",
        "keep the VERSION line of the shipped bridge.js",
    ),
    "bridge_ts_no_source": (
        "a kit's bridgeSource.ts holds no BRIDGE_SOURCE",
        "regenerate it from bridge.js",
    ),
    "bridge_pin_mismatch": (
        "a kit's pinned bridge version differs from the source it holds",
        "regenerate the kit's copy from bridge.js",
    ),
    "browser_not_found": (
        "no Chromium or Chrome was found",
        "install one, or point `GC_BROWSER` at it",
    ),
    "browser_path_invalid": (
        "`GC_BROWSER` does not name an executable browser",
        "give the path of a Chromium or Chrome binary",
    ),
    "demo_failed": ("the demo stopped on an error", "read the line above it"),
    "flow_failed": (
        "the demo's scripted flow did not complete",
        "read the timeline: the first missing step names the cause",
    ),
    "browser_closed": (
        "the demo's browser closed unexpectedly",
        "run it again; check memory and the display",
    ),
    "no_gui_backend": (
        "no display for the desktop demo",
        "use `--headless`, or run it under `xvfb-run`",
    ),
    "webkit_unavailable": (
        "the WebKit engine cannot start here",
        "install the WebKitGTK packages the message names, or run Chromium only",
    ),
    "webkit_command_failed": (
        "the WebKit driver refused a command",
        "read the message; rerun with Chromium to compare",
    ),
}
"""``reason -> (meaning, fix)``."""


def meaning(reason: str) -> str:
    """What ``reason`` means (empty for an unknown code)."""
    return REASONS.get(reason, ("", ""))[0]


def fix(reason: str) -> str:
    """How to fix what ``reason`` says (empty for an unknown code)."""
    return REASONS.get(reason, ("", ""))[1]
