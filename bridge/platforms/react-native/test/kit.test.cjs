// The kit's pure modules on Node (compiled by `tsc -p tsconfig.node.json` into build-node/):
// the injected gcSsoLogin call is built by JSON-encoding, the bridge pin is checked at run
// time, and the lifecycle script reports a back-forward cache restore once.
//   GC_KIT_BUILD=<build-node> node --test test/kit.test.cjs
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const vm = require('node:vm');

const build = process.env.GC_KIT_BUILD || path.join(__dirname, '..', 'build-node');
const { ssoLoginScript, ssoLogoutScript } = require(path.join(build, 'protocol.js'));
const pin = require(path.join(build, 'bridgePin.js'));
const { BRIDGE_SHA256, BRIDGE_SOURCE } = require(path.join(build, 'bridgeSource.js'));
const lifecycle = require(path.join(build, 'lifecycle.js'));
const { LIFECYCLE_SCRIPT, RESTORED_MESSAGE, DOCUMENT_MESSAGE, DOCUMENT_LOADED_MESSAGE } = lifecycle;
const { SsoCoordinator, ANDROID_TRIGGERS, DEFAULT_TRIGGERS, triggersFor } = require(path.join(build, 'coordinator.js'));

const HOSTILE = [
  'plain-base64== 1706000000',
  'emoji \u{1F600}\u{1F469}\u200D\u{1F4BB} done',
  'line\u2028separator\u2029paragraph',
  'quotes " \' ` and ${template}',
  'back\\slash \\u0041 \\n',
  '</script><script>alert(1)</script>',
  '"); window.stolen = true; ("',
  'nul \u0000 and \r\n\t controls',
  'lone surrogate \uD800 end',
];

// Evaluates `script` as the WebView would, with a fake widget that records its argument.
function evaluate(script) {
  const received = [];
  const window = {
    gcSsoLogin: (value) => { received.push(['login', value]); return true; },
    gcSsoLogout: () => { received.push(['logout']); return true; },
  };
  window.window = window;
  const result = vm.runInNewContext(script, window);
  return { received, result, window };
}

for (const value of HOSTILE) {
  test(`gcSsoLogin receives ${JSON.stringify(value).slice(0, 40)} unchanged`, () => {
    const { received, result, window } = evaluate(ssoLoginScript(value));
    assert.equal(received[0][1], value);
    assert.equal(result, true, "react-native-webview's injectJavaScript wants a last `true`");
    assert.equal(window.stolen, undefined);
  });
}

test('gcSsoLogout is a fixed call', () => {
  assert.deepStrictEqual(evaluate(ssoLogoutScript()).received, [['logout']]);
});

test('sha256 matches node:crypto on awkward text', () => {
  for (const text of ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), ...HOSTILE, BRIDGE_SOURCE]) {
    const expected = crypto.createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
    assert.equal(pin.sha256Hex(pin.utf8Bytes(text)), expected, JSON.stringify(text).slice(0, 40));
  }
});

test('the shipped bridgeSource.ts passes its pin', () => {
  assert.equal(pin.verifiedBridgeSource(), BRIDGE_SOURCE);
  assert.equal(pin.verifiedBridgeSource(BRIDGE_SOURCE, BRIDGE_SHA256), BRIDGE_SOURCE);
});

test('a hand-edited source fails loudly, naming the fix', () => {
  const edited = BRIDGE_SOURCE.replace('Protocol 1.', 'Protocol 2.');
  assert.notEqual(edited, BRIDGE_SOURCE);
  assert.throws(() => pin.verifiedBridgeSource(edited, BRIDGE_SHA256), (error) => {
    assert.ok(error instanceof pin.GcBridgePinError);
    assert.equal(error.reason, 'bridge_pin_mismatch');
    assert.match(error.message, /gcbridge bridge --print --format ts/);
    return true;
  });
});

function fakePage(readyState = 'loading') {
  const listeners = [];
  const posted = [];
  const window = {
    addEventListener: (type, fn) => listeners.push([type, fn]),
    ReactNativeWebView: { postMessage: (text) => posted.push(text) },
    document: { readyState },
  };
  window.window = window;
  const context = vm.createContext(window);
  const fire = (persisted) => {
    for (const [type, fn] of listeners) {
      if (type === 'pageshow') fn({ persisted });
    }
  };
  return { context, listeners, posted, fire };
}

test('a new document and a restore are each reported once, however often injected', () => {
  const page = fakePage();
  vm.runInContext(LIFECYCLE_SCRIPT, page.context);
  vm.runInContext(LIFECYCLE_SCRIPT, page.context); // injectedJavaScript after the early one
  assert.equal(page.listeners.length, 1);
  assert.deepStrictEqual(page.posted, [DOCUMENT_MESSAGE]);
  page.fire(false); // a first load is no restore
  assert.deepStrictEqual(page.posted, [DOCUMENT_MESSAGE]);
  page.fire(true);
  assert.deepStrictEqual(page.posted, [DOCUMENT_MESSAGE, RESTORED_MESSAGE]);
  assert.deepStrictEqual(JSON.parse(RESTORED_MESSAGE), { gcLifecycle: 'restored' });
});

test('a lifecycle script that runs after the load says so (Android: after onPageFinished)', () => {
  const page = fakePage('complete');
  vm.runInContext(LIFECYCLE_SCRIPT, page.context);
  assert.deepStrictEqual(page.posted, [DOCUMENT_LOADED_MESSAGE]);
  assert.deepStrictEqual(JSON.parse(DOCUMENT_LOADED_MESSAGE), { gcLifecycle: 'document', complete: true });
});

test('a new document loses readiness; a same-document navigation (no message) keeps it', () => {
  const coordinator = new SsoCoordinator({ user: 'alice' });
  coordinator.message('{"name":"gc-ready"}');
  assert.equal(coordinator.ready, true);
  assert.equal(lifecycle.lifecycleEffects(coordinator, '{"name":"gc-ready"}'), null, 'a bridge message');
  assert.deepStrictEqual(lifecycle.lifecycleEffects(coordinator, DOCUMENT_MESSAGE), []);
  assert.equal(coordinator.ready, false);
  // Its onLoad came before the message: the message finishes the page too (a trigger on Android).
  const android = new SsoCoordinator({ user: 'alice', triggers: triggersFor('android') });
  const effects = lifecycle.lifecycleEffects(android, DOCUMENT_LOADED_MESSAGE);
  assert.deepStrictEqual(effects, [{ do: 'fetch', fetch: 1, user: 'alice', trigger: 'page-finished' }]);
  assert.deepStrictEqual(triggersFor('ios'), DEFAULT_TRIGGERS);
  assert.deepStrictEqual(triggersFor('android'), ANDROID_TRIGGERS);
});

test('only background is time away, and the clock is monotonic', () => {
  let away = lifecycle.awayAfter('inactive', null, 1000); // a Face ID prompt, Notification Center
  assert.deepStrictEqual(away, { since: null, resumedAfter: null });
  away = lifecycle.awayAfter('active', away.since, 1500);
  assert.deepStrictEqual(away, { since: null, resumedAfter: null }, 'an inactive blip is no resume');
  away = lifecycle.awayAfter('background', null, 2000);
  away = lifecycle.awayAfter('background', away.since, 2500); // reported twice: the first counts
  away = lifecycle.awayAfter('inactive', away.since, 9000); // on the way back (iOS)
  assert.equal(away.resumedAfter, null);
  away = lifecycle.awayAfter('active', away.since, 302000);
  assert.deepStrictEqual(away, { since: null, resumedAfter: 300 });
  const first = lifecycle.monotonicNow();
  assert.equal(typeof first, 'number');
  assert.ok(lifecycle.monotonicNow() >= first);
  assert.equal(typeof globalThis.performance.now, 'function', 'the default is performance.now');
});
