// A Node backend's tests against the gc-bridge emulator (node --test), as in the CI recipes:
// ssoData issued in Node signs a user in, and a comment's webhook reaches a Node receiver,
// signed as the wire-format page says. Needs the emulator started with --allow-private-receivers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { issueSsoData, verifyWebhook } from './wire.mjs';

const base = process.env.GC_EMULATOR_URL ?? 'http://127.0.0.1:8000';
const site = JSON.parse(readFileSync(process.env.GC_SITE_FILE ?? '.gcbridge/demo-site.json', 'utf8'));

async function call(method, path, body, token) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(base + path, { method, headers, body: body && JSON.stringify(body) });
  const data = await res.json();
  assert.equal(data.gcCode, undefined, `${method} ${path}: ${JSON.stringify(data)}`); // errors carry gcCode
  return data;
}

async function signIn(username) {
  const ssoData = issueSsoData(site.sso_secret, { id: `node-${username}`, username, email: `${username}@example.com` });
  return (await call('POST', '/api/pub/sso/login', { api_public_key: site.sso_public_key, ssoData })).token;
}

test('ssoData issued in Node signs a user in', async () => {
  assert.ok(await signIn(`ada${Date.now()}`));
});

test('a new comment reaches our receiver, signed', async () => {
  let resolve;
  const delivered = new Promise((r) => (resolve = r));
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
      resolve({ headers: req.headers, body: Buffer.concat(chunks) });
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${receiver.address().port}/webhooks/gc`;
    // webhook routes take the site's 24-hex website_id; comment routes take its shortname
    const { secret } = await call('POST', `/webhook/website/${site.website_id}/setup`, { url, events: ['comment.created'] }, site.account_token);
    const token = await signIn(`bea${Date.now()}`);
    const content = `hello from node ${Date.now()}`;
    await call('POST', '/api/pub/comments', { website_id: site.shortname, uid: 'node-ci', url: 'https://app.example/node-ci', page_title: 'Node CI', content }, token);
    let timer;
    const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no delivery in 30 s')), 30_000)));
    const { headers, body } = await Promise.race([delivered, late]).finally(() => clearTimeout(timer));
    verifyWebhook(secret, headers, body); // throws with a reason code if it is not authentic
    const event = JSON.parse(body.toString('utf8'));
    assert.equal(event.event_type, 'comment.created');
    assert.equal(event.website_id, site.website_id);
    assert.equal(event.data.comment.content, content);
  } finally {
    receiver.close();
  }
});
