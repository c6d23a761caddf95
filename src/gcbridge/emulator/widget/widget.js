/**
 * gc-bridge emulator: the comment widget page (spec 4.8, 5.1, 6.2).
 *
 * Plain browser JavaScript, no build step. Reads its thread from the query
 * string (website_id, uid, url, page_title, optional api_public_key) and talks
 * to the emulator's /api/pub/* routes on its own origin.
 *
 * Window messages, always JSON strings posted to location.origin:
 *   out: {name: "gc-ready"}                   once this script is ready (DOMContentLoaded)
 *        {name: "gc-loaded", count: n}        once the thread's comments arrived (async fetch)
 *        {name: "gc-sso-auth"}                a guest tries to comment on an SSO page
 *        {name: "gc-sso-conflict", username}  SSO login refused: username held by another user
 *   in:  {info: "sso-login", data: ssoData}   only from this window and this origin
 *        {info: "sso-logout"}
 *
 * Which events a bridge sees depends on when it is installed:
 *   document-start (React Native injectedJavaScriptBeforeContentLoaded): all of them;
 *   document-end (iOS WKUserScript atDocumentEnd, run after the DOMContentLoaded listeners,
 *     this script's among them; gc-ready, posted from that listener, is dispatched later): all;
 *   page-finished (Android onPageFinished, pywebview): never gc-ready, gc-loaded only when
 *     the comments arrive after the load event; such apps log in at page finished too.
 *
 * Security: user content is rendered with textContent only; ssoData goes in a
 * request body and nowhere else (no URL, history, storage or console); the
 * session token lives in localStorage "gc_token" when storage is available.
 */
(function () {
  'use strict';

  var TOKEN_KEY = 'gc_token';
  var params = new URLSearchParams(location.search);
  var config = {
    websiteId: params.get('website_id') || '',
    uid: params.get('uid') || '',
    url: params.get('url') || '',
    pageTitle: params.get('page_title') || '',
    apiPublicKey: params.get('api_public_key') || null
  };

  var state = {
    token: null,
    user: null,
    comments: [],
    loaded: false,
    replyTo: null,     // comment id whose reply form is open
    editing: null,     // comment id being edited
    confirmDelete: null
  };

  // ---- storage: localStorage may be missing or throw (DOM storage disabled) ----

  var storage = {
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

  // ---- messages to the app (through whatever bridge the app installed) ----

  function emit(name, extra) {
    var message = { name: name };
    if (extra) {
      Object.keys(extra).forEach(function (key) { message[key] = extra[key]; });
    }
    window.postMessage(JSON.stringify(message), location.origin);
  }

  // ---- HTTP ----

  function api(method, path, body, token) {
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

  function reasonOf(result) {
    return (result.data && typeof result.data.error === 'string') ? result.data.error : 'http_' + result.status;
  }

  // ---- session ----

  // Session changes run one after the other so that a login injected twice
  // (gc-ready and gc-loaded) or followed by a logout ends in the last state.
  var sessionQueue = Promise.resolve();

  function inSessionQueue(task) {
    sessionQueue = sessionQueue.then(task).catch(function (error) {
      console.warn('gc widget: session update failed: ' + (error && error.name ? error.name : 'error'));
    });
    return sessionQueue;
  }

  function revoke(token) {
    if (!token) { return Promise.resolve(); }
    return api('POST', '/api/pub/auth/logout', undefined, token).catch(function () { /* best effort */ });
  }

  function setSession(token, user) {
    var previous = state.token;
    state.token = token;
    state.user = user;
    storage.set(token);
    render();
    // A replaced session is revoked: switching users leaves nothing of the first.
    return previous && previous !== token ? revoke(previous) : Promise.resolve();
  }

  function clearSession() {
    var previous = state.token;
    state.token = null;
    state.user = null;
    storage.remove();
    render();
    return revoke(previous);
  }

  function restoreSession() {
    var token = storage.get();
    if (!token) { return Promise.resolve(); }
    return api('GET', '/api/pub/me', undefined, token).then(function (result) {
      if (result.status === 200 && result.data && result.data.user) {
        state.token = token;
        state.user = result.data.user;
        render();
      } else {
        storage.remove();
      }
    }, function () { /* offline: keep the token for the next launch */ });
  }

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

  function onMessage(event) {
    // Only messages this page posted to itself: a frame or another origin
    // cannot sign anybody in or out.
    if (event.source !== window || event.origin !== location.origin) { return; }
    if (typeof event.data !== 'string') { return; }
    var message;
    try { message = JSON.parse(event.data); } catch (e) { return; }
    if (!message || typeof message !== 'object') { return; }
    if (message.info === 'sso-login') {
      // Without api_public_key SSO is off: ignored silently, no request, no log (spec 5.1).
      if (!config.apiPublicKey || typeof message.data !== 'string' || !message.data) { return; }
      var ssoData = message.data;
      inSessionQueue(function () { return ssoLogin(ssoData); });
    } else if (message.info === 'sso-logout') {
      inSessionQueue(clearSession);
    }
  }

  // ---- comments ----

  function loadComments() {
    var query = '?website_id=' + encodeURIComponent(config.websiteId) + '&uid=' + encodeURIComponent(config.uid);
    return api('GET', '/api/pub/comments' + query).then(function (result) {
      if (result.status !== 200 || !result.data) {
        setStatus('Comments could not be loaded (' + reasonOf(result) + ').');
        return;
      }
      state.comments = result.data.comments || [];
      state.loaded = true;
      render();
      emit('gc-loaded', { count: state.comments.length });
    }, function () {
      setStatus('Comments could not be loaded (network error).');
    });
  }

  function upsertComment(comment) {
    var kept = state.comments.filter(function (c) { return c.id !== comment.id; });
    if (comment.status !== 'deleted') { kept.push(comment); }
    kept.sort(function (a, b) { return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0; });
    state.comments = kept;
  }

  function requireUser() {
    if (state.token) { return true; }
    if (config.apiPublicKey) {
      showNotice('Sign in with the app to comment.');
      emit('gc-sso-auth');
    } else {
      showNotice('Sign in or create an account to comment.');
    }
    return false;
  }

  function afterAuthFailure(result) {
    // An expired session signs the user out; it is not a gc-sso-auth path (spec 6.2).
    if (result.status === 401) {
      showNotice('Your session has ended; sign in again.');
      return clearSession();
    }
    showNotice('That did not work (' + reasonOf(result) + ').');
    return Promise.resolve();
  }

  function postComment(content, parentId) {
    if (!requireUser()) { return Promise.resolve(false); }
    var body = {
      website_id: config.websiteId, uid: config.uid, url: config.url,
      page_title: config.pageTitle, content: content
    };
    if (parentId) { body.parent_id = parentId; }
    return api('POST', '/api/pub/comments', body, state.token).then(function (result) {
      if (result.status === 201 && result.data) {
        upsertComment(result.data);
        state.replyTo = null;
        showNotice('');
        render();
        return true;
      }
      return afterAuthFailure(result).then(function () { return false; });
    });
  }

  function editComment(id, content) {
    return api('PATCH', '/api/pub/comments/' + encodeURIComponent(id), { content: content }, state.token)
      .then(function (result) {
        if (result.status === 200 && result.data) {
          upsertComment(result.data);
          state.editing = null;
          render();
        } else {
          return afterAuthFailure(result);
        }
      });
  }

  function deleteComment(id) {
    return api('DELETE', '/api/pub/comments/' + encodeURIComponent(id), undefined, state.token)
      .then(function (result) {
        if (result.status === 200 && result.data) {
          upsertComment(result.data);
          state.confirmDelete = null;
          render();
        } else {
          return afterAuthFailure(result);
        }
      });
  }

  // ---- own accounts (no api_public_key) ----

  function accountSubmit(path, form, fields) {
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

  // ---- rendering (textContent only: comments and names are user content) ----

  var $ = function (testid) { return document.querySelector('[data-testid="' + testid + '"]'); };

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function button(label, testid, onClick) {
    var node = el('button', { type: 'button', 'data-testid': testid, 'class': 'gc-link' }, label);
    node.addEventListener('click', onClick);
    return node;
  }

  function setStatus(text) {
    var node = $('status');
    if (!node) { return; }
    node.textContent = text;
    node.hidden = !text;
  }

  function showNotice(text) {
    var node = $('notice');
    if (!node) { return; }
    node.textContent = text;
    node.hidden = !text;
  }

  function initials(name) {
    var words = String(name || '?').trim().split(/\s+/).slice(0, 2);
    return words.map(function (w) { return w.charAt(0).toUpperCase(); }).join('') || '?';
  }

  function formatDate(iso) {
    var date = new Date(iso);
    return isNaN(date.getTime()) ? '' : date.toLocaleString();
  }

  function textForm(testid, initial, submitLabel, onSubmit, onCancel) {
    var form = el('form', { 'class': 'gc-inline-form', 'data-testid': testid, method: 'post' });
    var area = el('textarea', { name: 'content', rows: '2', maxlength: '10000' });
    area.value = initial || '';
    form.appendChild(area);
    form.appendChild(el('button', { type: 'submit' }, submitLabel));
    form.appendChild(button('Cancel', testid + '-cancel', onCancel));
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var content = area.value.trim();
      if (content) { onSubmit(content); }
    });
    return form;
  }

  function renderComment(comment, children) {
    var own = !!(state.user && comment.author && comment.author.id === state.user.id);
    var item = el('li', { 'class': 'gc-comment', 'data-testid': 'comment', 'data-comment-id': comment.id });
    var author = comment.author || {};
    var head = el('div', { 'class': 'gc-comment-head' });
    head.appendChild(el('span', { 'class': 'gc-avatar', 'aria-hidden': 'true' }, initials(author.name)));
    head.appendChild(el('span', { 'class': 'gc-author', 'data-testid': 'author' }, author.name || 'Anonymous'));
    var time = el('time', { datetime: comment.created_at }, formatDate(comment.created_at));
    head.appendChild(time);
    if (comment.updated_at && comment.updated_at !== comment.created_at) {
      head.appendChild(el('span', { 'class': 'gc-edited' }, '(edited)'));
    }
    item.appendChild(head);

    if (state.editing === comment.id) {
      item.appendChild(textForm('edit-form', comment.content, 'Save',
        function (content) { editComment(comment.id, content); },
        function () { state.editing = null; render(); }));
    } else {
      item.appendChild(el('p', { 'class': 'gc-content', 'data-testid': 'content' }, comment.content));
    }

    var actions = el('div', { 'class': 'gc-actions' });
    actions.appendChild(button('Reply', 'reply', function () {
      if (!requireUser()) { return; }
      state.replyTo = comment.id;
      render();
    }));
    if (own) {
      actions.appendChild(button('Edit', 'edit', function () { state.editing = comment.id; render(); }));
      if (state.confirmDelete === comment.id) {
        actions.appendChild(button('Confirm delete', 'confirm-delete', function () { deleteComment(comment.id); }));
      } else {
        actions.appendChild(button('Delete', 'delete', function () { state.confirmDelete = comment.id; render(); }));
      }
    }
    item.appendChild(actions);

    if (state.replyTo === comment.id) {
      item.appendChild(textForm('reply-form', '', 'Reply',
        function (content) { postComment(content, comment.id); },
        function () { state.replyTo = null; render(); }));
    }
    if (children.length) {
      var list = el('ol', { 'class': 'gc-replies' });
      children.forEach(function (child) { list.appendChild(child); });
      item.appendChild(list);
    }
    return item;
  }

  function renderComments() {
    var byParent = {};
    var ids = {};
    state.comments.forEach(function (c) { ids[c.id] = true; });
    state.comments.forEach(function (c) {
      // A reply whose parent was deleted is shown at the top level.
      var key = c.parent_id && ids[c.parent_id] ? c.parent_id : '';
      (byParent[key] = byParent[key] || []).push(c);
    });
    function build(parentKey, depth) {
      return (byParent[parentKey] || []).map(function (c) {
        return renderComment(c, depth < 8 ? build(c.id, depth + 1) : []);
      });
    }
    var list = $('comments');
    list.replaceChildren.apply(list, build('', 0));
    if (state.loaded) {
      setStatus(state.comments.length ? '' : 'No comments yet. Be the first.');
    }
  }

  function render() {
    if (!$('session')) { return; }  // before the document is parsed
    var user = state.user;
    document.documentElement.setAttribute('data-gc-session', user ? 'signed-in' : 'signed-out');
    var status = $('session');
    if (user) {
      status.textContent = 'Signed in as ' + (user.name || user.username) + ' (@' + user.username + ')';
    } else {
      status.textContent = config.apiPublicKey ? 'Not signed in. Sign in with the app to comment.' : 'Not signed in.';
    }
    // SSO sessions belong to the app; own-account sessions are ended here.
    $('sign-out').hidden = !user || !!config.apiPublicKey;
    $('accounts').hidden = !!user || !!config.apiPublicKey;
    renderComments();
  }

  // ---- wiring ----

  function domContentLoadedFired() {
    var nav = performance.getEntriesByType ? performance.getEntriesByType('navigation')[0] : null;
    return nav ? nav.domContentLoadedEventStart > 0 : document.readyState === 'complete';
  }

  function wire() {
    $('page-title').textContent = config.pageTitle;
    $('compose').addEventListener('submit', function (event) {
      event.preventDefault();
      var area = event.target.elements.content;
      var content = area.value.trim();
      if (!content) { return; }
      postComment(content, null).then(function (ok) { if (ok) { area.value = ''; } });
    });
    $('sign-out').addEventListener('click', function () { inSessionQueue(clearSession); });
    $('sign-in-form').addEventListener('submit', function (event) {
      event.preventDefault();
      inSessionQueue(function () {
        return accountSubmit('/api/pub/auth/login', event.target, ['username', 'password']);
      });
    });
    $('register-form').addEventListener('submit', function (event) {
      event.preventDefault();
      inSessionQueue(function () {
        return accountSubmit('/api/pub/auth/register', event.target, ['username', 'email', 'password']);
      });
    });
    render();
    emit('gc-ready');
  }

  // The listener goes in first so that an sso-login injected right after
  // gc-ready is never missed; a stored session is restored before any login.
  window.addEventListener('message', onMessage);
  inSessionQueue(restoreSession);
  loadComments();
  // gc-ready goes out from a DOMContentLoaded listener (this script is
  // deferred, so DOMContentLoaded is still to come): a bridge installed at
  // document end runs after this listener, but before the message is dispatched.
  if (domContentLoadedFired()) {
    wire();
  } else {
    document.addEventListener('DOMContentLoaded', wire);
  }
}());
