/**
 * gc widget: DOM building blocks. Lookup by data-testid, element creation with
 * textContent only (comments and names are user content, never HTML), and the
 * status and notice lines.
 */

export var $ = function (testid) { return document.querySelector('[data-testid="' + testid + '"]'); };

export function el(tag, attrs, text) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
  if (text !== undefined && text !== null) { node.textContent = String(text); }
  return node;
}

export function button(label, testid, onClick) {
  var node = el('button', { type: 'button', 'data-testid': testid, 'class': 'gc-link' }, label);
  node.addEventListener('click', onClick);
  return node;
}

export function setStatus(text) {
  var node = $('status');
  if (!node) { return; }
  node.textContent = text;
  node.hidden = !text;
}

export function showNotice(text) {
  var node = $('notice');
  if (!node) { return; }
  node.textContent = text;
  node.hidden = !text;
}
