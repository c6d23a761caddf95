// The receiver's test suite: node's own test runner, driven by `gcbridge emulator exec`,
//
//   gcbridge emulator exec --clock manual --ephemeral --allow-private-receivers \
//       -- node --test docs_src/node_receiver/
//
// exec puts the emulator's address, its admin token and the site's credentials in
// GC_* variables; the manual clock lets the suite play the whole retry schedule
// (0 s, 1 min, 5 min, 15 min, 1 h, 6 h) in about a second.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';

import { emulatorClock, startReceiver } from './receiver.mjs';

const env = process.env;
const URL_ = env.GC_EMULATOR_URL;
const admin = { authorization: `Bearer ${env.GC_EMULATOR_ADMIN_TOKEN}` };
const account = { authorization: `Bearer ${env.GC_ACCOUNT_TOKEN}` };

async function call(method, path, body, headers = {}) {
  const res = await fetch(URL_ + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const clock = (body) => call('POST', '/_emulator/clock', body, admin);

let receiver;
let secret = '';
let answers = [];
const seen = [];

before(async () => {
  receiver = await startReceiver({
    secret: () => secret,
    now: emulatorClock(URL_),
    handle: async (event, headers) => {
      seen.push({ event, headers });
      return answers.length > 1 ? answers.shift() : answers[0];
    },
  });
});

after(() => receiver.server.close());

beforeEach(async () => {
  assert.equal((await call('POST', '/_emulator/reset', undefined, admin)).status, 200);
  const setup = await call(
    'POST', `/webhook/website/${env.GC_WEBSITE_ID}/setup`, { url: receiver.url }, account);
  secret = setup.body.secret;
  seen.length = 0;
});

async function postComment(content) {
  const user = await call('POST', '/api/pub/auth/register', {
    website_id: env.GC_SHORTNAME,
    username: 'nodeuser',
    email: 'node@example.com',
    password: 'correct horse battery staple',
  });
  const created = await call('POST', '/api/pub/comments', {
    website_id: env.GC_SHORTNAME,
    uid: 'article-1',
    url: 'https://news.example/article-1',
    page_title: 'Article 1',
    content,
  }, { authorization: `Bearer ${user.body.token}` });
  assert.equal(created.status, 201);
}

test('a receiver that always fails sees the six attempts of the schedule', async () => {
  answers = [500];
  await postComment('hello from node');
  await clock({ action: 'advance', until: 'idle' });

  const stamps = seen.map((s) => Number(s.headers['x-webhook-timestamp']));
  const gaps = stamps.slice(1).map((t, i) => (t - stamps[i]) / 1000);
  assert.deepEqual(gaps, [60, 300, 900, 3600, 21600]);
  assert.deepEqual(seen.map((s) => s.headers['x-webhook-retry-count']), ['0', '1', '2', '3', '4', '5']);
  assert.equal(new Set(seen.map((s) => s.headers['x-webhook-delivery-id'])).size, 1);
  const calls = await call('GET', `/webhook/website/${env.GC_WEBSITE_ID}/calls`, undefined, account);
  assert.equal(calls.body.calls[0].status, 'failed');
});

test('a receiver back after an hour gets the event once', async () => {
  answers = [503, 503, 503, 200];
  await postComment('eventually');
  const advanced = await clock({ action: 'advance', seconds: 3600 });
  assert.ok(advanced.body.attempts >= 3); // at 1, 6 and 21 minutes
  const calls = await call('GET', `/webhook/website/${env.GC_WEBSITE_ID}/calls`, undefined, account);
  assert.equal(calls.body.calls[0].status, 'succeeded');
  assert.equal(seen.at(-1).event.event_type, 'comment.created');
  assert.equal(seen.at(-1).event.data.comment.content, 'eventually');
});
