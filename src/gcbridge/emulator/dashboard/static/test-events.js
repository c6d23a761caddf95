/*
 * test-events.js: the "Send a test event" sender. Each button fires its event through the real
 * comment routes as the dashboard's own test user (registered on first use, kept per site in
 * sessionStorage), so the delivery the journal then shows is a real one.
 */

import { $, setText } from './dom.js';
import { clockTime } from './time.js';
import { ApiFailure, api, describe, session } from './api.js';
import { currentConfig } from './site-panel.js';
import { pollNow } from './journal.js';

var userToken = null;

/** Forget the test user's session and the status line (sign-out). */
export function clearTestEvents() {
  userToken = null;
  setText('test-status', '');
}

function userKey() { return 'gc_dashboard_user:' + session.site.shortname; }
function commentKey() { return 'gc_dashboard_comment:' + session.site.shortname; }

function randomHex(bytes) {
  var a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return Array.prototype.map.call(a, function (b) { return (b < 16 ? '0' : '') + b.toString(16); }).join('');
}

function storedJson(key) {
  try { return JSON.parse(sessionStorage.getItem(key) || 'null'); } catch (e) { return null; }
}

function store(key, value) {
  try {
    if (value === null) sessionStorage.removeItem(key); else sessionStorage.setItem(key, JSON.stringify(value));
  } catch (e) { /* this tab only */ }
}

/** A session of the dashboard's own test user (registered on first use). */
function userSession(fresh) {
  if (userToken && !fresh) return Promise.resolve(userToken);
  var creds = storedJson(userKey());
  var site = session.site.shortname;
  function register() {
    creds = { username: 'dashboard-' + randomHex(4), password: randomHex(16) };
    return api('POST', '/api/pub/auth/register', {
      bearer: null,
      json: { website_id: site, username: creds.username, email: creds.username + '@example.com',
        password: creds.password },
    }).then(function (res) { store(userKey(), creds); return res.body.token; });
  }
  var attempt = creds
    ? api('POST', '/api/pub/auth/login', {
      bearer: null, json: { website_id: site, username: creds.username, password: creds.password },
    }).then(function (res) { return res.body.token; }, register)
    : register();
  return attempt.then(function (token) { userToken = token; return token; });
}

/** Run ``fn(sessionToken)``; once more with a fresh session if the first is refused. */
function asUser(fn) {
  return userSession(false).then(fn).catch(function (err) {
    if (err instanceof ApiFailure && err.status === 401) return userSession(true).then(fn);
    throw err;
  });
}

function createComment(suffix) {
  var t = session.site.sample_thread;
  var content = $('test-content').value || 'Hello from the gc-bridge dashboard';
  return asUser(function (token) {
    return api('POST', '/api/pub/comments', {
      bearer: token,
      json: { website_id: session.site.shortname, uid: t.uid, url: t.url, page_title: t.page_title,
        content: content + (suffix || '') },
    });
  }).then(function (res) { store(commentKey(), { id: res.body.id }); return res.body; });
}

/** The last live test comment, or a new one (which fires comment.created too). */
function someComment(notes) {
  var last = storedJson(commentKey());
  if (last && last.id) return Promise.resolve(last);
  notes.push('created a comment first (comment.created)');
  return createComment('');
}

const SENDERS = {
  'comment.created': function () { return createComment(''); },
  'comment.updated': function (notes) {
    return someComment(notes).then(function (c) {
      var content = ($('test-content').value || 'Hello') + ' (edited ' + clockTime(Date.now()) + ')';
      return asUser(function (token) {
        return api('PATCH', '/api/pub/comments/' + encodeURIComponent(c.id), { bearer: token, json: { content: content } });
      });
    });
  },
  'comment.approved': function (notes) {
    return someComment(notes).then(function (c) {
      return api('POST', '/api/moderation/comments/' + encodeURIComponent(c.id) + '/approve');
    });
  },
  'comment.deleted': function (notes) {
    return someComment(notes).then(function (c) {
      return asUser(function (token) {
        return api('DELETE', '/api/pub/comments/' + encodeURIComponent(c.id), { bearer: token });
      }).then(function (res) { store(commentKey(), null); return res; });
    });
  },
};

function sendTest(eventType) {
  var notes = [];
  var buttons = document.querySelectorAll('#test-buttons button');
  Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
  setText('test-status', 'Sending ' + eventType + '…');
  SENDERS[eventType](notes).then(function () {
    var config = currentConfig();
    var warn = config && config.enabled && (config.events || []).indexOf(eventType) >= 0
      ? '' : ' (the webhook is not set up, disabled or not subscribed to it: nothing is delivered)';
    setText('test-status', 'Sent ' + eventType + (notes.length ? '; ' + notes.join('; ') : '') + '.' + warn);
    pollNow();
  }, function (err) {
    if (err instanceof ApiFailure && err.reason === 'comment_not_found') store(commentKey(), null);
    setText('test-status', eventType + ' failed: ' + describe(err));
  }).then(function () {
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
  });
}

/** Wire the test-event buttons (once, at start). */
export function initTestEvents() {
  Array.prototype.forEach.call(document.querySelectorAll('#test-buttons button'), function (b) {
    b.addEventListener('click', function () { sendTest(b.getAttribute('data-event')); });
  });
}
