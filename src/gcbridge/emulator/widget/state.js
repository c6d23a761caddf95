/**
 * gc widget: the thread this page shows (from the query string), the page's
 * mutable state, and the render hook every other module calls after a change
 * (main.js points it at view.js, so no module imports the view in a circle).
 */

var params = new URLSearchParams(location.search);

export var config = {
  websiteId: params.get('website_id') || '',
  uid: params.get('uid') || '',
  url: params.get('url') || '',
  pageTitle: params.get('page_title') || '',
  apiPublicKey: params.get('api_public_key') || null
};

export var state = {
  token: null,
  user: null,
  comments: [],
  loaded: false,
  replyTo: null,     // comment id whose reply form is open
  editing: null,     // comment id being edited
  attachment: null   // the file picked for the next comment: {name, type, size}
};

var renderer = function () { /* no view yet */ };

export function setRenderer(fn) {
  renderer = fn;
}

export function render() {
  renderer();
}
