/**
 * gc widget: the thread's comments. Loading them (then gc-loaded), keeping the
 * list in order, and posting (with an attachment, if one was picked), editing and
 * deleting as the signed-in user; a guest is asked to sign in (gc-sso-auth on SSO pages).
 */

import { api, reasonOf } from './api.js';
import { setStatus, showNotice } from './dom.js';
import { emit } from './messages.js';
import { clearSession } from './session.js';
import { config, render, state } from './state.js';

export function loadComments() {
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

export function requireUser() {
  if (state.token) { return true; }
  if (config.apiPublicKey) {
    showNotice('Sign in with the app to comment.');
    emit('gc-sso-auth');
  } else {
    showNotice('Sign in or create an account to comment.');
  }
  return false;
}

// A write sent with a session that a new login replaced while it was on its way
// (an app injects ssoData at page finished, gc-ready and gc-loaded; the replaced token
// is revoked) is sent again with the session now shown, as long as each 401 answers a
// session that has been replaced since (at most RESENDS times): the user's words are
// not lost, nor is the new session ended for an old one's 401. A 401 is no write, so
// sending again never writes twice.
var RESENDS = 4;

function asSignedIn(send) {
  function attempt(token, left) {
    return send(token).then(function (result) {
      if (result.status === 401 && left > 0 && state.token && state.token !== token) {
        return attempt(state.token, left - 1);
      }
      return { result: result, token: token };
    });
  }
  return attempt(state.token, RESENDS);
}

function afterAuthFailure(sent) {
  // An expired session signs the user out; it is not a gc-sso-auth path (docs/explanation/service.md#signing-the-apps-user-in).
  // (Only the session that failed: a newer one is the user's now.)
  if (sent.result.status === 401) {
    if (sent.token !== state.token) { return Promise.resolve(); }
    showNotice('Your session has ended; sign in again.');
    return clearSession();
  }
  showNotice('That did not work (' + reasonOf(sent.result) + ').');
  return Promise.resolve();
}

// A write of the user's comments: the comment answered (with status `ok`) replaces the
// listed one and the form that asked for it (closeForm) closes. True if it was written.
function writeComment(method, path, body, ok, closeForm) {
  return asSignedIn(function (token) {
    return api(method, path, body, token);
  }).then(function (sent) {
    if (sent.result.status === ok && sent.result.data) {
      upsertComment(sent.result.data);
      closeForm();
      render();
      return true;
    }
    return afterAuthFailure(sent).then(function () { return false; });
  });
}

export function postComment(content, parentId, attachment) {
  if (!requireUser()) { return Promise.resolve(false); }
  var body = {
    website_id: config.websiteId, uid: config.uid, url: config.url,
    page_title: config.pageTitle, content: content
  };
  if (parentId) { body.parent_id = parentId; }
  if (attachment) { body.attachment = attachment; }
  return writeComment('POST', '/api/pub/comments', body, 201, function () {
    state.replyTo = null;
    showNotice('');
  });
}

function changeComment(method, id, body, closeForm) {
  return writeComment(method, '/api/pub/comments/' + encodeURIComponent(id), body, 200, closeForm);
}

export function editComment(id, content) {
  return changeComment('PATCH', id, { content: content }, function () { state.editing = null; });
}

export function deleteComment(id) {
  return changeComment('DELETE', id, undefined, function () { /* no form to close */ });
}
