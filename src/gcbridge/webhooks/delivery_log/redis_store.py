"""The Redis backend (redis-py): one key per delivery id and per signature, expiring by TTL.

Each operation is one Lua script, atomic on the server (the scripted form of
``SET NX PX``: the id's key and the signature's key are checked and written
together). Keys carry their expiry as a TTL, so Redis forgets them on its own,
and also as a value, compared with the injected clock or, without one, with the
server's ``TIME`` (so instances with drifting clocks agree). Keys share the hash
tag ``{gcbridge}``: a script's keys must live on one node of a Redis Cluster.
"""

from __future__ import annotations

from typing import Any

from gcbridge.webhooks.delivery_log.base import (
    DEFAULT_TIMEOUT,
    ClaimOutcome,
    DeliveryStore,
    EntryState,
    entry_state,
    load_driver,
)
from gcbridge.webhooks.delivery_log.claims import Claim

__all__ = ["RedisStore", "load_redis", "DELIVERY_KEY", "SIGNATURE_KEY", "DEFAULT_TIMEOUT"]

DELIVERY_KEY = "{gcbridge}:delivery:"
"""Prefix of a delivery id's key (a hash: state, token, expires_at, signature, timestamp_ms)."""
SIGNATURE_KEY = "{gcbridge}:signature:"
"""Prefix of a signature's key (its expiry, Unix seconds)."""

_NOW = """
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local function ttl(expires) return math.max(1, math.ceil((expires - now) * 1000)) end
local function put(key, expires)
  redis.call('SET', key, string.format('%.6f', expires), 'PX', ttl(expires))
end
local function alive(key)
  local e = tonumber(redis.call('GET', key))
  return e ~= nil and e >= now
end
local function keep(key, expires)
  local old = tonumber(redis.call('GET', key))
  if old == nil or old < expires then put(key, expires) end
end
local function sig_expiry(ts_ms, tolerance)
  return math.max(tonumber(ts_ms) / 1000, now) + tonumber(tolerance)
end
local function live_state(key)
  local row = redis.call('HMGET', key, 'state', 'expires_at')
  if row[1] and tonumber(row[2]) >= now then return row[1] end
end
local function record(key, expires, ...)
  redis.call('DEL', key)
  redis.call('HSET', key, 'expires_at', string.format('%.6f', expires), ...)
  redis.call('PEXPIRE', key, ttl(expires))
end
"""

# KEYS: delivery, signature. ARGV: now, token, signature, ts_ms, lease, tolerance
_CLAIM = (
    _NOW
    + """
local sig_expires = sig_expiry(ARGV[4], ARGV[6])
local state = live_state(KEYS[1])
if state then
  keep(KEYS[2], sig_expires)  -- a copy's signature is remembered too
  if state == 'processed' then return 'duplicate' end
  return 'in_flight'
end
if alive(KEYS[2]) then return 'replayed' end
put(KEYS[2], sig_expires)
record(KEYS[1], now + tonumber(ARGV[5]),
  'state', 'claimed', 'token', ARGV[2], 'signature', ARGV[3], 'timestamp_ms', ARGV[4])
return 'new'
"""
)

# KEYS: delivery, signature. ARGV: now, signature, ts_ms, retention, tolerance, token ('': any)
_COMPLETE = (
    _NOW
    + """
if ARGV[6] ~= '' then
  local held = redis.call('HMGET', KEYS[1], 'state', 'token')
  if held[1] and not (held[1] == 'claimed' and held[2] == ARGV[6]) then return 0 end
end
record(KEYS[1], now + tonumber(ARGV[4]),
  'state', 'processed', 'signature', ARGV[2], 'timestamp_ms', ARGV[3])
keep(KEYS[2], sig_expiry(ARGV[3], ARGV[5]))
return 1
"""
)

# KEYS: delivery. ARGV: token ('' for any)
_RELEASE = """
local row = redis.call('HMGET', KEYS[1], 'state', 'token')
if row[1] == 'claimed' and (ARGV[1] == '' or row[2] == ARGV[1]) then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

# KEYS: delivery. ARGV: now
_STATE = (
    _NOW
    + """
return live_state(KEYS[1]) or false
"""
)

# KEYS: signature. ARGV: now, ts_ms, tolerance
_CLAIM_SIGNATURE = (
    _NOW
    + """
if alive(KEYS[1]) then return 0 end
put(KEYS[1], sig_expiry(ARGV[2], ARGV[3]))
return 1
"""
)

# KEYS: any. ARGV: now. Deletes the key if its expiry passed (TTLs do it in real time).
_PRUNE = (
    _NOW
    + """
local e
if redis.call('TYPE', KEYS[1]).ok == 'hash' then
  e = tonumber(redis.call('HGET', KEYS[1], 'expires_at'))
else
  e = tonumber(redis.call('GET', KEYS[1]))
end
if e ~= nil and e < now then return redis.call('DEL', KEYS[1]) end
return 0
"""
)


def load_redis() -> Any:
    """The redis module, or a clear error naming the extra to install."""
    return load_driver(
        "redis", 'a Redis delivery log needs redis-py: pip install "gc-bridge[redis]"'
    )


def _now_arg(now: float | None) -> str:
    return "" if now is None else repr(float(now))


class RedisStore(DeliveryStore):
    """Delivery ids and signatures in Redis (redis-py's pool: safe across threads)."""

    kind = "redis"
    self_expiring = True

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        redis = load_redis()
        self.errors = (redis.RedisError,)
        self._client = redis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            socket_keepalive=True,
            health_check_interval=30,
        )
        register = self._client.register_script
        self._claim = register(_CLAIM)
        self._complete = register(_COMPLETE)
        self._release = register(_RELEASE)
        self._state = register(_STATE)
        self._claim_signature = register(_CLAIM_SIGNATURE)
        self._prune = register(_PRUNE)
        self._client.ping()  # fail early on a wrong URL; later outages reconnect

    def claim(
        self, claim: Claim, now: float | None, *, lease: float, tolerance: float
    ) -> ClaimOutcome:
        """Claim the id (new, or expired) and its signature in one script."""
        keys = [DELIVERY_KEY + claim.delivery_id, SIGNATURE_KEY + claim.signature]
        args = [_now_arg(now), claim.token, claim.signature, claim.timestamp_ms, lease, tolerance]
        outcome = self._claim(keys=keys, args=args)
        text = outcome.decode() if isinstance(outcome, bytes) else str(outcome)
        assert text in ("new", "duplicate", "in_flight", "replayed"), text
        return text  # type: ignore[return-value]

    def complete(
        self, claim: Claim, now: float | None, *, retention: float, tolerance: float
    ) -> bool:
        keys = [DELIVERY_KEY + claim.delivery_id, SIGNATURE_KEY + claim.signature]
        args = [_now_arg(now), claim.signature, claim.timestamp_ms, retention, tolerance]
        args.append(claim.token or "")
        return bool(self._complete(keys=keys, args=args))

    def release(self, claim: Claim) -> bool:
        return bool(
            self._release(keys=[DELIVERY_KEY + claim.delivery_id], args=[claim.token or ""])
        )

    def state(self, delivery_id: str, now: float | None) -> EntryState | None:
        return entry_state(self._state(keys=[DELIVERY_KEY + delivery_id], args=[_now_arg(now)]))

    def claim_signature(
        self, signature: str, timestamp_ms: int, now: float | None, *, tolerance: float
    ) -> bool:
        args = [_now_arg(now), int(timestamp_ms), tolerance]
        return bool(self._claim_signature(keys=[SIGNATURE_KEY + signature], args=args))

    def prune(self, now: float | None) -> int:
        """Delete keys whose expiry passed by ``now`` (TTLs already do it in real time)."""
        total = 0
        for key in self._client.scan_iter(match="{gcbridge}:*", count=500):
            total += int(self._prune(keys=[key], args=[_now_arg(now)]))
        return total

    def close(self) -> None:
        self._client.close()
