#if canImport(SwiftUI) && canImport(UIKit) && canImport(WebKit)
import SwiftUI
import UIKit

/// The hosted comment widget in SwiftUI: a `GcCommentsViewController` as a
/// `UIViewControllerRepresentable`. A change of `appUser` re-injects fresh ssoData, or signs
/// the widget out on nil; `configure` runs once on the controller before its view loads (the
/// hooks: `isInspectable`, `configureWebView`, `onLoadError`, `makeErrorView`...).
///
/// ```swift
/// GcCommentsView(gcURL: thread.gcURL, apiPublicKey: "pk_...", ssoProvider: provider,
///                appUser: session.userID) { comments in
///     comments.onWidgetEvent = { name, _ in print("widget:", name) }
/// }
/// ```
public struct GcCommentsView: UIViewControllerRepresentable {
    public let gcURL: URL
    public let apiPublicKey: String?
    public let ssoProvider: GcSsoDataProvider?
    public let appUser: String?
    public let configure: (GcCommentsViewController) -> Void

    public init(gcURL: URL, apiPublicKey: String?, ssoProvider: GcSsoDataProvider?, appUser: String? = nil,
                configure: @escaping (GcCommentsViewController) -> Void = { _ in }) {
        self.gcURL = gcURL
        self.apiPublicKey = apiPublicKey
        self.ssoProvider = ssoProvider
        self.appUser = appUser
        self.configure = configure
    }

    /// Remembers the user the controller was last told about.
    public final class Coordinator {
        var appUser: String?

        init(appUser: String?) {
            self.appUser = appUser
        }
    }

    public func makeCoordinator() -> Coordinator {
        Coordinator(appUser: appUser)
    }

    public func makeUIViewController(context: Context) -> UIViewController {
        do {
            let comments = try GcCommentsViewController(gcURL: gcURL, apiPublicKey: apiPublicKey,
                                                        ssoProvider: ssoProvider, appUser: appUser)
            configure(comments)
            return comments
        } catch {
            // gc_url not http(s), or a bundled bridge.js that does not match its pin: say so
            let failed = UIViewController()
            let label = UILabel()
            label.text = "Comments are unavailable: \(error)"
            label.numberOfLines = 0
            failed.view = label
            return failed
        }
    }

    public func updateUIViewController(_ controller: UIViewController, context: Context) {
        guard let comments = controller as? GcCommentsViewController, context.coordinator.appUser != appUser else {
            return
        }
        context.coordinator.appUser = appUser
        comments.appLoginStateChanged(user: appUser)
    }
}
#endif
