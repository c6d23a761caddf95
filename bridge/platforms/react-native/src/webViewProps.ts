/**
 * The kit's WebView host rules, pure (no react-native import: Node tests pin them): the user
 * agent token, which WebView props the app may pass through, which load failures are the
 * widget's, and where a link goes. The same rules as the iOS and Android kits' policies.
 */
import { BRIDGE_VERSION } from './bridgeSource';
import { originOf } from './protocol';

/** `gc-bridge/<version>` (the bridge.js version this kit embeds), appended to the user agent. */
export const USER_AGENT_TOKEN = `gc-bridge/${BRIDGE_VERSION}`;

/** `applicationNameForUserAgent` with the kit's token appended once. */
export function withUserAgentToken(applicationName?: string | null): string {
  const base = (applicationName ?? '').trim();
  if (base.split(' ').includes(USER_AGENT_TOKEN)) {
    return base;
  }
  return base === '' ? USER_AGENT_TOKEN : `${base} ${USER_AGENT_TOKEN}`;
}

/**
 * WebView props the kit sets itself: the source, the injection, the channel and the callbacks
 * its SSO loop and sender checks depend on. `webViewProps` cannot override them (the type
 * omits them, and `passThrough` drops them at run time for callers without TypeScript).
 */
export const KIT_OWNED_PROPS = [
  'source',
  'injectedJavaScript',
  'injectedJavaScriptBeforeContentLoaded',
  'injectedJavaScriptForMainFrameOnly',
  'injectedJavaScriptBeforeContentLoadedForMainFrameOnly',
  'injectedJavaScriptObject',
  'onMessage',
  'onLoadStart',
  'onLoad',
  'onError',
  'onHttpError',
  'onContentProcessDidTerminate',
  'onRenderProcessGone',
  'onNavigationStateChange',
  'onShouldStartLoadWithRequest',
  'javaScriptEnabled',
  'domStorageEnabled',
  'incognito',
  'setSupportMultipleWindows',
  'applicationNameForUserAgent',
  'webviewDebuggingEnabled',
] as const;

export type KitOwnedProp = (typeof KIT_OWNED_PROPS)[number];

/** The app's extra WebView props without the kit's own. */
export function passThrough<T extends object>(props: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (!props) {
    return out;
  }
  for (const [key, value] of Object.entries(props)) {
    if (!(KIT_OWNED_PROPS as readonly string[]).includes(key)) {
      (out as Record<string, unknown>)[key] = value;
    }
  }
  return out;
}

/** Safari Web Inspector / chrome://inspect: the app's choice, else on in development only. */
export function debuggingEnabled(explicit: boolean | undefined, isDevelopment: boolean): boolean {
  return explicit ?? isDevelopment;
}

/** A load failure the widget's own: its page (main frame, its origin), not a load cancelled by a newer one. */
export interface GcLoadError {
  url: string | null;
  /** `code` and `description` from react-native-webview's `onError` (iOS: NSURLError codes, Android: WebViewClient.ERROR_*). */
  code?: number;
  description?: string;
  domain?: string;
  /** From `onHttpError`: a status >= 400. */
  httpStatus?: number;
  /** The web content process died too often in a minute (see `crashGuard.ts`). */
  crashLoop?: boolean;
}

/** False for a load that was cancelled (iOS NSURLErrorCancelled, WebKit's "interrupted by policy change"). */
export function isLoadError(domain: string | undefined, code: number): boolean {
  if (domain === 'NSURLErrorDomain' && code === -999) {
    return false;
  }
  if (domain === 'WebKitErrorDomain' && code === 102) {
    return false;
  }
  return true;
}

/** An HTTP status that leaves no widget on the page. */
export function isErrorStatus(status: number): boolean {
  return status >= 400;
}

/** Whether a failed load at `url` is the widget's page. */
export function isWidgetPage(url: string | null | undefined, widgetOrigin: string | null): boolean {
  return widgetOrigin !== null && originOf(url ?? null) === widgetOrigin;
}

export type LinkAction = 'stay' | 'browser' | 'os' | 'block';

const OS_SCHEMES = new Set(['mailto', 'tel', 'sms', 'smsto', 'geo', 'maps']);

/**
 * Where a navigation goes: the widget's origin stays, other pages open in the system browser,
 * `mailto:` / `tel:` / `sms:` / `geo:` in the user's apps, anything else in the top frame is
 * refused; a sub-frame's own loads stay in it.
 */
export function linkAction(url: string, widgetOrigin: string | null, isTopFrame: boolean): LinkAction {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
  if (match === null) {
    return 'block';
  }
  const scheme = match[1].toLowerCase();
  if (OS_SCHEMES.has(scheme)) {
    return 'os';
  }
  if (!isTopFrame) {
    return 'stay'; // a sub-frame's own loads (an embed, about:srcdoc, blob:) are the frame's business
  }
  if (scheme === 'http' || scheme === 'https') {
    return widgetOrigin !== null && originOf(url) === widgetOrigin ? 'stay' : 'browser';
  }
  return url === 'about:blank' ? 'stay' : 'block';
}
