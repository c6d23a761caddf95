// Runs wire.mjs on the shipped test vectors: node docs_src/node/check_vectors.mjs src/gcbridge/vectors
// Your port to another language should pass the same files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueSsoData, signWebhook, verifySsoData, verifyWebhook } from './wire.mjs';

const dir = process.argv[2] ?? 'src/gcbridge/vectors';
const load = (name) => JSON.parse(readFileSync(join(dir, name), 'utf8'));
let passed = 0;
const failed = [];
const outcome = (fn) => {
  try {
    return { value: fn(), reason: null };
  } catch (err) {
    if (err.reason === undefined) throw err;
    return { reason: err.reason };
  }
};
const check = (name, ok, detail) => (ok ? passed++ : failed.push(`${name}: ${detail}`));

const sso = load('sso.json');
for (const c of sso.cases) {
  const got = outcome(() => verifySsoData(c.secret, c.sso_data, { now: c.now, maxAge: sso.max_age, leeway: sso.leeway }));
  const want = c.reason ?? null;
  const same = got.reason === want && (want !== null || JSON.stringify(got.value) === JSON.stringify(c.user));
  check(`sso: ${c.name}`, same, `got ${got.reason ?? JSON.stringify(got.value)}, want ${want ?? 'the user'}`);
}
// what we issue, we verify (and so does any verifier of the format)
const mine = issueSsoData('a-secret-of-16-bytes-or-more', { id: '42', username: 'ada', email: 'ada@example.com' }, 1700000000);
check('sso: issued then verified', outcome(() => verifySsoData('a-secret-of-16-bytes-or-more', mine, { now: 1700000000 })).reason === null, mine);

const hooks = load('webhook_signature.json');
for (const c of hooks.sign) {
  const got = signWebhook(c.secret, c.timestamp_ms, Buffer.from(c.body_b64, 'base64'));
  check(`sign: ${c.name}`, got === c.signature, got);
}
const body = Buffer.from(hooks.verify.body_b64, 'base64');
for (const c of hooks.verify.cases) {
  const got = outcome(() => verifyWebhook(hooks.verify.secret, c.headers, body, { nowMs: c.now * 1000, toleranceS: hooks.tolerance }));
  check(`verify: ${c.name}`, got.reason === (c.reason ?? null), `got ${got.reason}, want ${c.reason}`);
}

for (const line of failed) console.log(`FAIL ${line}`);
console.log(`${passed} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
