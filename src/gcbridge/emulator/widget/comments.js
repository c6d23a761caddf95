/**
 * gc widget: the thread's comments. Loading them (then gc-loaded), keeping the
 * list in order, and posting, editing and deleting as the signed-in user; a
 * guest is asked to sign in (gc-sso-auth on SSO pages).
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

function afterAuthFailure(result) {
  // An expired session signs the user out; it is not a gc-sso-auth path (spec 6.2).
  if (result.status === 401) {
    showNotice('Your session has ended; sign in again.');
    return clearSession();
  }
  showNotice('That did not work (' + reasonOf(result) + ').');
  return Promise.resolve();
}

export function postComment(content, parentId) {
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

export function editComment(id, content) {
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

export function deleteComment(id) {
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
