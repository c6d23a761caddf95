/**
 * gc widget: window messages between this page and the app's bridge, and the
 * SSO login they carry.
 *
 * Always JSON strings posted to location.origin:
 *   out: {name: "gc-ready"}                   once the page is wired (DOMContentLoaded)
 *        {name: "gc-loaded", count: n}        once the thread's comments arrived (async fetch)
 *        {name: "gc-sso-auth"}                a guest tries to comment on an SSO page
 *        {name: "gc-sso-conflict", username}  SSO login refused: username held by another user
 *   in:  {info: "sso-login", data: ssoData}   only from this window and this origin
 *        {info: "sso-logout"}
 *
 * ssoData goes in a request body and nowhere else (no URL, history, storage or console).
 */

import { api, reasonOf } from './api.js';
import { showNotice } from './dom.js';
import { clearSession, inSessionQueue, setSession } from './session.js';
import { config } from './state.js';

// ---- messages to the app (through whatever bridge the app installed) ----

export function emit(name, extra) {
  window.postMessage(JSON.stringify(Object.assign({ name: name }, extra)), location.origin);
}

// ---- messages from the app ----

function ssoLogin(ssoData) {
  return api('POST', '/api/pub/sso/login', { api_public_key: config.apiPublicKey, ssoData: ssoData })
    .then(function (result) {
      if (result.status === 200 && result.data && result.data.token) {
        showNotice('');
        return setSession(result.data.token, result.data.user);
      }
      var reason = reasonOf(result);
      console.warn('gc widget: SSO login failed (' + reason + ')');
      if (result.status === 409) {
        showNotice('That username is already taken; the app is asked to choose another.');
        emit('gc-sso-conflict', { username: result.data && result.data.username });
      }
      return clearSession();
    }, function () {
      console.warn('gc widget: SSO login failed (network_error)');
      return clearSession();
    });
}

export function onMessage(event) {
  // Only messages this page posted to itself: a frame or another origin
  // cannot sign anybody in or out.
  if (event.source !== window || event.origin !== location.origin) { return; }
  if (typeof event.data !== 'string') { return; }
  var message;
  try { message = JSON.parse(event.data); } catch (e) { return; }
  if (!message || typeof message !== 'object') { return; }
  if (message.info === 'sso-login') {
    // Without api_public_key SSO is off: ignored silently, no request, no log (docs/explanation/service.md#loading-the-widget).
    if (!config.apiPublicKey || typeof message.data !== 'string' || !message.data) { return; }
    var ssoData = message.data;
    inSessionQueue(function () { return ssoLogin(ssoData); });
  } else if (message.info === 'sso-logout') {
    inSessionQueue(clearSession);
  }
}
