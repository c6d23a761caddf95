/**
 * gc widget: the API client. fetch() to the emulator's /api/pub/* routes on
 * this origin (no cookies, no cache, no referrer), the session token kept in
 * localStorage "gc_token" when storage is available, and the error reason of
 * a failed call.
 */

var TOKEN_KEY = 'gc_token';

// ---- storage: localStorage may be missing or throw (DOM storage disabled) ----

export var storage = {
  get: function () {
    try { return window.localStorage.getItem(TOKEN_KEY); } catch (e) { return null; }
  },
  set: function (token) {
    try { window.localStorage.setItem(TOKEN_KEY, token); } catch (e) { /* session only */ }
  },
  remove: function () {
    try { window.localStorage.removeItem(TOKEN_KEY); } catch (e) { /* nothing stored */ }
  }
};

// ---- HTTP ----

export function api(method, path, body, token) {
  var headers = { 'Accept': 'application/json' };
  if (body !== undefined) { headers['Content-Type'] = 'application/json'; }
  if (token) { headers['Authorization'] = 'Bearer ' + token; }
  return fetch(path, {
    method: method,
    headers: headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
    referrerPolicy: 'no-referrer'
  }).then(function (response) {
    if (response.status === 204) { return { status: 204, data: null }; }
    return response.json().then(
      function (data) { return { status: response.status, data: data }; },
      function () { return { status: response.status, data: null }; }
    );
  });
}

export function reasonOf(result) {
  return (result.data && typeof result.data.error === 'string') ? result.data.error : 'http_' + result.status;
}
