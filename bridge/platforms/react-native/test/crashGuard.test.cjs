// The crash-loop guard (src/crashGuard.ts): 3 recoveries a minute, deferred while away.
//   GC_KIT_BUILD=<build-node> node --test test/crashGuard.test.cjs
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const build = process.env.GC_KIT_BUILD || path.join(__dirname, '..', 'build-node');
const { CrashGuard, decideRecovery, DEFAULT_CRASH_LIMIT, DEFAULT_CRASH_WINDOW_MS } = require(path.join(build, 'crashGuard.js'));

test('three recoveries a minute, then the error view', () => {
  assert.equal(DEFAULT_CRASH_LIMIT, 3);
  assert.equal(DEFAULT_CRASH_WINDOW_MS, 60000);
  const guard = new CrashGuard();
  const outcomes = [0, 2000, 4000, 6000, 8000].map((now) => decideRecovery(guard, now, true));
  assert.deepEqual(outcomes, ['now', 'now', 'now', 'give-up', 'give-up']);
  assert.equal(guard.allow(60000), true); // the first left the window
});

test('deferred while the app is away, spending nothing; Retry starts afresh', () => {
  const guard = new CrashGuard(1, 1000);
  assert.equal(decideRecovery(guard, 0, false), 'defer');
  assert.equal(decideRecovery(guard, 1, true), 'now');
  assert.equal(decideRecovery(guard, 2, true), 'give-up');
  guard.reset();
  assert.equal(decideRecovery(guard, 3, true), 'now');
});

test('a guard allows at least one recovery', () => {
  assert.throws(() => new CrashGuard(0), RangeError);
});
