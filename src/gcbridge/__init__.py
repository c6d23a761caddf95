"""gc-bridge: put a hosted comment widget into native apps and wire it to customer backends.

Parts (each importable on its own; heavy ones behind extras):

- :mod:`gcbridge.bridge`    -- ships ``bridge.js`` (text, version, sha256)
- :mod:`gcbridge.sso`       -- ssoData issuer and verifier
- :mod:`gcbridge.webhooks`  -- webhook receiver SDK (signature, typed events, idempotency)
- :mod:`gcbridge.emulator`  -- local stand-in for the commenting service (extra ``emulator``)
- :mod:`gcbridge.demo`      -- the desktop / headless demo (extra ``demo``)
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
