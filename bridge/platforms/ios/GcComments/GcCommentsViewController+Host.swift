#if canImport(UIKit) && canImport(WebKit)
import UIKit
import WebKit

/// Load errors, recovery from a dead web content process, and links: what the controller does
/// besides the SSO loop, decided by the pure policies (`GcChromePolicy`, `GcRecoveryPolicy`,
/// `GcLinkPolicy`). Without the load error handling, a failed first load leaves a blank view
/// with no way back.
extension GcCommentsViewController {
    // MARK: - Load errors and recovery

    /// Load the widget again (the error view's Retry, or your own after `onLoadError`): a fresh
    /// crash budget.
    public func retry() {
        crashGuard.reset()
        hideErrorView()
        recoveryPending = false
        webView?.load(URLRequest(url: widgetURL))
    }

    func applyInspectable() {
        if #available(iOS 16.4, *) {
            webView?.isInspectable = isInspectable
        }
    }

    /// Reloads after a dead web content process when `GcRecoveryPolicy` allows it: now, once the
    /// app is in the foreground and this screen in a window, or never (too many in a minute:
    /// the error view, whose Retry starts afresh).
    func recoverIfDue() {
        guard recoveryPending, let webView else {
            return
        }
        let visible = viewIfLoaded?.window != nil
        switch GcRecoveryPolicy.decide(crashGuard, now: clock(), foreground: backgroundSince == nil, visible: visible) {
        case .now:
            recoveryPending = false
            // After a termination webView.url can be nil, and reload() then does nothing.
            if webView.url == nil {
                webView.load(URLRequest(url: widgetURL))
            } else {
                webView.reload()
            }
        case .deferred:
            break
        case .giveUp:
            recoveryPending = false
            loadFailed(GcLoadError(url: widgetURL))
        }
    }

    /// Back in the foreground: a deferred recovery now, or a liveness probe (as Hotwire Native's
    /// `queryWebContentProcessState`): WebKit may not report a process it killed in the
    /// background until much later, and the screen stays blank meanwhile.
    func checkContentProcess() {
        if recoveryPending {
            recoverIfDue()
            return
        }
        guard let webView, webView.url != nil else {
            return
        }
        webView.evaluateJavaScript("1") { [weak self] _, error in
            guard let self, let error = error as? WKError, error.code == .webContentProcessTerminated else {
                return
            }
            self.perform(self.coordinator.contentTerminated())
        }
    }

    /// The widget could not be shown: `onLoadError`, and the error view over the web view.
    func loadFailed(_ error: GcLoadError) {
        let retry: () -> Void = { [weak self] in self?.retry() }
        onLoadError?(error, retry)
        guard showsErrorView, isViewLoaded else {
            return
        }
        hideErrorView()
        let errorView = makeErrorView?(error, retry) ?? GcErrorView(error: error, retry: retry)
        errorView.frame = view.bounds
        errorView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        view.addSubview(errorView)
        self.errorView = errorView
    }

    private func hideErrorView() {
        errorView?.removeFromSuperview()
        errorView = nil
    }

    // MARK: - Navigation failures

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

    // MARK: - Links

    /// Links in comments leave the widget (`GcLinkPolicy`): other pages open in the system
    /// browser, `mailto:` / `tel:` in the user's apps; the widget's origin stays.
    public func webView(
        _ webView: WKWebView,
        decidePolicyFor navigationAction: WKNavigationAction
    ) async -> WKNavigationActionPolicy {
        let url = navigationAction.request.url
        let action = GcLinkPolicy.forNavigation(
            url, widgetOrigin: widgetOriginKey,
            isMainFrame: navigationAction.targetFrame?.isMainFrame != false,
            userTapped: navigationAction.navigationType == .linkActivated
        )
        guard action != .stay else {
            return .allow
        }
        if let url, action != .block {
            _ = await UIApplication.shared.open(url)
        }
        return .cancel
    }
}
#endif
