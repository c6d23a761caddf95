import Foundation

/// Where a URL the widget navigates to, or opens in a new window, should go.
public enum GcLinkAction: Equatable {
    /// Load it in the kit's web view (the widget's own origin), in place for a new window too.
    case stay
    /// Hand it to the system browser: a page of another origin.
    case browser
    /// Hand it to the OS (`mailto:`, `tel:`, `sms:`, `maps:`...): an app of the user's.
    case os
    /// Refuse it: nothing should open it from a comment (`javascript:`, `file:`, a pop-up without a tap).
    case block
}

/// The kit's link rules, pure (Foundation only, so `swift test` pins them on any platform). The
/// same rules as the Android kit's `GcLinkPolicy.kt`.
public enum GcLinkPolicy {
    /// Schemes an app of the user's handles (mail, phone, messages, maps, FaceTime).
    public static let osSchemes: Set<String> = ["mailto", "tel", "sms", "maps", "facetime", "facetime-audio"]

    /// A navigation: `isMainFrame` of the top document (a sub-frame keeps its own loads),
    /// `userTapped` when the user activated a link (`WKNavigationType.linkActivated`).
    public static func forNavigation(_ url: URL?, widgetOrigin: String, isMainFrame: Bool, userTapped: Bool) -> GcLinkAction {
        guard let url, let scheme = url.scheme?.lowercased() else {
            return .block
        }
        if osSchemes.contains(scheme) {
            return userTapped ? .os : .block
        }
        // a sub-frame's own loads (an embed, about:srcdoc, blob:) are the frame's business
        if !isMainFrame {
            return .stay
        }
        if scheme == "http" || scheme == "https" {
            return GcOrigin.of(url) == widgetOrigin ? .stay : .browser
        }
        return url.absoluteString == "about:blank" ? .stay : .block
    }

    /// A new window (`target=_blank`, `window.open`): the widget's origin opens in place, other
    /// pages in the system browser; without a user's tap nothing opens (pop-ups).
    public static func forNewWindow(_ url: URL?, widgetOrigin: String, userTapped: Bool) -> GcLinkAction {
        guard userTapped else {
            return .block
        }
        return forNavigation(url, widgetOrigin: widgetOrigin, isMainFrame: true, userTapped: true)
    }
}

/// Origins as the kit compares them: `scheme://host[:port]`, lower-cased, default port dropped.
public enum GcOrigin {
    /// The origin of an http(s) URL, or nil (another scheme, or no host).
    public static func of(_ url: URL?) -> String? {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host?.lowercased(), !host.isEmpty
        else {
            return nil
        }
        let port = url.port
        let isDefault = port == nil || (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
        return isDefault ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(port!)"
    }

    /// The origin of an origin's parts (`WKSecurityOrigin.protocol`, `.host`, `.port`: 0 for the default).
    public static func of(scheme: String, host: String, port: Int) -> String? {
        var components = URLComponents()
        components.scheme = scheme
        components.host = host
        components.port = port == 0 ? nil : port
        return of(components.url)
    }
}
