import UIKit
import WebKit

/// The hosted comment widget in a WKWebView, with gc-bridge bridge.js and the SSO loop.
///
/// App -> Web (injection): bridge.js as a `WKUserScript` at `.atDocumentEnd`, main frame only,
/// in the `.defaultClient` content world (iOS 14+): the page's own scripts can neither see the
/// bridge's `window.webkit` nor replace it. `window.gcSsoLogin(ssoData)` /
/// `window.gcSsoLogout()` are evaluated in that same world (`evaluateJavaScript(_:in:in:)`).
/// Web -> App (messages): bridge.js calls `window.webkit.messageHandlers.gcBridge.postMessage`;
/// the handler exists in `.defaultClient` only, so no page script and no frame's page world can
/// post to it. This controller, the `gcBridge` `WKScriptMessageHandler`, still accepts only the
/// main frame of the widget's origin (defence in depth) and acts on the event's `name`.
@MainActor
public final class GcCommentsViewController: UIViewController, WKScriptMessageHandler, WKNavigationDelegate {
    /// Name of the script message handler; bridge.js looks for exactly this one.
    public static let handlerName = "gcBridge"
    /// The content world of bridge.js, its message handler and every evaluation of the kit.
    static let bridgeWorld = WKContentWorld.defaultClient
    /// bridge.js forwards at most 64 KiB; anything larger is not from it.
    static let maxMessageLength = 65_536

    /// Every widget event after the controller acted on it: (name, the whole JSON object).
    public var onWidgetEvent: ((String, [String: Any]) -> Void)?
    /// Failures of the ssoData provider (the widget stays signed out).
    public var onError: ((Error) -> Void)?

    private let widgetURL: URL
    private let widgetOrigin: Origin
    private let usesSso: Bool
    private let ssoProvider: GcSsoDataProvider?
    private let bridgeSource: String
    private var webView: WKWebView!
    /// Bumped on every login-state change so that a slow fetch for a previous user is discarded.
    private var generation = 0
    private var fetchTask: Task<Void, Never>?

    /// - Parameters:
    ///   - gcURL: `gc_url` from thread-load (`GET {base_url}/api/pub/thread-load/`).
    ///   - apiPublicKey: the site's SSO public key; nil for the service's own accounts.
    ///   - ssoProvider: fetches fresh ssoData from the app's backend.
    public init(gcURL: URL, apiPublicKey: String?, ssoProvider: GcSsoDataProvider?) throws {
        guard let origin = Origin(url: gcURL) else {
            throw URLError(.badURL)
        }
        var components = URLComponents(url: gcURL, resolvingAgainstBaseURL: false)
        if let key = apiPublicKey, !key.isEmpty {
            var items = components?.queryItems ?? []
            items.append(URLQueryItem(name: "api_public_key", value: key))
            components?.queryItems = items
        }
        guard let url = components?.url else {
            throw URLError(.badURL)
        }
        widgetURL = url
        widgetOrigin = origin
        usesSso = apiPublicKey?.isEmpty == false
        self.ssoProvider = ssoProvider
        bridgeSource = try GcBridgeScript.load()
        super.init(nibName: nil, bundle: nil)
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) {
        fatalError("init(coder:) is not supported")
    }

    override public func loadView() {
        let configuration = WKWebViewConfiguration()
        // Persistent store: the widget keeps its session token in localStorage and must
        // find it after a relaunch. Never .nonPersistent() here.
        configuration.websiteDataStore = .default()
        configuration.defaultWebpagePreferences.allowsContentJavaScript = true
        let contentController = WKUserContentController()
        contentController.addUserScript(WKUserScript(
            source: bridgeSource,
            injectionTime: .atDocumentEnd,
            forMainFrameOnly: true,
            in: Self.bridgeWorld
        ))
        // A weak proxy: WKUserContentController retains its handlers strongly. Registered in
        // the bridge's world only: the page world of no frame gets window.webkit.messageHandlers.gcBridge.
        contentController.add(WeakScriptMessageHandler(self), contentWorld: Self.bridgeWorld, name: Self.handlerName)
        configuration.userContentController = contentController
        let webView = WKWebView(frame: .zero, configuration: configuration)
        webView.navigationDelegate = self
        self.webView = webView
        view = webView
    }

    override public func viewDidLoad() {
        super.viewDidLoad()
        webView.load(URLRequest(url: widgetURL))
    }

    deinit {
        fetchTask?.cancel()
    }

    // MARK: - App login state

    /// Call when the app's own user signs in, switches or signs out.
    public func appLoginStateChanged(signedIn: Bool) {
        generation += 1
        fetchTask?.cancel()
        fetchTask = nil
        if signedIn {
            refreshSso()
        } else {
            evaluateOnWidget("window.gcSsoLogout && window.gcSsoLogout()")
        }
    }

    /// Fetch fresh ssoData and inject it; one fetch at a time serves gc-ready and gc-loaded.
    public func refreshSso() {
        guard usesSso, let provider = ssoProvider, fetchTask == nil else {
            return
        }
        let mine = generation
        fetchTask = Task { [weak self] in
            do {
                let ssoData = try await provider.fetchSsoData()
                self?.inject(ssoData, generation: mine)
            } catch is CancellationError {
                // superseded by a login-state change
            } catch {
                self?.onError?(error)
            }
            // A login-state change may have started a newer fetch: leave that one alone.
            if self?.generation == mine {
                self?.fetchTask = nil
            }
        }
    }

    private func resolveConflict(username: String) {
        guard usesSso, let provider = ssoProvider else {
            return
        }
        let mine = generation
        Task { [weak self] in
            do {
                let ssoData = try await provider.resolveConflict(username: username)
                self?.inject(ssoData, generation: mine)
            } catch {
                self?.onError?(error)
            }
        }
    }

    private func inject(_ ssoData: String?, generation mine: Int) {
        guard let ssoData, mine == generation, let literal = Self.javaScriptString(ssoData) else {
            return
        }
        evaluateOnWidget("window.gcSsoLogin && window.gcSsoLogin(\(literal))")
    }

    /// Evaluates `script` in the bridge's world (where `gcSsoLogin` lives), only while the main
    /// frame shows the widget's origin, so that ssoData never reaches another page.
    private func evaluateOnWidget(_ script: String) {
        guard let url = webView?.url, Origin(url: url) == widgetOrigin else {
            return
        }
        webView.evaluateJavaScript(script, in: nil, in: Self.bridgeWorld) { [weak self] result in
            if case .failure(let error) = result {
                self?.onError?(error)
            }
        }
    }

    /// `value` as a JavaScript string literal (JSON encoding): ssoData is passed as data, never code.
    static func javaScriptString(_ value: String) -> String? {
        guard let data = try? JSONEncoder().encode(value) else {
            return nil
        }
        return String(data: data, encoding: .utf8)
    }

    // MARK: - Web -> App

    public func userContentController(
        _ userContentController: WKUserContentController,
        didReceive message: WKScriptMessage
    ) {
        // Only the widget's own main frame speaks for the widget.
        guard message.name == Self.handlerName,
              message.frameInfo.isMainFrame,
              Origin(securityOrigin: message.frameInfo.securityOrigin) == widgetOrigin,
              let text = message.body as? String,
              text.utf16.count <= Self.maxMessageLength,
              let data = text.data(using: .utf8),
              let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let name = object["name"] as? String
        else {
            return
        }
        switch name {
        case "gc-ready", "gc-loaded", "gc-sso-auth":
            refreshSso()
        case "gc-sso-conflict":
            resolveConflict(username: object["username"] as? String ?? "")
        default:
            break
        }
        onWidgetEvent?(name, object)
    }

    // MARK: - Navigation

    /// Links in comments leave the widget: they open in the system browser.
    public func webView(
        _ webView: WKWebView,
        decidePolicyFor navigationAction: WKNavigationAction
    ) async -> WKNavigationActionPolicy {
        guard navigationAction.targetFrame?.isMainFrame != false,
              let url = navigationAction.request.url,
              Origin(url: url) != widgetOrigin,
              url.scheme == "https" || url.scheme == "http"
        else {
            return .allow
        }
        _ = await UIApplication.shared.open(url)
        return .cancel
    }
}

/// scheme, host and port of a URL or a WKSecurityOrigin, default ports normalised to 0.
struct Origin: Equatable {
    let scheme: String
    let host: String
    let port: Int

    init?(url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else {
            return nil
        }
        self.init(scheme: scheme, host: host, port: url.port ?? 0)
    }

    init(securityOrigin: WKSecurityOrigin) {
        self.init(scheme: securityOrigin.protocol.lowercased(), host: securityOrigin.host.lowercased(),
                  port: securityOrigin.port)
    }

    private init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        let isDefault = (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
        self.port = isDefault ? 0 : port
    }
}

/// Forwards script messages to a handler it does not retain.
private final class WeakScriptMessageHandler: NSObject, WKScriptMessageHandler {
    private weak var target: WKScriptMessageHandler?

    init(_ target: WKScriptMessageHandler) {
        self.target = target
    }

    func userContentController(_ userContentController: WKUserContentController, didReceive message: WKScriptMessage) {
        target?.userContentController(userContentController, didReceive: message)
    }
}
