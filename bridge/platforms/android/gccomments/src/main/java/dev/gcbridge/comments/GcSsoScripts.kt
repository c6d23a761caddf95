package dev.gcbridge.comments

/**
 * The JavaScript the kit evaluates in the widget's page, built by JSON-encoding ([GcJson.quote]):
 * ssoData is data, never code, whatever characters it holds. Pure Kotlin (no android.*), so the
 * suite runs it on a plain JVM and evaluates what it builds in a JavaScript engine.
 */
object GcSsoScripts {
    /** `window.gcSsoLogin(<ssoData as a JSON string literal>)`. */
    fun login(ssoData: String): String = "window.gcSsoLogin && window.gcSsoLogin(${GcJson.quote(ssoData)})"

    /** `window.gcSsoLogout()`. */
    const val LOGOUT = "window.gcSsoLogout && window.gcSsoLogout()"

    /** What the lifecycle script posts when the page comes back from the back-forward cache. */
    const val RESTORED_MESSAGE = "{\"gcLifecycle\":\"restored\"}"

    /**
     * Reports a back-forward cache restore (`pageshow` with `persisted`) through the kit's
     * channel, once per document however often it is injected. No WebViewClient callback says
     * "restored", and no injected script runs again for such a page.
     */
    val LIFECYCLE_SCRIPT: String = """(function () {
  if (window.__gcLifecycleInstalled) { return; }
  Object.defineProperty(window, '__gcLifecycleInstalled', { value: true });
  window.addEventListener('pageshow', function (event) {
    if (event.persisted && window.GcBridgeAndroid) {
      window.GcBridgeAndroid.postMessage(${GcJson.quote(RESTORED_MESSAGE)});
    }
  });
})();"""
}
