/**
 * gc widget: DOM building blocks. Lookup by data-testid, element creation with
 * textContent only (comments and names are user content, never HTML), the links
 * an author wrote (opened in a new window), and the status and notice lines.
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

// The status and notice lines: hidden while empty.
function showLine(testid, text) {
  var node = $(testid);
  if (!node) { return; }
  node.textContent = text;
  node.hidden = !text;
}

export function setStatus(text) { showLine('status', text); }
export function showNotice(text) { showLine('notice', text); }

// http(s) addresses in a comment's text; trailing punctuation stays text.
var LINK = /\bhttps?:\/\/[^\s<>"']+/g;
var TRAILING = /[.,;:!?)\]]+$/;

/**
 * `text` as text nodes, with each http(s) address an author wrote as a link that opens
 * in a new window (target=_blank): a comment's links leave the comments page, as on any
 * comment widget. Never HTML: the address is an attribute and the link's text.
 */
export function withLinks(text) {
  var out = document.createDocumentFragment();
  var at = 0;
  String(text).replace(LINK, function (found, offset) {
    var href = found.replace(TRAILING, '');
    try { new URL(href); } catch (e) { return found; }  // not an address after all: text
    out.appendChild(document.createTextNode(String(text).slice(at, offset)));
    out.appendChild(el('a', {
      href: href, target: '_blank', rel: 'noopener noreferrer ugc', 'data-testid': 'link'
    }, href));
    at = offset + href.length;
    return found;
  });
  out.appendChild(document.createTextNode(String(text).slice(at)));
  return out;
}
