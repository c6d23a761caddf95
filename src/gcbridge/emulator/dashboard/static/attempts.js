/*
 * attempts.js: the expanded details of one journal call. Its facts, the request body, and each
 * attempt (response, headers exactly as sent) with "Copy as curl" and "Check signature (/verify)".
 * Receiver answers and headers are untrusted: they reach the page through textContent only.
 */

import { el } from './dom.js';
import { clockTime } from './time.js';
import { api, describe, sitePath, tokenRejected } from './api.js';

function pre(text, cls) { return el('pre', { cls: 'block ' + (cls || ''), text: text }); }

function headerLines(headers) {
  return Object.keys(headers || {}).map(function (k) { return k + ': ' + headers[k]; }).join('\n');
}

function fact(label, value) {
  return el('div', { cls: 'fact' }, [el('span', { cls: 'cell-label', text: label }), el('span', { text: value })]);
}

/** Fill a call's (empty) details element. */
export function fillDetails(details, call) {
  var facts = el('div', { cls: 'facts-inline' }, [
    fact('Call id', call.id),
    fact('URL', call.url || ''),
    fact('First sent', clockTime(call.first_sent_at) || '—'),
    call.replay_of ? fact('Replay of', call.replay_of) : null,
    call.error ? fact('Error', call.error) : null,
  ]);
  details.appendChild(facts);
  details.appendChild(el('h4', { text: 'Request body (the same bytes on every attempt)' }));
  details.appendChild(pre(call.body || '', 'request-body'));
  var attempts = call.attempts || [];
  if (!attempts.length) details.appendChild(el('p', { cls: 'muted', text: 'No attempt yet.' }));
  attempts.forEach(function (a) { details.appendChild(buildAttempt(call, a)); });
}

function attemptSummary(a) {
  var parts = ['#' + a.number, clockTime(a.started_at)];
  if (a.in_flight) parts.push('in flight');
  else parts.push(a.duration_ms === null || a.duration_ms === undefined ? '—' : Math.round(a.duration_ms) + ' ms');
  parts.push(a.response_code === null || a.response_code === undefined ? 'no response' : 'HTTP ' + a.response_code);
  if (a.error) parts.push(a.error);
  return parts.join(' · ');
}

function buildAttempt(call, a) {
  var box = el('section', { cls: 'attempt', attrs: { 'data-attempt': String(a.number) } });
  box.appendChild(el('h4', { cls: 'attempt-title', text: 'Attempt ' + attemptSummary(a) }));
  if (a.error) box.appendChild(fact('Error class', a.error));
  if (a.location) box.appendChild(fact('Location', a.location));
  box.appendChild(el('div', { cls: 'cell-label', text: 'Response body (truncated)' }));
  box.appendChild(pre(a.response_body === null || a.response_body === undefined ? '(none)' : a.response_body, 'response-body'));
  box.appendChild(el('div', { cls: 'cell-label', text: 'Request headers, exactly as sent' }));
  box.appendChild(pre(headerLines(a.request_headers), 'request-headers'));
  var out = el('pre', { cls: 'block curl', attrs: { hidden: '' } });
  var verdict = el('p', { cls: 'status verdict', attrs: { role: 'status' } });
  var copy = el('button', { cls: 'small secondary', text: 'Copy as curl', attrs: { type: 'button' } });
  copy.addEventListener('click', function () {
    var text = curlFor(call, a);
    out.textContent = text;
    out.hidden = false;
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { verdict.textContent = 'Copied.'; },
        function () { verdict.textContent = 'Select the command below to copy it.'; });
    }
  });
  var check = el('button', { cls: 'small secondary', text: 'Check signature (/verify)', attrs: { type: 'button' } });
  check.addEventListener('click', function () { verifyAttempt(call, a, verdict); });
  box.appendChild(el('div', { cls: 'row wrap' }, [copy, check]));
  box.appendChild(verdict);
  box.appendChild(out);
  box.appendChild(el('p', {
    cls: 'muted small-print',
    text: 'To reproduce the check: signature = hex HMAC-SHA256(webhook secret, X-Webhook-Timestamp + "." + raw body). ' +
      'It is only accepted within 5 minutes of the timestamp, so to re-run an old attempt against your receiver, ' +
      'verify with now= that timestamp (gcbridge.webhooks.verify_signature(..., now=ts/1000)).',
  }));
  return box;
}

function shellQuote(s) { return "'" + String(s).replace(/'/g, "'\\''") + "'"; }

function curlFor(call, a) {
  var lines = ['curl -sS -X POST ' + shellQuote(call.url || '')];
  var headers = a.request_headers || {};
  Object.keys(headers).forEach(function (k) {
    // curl computes these itself; sending them twice would corrupt the request.
    if (/^(host|content-length)$/i.test(k)) return;
    lines.push('  -H ' + shellQuote(k + ': ' + headers[k]));
  });
  // --data-binary keeps the bytes as they are: the signature covers the raw body.
  lines.push('  --data-binary ' + shellQuote(call.body || ''));
  return lines.join(' \\\n');
}

function headerValue(headers, name) {
  var key = Object.keys(headers || {}).filter(function (k) { return k.toLowerCase() === name.toLowerCase(); })[0];
  return key === undefined ? null : headers[key];
}

function verifyAttempt(call, a, verdict) {
  var sig = headerValue(a.request_headers, 'X-Webhook-Signature');
  var ts = headerValue(a.request_headers, 'X-Webhook-Timestamp');
  verdict.textContent = 'Checking…';
  api('POST', sitePath('/verify'), {
    raw: call.body || '',
    headers: { 'Content-Type': 'application/json', 'X-Webhook-Signature': sig || '', 'X-Webhook-Timestamp': ts || '' },
  }).then(function (res) {
    var b = res.body || {};
    verdict.textContent = (b.valid ? 'Valid signature' : 'Not valid') + (b.reason ? ' (' + b.reason + ')' : '') +
      ' — checked with the current secret.';
  }, function (err) {
    if (err.gcCode === 410) return tokenRejected();
    verdict.textContent = 'Check failed: ' + describe(err);
  });
}
