/**
 * The app's side of the gc-bridge protocol as a pure state machine: inputs in, effects out.
 *
 * No React, no react-native, no WebView: `GcCommentsWebView` feeds it what happens (a bridge
 * message, the app's login state, a fetch result, a reload) and performs the effects it
 * returns. `bridge/protocol/app-protocol.json` lists the cases it is held to; the same table
 * runs against the Kotlin and Python coordinators (`make kits-check`).
 *
 * The WebView's life is input too: a new document (`pageStarted`), a page back from the
 * back-forward cache (`restored`), a dead content process (`contentTerminated` -> `reload`), the
 * app back in the foreground (`resume(seconds)`; the glue measures the time away). An answer to
 * a fetch made for another document, or before a resume, is never injected.
 *
 * The widget is signed in as exactly the app's user, and nobody else: with SSO on and no app
 * user, a widget that becomes ready is signed out (it may have restored a previous user's session
 * from its storage), once per document; a sign-out or a user switch before ready is applied when
 * it is ready. `keepWidgetSession: true` leaves a signed-out app's widget to the service's own
 * accounts (the app's own sign-out still lands).
 */

/** The bridge protocol these decisions belong to (`app-protocol.json` `protocol`). */
export const APP_PROTOCOL = 1;

/** Widget events after which the app fetches and injects ssoData (docs/explanation/service.md#the-widgets-events). */
export const DEFAULT_TRIGGERS: readonly string[] = ['gc-ready', 'gc-loaded', 'gc-sso-auth'];

/**
 * React Native on Android: `injectedJavaScriptBeforeContentLoaded` is evaluated from `onPageStarted`
 * and races the page's scripts (react-native-webview docs/Reference.md and #1609), so the bridge
 * may miss both gc-ready and gc-loaded: page finished (`onLoad`) is a trigger too, as on Android.
 */
export const ANDROID_TRIGGERS: readonly string[] = [...DEFAULT_TRIGGERS, 'page-finished'];

/** The triggers of the platform React Native runs on (`Platform.OS`). */
export function triggersFor(os: string): readonly string[] {
  return os === 'android' ? ANDROID_TRIGGERS : DEFAULT_TRIGGERS;
}

/** Default: a ready widget is signed out while the app has no user (its stored session goes). */
export const KEEP_WIDGET_SESSION = false;

const READY_EVENTS = ['gc-ready', 'gc-loaded'];
const KNOWN_EVENTS = ['gc-ready', 'gc-loaded', 'gc-sso-auth', 'gc-sso-conflict'];
/** bridge.js forwards at most 64 KiB (UTF-16 code units); anything larger is not from it. */
const MAX_CHARS = 65536;
const MAX_DEPTH = 32;
const MAX_CONFLICT_ROUNDS = 3;
/** How long the service accepts ssoData after its timestamp; a resume this late re-injects. */
export const SSO_LIFETIME_SECONDS = 300;

/** What the glue does; `ssoData` appears in `login` only. */
export type SsoEffect =
  | { do: 'fetch'; fetch: number; user: string; trigger: string }
  | { do: 'login'; ssoData: string; trigger: string }
  | { do: 'logout' }
  | { do: 'ask-conflict'; conflict: number; username: string }
  | { do: 'discard'; reason: string }
  | { do: 'error'; reason: string; error: string }
  | { do: 'ignore'; reason: string }
  | { do: 'reload'; reason: 'content-process-terminated' }
  | { do: 'notify'; name: string; event: { name: string; [field: string]: unknown } };

export interface SsoCoordinatorOptions {
  /** Identity of the app's signed-in user (any string), null when signed out. */
  user?: string | null;
  /** False without api_public_key: the widget would ignore gcSsoLogin, so nothing is done. */
  sso?: boolean;
  triggers?: readonly string[];
  /**
   * True: while the app has no user, the widget may keep a session of the service's own accounts
   * (an app that lets signed-out users sign in there); the app's own sign-out still lands.
   */
  keepWidgetSession?: boolean;
}

const ignore = (reason: string): SsoEffect => ({ do: 'ignore', reason });

/**
 * Whether a ready widget is signed out while the app has no user: always, unless the app keeps the
 * widget's own session; even then when the app's sign-out came before the widget was ready.
 */
export function signsOutAtReady(keepWidgetSession: boolean, logoutOwed: boolean): boolean {
  return logoutOwed || !keepWidgetSession;
}

/** Whether `text` nests at most `limit` objects/arrays (one linear scan, as bridge.js). */
function withinDepth(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') {
        i += 1;
      } else if (c === '"') {
        inString = false;
      }
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      depth += 1;
      if (depth > limit) {
        return false;
      }
    } else if (c === '}' || c === ']') {
      depth -= 1;
    }
  }
  return true;
}

export class SsoCoordinator {
  user: string | null;
  readonly sso: boolean;
  readonly triggers: readonly string[];
  readonly keepWidgetSession: boolean;
  ready = false;
  private next = 0;
  private fetching: number | null = null;
  private fetchTrigger = '';
  private asking: number | null = null;
  private askedUsername = '';
  private resolved = new Set<string>();
  private rounds = 0;
  /** page-finished already seen for this document. */
  private finished = false;
  /** fetch / conflict id -> why its later answer is discarded. */
  private stale = new Map<number, string>();
  /** A logout went to this document. */
  private signedOut = false;
  /** The app signed out while no document was ready. */
  private logoutOwed = false;

  constructor(options: SsoCoordinatorOptions = {}) {
    this.user = options.user ?? null;
    this.sso = options.sso ?? true;
    this.triggers = [...(options.triggers ?? DEFAULT_TRIGGERS)];
    this.keepWidgetSession = options.keepWidgetSession ?? KEEP_WIDGET_SESSION;
  }

  /** A string the bridge forwarded; `fromWidget`: the glue's sender check passed. */
  message(data: string, fromWidget = true): SsoEffect[] {
    if (!fromWidget) {
      return [ignore('foreign')];
    }
    if (data.length > MAX_CHARS) {
      return [ignore('oversized')];
    }
    if (!withinDepth(data, MAX_DEPTH)) {
      return [ignore('too-deep')];
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return [ignore('malformed')];
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return [ignore('unnamed')];
    }
    const event = parsed as { name?: unknown; username?: unknown };
    if (typeof event.name !== 'string') {
      return [ignore('unnamed')];
    }
    const name = event.name;
    if (READY_EVENTS.includes(name)) {
      this.ready = true;
    }
    let effects: SsoEffect[];
    if (name === 'gc-sso-conflict') {
      effects = this.conflict(event.username);
    } else if (this.triggers.includes(name)) {
      effects = this.trigger(name);
    } else if (KNOWN_EVENTS.includes(name)) {
      effects = [ignore('not-a-trigger')];
    } else {
      effects = [ignore('unknown-event')];
    }
    return [...effects, { do: 'notify', name, event: event as { name: string } }];
  }

  /** The main frame finished loading the widget page. */
  pageFinished(): SsoEffect[] {
    if (this.finished) {
      return [ignore('already-finished')]; // Android reports some documents twice
    }
    this.finished = true;
    this.ready = true;
    if (!this.triggers.includes('page-finished')) {
      return [ignore('not-a-trigger')];
    }
    return this.trigger('page-finished');
  }

  /** The app's own user signed in, switched or re-authenticated. */
  appLogin(user: string): SsoEffect[] {
    this.newLoginState(user);
    return this.trigger('app-login');
  }

  /** The app's own user signed out. */
  appLogout(): SsoEffect[] {
    this.newLoginState(null);
    if (!this.sso) {
      return [ignore('sso-off')];
    }
    if (!this.ready) {
      this.logoutOwed = true; // applied when the widget is ready
      return [ignore('not-ready')];
    }
    return this.logout();
  }

  /** The answer to a `fetch` effect: ssoData, null (no app session), or an error. */
  fetchResult(fetch: number, ssoData: string | null, error?: string): SsoEffect[] {
    if (fetch !== this.fetching) {
      return [{ do: 'discard', reason: this.staleReason(fetch) }];
    }
    this.fetching = null;
    if (error !== undefined) {
      return [{ do: 'logout' }, { do: 'error', reason: 'fetch-failed', error }];
    }
    if (!ssoData) {
      return [{ do: 'logout' }];
    }
    return [{ do: 'login', ssoData, trigger: this.fetchTrigger }];
  }

  /** The answer to an `ask-conflict` effect: new ssoData, null (cancelled), or an error. */
  conflictResult(conflict: number, ssoData: string | null, error?: string): SsoEffect[] {
    if (conflict !== this.asking) {
      return [{ do: 'discard', reason: this.staleReason(conflict) }];
    }
    this.asking = null;
    if (error !== undefined) {
      return [{ do: 'error', reason: 'conflict-failed', error }];
    }
    if (!ssoData) {
      return [ignore('conflict-cancelled')];
    }
    this.resolved.add(this.askedUsername.toLowerCase());
    return [{ do: 'login', ssoData, trigger: 'gc-sso-conflict' }];
  }

  /** The main frame starts loading a page (launch, reload, navigation): wait for ready. */
  relaunch(): SsoEffect[] {
    this.ready = false;
    this.finished = false;
    this.signedOut = false;
    this.fetching = null;
    this.asking = null;
    return [];
  }

  /** A new document started loading in this view (reload, navigation, a new WebView). */
  pageStarted(): SsoEffect[] {
    this.newDocument();
    return [];
  }

  /** The page came back from the back-forward cache: ready, but its login may be old. */
  restored(): SsoEffect[] {
    this.orphan('stale-document', true);
    this.ready = true;
    this.finished = true;
    this.signedOut = false; // what happened to it while it was away is unknown
    return this.trigger('restored');
  }

  /** The web content process died (blank view, dead bridge): reload the page. */
  contentTerminated(): SsoEffect[] {
    this.newDocument();
    return [{ do: 'reload', reason: 'content-process-terminated' }];
  }

  /** The app came back to the foreground after `seconds` away. */
  resume(seconds: number): SsoEffect[] {
    const wasFetching = this.fetching !== null;
    this.orphan('fetched-before-resume', false); // an open conflict question stays open
    if (!(wasFetching || seconds >= SSO_LIFETIME_SECONDS)) {
      return [];
    }
    if (!this.sso || !this.ready || this.user === null) {
      return [];
    }
    return this.trigger('resume');
  }

  private staleReason(id: number): string {
    const reason = this.stale.get(id) ?? 'stale';
    this.stale.delete(id);
    return reason;
  }

  /** Answers in flight (fetches; conflicts when asked) are discarded with `reason`. */
  private orphan(reason: string, conflicts: boolean): void {
    if (this.fetching !== null) {
      this.stale.set(this.fetching, reason);
      this.fetching = null;
    }
    if (conflicts && this.asking !== null) {
      this.stale.set(this.asking, reason);
      this.asking = null;
    }
  }

  private newDocument(): void {
    this.orphan('stale-document', true);
    this.ready = false;
    this.finished = false;
    this.signedOut = false;
  }

  private newLoginState(user: string | null): void {
    this.user = user;
    this.logoutOwed = false; // a login at ready replaces whatever session the widget has
    this.fetching = null; // a fetch for the previous state is stale from now on
    this.asking = null;
    this.resolved.clear();
    this.rounds = 0;
  }

  private trigger(trigger: string): SsoEffect[] {
    if (!this.sso) {
      return [ignore('sso-off')];
    }
    if (!this.ready) {
      return [ignore('not-ready')];
    }
    if (this.user === null) {
      return this.noAppUser();
    }
    if (this.fetching !== null) {
      return [ignore('fetch-in-flight')];
    }
    this.next += 1;
    this.fetching = this.next;
    this.fetchTrigger = trigger;
    return [{ do: 'fetch', fetch: this.next, user: this.user, trigger }];
  }

  /** A ready widget and nobody signed in to the app: sign it out, once per document. */
  private noAppUser(): SsoEffect[] {
    if (this.signedOut || !signsOutAtReady(this.keepWidgetSession, this.logoutOwed)) {
      return [ignore('signed-out')];
    }
    return this.logout();
  }

  private logout(): SsoEffect[] {
    this.signedOut = true;
    this.logoutOwed = false;
    return [{ do: 'logout' }];
  }

  private conflict(username: unknown): SsoEffect[] {
    if (!this.sso) {
      return [ignore('sso-off')];
    }
    if (this.user === null) {
      return [ignore('signed-out')];
    }
    if (typeof username !== 'string' || username === '') {
      return [ignore('no-username')];
    }
    if (this.asking !== null) {
      return [ignore('conflict-pending')];
    }
    if (this.resolved.has(username.toLowerCase())) {
      return [ignore('conflict-resolved')];
    }
    if (this.rounds >= MAX_CONFLICT_ROUNDS) {
      return [ignore('too-many-conflicts')];
    }
    this.rounds += 1;
    this.next += 1;
    this.asking = this.next;
    this.askedUsername = username;
    return [{ do: 'ask-conflict', conflict: this.next, username }];
  }
}
