/**
 * gc-bridge emulator: the comment widget page (docs/explanation/service.md), entry module.
 *
 * Plain browser ES modules, no build step. This module wires the others and the page's
 * forms together and decides when gc-ready goes out (the messages: messages.js).
 *
 * Which events a bridge sees depends on when it is installed:
 *   document-start (React Native injectedJavaScriptBeforeContentLoaded): all of them;
 *   document-end (iOS WKUserScript atDocumentEnd, run after the DOMContentLoaded listeners,
 *     this module's among them; gc-ready, posted from that listener, is dispatched later): all;
 *   page-finished (Android onPageFinished, pywebview): gc-ready only where the engine still
 *     had it queued at page finished (WebKit often does), gc-loaded only when
 *     the comments arrive after the load event; such apps log in at page finished too.
 *
 * Security: user content is rendered with textContent only; ssoData goes in a
 * request body and nowhere else; the session token lives in localStorage
 * "gc_token" when storage is available.
 */

import { loadComments, postComment } from './comments.js';
import { $ } from './dom.js';
import { emit, onMessage } from './messages.js';
import { accountSubmit, clearSession, inSessionQueue, restoreSession } from './session.js';
import { config, setRenderer, state } from './state.js';
import { describeFile, render } from './view.js';

setRenderer(render);

function domContentLoadedFired() {
  var nav = performance.getEntriesByType ? performance.getEntriesByType('navigation')[0] : null;
  return nav ? nav.domContentLoadedEventStart > 0 : document.readyState === 'complete';
}

// The file picked with the compose form's file input (the WebView's file chooser: the app's
// chrome client on Android, the system's panel on iOS), read through, for the next comment.
function pickAttachment(input) {
  var file = input.files && input.files[0];
  state.attachment = null;
  $('picked').hidden = true;
  if (!file) { return Promise.resolve(); }
  return file.arrayBuffer().then(function (bytes) {
    state.attachment = { name: file.name, type: file.type || '', size: bytes.byteLength };
    $('picked').textContent = describeFile(state.attachment);
    $('picked').hidden = false;
  });
}

function onAccountForm(testid, path, fields) {
  $(testid).addEventListener('submit', function (event) {
    event.preventDefault();
    inSessionQueue(function () { return accountSubmit(path, event.target, fields); });
  });
}

function wire() {
  $('page-title').textContent = config.pageTitle;
  $('attach').addEventListener('change', function (event) { pickAttachment(event.target); });
  $('compose').addEventListener('submit', function (event) {
    event.preventDefault();
    var area = event.target.elements.content;
    var content = area.value.trim();
    if (!content) { return; }
    postComment(content, null, state.attachment).then(function (ok) {
      if (!ok) { return; }
      area.value = '';
      $('attach').value = '';
      pickAttachment($('attach'));
    });
  });
  $('sign-out').addEventListener('click', function () { inSessionQueue(clearSession); });
  onAccountForm('sign-in-form', '/api/pub/auth/login', ['username', 'password']);
  onAccountForm('register-form', '/api/pub/auth/register', ['username', 'email', 'password']);
  render();
  emit('gc-ready');
}

// A single-page app may switch the thread without a load (history.pushState and a
// popstate, or hash routing: #uid=...): the widget follows the address, re-renders
// and says so again (gc-ready, then gc-loaded), as after a load.
function threadInAddress() {
  var hash = new URLSearchParams(location.hash.slice(1));
  return hash.get('uid') || new URLSearchParams(location.search).get('uid') || '';
}

function followRoute() {
  var uid = threadInAddress();
  if (!uid || uid === config.uid) { return; }
  config.uid = uid;
  state.comments = [];
  state.loaded = false;
  render();
  emit('gc-ready');
  loadComments();
}

window.addEventListener('popstate', followRoute);
window.addEventListener('hashchange', followRoute);

// The listener goes in first so that an sso-login injected right after
// gc-ready is never missed; a stored session is restored before any login.
window.addEventListener('message', onMessage);
inSessionQueue(restoreSession);
loadComments();
// gc-ready goes out from a DOMContentLoaded listener (a module script is
// deferred: it runs once the document is parsed, and DOMContentLoaded is still
// to come, as it was for the classic deferred script before): a bridge
// installed at document end runs after this listener, but before the message
// is dispatched.
if (domContentLoadedFired()) {
  wire();
} else {
  document.addEventListener('DOMContentLoaded', wire);
}
