/*
 * time.js: how the dashboard shows times: a local clock time ("2024-05-01 12:00:00") and a
 * countdown ("in 42 s") for the next attempt, on the emulator's clock once clock.js has set it
 * (useClock). Accepts ISO strings and epoch seconds or ms.
 */

function toDate(value) {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'number') return new Date(value < 1e12 ? value * 1000 : value);
  var t = Date.parse(value);
  return isNaN(t) ? null : new Date(t);
}

var nowMs = function () { return Date.now(); };

/** Read "now" from ``source`` (epoch ms): clock.js passes the emulator's clock. */
export function useClock(source) { nowMs = source; }

function pad(n) { return (n < 10 ? '0' : '') + n; }

export function clockTime(value) {
  var d = toDate(value);
  if (!d) return '';
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
    pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
}

export function relative(value) {
  var d = toDate(value);
  if (!d) return '—';
  var s = Math.round((d.getTime() - nowMs()) / 1000);
  if (s <= 0) return 'due now';
  if (s < 90) return 'in ' + s + ' s';
  if (s < 5400) return 'in ' + Math.round(s / 60) + ' min';
  return 'in ' + (s / 3600).toFixed(1) + ' h';
}
