#if canImport(UIKit) && canImport(WebKit)
import UIKit
import WebKit

/// Shows the kit's JavaScript dialogs. The default, `GcAlertPresenter`, uses `UIAlertController`;
/// an app may bring its own look, and tests answer without UI. Call `answer` exactly once.
@MainActor
public protocol GcDialogPresenter: AnyObject {
    func present(_ kind: GcDialogKind, title: String, message: String, defaultText: String?,
                 from host: UIViewController, answer: @escaping (GcDialogAnswer) -> Void)
}

/// Native dialogs with `UIAlertController`: OK (and Cancel for `confirm` / `prompt`).
@MainActor
public final class GcAlertPresenter: GcDialogPresenter {
    public init() {}

    public func present(_ kind: GcDialogKind, title: String, message: String, defaultText: String?,
                        from host: UIViewController, answer: @escaping (GcDialogAnswer) -> Void) {
        let alert = UIAlertController(title: title, message: message, preferredStyle: .alert)
        if kind == .prompt {
            alert.addTextField { $0.text = defaultText }
        }
        if kind != .alert {
            alert.addAction(UIAlertAction(title: "Cancel", style: .cancel) { _ in answer(GcChromePolicy.dismissed(kind)) })
        }
        alert.addAction(UIAlertAction(title: "OK", style: .default) { [weak alert] _ in
            answer(GcChromePolicy.confirmed(kind, text: alert?.textFields?.first?.text))
        })
        var top = host
        while let presented = top.presentedViewController {
            top = presented
        }
        top.present(alert, animated: true)
    }
}

/// The kit's `WKUIDelegate`: what a browser gives a page and a bare WKWebView does not. Without
/// it WebKit answers `confirm()` with false ("as if the user selected the Cancel button",
/// WKUIDelegate.h), `prompt()` with nil, and opens no new window (`target=_blank` does nothing).
///
/// - `alert` / `confirm` / `prompt`: native dialogs titled with the frame's host, for frames of
///   the widget's origin only, while the kit's screen is in a window; every completion handler
///   is called exactly once (WebKit requires it).
/// - new windows: `GcLinkPolicy.forNewWindow`: the widget's origin loads in place, other pages
///   open in the system browser, `mailto:` / `tel:` in the user's apps; never a second web view.
@MainActor
final class GcUIDelegate: NSObject, WKUIDelegate {
    private let widgetOrigin: String
    private weak var host: UIViewController?
    var presenter: GcDialogPresenter = GcAlertPresenter()
    /// Opens what leaves the web view (`.browser`, `.os`).
    private let open: (URL, GcLinkAction) -> Void

    init(widgetOrigin: String, host: UIViewController, open: @escaping (URL, GcLinkAction) -> Void) {
        self.widgetOrigin = widgetOrigin
        self.host = host
        self.open = open
    }

    func webView(_ webView: WKWebView, runJavaScriptAlertPanelWithMessage message: String,
                 initiatedByFrame frame: WKFrameInfo, completionHandler: @escaping () -> Void) {
        dialog(.alert, message: message, defaultText: nil, frame: frame) { _ in completionHandler() }
    }

    func webView(_ webView: WKWebView, runJavaScriptConfirmPanelWithMessage message: String,
                 initiatedByFrame frame: WKFrameInfo, completionHandler: @escaping (Bool) -> Void) {
        dialog(.confirm, message: message, defaultText: nil, frame: frame) { completionHandler($0.confirmed) }
    }

    func webView(_ webView: WKWebView, runJavaScriptTextInputPanelWithPrompt prompt: String,
                 defaultText: String?, initiatedByFrame frame: WKFrameInfo,
                 completionHandler: @escaping (String?) -> Void) {
        dialog(.prompt, message: prompt, defaultText: defaultText, frame: frame) {
            completionHandler($0.confirmed ? $0.text : nil)
        }
    }

    private func dialog(_ kind: GcDialogKind, message: String, defaultText: String?, frame: WKFrameInfo,
                        reply: @escaping (GcDialogAnswer) -> Void) {
        let security = frame.securityOrigin
        let origin = GcOrigin.of(scheme: security.protocol, host: security.host, port: security.port)
        let presentable = host?.viewIfLoaded?.window != nil
        guard let host, GcChromePolicy.showDialog(origin: origin, widgetOrigin: widgetOrigin, presentable: presentable) else {
            reply(GcChromePolicy.dismissed(kind))
            return
        }
        var answered = false
        presenter.present(kind, title: GcChromePolicy.dialogTitle(origin: origin), message: message,
                          defaultText: defaultText, from: host) { answer in
            guard !answered else { return }
            answered = true
            reply(answer)
        }
    }

    /// `target=_blank`, `window.open`: WebKit asks only for a user's tap (pop-ups without one are
    /// blocked before this point, `javaScriptCanOpenWindowsAutomatically` being false).
    func webView(_ webView: WKWebView, createWebViewWith configuration: WKWebViewConfiguration,
                 for navigationAction: WKNavigationAction, windowFeatures: WKWindowFeatures) -> WKWebView? {
        let url = navigationAction.request.url
        let action = GcLinkPolicy.forNewWindow(url, widgetOrigin: widgetOrigin, userTapped: true)
        switch action {
        case .stay:
            webView.load(navigationAction.request)
        case .browser, .os:
            if let url {
                open(url, action)
            }
        case .block:
            break
        }
        return nil
    }
}
#endif
