// A webhook receiver in plain Node (no dependencies): verify, then handle.
//
// verifyDelivery() is the whole receiver-side check: the signature is the lowercase hex
// HMAC-SHA256 of "<X-Webhook-Timestamp>.<raw body>" with the webhook secret, and
// the timestamp (epoch ms) must be within 300 s of *now*. In production "now" is
// Date.now(); under test it is the emulator's clock (emulatorClock below), so a
// retry six hours later on the emulator is as fresh as it is in production.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

export const TOLERANCE_MS = 300_000;

export function verifyDelivery(secret, rawBody, headers, nowMs) {
  const timestamp = headers['x-webhook-timestamp'];
  const signature = headers['x-webhook-signature'];
  if (!timestamp || !signature) return 'missing_header';
  if (!/^[0-9]{1,20}$/.test(timestamp)) return 'malformed_timestamp';
  const age = nowMs - Number(timestamp);
  if (age > TOLERANCE_MS) return 'timestamp_too_old';
  if (age < -TOLERANCE_MS) return 'timestamp_too_new';
  if (!/^[0-9a-f]{64}$/.test(signature)) return 'malformed_signature';
  const expected = createHmac('sha256', secret)
    .update(`${timestamp}.`)
    .update(rawBody)
    .digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex')) ? null : 'signature_mismatch';
}

// The emulator's time, read from its health route (no token needed).
export function emulatorClock(emulatorUrl) {
  return async () => {
    const health = await (await fetch(`${emulatorUrl}/_emulator/health`)).json();
    return health.clock.now;
  };
}

// Starts the receiver on a free loopback port. `handle(event)` returns the HTTP
// status to answer (throwing answers 500); `now()` gives epoch ms.
export async function startReceiver({ secret, now = async () => Date.now(), handle }) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const refused = verifyDelivery(secret(), raw, req.headers, await now());
      if (refused) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: refused }));
        return;
      }
      let status;
      try {
        status = await handle(JSON.parse(raw.toString('utf8')), req.headers);
      } catch {
        status = 500;
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: status < 300 }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/webhooks/gc` };
}
