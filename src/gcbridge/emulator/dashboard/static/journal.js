/*
 * journal.js: the delivery journal. Polling, the status and event-type filters, the call rows
 * (built, kept and expanded) and the replay button; a call's details come from attempts.js.
 *
 * Live journal by polling every second rather than server-sent events: EventSource cannot send an
 * Authorization header, so SSE would need the account token in a URL (where it lands in logs and
 * history) or a cookie (and then CSRF protection); polling reuses the same authenticated public
 * route an integration would call. A poll whose body is unchanged renders nothing, and only calls
 * whose JSON changed are rebuilt, so an expanded call and its text selection survive the refresh.
 * Polling pauses while the tab is hidden.
 */

import { $, el, setText } from './dom.js';
import { clockTime, relative } from './time.js';
import { api, describe, session, sitePath, tokenRejected } from './api.js';
import { fillDetails } from './attempts.js';

const POLL_MS = 1000;
const CALLS_LIMIT = 50;

var journal = {
  filters: { status: '', event_type: '' },
  expanded: new Set(),
  rows: new Map(), // call id -> {json: string, el: Element, call: object}
  lastBody: null,
  pollTimer: null,
  pollGeneration: 0,
};

function callsPath() {
  var q = new URLSearchParams({ limit: String(CALLS_LIMIT) });
  if (journal.filters.status) q.set('status', journal.filters.status);
  if (journal.filters.event_type) q.set('event_type', journal.filters.event_type);
  return sitePath('/calls') + '?' + q.toString();
}

export function startPolling() {
  stopPolling();
  var generation = ++journal.pollGeneration;
  function tick() {
    if (generation !== journal.pollGeneration) return;
    if (document.hidden) { journal.pollTimer = setTimeout(tick, POLL_MS); return; }
    var filterKey = JSON.stringify(journal.filters);
    api('GET', callsPath()).then(function (res) {
      if (generation !== journal.pollGeneration || filterKey !== JSON.stringify(journal.filters)) return;
      $('journal-error').hidden = true;
      $('live').textContent = 'live · checked ' + clockTime(Date.now()).slice(11);
      $('live').className = 'live ok';
      if (res.text !== journal.lastBody) {
        journal.lastBody = res.text;
        renderCalls(res.body.calls || []);
      }
      refreshRelativeTimes();
    }, function (err) {
      if (generation !== journal.pollGeneration) return;
      if (err.gcCode === 410) { tokenRejected(); return; }
      $('live').textContent = 'disconnected, retrying';
      $('live').className = 'live bad';
      $('journal-error').hidden = false;
      setText('journal-error', 'Journal: ' + describe(err));
    }).then(function () {
      if (generation === journal.pollGeneration) journal.pollTimer = setTimeout(tick, POLL_MS);
    });
  }
  tick();
}

export function stopPolling() {
  journal.pollGeneration++;
  if (journal.pollTimer) clearTimeout(journal.pollTimer);
  journal.pollTimer = null;
}

/** Poll at once (after a test event or a replay) when signed in. */
export function pollNow() { if (session.site) startPolling(); }

/** Remove every rendered call and what the journal remembers of them (sign-out). */
export function clearJournal() {
  setText('journal-count', '');
  journal.expanded.clear();
  forgetCalls();
}

function forgetCalls() {
  $('calls').replaceChildren();
  journal.rows.clear();
  journal.lastBody = null;
}

function onFilterChange() {
  journal.filters.status = $('filter-status').value;
  journal.filters.event_type = $('filter-event').value;
  forgetCalls();
  pollNow();
}

function renderCalls(calls) {
  var seen = new Set();
  var nodes = calls.map(function (call) {
    var json = JSON.stringify(call);
    seen.add(call.id);
    var row = journal.rows.get(call.id);
    if (!row || row.json !== json) {
      var fresh = buildCall(call);
      row = { json: json, el: fresh, call: call };
      journal.rows.set(call.id, row);
    }
    return row.el;
  });
  Array.from(journal.rows.keys()).forEach(function (id) { if (!seen.has(id)) journal.rows.delete(id); });
  $('calls').replaceChildren.apply($('calls'), nodes);
  $('calls-empty').hidden = calls.length > 0;
  setText('journal-count', calls.length >= CALLS_LIMIT
    ? 'latest ' + CALLS_LIMIT + ' calls' : calls.length + (calls.length === 1 ? ' call' : ' calls'));
}

function refreshRelativeTimes() {
  Array.prototype.forEach.call(document.querySelectorAll('[data-next-at]'), function (span) {
    span.textContent = relative(span.getAttribute('data-next-at'));
  });
}

function cell(label, child, cls) {
  var c = el('span', { cls: 'cell ' + (cls || '') }, [el('span', { cls: 'cell-label', text: label })]);
  c.appendChild(child);
  return c;
}

function buildCall(call) {
  var open = journal.expanded.has(call.id);
  var article = el('article', { cls: 'call ' + call.status, attrs: { 'data-call-id': call.id, 'data-status': call.status, 'data-event-type': call.event_type } });
  var next = el('span', { cls: 'next-at', text: relative(call.next_attempt_at) });
  if (call.next_attempt_at) {
    next.setAttribute('data-next-at', call.next_attempt_at);
    next.title = clockTime(call.next_attempt_at);
  } else {
    next.textContent = '—';
  }
  var summary = el('button', {
    cls: 'call-summary',
    attrs: { type: 'button', 'aria-expanded': open ? 'true' : 'false', 'aria-controls': 'details-' + call.id },
  }, [
    cell('Created', el('span', { text: clockTime(call.created_at) }), 'time'),
    cell('Event', el('span', { cls: 'event', text: call.event_type })),
    cell('Status', el('span', { cls: 'badge ' + call.status, text: call.status })),
    cell('Code', el('span', { cls: 'code', text: call.response_code === null ? '—' : call.response_code })),
    cell('Retries', el('span', { cls: 'retries', text: call.retry_count })),
    cell('Next attempt', next),
    cell('Delivery id', el('code', { cls: 'delivery-id', text: call.delivery_id }), 'delivery'),
  ]);
  summary.addEventListener('click', function () { toggleCall(call.id, article); });
  var actions = el('span', { cls: 'actions' });
  if (call.status === 'failed') {
    var replay = el('button', { cls: 'small replay', text: 'Replay', attrs: { type: 'button' } });
    replay.addEventListener('click', function () { replayCall(call, replay); });
    actions.appendChild(replay);
  }
  var head = el('div', { cls: 'call-head' }, [summary, actions]);
  article.appendChild(head);
  var details = el('div', { cls: 'call-details', attrs: { id: 'details-' + call.id } });
  details.hidden = !open;
  if (open) fillDetails(details, call);
  article.appendChild(details);
  return article;
}

function toggleCall(id, article) {
  var row = journal.rows.get(id);
  var details = article.querySelector('.call-details');
  var open = !journal.expanded.has(id);
  if (open) journal.expanded.add(id); else journal.expanded.delete(id);
  if (open && !details.firstChild && row) fillDetails(details, row.call);
  details.hidden = !open;
  article.querySelector('.call-summary').setAttribute('aria-expanded', String(open));
}

function replayCall(call, button) {
  button.disabled = true;
  api('POST', '/webhook/call/' + encodeURIComponent(call.id) + '/replay').then(function (res) {
    var fresh = res.body && res.body.call;
    button.textContent = fresh ? 'Replayed' : 'Replay';
    pollNow();
  }, function (err) {
    if (err.gcCode === 410) return tokenRejected();
    button.disabled = false;
    button.textContent = 'Replay';
    setText('journal-error', 'Replay failed: ' + describe(err));
    $('journal-error').hidden = false;
  });
}

/** Wire the filters and the resume-on-visible (once, at start). */
export function initJournal() {
  $('filter-status').addEventListener('change', onFilterChange);
  $('filter-event').addEventListener('change', onFilterChange);
  document.addEventListener('visibilitychange', function () { if (!document.hidden) pollNow(); });
}
