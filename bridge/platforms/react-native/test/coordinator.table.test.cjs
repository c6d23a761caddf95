// Runs protocol/app-protocol.json (the kit's copy of bridge/protocol/app-protocol.json) against the compiled coordinator.ts with Node's
// built-in test runner, one test per case:
//   GC_COORDINATOR_JS=<build>/coordinator.js GC_APP_PROTOCOL=<table> node --test <this file>
// `python bridge/protocol/kits_check.py` compiles coordinator.ts with the kit's tsc and runs it.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const tablePath = process.env.GC_APP_PROTOCOL || path.join(__dirname, '..', 'protocol', 'app-protocol.json');
const { SsoCoordinator } = require(process.env.GC_COORDINATOR_JS || path.join(__dirname, '..', 'build-node', 'coordinator.js'));
const table = JSON.parse(fs.readFileSync(tablePath, 'utf8'));

function apply(coordinator, input) {
  switch (input.in) {
    case 'message':
      return coordinator.message(input.data + ' '.repeat(input.pad || 0), input.from_widget !== false);
    case 'page-finished':
      return coordinator.pageFinished();
    case 'app-login':
      return coordinator.appLogin(input.user);
    case 'app-logout':
      return coordinator.appLogout();
    case 'fetch-result':
      return coordinator.fetchResult(input.fetch, input.ssoData ?? null, input.error);
    case 'conflict-result':
      return coordinator.conflictResult(input.conflict, input.ssoData ?? null, input.error);
    case 'relaunch':
      return coordinator.relaunch();
    case 'page-started':
      return coordinator.pageStarted();
    case 'restored':
      return coordinator.restored();
    case 'content-terminated':
      return coordinator.contentTerminated();
    case 'resume':
      return coordinator.resume(input.seconds);
    default:
      throw new Error(`unknown input ${input.in}`);
  }
}

// notify also hands the glue the parsed event; the table compares the rest.
const comparable = (effects) => effects.map(({ event, ...rest }) => rest); // eslint-disable-line no-unused-vars

for (const c of table.cases) {
  test(c.name, () => {
    const setup = { ...table.defaults, ...c.setup };
    const views = new Map(); // one coordinator per WebView ("view", default "a")
    c.steps.forEach((step, index) => {
      const view = step.view || 'a';
      if (!views.has(view)) {
        views.set(
          view,
          new SsoCoordinator({
            user: setup.user,
            sso: setup.sso,
            triggers: setup.triggers,
            keepWidgetSession: setup.keep_widget_session,
          }),
        );
      }
      const where = `step ${index + 1}${step.view ? ` (view ${view})` : ''}: ${JSON.stringify(step.in).slice(0, 120)}`;
      assert.deepStrictEqual(comparable(apply(views.get(view), step.in)), step.out, where);
    });
  });
}
