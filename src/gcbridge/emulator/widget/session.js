/**
 * gc widget: the signed-in session. Changes run one after the other in a
 * queue; a replaced or ended session is revoked on the server; a stored token
 * is restored at start; the service's own accounts (pages without
 * api_public_key) sign in and register here.
 */

import { api, reasonOf, storage } from './api.js';
import { showNotice } from './dom.js';
import { config, render, state } from './state.js';

// Session changes run one after the other so that a login injected twice
// (gc-ready and gc-loaded) or followed by a logout ends in the last state.
var sessionQueue = Promise.resolve();

export function inSessionQueue(task) {
  sessionQueue = sessionQueue.then(task).catch(function (error) {
    console.warn('gc widget: session update failed: ' + (error && error.name ? error.name : 'error'));
  });
  return sessionQueue;
}

function revoke(token) {
  if (!token) { return Promise.resolve(); }
  return api('POST', '/api/pub/auth/logout', undefined, token).catch(function () { /* best effort */ });
}

export function setSession(token, user) {
  var previous = state.token;
  state.token = token;
  state.user = user;
  if (token) { storage.set(token); } else { storage.remove(); }
  render();
  // A replaced or ended session is revoked: switching users leaves nothing of the first.
  return previous !== token ? revoke(previous) : Promise.resolve();
}

export function clearSession() { return setSession(null, null); }

export function restoreSession() {
  var token = storage.get();
  if (!token) { return Promise.resolve(); }
  return api('GET', '/api/pub/me', undefined, token).then(function (result) {
    if (result.status === 200 && result.data && result.data.user) {
      return setSession(token, result.data.user);
    }
    storage.remove();
  }, function () { /* offline: keep the token for the next launch */ });
}

// ---- own accounts (no api_public_key) ----

export function accountSubmit(path, form, fields) {
  var body = { website_id: config.websiteId };
  fields.forEach(function (field) { body[field] = form.elements[field].value; });
  return api('POST', path, body).then(function (result) {
    if ((result.status === 200 || result.status === 201) && result.data && result.data.token) {
      form.reset();
      showNotice('');
      return setSession(result.data.token, result.data.user);
    }
    showNotice(result.status === 409 ? 'That username is taken.'
      : result.status === 401 ? 'Wrong username or password.'
      : 'That did not work (' + reasonOf(result) + ').');
  });
}
