// The kit's WebView host rules (src/webViewProps.ts, compiled by `tsc -p tsconfig.node.json`):
// the user agent token, the pass-through of WebView props, load errors and links.
//   GC_KIT_BUILD=<build-node> node --test test/webViewProps.test.cjs
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const build = process.env.GC_KIT_BUILD || path.join(__dirname, '..', 'build-node');
const props = require(path.join(build, 'webViewProps.js'));
const { BRIDGE_VERSION } = require(path.join(build, 'bridgeSource.js'));

const WIDGET = 'https://comments.example';

test('the user agent carries gc-bridge/<version> once', () => {
  assert.equal(props.USER_AGENT_TOKEN, `gc-bridge/${BRIDGE_VERSION}`);
  assert.equal(props.withUserAgentToken(undefined), props.USER_AGENT_TOKEN);
  const once = props.withUserAgentToken('MyApp/2.1');
  assert.equal(once, `MyApp/2.1 gc-bridge/${BRIDGE_VERSION}`);
  assert.equal(props.withUserAgentToken(once), once);
});

test("the app's WebView props pass through, the kit's own do not", () => {
  const passed = props.passThrough({
    allowsInlineMediaPlayback: true,
    textZoom: 120,
    source: { uri: 'https://evil.example' },
    onMessage: () => 'hijacked',
    injectedJavaScript: 'window.stolen = 1',
    onShouldStartLoadWithRequest: () => true,
    webviewDebuggingEnabled: true,
  });
  assert.deepEqual(passed, { allowsInlineMediaPlayback: true, textZoom: 120 });
  assert.deepEqual(props.passThrough(undefined), {});
  for (const owned of ['source', 'onMessage', 'onLoadStart', 'onError', 'onHttpError', 'injectedJavaScriptBeforeContentLoaded']) {
    assert.ok(props.KIT_OWNED_PROPS.includes(owned), owned);
  }
});

test('debugging is on in development unless the app says otherwise', () => {
  assert.equal(props.debuggingEnabled(undefined, true), true);
  assert.equal(props.debuggingEnabled(undefined, false), false);
  assert.equal(props.debuggingEnabled(true, false), true);
  assert.equal(props.debuggingEnabled(false, true), false);
});

test('load errors: the widget page, not cancelled loads', () => {
  assert.equal(props.isLoadError('NSURLErrorDomain', -999), false);
  assert.equal(props.isLoadError('WebKitErrorDomain', 102), false);
  assert.equal(props.isLoadError('NSURLErrorDomain', -1009), true);
  assert.equal(props.isLoadError(undefined, -2), true); // Android ERROR_HOST_LOOKUP
  assert.equal(props.isErrorStatus(503), true);
  assert.equal(props.isErrorStatus(200), false);
  assert.equal(props.isWidgetPage('https://comments.example/t/1', WIDGET), true);
  assert.equal(props.isWidgetPage('https://news.example/', WIDGET), false);
  assert.equal(props.isWidgetPage(null, WIDGET), false);
});

test('links: the widget stays, pages go to the browser, mailto and tel to the OS', () => {
  const cases = [
    ['https://comments.example/t/2', true, 'stay'],
    ['https://news.example/a', true, 'browser'],
    ['https://video.example/embed', false, 'stay'],
    ['mailto:a@b.example', true, 'os'],
    ['tel:+15551234', true, 'os'],
    ['javascript:alert(1)', true, 'block'],
    ['file:///etc/passwd', true, 'block'],
    ['about:blank', true, 'stay'],
    ['about:srcdoc', false, 'stay'],
    ['blob:https://comments.example/1d2c', true, 'block'],
    ['tel:+15551234', false, 'os'],
    ['no scheme', true, 'block'],
  ];
  for (const [url, top, expected] of cases) {
    assert.equal(props.linkAction(url, WIDGET, top), expected, url);
  }
});
