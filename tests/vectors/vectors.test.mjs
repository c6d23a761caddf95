// A receiver outside Python checks the shipped vectors: webhook signatures and ssoData
// (docs/reference/wire-formats.md, format "gc"), with Node's own crypto and test runner, no
// dependency. It is also a reference for a Node backend: verifyWebhook and verifySsoData
// below are complete verifiers that give the vectors' reason codes.
//
//   node --test tests/vectors/                          (the repository's copy)
//   GC_VECTORS_DIR=path/to/vectors node --test tests/vectors/   (e.g. the files from a wheel)
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.env.GC_VECTORS_DIR || join(here, "..", "..", "src", "gcbridge", "vectors");
const load = (name) => JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8"));

// ------------------------------------------------------------------ webhooks

class Refused extends Error {
  constructor(reason) {
    super(reason);
    this.reason = reason;
  }
}

function header(headers, name) {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : String(headers[key]).trim();
}

/** hex HMAC-SHA256(secret, "<timestamp_ms>." + raw body) */
export function signWebhook(secret, timestampMs, body) {
  return createHmac("sha256", secret).update(`${timestampMs}.`).update(body).digest("hex");
}

/** Throws Refused(reason) unless the raw body is signed and fresh; nowSeconds is the clock. */
export function verifyWebhook(secret, body, headers, { tolerance = 300, nowSeconds } = {}) {
  const ts = header(headers, "X-Webhook-Timestamp");
  const sig = header(headers, "X-Webhook-Signature");
  if (ts === undefined || sig === undefined) throw new Refused("missing_header");
  if (!/^[0-9]{1,20}$/.test(ts)) throw new Refused("malformed_timestamp");
  if (!/^[0-9a-fA-F]{64}$/.test(sig)) throw new Refused("malformed_signature");
  const timestampMs = BigInt(ts);
  const nowMs = nowSeconds * 1000;
  if (Number(timestampMs) < nowMs - tolerance * 1000) throw new Refused("timestamp_too_old");
  if (Number(timestampMs) > nowMs + tolerance * 1000) throw new Refused("timestamp_too_new");
  const expected = Buffer.from(signWebhook(secret, timestampMs.toString(), body), "hex");
  if (!timingSafeEqual(expected, Buffer.from(sig, "hex"))) throw new Refused("signature_mismatch");
}

const wh = load("webhook_signature");

test("webhook signature vectors: sign", () => {
  assert.ok(wh.sign.length >= 4);
  for (const c of wh.sign) {
    const body = Buffer.from(c.body_b64, "base64");
    assert.equal(signWebhook(c.secret, c.timestamp_ms, body), c.signature, c.name);
    assert.match(c.signature, /^[0-9a-f]{64}$/, c.name);
  }
});

test("webhook signature vectors: verify, with the expected reason codes", () => {
  const body = Buffer.from(wh.verify.body_b64, "base64");
  const reasons = new Set();
  for (const c of wh.verify.cases) {
    let got = null;
    try {
      verifyWebhook(wh.verify.secret, body, c.headers, { tolerance: wh.tolerance, nowSeconds: c.now });
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      got = err.reason;
    }
    assert.equal(got, c.reason, c.name);
    reasons.add(c.reason);
  }
  assert.ok(reasons.has(null) && reasons.size >= 6, "valid and invalid cases");
});

// ------------------------------------------------------------------ ssoData

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const LANGUAGE = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
const text = (v) => typeof v === "string" && v.trim() !== "";

function checkUser(user) {
  if (user === null || typeof user !== "object" || Array.isArray(user)) throw new Refused("bad_json");
  const id = Number.isInteger(user.id) ? String(user.id) : user.id;
  if (!text(id) || !text(user.username)) throw new Refused("bad_user");
  if (typeof user.email !== "string" || !EMAIL.test(user.email)) throw new Refused("bad_user");
  if (user.language !== undefined && !(typeof user.language === "string" && LANGUAGE.test(user.language)))
    throw new Refused("bad_user");
  if (user.bio !== undefined && typeof user.bio !== "string") throw new Refused("bad_user");
  if (user.picture !== undefined) {
    let url = null;
    try { url = new URL(user.picture); } catch { /* not a URL */ }
    if (!url || !["http:", "https:"].includes(url.protocol) || !url.hostname || /\s/.test(user.picture))
      throw new Refused("bad_user");
  }
  return { ...user, id };
}

/** The user inside "<message> <signature> <timestamp>", or throws Refused(reason). */
export function verifySsoData(secret, ssoData, { maxAge = 300, leeway = 30, nowSeconds } = {}) {
  const fields = typeof ssoData === "string" ? ssoData.split(" ") : [];
  if (fields.length !== 3 || fields.some((f) => f === "")) throw new Refused("malformed");
  const [message, signature, ts] = fields;
  if (!/^[A-Za-z0-9+/=]+$/.test(message)) throw new Refused("bad_base64");
  if (!/^[0-9]{1,12}$/.test(ts)) throw new Refused("bad_timestamp");
  if (!/^[0-9a-f]{40}$/.test(signature)) throw new Refused("bad_signature");
  const timestamp = Number(ts);
  const expected = createHmac("sha1", secret).update(`${message} ${timestamp}`).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, "hex"))) throw new Refused("bad_signature");
  const age = nowSeconds - timestamp;
  if (age > maxAge + leeway) throw new Refused("expired");
  if (age < -leeway) throw new Refused("issued_in_future");
  // strict base64: canonical padding, nothing Buffer would silently skip
  const raw = Buffer.from(message, "base64");
  if (message.length % 4 !== 0 || raw.toString("base64") !== message) throw new Refused("bad_base64");
  let user;
  try {
    user = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch {
    throw new Refused("bad_json");
  }
  return checkUser(user);
}

const sso = load("sso");

test("ssoData vectors, with the expected reason codes", () => {
  const reasons = new Set();
  for (const c of sso.cases) {
    const opts = { maxAge: sso.max_age, leeway: sso.leeway, nowSeconds: c.now };
    if (c.user !== undefined) {
      assert.deepEqual(verifySsoData(c.secret, c.sso_data, opts), c.user, c.name);
      reasons.add(null);
    } else {
      assert.throws(() => verifySsoData(c.secret, c.sso_data, opts), (err) => err.reason === c.reason, c.name);
      reasons.add(c.reason);
    }
  }
  assert.ok(reasons.has(null) && reasons.size >= 8, "valid and invalid cases");
});
