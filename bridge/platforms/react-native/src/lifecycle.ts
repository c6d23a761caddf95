/**
 * What the WebView's callbacks cannot tell the app, told by the page itself, and the app's time
 * away, measured as the platform means it.
 *
 * A new document. react-native-webview's `onLoadStart` is no such signal: on Android it fires
 * from `doUpdateVisitedHistory`, for same-document navigations (`pushState`, a hash) too
 * (RNCWebViewClient.java; react-native-webview#2929), on iOS from `decidePolicyForNavigationAction`, fragments
 * included and before a load that may still fail (RNCWebViewImpl.m; react-native-webview#1049). So a few
 * lines next to bridge.js post {@link DOCUMENT_MESSAGE} once per document (or
 * {@link DOCUMENT_LOADED_MESSAGE} when they run after its load: on Android they are evaluated from
 * `onPageStarted`, racing the page, and again after the load); a same-document navigation runs no
 * injection and posts nothing, and neither does a load that fails before it commits.
 *
 * A restore from the back-forward cache: no navigation callback says "restored" (and no injected
 * script runs again for such a page), so the same lines listen for `pageshow` with `persisted`
 * and post {@link RESTORED_MESSAGE}.
 *
 * The component hands these to the coordinator ({@link lifecycleEffects}) instead of `message()`.
 */
import type { SsoCoordinator, SsoEffect } from './coordinator';

/** The exact string the lifecycle script posts when the page comes back from the cache. */
export const RESTORED_MESSAGE = '{"gcLifecycle":"restored"}';
/** ... when it runs in a new document still loading. */
export const DOCUMENT_MESSAGE = '{"gcLifecycle":"document","complete":false}';
/** ... when it runs in a new document that had loaded already (its `onLoad` may have come first). */
export const DOCUMENT_LOADED_MESSAGE = '{"gcLifecycle":"document","complete":true}';

/**
 * Installed once per document (a second injection finds its marker and does nothing), so a new
 * document and a restore are reported once, however many times the kit injected its scripts.
 */
export const LIFECYCLE_SCRIPT = `(function () {
  if (window.__gcLifecycleInstalled) { return; }
  Object.defineProperty(window, '__gcLifecycleInstalled', { value: true });
  if (window.ReactNativeWebView) {
    window.ReactNativeWebView.postMessage(document.readyState === 'complete'
      ? ${JSON.stringify(DOCUMENT_LOADED_MESSAGE)} : ${JSON.stringify(DOCUMENT_MESSAGE)});
  }
  window.addEventListener('pageshow', function (event) {
    if (event.persisted && window.ReactNativeWebView) {
      window.ReactNativeWebView.postMessage(${JSON.stringify(RESTORED_MESSAGE)});
    }
  });
})();`;

/**
 * The coordinator's answer to a lifecycle message from the widget's origin, or null when `data`
 * is none (a bridge message: hand it to `message()`). A new document that had loaded already is
 * a new document whose page finished.
 */
export function lifecycleEffects(
  coordinator: Pick<SsoCoordinator, 'pageStarted' | 'pageFinished' | 'restored'>,
  data: string,
): SsoEffect[] | null {
  switch (data) {
    case DOCUMENT_MESSAGE:
      return coordinator.pageStarted();
    case DOCUMENT_LOADED_MESSAGE:
      return [...coordinator.pageStarted(), ...coordinator.pageFinished()];
    case RESTORED_MESSAGE:
      return coordinator.restored();
    default:
      return null;
  }
}

/** The time away, as the app's `AppState` listener keeps it. */
export interface Away {
  /** When the app went to the background (the clock's milliseconds), null while in the foreground. */
  since: number | null;
  /** Seconds away when this change brought the app back, else null. */
  resumedAfter: number | null;
}

/**
 * The next {@link Away} after an `AppState` change to `state` at `now`. Only `background` is time
 * away: `inactive` is iOS's multitasking view, Notification Center, an incoming call or a Face ID
 * prompt (React Native's AppState docs), a blip after which nothing is stale; the app is back at
 * `active` (through `inactive` or not).
 */
export function awayAfter(state: string, since: number | null, now: number): Away {
  if (state === 'background') {
    return { since: since ?? now, resumedAfter: null };
  }
  if (state === 'active' && since !== null) {
    return { since: null, resumedAfter: Math.max(0, (now - since) / 1000) };
  }
  return { since, resumedAfter: null };
}

/**
 * Milliseconds of a monotonic clock: `performance.now()` (High Resolution Time: it is not moved by
 * the user or the network setting the wall clock, as `Date.now()` is), `Date.now()` where a runtime
 * lacks it.
 */
export function monotonicNow(): number {
  const performance = (globalThis as { performance?: { now?: () => number } }).performance;
  return typeof performance?.now === 'function' ? performance.now() : Date.now();
}
