/*
 * signin.js: signing in and out. The token form, opening a site with its account token, the
 * switch between the sign-in form and the signed-in view, and the return to the form (with
 * everything the view rendered removed) on sign-out or when the emulator refuses the token.
 */

import { $, setText } from './dom.js';
import { api, describe, forgetToken, isCredentialFailure, saveToken, session } from './api.js';
import { clearSitePanel, showSite } from './site-panel.js';
import { clearJournal, startPolling, stopPolling } from './journal.js';
import { clearTestEvents } from './event-sender.js';

export function showLogin(message) {
  stopPolling();
  session.token = null;
  session.site = null;
  clearAppData();
  $('app').hidden = true;
  $('topbar-site').hidden = true;
  $('login').hidden = false;
  var err = $('login-error');
  err.hidden = !message;
  err.textContent = message || '';
  $('token-input').focus();
}

/** Remove everything the signed-in view rendered, so nothing stays in the DOM after sign-out. */
function clearAppData() {
  setText('topbar-shortname', '');
  clearSitePanel();
  clearTestEvents();
  clearJournal();
}

export function openWithToken(token) {
  return api('GET', '/api/dashboard/site', { bearer: token }).then(function (res) {
    session.token = token;
    session.site = res.body;
    saveToken(token);
    showApp();
  });
}

function onLoginSubmit(event) {
  event.preventDefault();
  var token = $('token-input').value.trim();
  if (!token) return;
  $('login-submit').disabled = true;
  openWithToken(token).then(function () {
    $('token-input').value = '';
  }, function (err) {
    showLogin(isCredentialFailure(err)
      ? 'That is not the account token of any site on this emulator (gcCode ' + err.gcCode + ').'
      : 'Could not reach the emulator: ' + describe(err));
  }).then(function () { $('login-submit').disabled = false; });
}

function signOut() {
  forgetToken();
  showLogin(null);
}

/** The token was refused after sign-in (emulator restarted with other sites, ...). */
export function tokenRejected() {
  forgetToken();
  showLogin('The emulator no longer accepts this account token. Enter it again.');
}

function showApp() {
  $('login').hidden = true;
  $('login-error').hidden = true;
  $('app').hidden = false;
  $('topbar-site').hidden = false;
  setText('topbar-shortname', session.site.shortname);
  showSite();
  startPolling();
}

/** Wire the token form and the sign-out button (once, at start). */
export function initSignin() {
  $('login-form').addEventListener('submit', onLoginSubmit);
  $('sign-out').addEventListener('click', signOut);
}
