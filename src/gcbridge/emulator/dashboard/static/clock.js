/*
 * clock.js: the emulator's clock card. Shows the clock's mode and time and the queue
 * (GET /_emulator/health, no token: it carries no secret), the pending deliveries' due times
 * (the journal route, account token), and the controls of POST /_emulator/clock: freeze,
 * resume, advance by a step, advance until idle. The controls need the emulator's admin token
 * (a different secret from the account token: the admin-token file of the data dir, or
 * --admin-token-env); it stays in this tab only (sessionStorage) and is sent to /_emulator/
 * only. The journal's countdowns read the emulator's time through time.js useClock().
 */

import { api, describe, session, sitePath, store, stored } from './api.js';
import { $, el, setText } from './dom.js';
import { clockTime, relative, useClock } from './time.js';

const ADMIN_KEY = 'gc_dashboard_admin_token';
const POLL_MS = 2000;

var reading = { now: null, mode: 'system', readAt: 0 };
var timer = null;

/** Emulator time now, epoch ms: the last reading, plus the wall time since if it runs. */
function emulatorNow() {
  if (reading.now === null) return Date.now();
  return reading.mode === 'system' ? reading.now + (Date.now() - reading.readAt) : reading.now;
}

function adminToken() { return stored(ADMIN_KEY) || ''; }

function show(health) {
  reading = { now: health.clock.now, mode: health.clock.mode, readAt: Date.now() };
  setText('clock-mode', health.clock.mode === 'manual' ? 'manual (frozen)' : 'system (running)');
  setText('clock-now', clockTime(health.clock.now));
  setText('clock-pending', String(health.dispatcher.pending));
  var next = health.dispatcher.next_due_at;
  setText('clock-next', next === null ? '—' : clockTime(next) + ' (' + relative(next) + ')');
}

function showDue(calls) {
  var list = $('clock-due');
  list.replaceChildren();
  calls.forEach(function (call) {
    var due = call.next_attempt_at;
    list.appendChild(el('li', {}, [
      el('code', { text: call.event_type }),
      el('span', { text: ' retry ' + (call.attempts || []).length + ' due ' + clockTime(due) + ' (' + relative(due) + ')' }),
    ]));
  });
  $('clock-due-empty').hidden = calls.length > 0;
}

function refresh() {
  var health = api('GET', '/_emulator/health', { bearer: null }).then(function (res) { show(res.body); });
  var due = session.site
    ? api('GET', sitePath('/calls?status=pending&limit=20')).then(function (res) {
      showDue((res.body.calls || []).slice().sort(function (a, b) {
        return Date.parse(a.next_attempt_at) - Date.parse(b.next_attempt_at);
      }));
    })
    : Promise.resolve();
  return Promise.all([health, due]).catch(function (err) {
    setText('clock-status', 'Clock: ' + describe(err));
  });
}

function poll() {
  clearTimeout(timer);
  refresh().then(function () { timer = setTimeout(poll, POLL_MS); });
}

function control(body) {
  var token = adminToken();
  if (!token) {
    setText('clock-status', 'Paste the admin token first.');
    return;
  }
  setText('clock-status', 'Working…');
  api('POST', '/_emulator/clock', { bearer: token, json: body }).then(function (res) {
    setText('clock-status', 'Done: ' + res.body.attempts + ' delivery attempt(s) made.');
    poll();
  }, function (err) {
    setText('clock-status', describe(err));
  });
}

export function initClock() {
  useClock(emulatorNow);
  $('admin-token').value = adminToken();
  $('admin-token').addEventListener('change', function (e) { store(ADMIN_KEY, e.target.value.trim()); });
  $('clock-freeze').addEventListener('click', function () { control({ action: 'freeze' }); });
  $('clock-resume').addEventListener('click', function () { control({ action: 'resume' }); });
  $('clock-idle').addEventListener('click', function () { control({ action: 'advance', until: 'idle' }); });
  document.querySelectorAll('#clock-steps button[data-seconds]').forEach(function (button) {
    button.addEventListener('click', function () {
      control({ action: 'advance', seconds: Number(button.dataset.seconds) });
    });
  });
  poll();
}
