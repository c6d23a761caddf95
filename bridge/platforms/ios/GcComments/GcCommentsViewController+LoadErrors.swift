#if canImport(UIKit) && canImport(WebKit)
import UIKit
import WebKit

/// Load errors of the widget's page (`WKNavigationDelegate`): without these, a failed first
/// load leaves a blank view with no way back. Decided by `GcChromePolicy`; the controller shows
/// its error view (or the app's) and calls `onLoadError` with a retry.
extension GcCommentsViewController {
    /// The main frame's load failed before any content (offline, DNS, TLS, timeout).
    public func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: Error) {
        navigationFailed(webView, error)
    }

    /// The main frame's load failed after it had started to show content.
    public func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: Error) {
        navigationFailed(webView, error)
    }

    /// An HTTP error status (4xx, 5xx) for the widget's page: no widget on it either.
    public func webView(
        _ webView: WKWebView,
        decidePolicyFor navigationResponse: WKNavigationResponse
    ) async -> WKNavigationResponsePolicy {
        if navigationResponse.isForMainFrame,
           let response = navigationResponse.response as? HTTPURLResponse,
           GcOrigin.of(response.url) == widgetOriginKey,
           GcChromePolicy.isErrorStatus(response.statusCode) {
            loadFailed(GcLoadError(url: response.url, httpStatus: response.statusCode))
            return .cancel
        }
        return .allow
    }

    private func navigationFailed(_ webView: WKWebView, _ error: Error) {
        let nsError = error as NSError
        guard GcChromePolicy.isLoadError(domain: nsError.domain, code: nsError.code) else {
            return
        }
        let url = nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL ?? webView.url
        // a page of another origin never loads here (it goes to the browser); be sure anyway
        if let url, GcOrigin.of(url) != nil, GcOrigin.of(url) != widgetOriginKey {
            return
        }
        loadFailed(GcLoadError(url: url, error: error))
    }
}
#endif
