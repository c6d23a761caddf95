import Foundation

/// A JavaScript dialog: `alert()`, `confirm()`, `prompt()`.
public enum GcDialogKind: Equatable {
    case alert, confirm, prompt
}

/// What the kit answers a page's dialog: `confirmed` for OK, `text` a prompt's value (nil: none).
public struct GcDialogAnswer: Equatable {
    public let confirmed: Bool
    public let text: String?
}

/// The kit's rules for dialogs, load errors and the user agent, pure (Foundation only). The
/// same rules as the Android kit's `GcChromePolicy.kt` and `GcLoadError.kt`.
public enum GcChromePolicy {
    /// Whether a dialog from a frame of `origin` is shown: the widget's own, while its screen is
    /// on screen; a frame of another origin (an embed inside a comment) cannot pose as the app.
    public static func showDialog(origin: String?, widgetOrigin: String, presentable: Bool) -> Bool {
        presentable && origin == widgetOrigin
    }

    /// OK (`text`: a prompt's field).
    public static func confirmed(_ kind: GcDialogKind, text: String? = nil) -> GcDialogAnswer {
        GcDialogAnswer(confirmed: true, text: kind == .prompt ? (text ?? "") : nil)
    }

    /// Cancel, or not shown: `confirm()` is false and `prompt()` nil, as WebKit answers without
    /// a UI delegate. An alert has one answer, so it counts as acknowledged.
    public static func dismissed(_ kind: GcDialogKind) -> GcDialogAnswer {
        GcDialogAnswer(confirmed: kind == .alert, text: nil)
    }

    /// The dialog's title: who asks (the host of the frame's origin), never the page's own words.
    public static func dialogTitle(origin: String?) -> String {
        guard let origin, let range = origin.range(of: "://") else {
            return "This page"
        }
        return String(origin[range.upperBound...])
    }

    /// A failed navigation that is the widget's load error. Not one: a load the kit or a newer
    /// navigation cancelled (`NSURLErrorCancelled`), nor WebKit's "frame load interrupted" (102)
    /// that follows the kit's own `.cancel` of a link it sent to the browser.
    public static func isLoadError(domain: String, code: Int) -> Bool {
        // literals, not NSURLErrorDomain / NSURLErrorCancelled: on Linux those live in
        // FoundationNetworking, and this file is Foundation only
        if domain == "NSURLErrorDomain" && code == -999 {
            return false
        }
        if domain == "WebKitErrorDomain" && code == 102 {
            return false
        }
        return true
    }

    /// An HTTP status that leaves no widget on the page (4xx, 5xx).
    public static func isErrorStatus(_ status: Int) -> Bool {
        status >= 400
    }
}

/// A load of the widget's page failed: `error` from WebKit, or `httpStatus` >= 400.
public struct GcLoadError: Error {
    public let url: URL?
    public let error: Error?
    public let httpStatus: Int?

    public init(url: URL?, error: Error? = nil, httpStatus: Int? = nil) {
        self.url = url
        self.error = error
        self.httpStatus = httpStatus
    }
}

/// `gc-bridge/<version>` appended to the web view's user agent (the bridge.js version of `GcBridgePin`).
public enum GcUserAgent {
    public static let token = "gc-bridge/\(GcBridgePin.version)"

    /// `applicationName` (WKWebViewConfiguration.applicationNameForUserAgent) with the token once.
    public static func withSuffix(_ applicationName: String?) -> String {
        let base = (applicationName ?? "").trimmingCharacters(in: .whitespaces)
        if base.split(separator: " ").contains(Substring(token)) {
            return base
        }
        return base.isEmpty ? token : "\(base) \(token)"
    }
}
