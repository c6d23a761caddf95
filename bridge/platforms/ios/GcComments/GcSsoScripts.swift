import Foundation

/// The JavaScript the kit evaluates in the widget's page, built by JSON-encoding: ssoData is
/// data, never code, whatever characters it holds (quotes, backslashes, U+2028, emoji, `</script>`).
enum GcSsoScripts {
    /// `window.gcSsoLogin(<ssoData as a JSON string literal>)`; nil if it cannot be encoded.
    static func login(_ ssoData: String) -> String? {
        guard let literal = javaScriptString(ssoData) else {
            return nil
        }
        return "window.gcSsoLogin && window.gcSsoLogin(\(literal))"
    }

    /// `window.gcSsoLogout()`.
    static let logout = "window.gcSsoLogout && window.gcSsoLogout()"

    /// `value` as a JavaScript string literal (JSON encoding).
    static func javaScriptString(_ value: String) -> String? {
        guard let data = try? JSONEncoder().encode(value) else {
            return nil
        }
        return String(data: data, encoding: .utf8)
    }

    /// What the lifecycle script posts when the page comes back from the back-forward cache.
    static let restoredMessage = #"{"gcLifecycle":"restored"}"#

    /// Reports a back-forward cache restore (`pageshow` with `persisted`) to the `gcBridge`
    /// handler, once per document: WebKit runs no user script again for a restored page, and
    /// no navigation delegate callback says "restored". Injected with bridge.js, in its world.
    static let lifecycleScript = """
    (function () {
      if (window.__gcLifecycleInstalled) { return; }
      Object.defineProperty(window, '__gcLifecycleInstalled', { value: true });
      window.addEventListener('pageshow', function (event) {
        var handlers = window.webkit && window.webkit.messageHandlers;
        if (event.persisted && handlers && handlers.gcBridge) {
          handlers.gcBridge.postMessage('{"gcLifecycle":"restored"}');
        }
      });
    })();
    """
}
