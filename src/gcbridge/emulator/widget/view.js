/**
 * gc widget: rendering the page from its state. The session line, which
 * account forms show, and the comment tree with its reply, edit and delete
 * controls, each comment's links (opened in a new window) and attachment.
 * textContent only (through dom.js): comments and names are user content.
 */

import { deleteComment, editComment, postComment, requireUser } from './comments.js';
import { $, button, el, setStatus, withLinks } from './dom.js';
import { config, state } from './state.js';

function initials(name) {
  var words = String(name || '?').trim().split(/\s+/).slice(0, 2);
  return words.map(function (w) { return w.charAt(0).toUpperCase(); }).join('') || '?';
}

/** "name (12.3 kB)": an attachment as the page shows it. */
export function describeFile(file) {
  var size = Number(file.size) || 0;
  var shown = size < 1000 ? size + ' B' : (size / 1000).toFixed(1) + ' kB';
  return '\u{1F4CE} ' + file.name + ' (' + shown + ')';
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
    var content = el('p', { 'class': 'gc-content', 'data-testid': 'content' });
    content.appendChild(withLinks(comment.content));
    item.appendChild(content);
  }
  if (comment.attachment) {
    item.appendChild(el('p', { 'class': 'gc-attachment', 'data-testid': 'attachment' },
      describeFile(comment.attachment)));
  }

  var actions = el('div', { 'class': 'gc-actions' });
  actions.appendChild(button('Reply', 'reply', function () {
    if (!requireUser()) { return; }
    state.replyTo = comment.id;
    render();
  }));
  if (own) {
    actions.appendChild(button('Edit', 'edit', function () { state.editing = comment.id; render(); }));
    // As a real widget does, the page asks confirm(): the WebView's app answers it (a native
    // dialog), or, with no UI delegate / chrome client, answers false at once: nothing is deleted.
    actions.appendChild(button('Delete', 'delete', function () {
      if (window.confirm('Delete this comment?')) { deleteComment(comment.id); }
    }));
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

export function render() {
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
