/*
 * main.js: the dashboard's entry point (loaded by index.html as <script type="module">). Wires
 * the parts together and reopens the site whose token this tab kept. No build step, no
 * dependency, nothing loaded from elsewhere: every module is served from /dashboard/ under the
 * page's CSP (script-src 'self').
 *
 * Rules kept throughout:
 * - Untrusted text (comment content, receiver responses, headers, URLs) reaches the DOM through
 *   textContent only; no innerHTML anywhere. Links get an href only after an http(s) check.
 * - Every JSON body is checked for gcCode (api.js).
 */

import { describe, isCredentialFailure, onTokenRejected, savedToken } from './api.js';
import { initSignin, openWithToken, showLogin, tokenRejected } from './signin.js';
import { initSitePanel } from './site-panel.js';
import { initJournal } from './journal.js';
import { initTestEvents } from './event-sender.js';
import { initCatalog } from './catalog.js';
import { initClock } from './clock.js';

function init() {
  onTokenRejected(tokenRejected);
  initSignin();
  initSitePanel();
  initJournal();
  initTestEvents();
  initClock();

  // The site opens once the lists of event types exist (its webhook ticks their boxes).
  initCatalog().then(function () {
    var saved = savedToken();
    if (saved) {
      openWithToken(saved).catch(function (err) {
        if (isCredentialFailure(err)) tokenRejected();
        else showLogin('Could not reach the emulator: ' + describe(err));
      });
    } else {
      showLogin(null);
    }
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
else init();
