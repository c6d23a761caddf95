/*
 * catalog.js: the webhook event types, from GET /api/dashboard/events (public: no site data).
 * They fill every list of event types on the page; the same catalog is /openapi.json's `webhooks`.
 */

import { $, el } from './dom.js';
import { api, describe } from './api.js';

function eventEntry(event) {
  var example = el('details', { cls: 'example' }, [
    el('summary', { text: 'Example body' }),
    el('pre', { cls: 'block', text: JSON.stringify(event.example, null, 2) }),
  ]);
  var schemaLink = el('a', {
    text: 'JSON Schema',
    attrs: { href: event.schema_url, target: '_blank', rel: 'noopener noreferrer' },
  });
  return el('article', { cls: 'event-type', attrs: { 'data-event': event.event_type } }, [
    el('h3', {}, [el('code', { text: event.event_type })]),
    el('p', { cls: 'fires', text: event.fires_when }),
    el('p', { cls: 'links' }, [schemaLink]),
    example,
  ]);
}

function fillLists(events) {
  var boxes = $('setup-events');
  events.forEach(function (event) {
    var name = event.event_type;
    boxes.appendChild(el('label', {}, [
      el('input', { attrs: { type: 'checkbox', name: 'event', value: name, checked: '' } }),
      document.createTextNode(' ' + name),
    ]));
    $('test-buttons').appendChild(el('button', {
      text: name, attrs: { type: 'button', 'data-event': name, 'data-trigger': event.trigger },
    }));
    $('filter-event').appendChild(el('option', { text: name, attrs: { value: name } }));
  });
}

/** Fill the catalog card and the lists of event types (once, at start: it needs no token). */
export function initCatalog() {
  var list = $('catalog-events');
  return api('GET', '/api/dashboard/events', { bearer: null }).then(function (res) {
    var events = (res.body && res.body.events) || [];
    list.replaceChildren.apply(list, events.map(eventEntry));
    fillLists(events);
    $('catalog-any').setAttribute('href', res.body.any_event_schema_url);
    $('catalog-openapi').setAttribute('href', res.body.openapi_url);
  }, function (err) {
    list.replaceChildren(el('p', { cls: 'error', text: 'Could not load the event catalog: ' + describe(err) }));
  });
}
