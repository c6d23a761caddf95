/**
 * What the WebView's callbacks cannot tell the app: a page restored from the back-forward
 * cache. No navigation callback of react-native-webview says "restored" (and no injected
 * script runs again for such a page), so a few lines next to bridge.js listen for `pageshow`
 * with `persisted` and post {@link RESTORED_MESSAGE} through `window.ReactNativeWebView`; the
 * component hands it to `SsoCoordinator.restored()` instead of `message()`.
 */

/** The exact string the lifecycle script posts when the page comes back from the cache. */
export const RESTORED_MESSAGE = '{"gcLifecycle":"restored"}';

/**
 * Installed once per document (a second injection finds its marker and does nothing), so a
 * restore is reported once, however many times the kit injected its scripts.
 */
export const LIFECYCLE_SCRIPT = `(function () {
  if (window.__gcLifecycleInstalled) { return; }
  Object.defineProperty(window, '__gcLifecycleInstalled', { value: true });
  window.addEventListener('pageshow', function (event) {
    if (event.persisted && window.ReactNativeWebView) {
      window.ReactNativeWebView.postMessage(${JSON.stringify(RESTORED_MESSAGE)});
    }
  });
})();`;
