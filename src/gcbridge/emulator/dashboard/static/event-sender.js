/*
 * event-sender.js: the "Send a test event" sender. Each button fires its event through the real
 * comment routes as the dashboard's own test user (registered on first use, kept per site in
 * sessionStorage), so the delivery the journal then shows is a real one. The body of that
 * delivery is then checked against the event's JSON Schema (POST /api/dashboard/events/check,
 * the same check as `gcbridge webhooks trigger`), and the verdict shown under the buttons.
 */

import { $, setText } from './dom.js';
import { clockTime } from './time.js';
import { ApiFailure, api, describe, session, sitePath, store, stored } from './api.js';
import { currentConfig } from './site-panel.js';
import { pollNow } from './journal.js';

var userToken = null;

/** Forget the test user's session and the status line (sign-out). */
export function clearTestEvents() {
  userToken = null;
  setText('test-status', '');
  showVerdict('', null);
}

function userKey() { return 'gc_dashboard_user:' + session.site.shortname; }
function commentKey() { return 'gc_dashboard_comment:' + session.site.shortname; }

function randomHex(bytes) {
  var a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return Array.prototype.map.call(a, function (b) { return (b < 16 ? '0' : '') + b.toString(16); }).join('');
}

function storedJson(key) {
  try { return JSON.parse(stored(key) || 'null'); } catch (e) { return null; }
}

function storeJson(key, value) { store(key, value === null ? null : JSON.stringify(value)); }

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
    }).then(function (res) { storeJson(userKey(), creds); return res.body.token; });
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
  }).then(function (res) { storeJson(commentKey(), { id: res.body.id }); return res.body; });
}

/** The last live test comment, or a new one (which fires the event of a new comment too). */
function someComment(notes) {
  var last = storedJson(commentKey());
  if (last && last.id) return Promise.resolve(last);
  var posted = document.querySelector('#test-buttons button[data-trigger="post"]');
  notes.push('created a comment first (' + (posted ? posted.getAttribute('data-event') : 'a new comment') + ')');
  return createComment('');
}

function idOf(c) { return function () { return c.id; }; }

/**
 * Each sender makes one comment change (the catalog's trigger of an event type) and resolves to
 * the id of the comment it acted on.
 */
const SENDERS = {
  post: function () { return createComment('').then(function (c) { return c.id; }); },
  edit: function (notes) {
    return someComment(notes).then(function (c) {
      var content = ($('test-content').value || 'Hello') + ' (edited ' + clockTime(Date.now()) + ')';
      return asUser(function (token) {
        return api('PATCH', '/api/pub/comments/' + encodeURIComponent(c.id), { bearer: token, json: { content: content } });
      }).then(idOf(c));
    });
  },
  approve: function (notes) {
    return someComment(notes).then(function (c) {
      return api('POST', '/api/moderation/comments/' + encodeURIComponent(c.id) + '/approve').then(idOf(c));
    });
  },
  delete: function (notes) {
    return someComment(notes).then(function (c) {
      return asUser(function (token) {
        return api('DELETE', '/api/pub/comments/' + encodeURIComponent(c.id), { bearer: token });
      }).then(function () { storeJson(commentKey(), null); return c.id; });
    });
  },
};

/** The verdict line: '' hides it; valid true/false/null (no verdict) styles it. */
function showVerdict(text, valid) {
  var line = $('test-schema');
  line.setAttribute('data-valid', valid === null ? '' : String(valid));
  setText('test-schema', text);
}

function pause(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

/**
 * The journal's call of ``eventType`` about comment ``commentId``. It is recorded in the same
 * transaction as the comment change, so it is there at once; one retry covers a slow answer.
 */
function findCall(eventType, commentId, triesLeft) {
  var path = sitePath('/calls') + '?limit=50&event_type=' + encodeURIComponent(eventType);
  return api('GET', path).then(function (res) {
    var found = ((res.body && res.body.calls) || []).filter(function (call) {
      try { return JSON.parse(call.body).data.comment.id === commentId; } catch (e) { return false; }
    });
    if (found.length || triesLeft <= 0) return found[0] || null;
    return pause(250).then(function () { return findCall(eventType, commentId, triesLeft - 1); });
  });
}

/** Check the body the test event caused against the event's JSON Schema; show the verdict. */
function checkDelivered(eventType, commentId) {
  showVerdict('Checking its body against the ' + eventType + ' JSON Schema…', null);
  return findCall(eventType, commentId, 1).then(function (call) {
    if (!call) {
      showVerdict('No delivery of it was recorded (no webhook subscribed to it): no body to check.', null);
      return null;
    }
    return api('POST', '/api/dashboard/events/check', { json: { body: call.body, event_type: eventType } })
      .then(function (res) {
        var v = res.body || {};
        showVerdict(v.valid
          ? 'Its body matches the ' + eventType + ' JSON Schema.'
          : 'Its body does NOT match the ' + eventType + ' JSON Schema [' + v.reason + ']: ' +
            (v.problems || []).join('; '), Boolean(v.valid));
      });
  }).catch(function (err) { showVerdict('Could not check its body: ' + describe(err), null); });
}

function sendTest(eventType, trigger) {
  var notes = [];
  var buttons = document.querySelectorAll('#test-buttons button');
  Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
  setText('test-status', 'Sending ' + eventType + '…');
  showVerdict('', null);
  SENDERS[trigger](notes).then(function (commentId) {
    var config = currentConfig();
    var warn = config && config.enabled && (config.events || []).indexOf(eventType) >= 0
      ? '' : ' (the webhook is not set up, disabled or not subscribed to it: nothing is delivered)';
    setText('test-status', 'Sent ' + eventType + (notes.length ? '; ' + notes.join('; ') : '') + '.' + warn);
    pollNow();
    // Checked even when the page's copy of the configuration says nothing is delivered: the
    // webhook may have been set up elsewhere since (the journal is the truth).
    return checkDelivered(eventType, commentId);
  }, function (err) {
    if (err instanceof ApiFailure && err.reason === 'comment_not_found') storeJson(commentKey(), null);
    setText('test-status', eventType + ' failed: ' + describe(err));
  }).then(function () {
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
  });
}

/** Wire the test-event buttons (once, at start; catalog.js adds them). */
export function initTestEvents() {
  $('test-buttons').addEventListener('click', function (event) {
    var b = event.target.closest('button');
    if (b) sendTest(b.getAttribute('data-event'), b.getAttribute('data-trigger'));
  });
}
