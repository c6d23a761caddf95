/*
 * dom.js: the DOM helpers every part of the dashboard shares (lookup by id, element building,
 * setting text, the http(s) check for links). Text always goes through textContent, never markup.
 */

export function $(id) { return document.getElementById(id); }

/** Build an element; text goes through textContent, never markup. */
export function el(tag, opts, children) {
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

export function setText(id, text) { $(id).textContent = text === null || text === undefined ? '' : String(text); }

export function safeHttpUrl(url) {
  try {
    var u = new URL(url, location.href);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch (e) {
    return null;
  }
}
