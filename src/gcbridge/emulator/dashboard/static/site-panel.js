/*
 * site-panel.js: the "Site" and "Widget" cards. The site's facts, the webhook configuration
 * (read, set up, disable), the reveal/hide of the webhook secret, and the widget links: the
 * sample thread's thread-load request, its gc_url, the new-window links and the phone-sized preview.
 */

import { $, el, setText, safeHttpUrl } from './dom.js';
import { ApiFailure, api, describe, session, sitePath, tokenRejected } from './api.js';

var panel = { config: null, secretShown: false, gcUrl: null };

/** The webhook configuration last read (null when there is none); event-sender.js reads it. */
export function currentConfig() { return panel.config; }

/** Fill both cards for the signed-in site and load its configuration and widget URL. */
export function showSite() {
  var site = session.site;
  setText('site-shortname', site.shortname);
  setText('site-website-id', site.website_id);
  setText('site-public-key', site.sso_public_key);
  setText('sample-uid', site.sample_thread.uid);
  loadConfig();
  loadThreadUrl();
}

/** Remove what both cards rendered (sign-out): texts, the secret, the links. */
export function clearSitePanel() {
  panel.config = null;
  ['site-shortname', 'site-website-id', 'site-public-key', 'webhook-url', 'webhook-events',
    'webhook-enabled', 'thread-load-url', 'gc-url', 'sample-uid', 'setup-status'].forEach(function (id) { setText(id, ''); });
  panel.secretShown = false;
  renderSecret();
  ['open-plain', 'open-sso'].forEach(function (id) { $(id).removeAttribute('href'); });
}

// ---------------------------------------------------------------- webhook configuration

function loadConfig() {
  return api('GET', sitePath('/config')).then(function (res) {
    renderConfig(res.body);
  }, function (err) {
    if (err.gcCode === 410) return tokenRejected();
    renderConfig(null);
    if (err.gcCode !== 404) setText('setup-status', 'Could not read the configuration: ' + describe(err));
  });
}

function renderConfig(config) {
  panel.config = config;
  var has = !!(config && config.url);
  $('webhook-missing').hidden = has;
  $('webhook-facts').hidden = !has;
  if (!has) $('setup-details').open = true;
  if (!has) return;
  setText('webhook-url', config.url);
  setText('webhook-events', (config.events || []).join(', ') || '(none)');
  var enabled = $('webhook-enabled');
  enabled.replaceChildren(el('span', {
    cls: 'badge ' + (config.enabled ? 'succeeded' : 'failed'),
    text: config.enabled ? 'enabled' : 'disabled',
  }));
  $('setup-url').value = config.url;
  Array.prototype.forEach.call(document.querySelectorAll('#setup-form input[name=event]'), function (box) {
    box.checked = (config.events || []).indexOf(box.value) >= 0;
  });
  renderSecret();
}

function renderSecret() {
  var code = $('webhook-secret');
  var button = $('reveal-secret');
  var secret = panel.config && panel.config.secret;
  var shown = !!(panel.secretShown && secret);
  code.textContent = shown ? secret : '••••••••••••';
  code.setAttribute('data-revealed', String(shown));
  button.textContent = shown ? 'Hide' : 'Reveal';
  button.setAttribute('aria-pressed', String(shown));
}

function toggleSecret() {
  panel.secretShown = !panel.secretShown;
  renderSecret();
}

function onSetupSubmit(event) {
  event.preventDefault();
  var events = Array.prototype.filter.call(
    document.querySelectorAll('#setup-form input[name=event]'), function (b) { return b.checked; }
  ).map(function (b) { return b.value; });
  setText('setup-status', 'Saving…');
  api('POST', sitePath('/setup'), { json: { url: $('setup-url').value.trim(), events: events } })
    .then(function (res) {
      panel.secretShown = false;
      renderConfig(res.body);
      setText('setup-status', 'Saved. A new secret was generated.');
    }, function (err) {
      if (err.gcCode === 410) return tokenRejected();
      setText('setup-status', 'Not saved: ' + describe(err));
    });
}

function onDisable() {
  api('DELETE', sitePath('/disable')).then(function () {
    setText('setup-status', 'Webhook disabled: events are no longer queued.');
    return loadConfig();
  }, function (err) {
    if (err.gcCode === 410) return tokenRejected();
    setText('setup-status', 'Not disabled: ' + describe(err));
  });
}

// ---------------------------------------------------------------- widget links

function loadThreadUrl() {
  var site = session.site;
  var t = site.sample_thread;
  var query = new URLSearchParams({
    service_id: site.shortname, url: t.url, uid: t.uid, page_title: t.page_title,
    inapp: 'true', redirect: 'true',
  });
  var threadLoad = site.thread_load_url + '?' + query.toString();
  setText('thread-load-url', threadLoad);
  return api('GET', '/api/pub/thread-load/?' + query.toString(), { bearer: null }).then(function (res) {
    var gcUrl = safeHttpUrl(res.body.gc_url);
    if (!gcUrl) throw new ApiFailure(200, 0, 'bad_gc_url', 'gc_url is not an http(s) URL');
    panel.gcUrl = gcUrl;
    setText('gc-url', gcUrl);
    $('open-plain').href = gcUrl;
    $('open-sso').href = withPublicKey(gcUrl);
  }, function (err) {
    setText('gc-url', 'thread-load failed: ' + describe(err));
  });
}

function withPublicKey(gcUrl) {
  return gcUrl + (gcUrl.indexOf('?') >= 0 ? '&' : '?') + 'api_public_key=' +
    encodeURIComponent(session.site.sso_public_key);
}

function preview(sso) {
  if (!panel.gcUrl) return;
  $('phone-frame').src = sso ? withPublicKey(panel.gcUrl) : panel.gcUrl;
  setText('phone-title', sso ? 'Widget with api_public_key' : 'Widget without api_public_key');
  $('phone').showModal();
}

function closePreview() {
  $('phone').close();
  $('phone-frame').removeAttribute('src');
}

/** Wire the cards' controls (once, at start). */
export function initSitePanel() {
  $('reveal-secret').addEventListener('click', toggleSecret);
  $('setup-form').addEventListener('submit', onSetupSubmit);
  $('disable-webhook').addEventListener('click', onDisable);
  $('preview-plain').addEventListener('click', function () { preview(false); });
  $('preview-sso').addEventListener('click', function () { preview(true); });
  $('phone-close').addEventListener('click', closePreview);
  $('phone').addEventListener('close', function () { $('phone-frame').removeAttribute('src'); });
}
