/*
 * api.js: the dashboard's API client. The fetch wrapper (JSON, bearer token, the gcCode rule),
 * the signed-in session (account token and site), the token's place in sessionStorage, and the
 * hook other modules call when the emulator stops accepting the token. Data comes from the
 * emulator's public routes only (and its own GET /api/dashboard/site).
 *
 * Every JSON body is checked for gcCode: the webhook routes answer bad credentials with
 * HTTP 200 {"gcCode": 410} (docs/explanation/service.md#webhooks).
 */

const TOKEN_KEY = 'gc_dashboard_token';

/** The signed-in account token and its site (null while the sign-in form shows). */
export const session = { token: null, site: null };

export function ApiFailure(status, gcCode, reason, message) {
  this.status = status;
  this.gcCode = gcCode;
  this.reason = reason || 'error';
  this.message = message || ('HTTP ' + status);
}

/** fetch + JSON + the gcCode rule. Resolves {status, body, text}; rejects with ApiFailure. */
export function api(method, path, opts) {
  opts = opts || {};
  var headers = { 'Accept': 'application/json' };
  var bearer = opts.bearer === undefined ? session.token : opts.bearer;
  if (bearer) headers['Authorization'] = 'Bearer ' + bearer;
  if (opts.json !== undefined) headers['Content-Type'] = 'application/json';
  Object.keys(opts.headers || {}).forEach(function (k) { headers[k] = opts.headers[k]; });
  var body = opts.raw !== undefined ? opts.raw : (opts.json !== undefined ? JSON.stringify(opts.json) : undefined);
  return fetch(path, { method: method, headers: headers, body: body, cache: 'no-store', credentials: 'omit' })
    .then(function (res) {
      return res.text().then(function (text) {
        var data = null;
        if (text) {
          try { data = JSON.parse(text); } catch (e) { data = null; }
        }
        if (data && typeof data === 'object' && !Array.isArray(data) && data.gcCode !== undefined) {
          throw new ApiFailure(res.status, data.gcCode, data.error, data.message);
        }
        if (!res.ok) throw new ApiFailure(res.status, res.status, 'http_' + res.status, text.slice(0, 200));
        return { status: res.status, body: data, text: text };
      });
    }, function () {
      throw new ApiFailure(0, 0, 'network', 'the emulator did not answer');
    });
}

export function describe(err) {
  if (err instanceof ApiFailure) {
    return err.message + ' [' + err.reason + (err.gcCode ? ', gcCode ' + err.gcCode : '') + ']';
  }
  return String(err && err.message ? err.message : err);
}

export function isCredentialFailure(err) {
  return err instanceof ApiFailure && (err.gcCode === 410 || err.gcCode === 401 || err.gcCode === 403);
}

/** A path under the signed-in site's webhook routes. */
export function sitePath(suffix) {
  return '/webhook/website/' + encodeURIComponent(session.site.website_id) + suffix;
}

// ---------------------------------------------------------------- sessionStorage (this tab only)

/** The text kept under ``key`` (null if none, or if the browser refuses storage). */
export function stored(key) {
  try { return sessionStorage.getItem(key); } catch (e) { return null; }
}

/** Keep ``value`` under ``key`` (null removes it); private mode may keep nothing. */
export function store(key, value) {
  try {
    if (value === null) sessionStorage.removeItem(key); else sessionStorage.setItem(key, value);
  } catch (e) { /* this tab only */ }
}

export function savedToken() { return stored(TOKEN_KEY); }
export function saveToken(token) { store(TOKEN_KEY, token); }
export function forgetToken() { store(TOKEN_KEY, null); }

// ---------------------------------------------------------------- a refused token

var rejectedHandler = function () {};

/** Set what happens when the token is refused after sign-in (main.js: back to the sign-in form). */
export function onTokenRejected(handler) { rejectedHandler = handler; }

/** The token was refused after sign-in (emulator restarted with other sites, ...). */
export function tokenRejected() { rejectedHandler(); }
