/*
 * gc-bridge emulator dashboard. No build step, no dependency, nothing loaded from elsewhere.
 *
 * Data comes from the emulator's public routes only:
 *   GET  /api/dashboard/site                       account token -> the site (the dashboard's own route)
 *   GET  /webhook/website/{website_id}/config      webhook url, events, enabled, secret
 *   POST /webhook/website/{website_id}/setup       | DELETE .../disable
 *   GET  /webhook/website/{website_id}/calls       the delivery journal (polled, see below)
 *   POST /webhook/call/{id}/replay                 the replay button
 *   POST /webhook/website/{website_id}/verify      "check signature" of one attempt
 *   GET  /api/pub/thread-load/                     the sample thread's gc_url
 *   /api/pub/auth/register|login, /api/pub/comments, /api/moderation/comments/{id}/approve
 *                                                  test events, through the real comment routes
 *
 * Rules kept throughout:
 * - Untrusted text (comment content, receiver responses, headers, URLs) reaches the DOM through
 *   textContent only; no innerHTML anywhere. Links get an href only after an http(s) check.
 * - Every JSON body is checked for gcCode: the webhook routes answer bad credentials with
 *   HTTP 200 {"gcCode": 410} (spec 5.2).
 * - Live journal by polling every second rather than server-sent events: EventSource cannot send an
 *   Authorization header, so SSE would need the account token in a URL (where it lands in logs and
 *   history) or a cookie (and then CSRF protection); polling reuses the same authenticated public
 *   route an integration would call. The poll sends If-None-Match when the server gives an ETag and
 *   otherwise compares the body, and only calls whose JSON changed are rebuilt, so an expanded call
 *   and its text selection survive the refresh. Polling pauses while the tab is hidden.
 */
(function () {
  'use strict';

  var TOKEN_KEY = 'gc_dashboard_token';
  var POLL_MS = 1000;
  var CALLS_LIMIT = 50;

  var state = {
    token: null,
    site: null,
    config: null,
    secretShown: false,
    gcUrl: null,
    filters: { status: '', event_type: '' },
    expanded: new Set(),
    rows: new Map(), // call id -> {json: string, el: Element, call: object}
    lastBody: null,
    etag: null,
    pollTimer: null,
    pollGeneration: 0,
    userToken: null,
  };

  function $(id) { return document.getElementById(id); }

  /** Build an element; text goes through textContent, never markup. */
  function el(tag, opts, children) {
    var node = document.createElement(tag);
    opts = opts || {};
    if (opts.cls) node.className = opts.cls;
    if (opts.text !== undefined && opts.text !== null) node.textContent = String(opts.text);
    if (opts.attrs) {
      Object.keys(opts.attrs).forEach(function (k) { node.setAttribute(k, opts.attrs[k]); });
    }
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function setText(id, text) { $(id).textContent = text === null || text === undefined ? '' : String(text); }

  function safeHttpUrl(url) {
    try {
      var u = new URL(url, location.href);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
    } catch (e) {
      return null;
    }
  }

  // ---------------------------------------------------------------- HTTP

  function ApiFailure(status, gcCode, reason, message) {
    this.status = status;
    this.gcCode = gcCode;
    this.reason = reason || 'error';
    this.message = message || ('HTTP ' + status);
  }

  /** fetch + JSON + the gcCode rule. Resolves {status, body, etag}; rejects with ApiFailure. */
  function api(method, path, opts) {
    opts = opts || {};
    var headers = { 'Accept': 'application/json' };
    var bearer = opts.bearer === undefined ? state.token : opts.bearer;
    if (bearer) headers['Authorization'] = 'Bearer ' + bearer;
    if (opts.json !== undefined) headers['Content-Type'] = 'application/json';
    if (opts.etag) headers['If-None-Match'] = opts.etag;
    Object.keys(opts.headers || {}).forEach(function (k) { headers[k] = opts.headers[k]; });
    var body = opts.raw !== undefined ? opts.raw : (opts.json !== undefined ? JSON.stringify(opts.json) : undefined);
    return fetch(path, { method: method, headers: headers, body: body, cache: 'no-store', credentials: 'omit' })
      .then(function (res) {
        if (res.status === 304) return { status: 304, body: null, text: null, etag: opts.etag };
        return res.text().then(function (text) {
          var data = null;
          if (text) {
            try { data = JSON.parse(text); } catch (e) { data = null; }
          }
          if (data && typeof data === 'object' && !Array.isArray(data) && data.gcCode !== undefined) {
            throw new ApiFailure(res.status, data.gcCode, data.error, data.message);
          }
          if (!res.ok) throw new ApiFailure(res.status, res.status, 'http_' + res.status, text.slice(0, 200));
          return { status: res.status, body: data, text: text, etag: res.headers.get('ETag') };
        });
      }, function () {
        throw new ApiFailure(0, 0, 'network', 'the emulator did not answer');
      });
  }

  function describe(err) {
    if (err instanceof ApiFailure) {
      return err.message + ' [' + err.reason + (err.gcCode ? ', gcCode ' + err.gcCode : '') + ']';
    }
    return String(err && err.message ? err.message : err);
  }

  function isCredentialFailure(err) {
    return err instanceof ApiFailure && (err.gcCode === 410 || err.gcCode === 401 || err.gcCode === 403);
  }

  // ---------------------------------------------------------------- time

  function toDate(value) {
    if (value === null || value === undefined || value === '') return null;
    if (typeof value === 'number') return new Date(value < 1e12 ? value * 1000 : value);
    var t = Date.parse(value);
    return isNaN(t) ? null : new Date(t);
  }

  function pad(n) { return (n < 10 ? '0' : '') + n; }

  function clockTime(value) {
    var d = toDate(value);
    if (!d) return '';
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
      pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  }

  function relative(value) {
    var d = toDate(value);
    if (!d) return '—';
    var s = Math.round((d.getTime() - Date.now()) / 1000);
    if (s <= 0) return 'due now';
    if (s < 90) return 'in ' + s + ' s';
    if (s < 5400) return 'in ' + Math.round(s / 60) + ' min';
    return 'in ' + (s / 3600).toFixed(1) + ' h';
  }

  // ---------------------------------------------------------------- sign-in

  function showLogin(message) {
    stopPolling();
    state.token = null;
    state.site = null;
    state.config = null;
    state.userToken = null;
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
    ['site-shortname', 'site-website-id', 'site-public-key', 'webhook-url', 'webhook-events',
      'webhook-enabled', 'thread-load-url', 'gc-url', 'sample-uid', 'topbar-shortname',
      'test-status', 'setup-status', 'journal-count'].forEach(function (id) { setText(id, ''); });
    state.secretShown = false;
    renderSecret();
    $('calls').replaceChildren();
    state.rows.clear();
    state.expanded.clear();
    state.lastBody = null;
    state.etag = null;
    ['open-plain', 'open-sso'].forEach(function (id) { $(id).removeAttribute('href'); });
  }

  function openWithToken(token) {
    return api('GET', '/api/dashboard/site', { bearer: token }).then(function (res) {
      state.token = token;
      state.site = res.body;
      try { sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* private mode: this tab only */ }
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
    try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* nothing stored */ }
    showLogin(null);
  }

  /** The token was refused after sign-in (emulator restarted with other sites, ...). */
  function tokenRejected() {
    try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* nothing stored */ }
    showLogin('The emulator no longer accepts this account token. Enter it again.');
  }

  // ---------------------------------------------------------------- site and webhook

  function showApp() {
    var site = state.site;
    $('login').hidden = true;
    $('login-error').hidden = true;
    $('app').hidden = false;
    $('topbar-site').hidden = false;
    setText('topbar-shortname', site.shortname);
    setText('site-shortname', site.shortname);
    setText('site-website-id', site.website_id);
    setText('site-public-key', site.sso_public_key);
    setText('sample-uid', site.sample_thread.uid);
    loadConfig();
    loadThreadUrl();
    startPolling();
  }

  function sitePath(suffix) {
    return '/webhook/website/' + encodeURIComponent(state.site.website_id) + suffix;
  }

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
    state.config = config;
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
    var secret = state.config && state.config.secret;
    if (state.secretShown && secret) {
      code.textContent = secret;
      code.setAttribute('data-revealed', 'true');
      button.textContent = 'Hide';
      button.setAttribute('aria-pressed', 'true');
    } else {
      code.textContent = '••••••••••••';
      code.setAttribute('data-revealed', 'false');
      button.textContent = 'Reveal';
      button.setAttribute('aria-pressed', 'false');
    }
  }

  function onSetupSubmit(event) {
    event.preventDefault();
    var events = Array.prototype.filter.call(
      document.querySelectorAll('#setup-form input[name=event]'), function (b) { return b.checked; }
    ).map(function (b) { return b.value; });
    setText('setup-status', 'Saving…');
    api('POST', sitePath('/setup'), { json: { url: $('setup-url').value.trim(), events: events } })
      .then(function (res) {
        state.secretShown = false;
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
    var site = state.site;
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
      state.gcUrl = gcUrl;
      setText('gc-url', gcUrl);
      $('open-plain').href = gcUrl;
      $('open-sso').href = withPublicKey(gcUrl);
    }, function (err) {
      setText('gc-url', 'thread-load failed: ' + describe(err));
    });
  }

  function withPublicKey(gcUrl) {
    return gcUrl + (gcUrl.indexOf('?') >= 0 ? '&' : '?') + 'api_public_key=' +
      encodeURIComponent(state.site.sso_public_key);
  }

  function preview(sso) {
    if (!state.gcUrl) return;
    $('phone-frame').src = sso ? withPublicKey(state.gcUrl) : state.gcUrl;
    setText('phone-title', sso ? 'Widget with api_public_key' : 'Widget without api_public_key');
    $('phone').showModal();
  }

  function closePreview() {
    $('phone').close();
    $('phone-frame').removeAttribute('src');
  }

  // ---------------------------------------------------------------- test events

  function userKey() { return 'gc_dashboard_user:' + state.site.shortname; }
  function commentKey() { return 'gc_dashboard_comment:' + state.site.shortname; }

  function randomHex(bytes) {
    var a = new Uint8Array(bytes);
    crypto.getRandomValues(a);
    return Array.prototype.map.call(a, function (b) { return (b < 16 ? '0' : '') + b.toString(16); }).join('');
  }

  function storedJson(key) {
    try { return JSON.parse(sessionStorage.getItem(key) || 'null'); } catch (e) { return null; }
  }

  function store(key, value) {
    try {
      if (value === null) sessionStorage.removeItem(key); else sessionStorage.setItem(key, JSON.stringify(value));
    } catch (e) { /* this tab only */ }
  }

  /** A session of the dashboard's own test user (registered on first use). */
  function userSession(fresh) {
    if (state.userToken && !fresh) return Promise.resolve(state.userToken);
    var creds = storedJson(userKey());
    var site = state.site.shortname;
    function register() {
      creds = { username: 'dashboard-' + randomHex(4), password: randomHex(16) };
      return api('POST', '/api/pub/auth/register', {
        bearer: null,
        json: { website_id: site, username: creds.username, email: creds.username + '@example.com',
          password: creds.password },
      }).then(function (res) { store(userKey(), creds); return res.body.token; });
    }
    var attempt = creds
      ? api('POST', '/api/pub/auth/login', {
        bearer: null, json: { website_id: site, username: creds.username, password: creds.password },
      }).then(function (res) { return res.body.token; }, register)
      : register();
    return attempt.then(function (token) { state.userToken = token; return token; });
  }

  /** Run ``fn(sessionToken)``; once more with a fresh session if the first is refused. */
  function asUser(fn) {
    return userSession(false).then(fn).catch(function (err) {
      if (err instanceof ApiFailure && err.status === 401) return userSession(true).then(fn);
      throw err;
    });
  }

  function createComment(suffix) {
    var t = state.site.sample_thread;
    var content = $('test-content').value || 'Hello from the gc-bridge dashboard';
    return asUser(function (token) {
      return api('POST', '/api/pub/comments', {
        bearer: token,
        json: { website_id: state.site.shortname, uid: t.uid, url: t.url, page_title: t.page_title,
          content: content + (suffix || '') },
      });
    }).then(function (res) { store(commentKey(), { id: res.body.id }); return res.body; });
  }

  /** The last live test comment, or a new one (which fires comment.created too). */
  function someComment(notes) {
    var last = storedJson(commentKey());
    if (last && last.id) return Promise.resolve(last);
    notes.push('created a comment first (comment.created)');
    return createComment('');
  }

  var SENDERS = {
    'comment.created': function () { return createComment(''); },
    'comment.updated': function (notes) {
      return someComment(notes).then(function (c) {
        var content = ($('test-content').value || 'Hello') + ' (edited ' + clockTime(Date.now()) + ')';
        return asUser(function (token) {
          return api('PATCH', '/api/pub/comments/' + encodeURIComponent(c.id), { bearer: token, json: { content: content } });
        });
      });
    },
    'comment.approved': function (notes) {
      return someComment(notes).then(function (c) {
        return api('POST', '/api/moderation/comments/' + encodeURIComponent(c.id) + '/approve');
      });
    },
    'comment.deleted': function (notes) {
      return someComment(notes).then(function (c) {
        return asUser(function (token) {
          return api('DELETE', '/api/pub/comments/' + encodeURIComponent(c.id), { bearer: token });
        }).then(function (res) { store(commentKey(), null); return res; });
      });
    },
  };

  function sendTest(eventType) {
    var notes = [];
    var buttons = document.querySelectorAll('#test-buttons button');
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
    setText('test-status', 'Sending ' + eventType + '…');
    SENDERS[eventType](notes).then(function () {
      var warn = state.config && state.config.enabled && (state.config.events || []).indexOf(eventType) >= 0
        ? '' : ' (the webhook is not set up, disabled or not subscribed to it: nothing is delivered)';
      setText('test-status', 'Sent ' + eventType + (notes.length ? '; ' + notes.join('; ') : '') + '.' + warn);
      pollNow();
    }, function (err) {
      if (err instanceof ApiFailure && err.reason === 'comment_not_found') store(commentKey(), null);
      setText('test-status', eventType + ' failed: ' + describe(err));
    }).then(function () {
      Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
    });
  }

  // ---------------------------------------------------------------- journal

  function callsPath() {
    var q = new URLSearchParams({ limit: String(CALLS_LIMIT) });
    if (state.filters.status) q.set('status', state.filters.status);
    if (state.filters.event_type) q.set('event_type', state.filters.event_type);
    return sitePath('/calls') + '?' + q.toString();
  }

  function startPolling() {
    stopPolling();
    var generation = ++state.pollGeneration;
    function tick() {
      if (generation !== state.pollGeneration) return;
      if (document.hidden) { state.pollTimer = setTimeout(tick, POLL_MS); return; }
      var filterKey = JSON.stringify(state.filters);
      api('GET', callsPath(), { etag: state.etag }).then(function (res) {
        if (generation !== state.pollGeneration || filterKey !== JSON.stringify(state.filters)) return;
        $('journal-error').hidden = true;
        $('live').textContent = 'live · checked ' + clockTime(Date.now()).slice(11);
        $('live').className = 'live ok';
        if (res.status !== 304 && res.text !== state.lastBody) {
          state.lastBody = res.text;
          state.etag = res.etag;
          renderCalls(res.body.calls || []);
        }
        refreshRelativeTimes();
      }, function (err) {
        if (generation !== state.pollGeneration) return;
        if (err.gcCode === 410) { tokenRejected(); return; }
        $('live').textContent = 'disconnected, retrying';
        $('live').className = 'live bad';
        $('journal-error').hidden = false;
        setText('journal-error', 'Journal: ' + describe(err));
      }).then(function () {
        if (generation === state.pollGeneration) state.pollTimer = setTimeout(tick, POLL_MS);
      });
    }
    tick();
  }

  function stopPolling() {
    state.pollGeneration++;
    if (state.pollTimer) clearTimeout(state.pollTimer);
    state.pollTimer = null;
  }

  function pollNow() { if (state.site) startPolling(); }

  function onFilterChange() {
    state.filters.status = $('filter-status').value;
    state.filters.event_type = $('filter-event').value;
    state.lastBody = null;
    state.etag = null;
    $('calls').replaceChildren();
    state.rows.clear();
    pollNow();
  }

  function renderCalls(calls) {
    var seen = new Set();
    var nodes = calls.map(function (call) {
      var json = JSON.stringify(call);
      seen.add(call.id);
      var row = state.rows.get(call.id);
      if (!row || row.json !== json) {
        var fresh = buildCall(call);
        row = { json: json, el: fresh, call: call };
        state.rows.set(call.id, row);
      }
      return row.el;
    });
    Array.from(state.rows.keys()).forEach(function (id) { if (!seen.has(id)) state.rows.delete(id); });
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
    var open = state.expanded.has(call.id);
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
    var row = state.rows.get(id);
    var details = article.querySelector('.call-details');
    var button = article.querySelector('.call-summary');
    if (state.expanded.has(id)) {
      state.expanded.delete(id);
      details.hidden = true;
      button.setAttribute('aria-expanded', 'false');
    } else {
      state.expanded.add(id);
      if (!details.firstChild && row) fillDetails(details, row.call);
      details.hidden = false;
      button.setAttribute('aria-expanded', 'true');
    }
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

  function pre(text, cls) { return el('pre', { cls: 'block ' + (cls || ''), text: text }); }

  function headerLines(headers) {
    return Object.keys(headers || {}).map(function (k) { return k + ': ' + headers[k]; }).join('\n');
  }

  function fact(label, value) {
    return el('div', { cls: 'fact' }, [el('span', { cls: 'cell-label', text: label }), el('span', { text: value })]);
  }

  function fillDetails(details, call) {
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

  // ---------------------------------------------------------------- start

  function init() {
    $('login-form').addEventListener('submit', onLoginSubmit);
    $('sign-out').addEventListener('click', signOut);
    $('reveal-secret').addEventListener('click', function () {
      state.secretShown = !state.secretShown;
      renderSecret();
    });
    $('setup-form').addEventListener('submit', onSetupSubmit);
    $('disable-webhook').addEventListener('click', onDisable);
    $('preview-plain').addEventListener('click', function () { preview(false); });
    $('preview-sso').addEventListener('click', function () { preview(true); });
    $('phone-close').addEventListener('click', closePreview);
    $('phone').addEventListener('close', function () { $('phone-frame').removeAttribute('src'); });
    $('filter-status').addEventListener('change', onFilterChange);
    $('filter-event').addEventListener('change', onFilterChange);
    Array.prototype.forEach.call(document.querySelectorAll('#test-buttons button'), function (b) {
      b.addEventListener('click', function () { sendTest(b.getAttribute('data-event')); });
    });
    document.addEventListener('visibilitychange', function () { if (!document.hidden) pollNow(); });

    var saved = null;
    try { saved = sessionStorage.getItem(TOKEN_KEY); } catch (e) { saved = null; }
    if (saved) {
      openWithToken(saved).catch(function (err) {
        if (isCredentialFailure(err)) tokenRejected();
        else showLogin('Could not reach the emulator: ' + describe(err));
      });
    } else {
      showLogin(null);
    }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
