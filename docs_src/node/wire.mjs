// The two wire formats of gc-bridge in plain Node (no dependency): ssoData and the
// webhook signature, as written in the "Wire formats" reference. A port to another
// language follows these lines; check_vectors.mjs runs it on src/gcbridge/vectors/*.json.
import { createHmac, timingSafeEqual } from 'node:crypto';

export class WireError extends Error {
  constructor(reason, message) {
    super(message);
    this.reason = reason; // the same reason codes as the Python SDK
  }
}

// ---- ssoData: "<message> <signature> <timestamp>" ------------------------------------
// message   = standard base64 (with padding) of the UTF-8 JSON user object
// timestamp = Unix SECONDS, decimal
// signature = lowercase hex HMAC-SHA1(sso_secret, "<message> <timestamp>")

export function issueSsoData(secret, user, nowSeconds = Math.floor(Date.now() / 1000)) {
  const message = Buffer.from(JSON.stringify(user), 'utf8').toString('base64');
  const signature = createHmac('sha1', secret).update(`${message} ${nowSeconds}`).digest('hex');
  return `${message} ${signature} ${nowSeconds}`;
}

export function verifySsoData(secret, ssoData, { now = Date.now() / 1000, maxAge = 300, leeway = 30 } = {}) {
  const fields = typeof ssoData === 'string' ? ssoData.split(' ') : [];
  if (fields.length !== 3 || fields.some((f) => f === '')) {
    throw new WireError('malformed', "ssoData must be '<message> <signature> <timestamp>'");
  }
  const [message, signature, timestamp] = fields;
  if (!/^[A-Za-z0-9+/=]+$/.test(message)) throw new WireError('bad_base64', 'message is not base64');
  if (!/^[0-9]{1,12}$/.test(timestamp)) throw new WireError('bad_timestamp', 'timestamp is not decimal seconds');
  if (!/^[0-9a-f]{40}$/.test(signature)) throw new WireError('bad_signature', 'signature is not 40 lowercase hex');
  const expected = createHmac('sha1', secret).update(`${message} ${Number(timestamp)}`).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    throw new WireError('bad_signature', 'the signature does not match');
  }
  const age = now - Number(timestamp);
  if (age > maxAge + leeway) throw new WireError('expired', 'ssoData expired');
  if (age < -leeway) throw new WireError('issued_in_future', 'ssoData was issued in the future');
  const bytes = Buffer.from(message, 'base64');
  if (bytes.toString('base64') !== message) throw new WireError('bad_base64', 'message is not valid base64');
  let user;
  try {
    user = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new WireError('bad_json', 'message is not UTF-8 JSON');
  }
  if (user === null || typeof user !== 'object' || Array.isArray(user)) {
    throw new WireError('bad_json', 'message is JSON but not an object');
  }
  for (const field of ['id', 'username', 'email']) {
    if (typeof user[field] !== 'string' || user[field] === '') throw new WireError('bad_user', `${field} is required`);
  }
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(user.email)) throw new WireError('bad_user', 'email is not an address');
  if (user.picture !== undefined && !/^https?:\/\//.test(user.picture)) {
    throw new WireError('bad_user', 'picture must be an http(s) URL');
  }
  return user;
}

// ---- webhook deliveries ------------------------------------------------------------
// X-Webhook-Timestamp = epoch MILLISECONDS, decimal
// X-Webhook-Signature = lowercase hex HMAC-SHA256(webhook_secret, "<timestamp>." + raw body bytes)

export function signWebhook(secret, timestampMs, rawBody) {
  return createHmac('sha256', secret).update(`${timestampMs}.`).update(rawBody).digest('hex');
}

export function verifyWebhook(secret, headers, rawBody, { nowMs = Date.now(), toleranceS = 300 } = {}) {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const timestamp = lower['x-webhook-timestamp'];
  const signature = lower['x-webhook-signature'];
  if (timestamp === undefined || signature === undefined) throw new WireError('missing_header', 'missing header');
  if (!/^[0-9]{1,16}$/.test(timestamp)) throw new WireError('malformed_timestamp', 'timestamp is not milliseconds');
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) throw new WireError('malformed_signature', 'signature is not 64 hex');
  const skew = nowMs - Number(timestamp);
  if (skew > toleranceS * 1000) throw new WireError('timestamp_too_old', 'timestamp too old');
  if (skew < -toleranceS * 1000) throw new WireError('timestamp_too_new', 'timestamp too new');
  const expected = Buffer.from(signWebhook(secret, timestamp, rawBody), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    throw new WireError('signature_mismatch', 'the signature does not match');
  }
}
