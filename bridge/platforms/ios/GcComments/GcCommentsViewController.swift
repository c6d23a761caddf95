#if canImport(UIKit) && canImport(WebKit)
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
///
/// The WebView's life: `didCommit` -> `pageStarted()` (not the provisional start: a load that
/// fails before it commits leaves the widget as ready as it was), `didFinish` ->
/// `pageFinished()`, a `pageshow` with `persisted` (the lifecycle script next to bridge.js) ->
/// `restored()`, `webViewWebContentProcessDidTerminate` -> `contentTerminated()`, whose `.reload`
/// effect calls `webView.reload()`; the app back in the foreground
/// (`UIApplication.willEnterForegroundNotification`) -> `resume(seconds:)` with the time since
/// `didEnterBackgroundNotification`, measured with `clock`.
@MainActor
public final class GcCommentsViewController: UIViewController, WKScriptMessageHandler, WKNavigationDelegate {
    /// Name of the script message handler; bridge.js looks for exactly this one.
    public static let handlerName = "gcBridge"
    /// The content world of bridge.js, its message handler and every evaluation of the kit.
    static let bridgeWorld = WKContentWorld.defaultClient
    /// bridge.js forwards at most 64 KiB; anything larger is not from it.
    static let maxMessageLength = GcSsoCoordinator.maxMessageLength

    /// Every widget event after the controller acted on it: (name, the whole JSON object).
    public var onWidgetEvent: ((String, [String: Any]) -> Void)?
    /// Failures of the ssoData provider (the widget stays signed out).
    public var onError: ((Error) -> Void)?
    /// The web content process died and the kit reloaded the widget: for logs or analytics.
    public var onContentProcessGone: (() -> Void)?
    /// Seconds clock for the time spent in the background (monotonic: `ProcessInfo.systemUptime`).
    public var clock: () -> TimeInterval = { ProcessInfo.processInfo.systemUptime }

    // MARK: - Hooks (set before the view loads)

    /// Safari Web Inspector and Appium may attach (`WKWebView.isInspectable`, iOS 16.4+, false by
    /// default since then): on in debug builds, off in release; set it to force either.
    public var isInspectable: Bool = GcCommentsViewController.inspectableByDefault {
        didSet { applyInspectable() }
    }
    #if DEBUG
    public static let inspectableByDefault = true
    #else
    public static let inspectableByDefault = false
    #endif
    /// Your changes to the configuration, after the kit's (media playback, data store per user,
    /// `applicationNameForUserAgent`: the kit appends `gc-bridge/<version>` after this hook).
    /// Keep the kit's `userContentController`.
    public var configureWebView: ((WKWebViewConfiguration) -> Void)?
    /// Makes the web view from the configuration (your WKWebView subclass); default `WKWebView(frame:configuration:)`.
    public var makeWebView: ((WKWebViewConfiguration) -> WKWebView)?
    /// The widget's page failed to load (offline, DNS, TLS, an HTTP error) or the web content
    /// process died too often; the kit shows its error view (or yours). Call `retry` to load again.
    public var onLoadError: ((GcLoadError, _ retry: @escaping () -> Void) -> Void)?
    /// Makes the view shown over the web view after a load error; nil: the kit's `GcErrorView`.
    public var makeErrorView: ((GcLoadError, _ retry: @escaping () -> Void) -> UIView)?
    /// Whether the kit shows an error view at all (false: only `onLoadError`).
    public var showsErrorView = true
    /// Presents `alert` / `confirm` / `prompt` (default: `UIAlertController`).
    public var dialogPresenter: GcDialogPresenter = GcAlertPresenter() {
        didSet { uiDelegate?.presenter = dialogPresenter }
    }
    /// Bounds the recoveries from a dead web content process (3 a minute; see `GcCrashGuard`).
    public var crashGuard = GcCrashGuard()

    let widgetURL: URL
    private let widgetOrigin: Origin
    private let ssoProvider: GcSsoDataProvider?
    private let bridgeSource: String
    /// The web view showing the widget (after the view loaded): read it, keep the kit's delegates.
    public private(set) var webView: WKWebView!
    /// Every decision (when to fetch, inject, sign out, ask, discard) is the coordinator's;
    /// this controller only performs the effects it returns.
    let coordinator: GcSsoCoordinator
    private var fetchTask: Task<Void, Never>?
    var backgroundSince: TimeInterval?
    /// The widget's origin as the pure policies compare it (`GcOrigin.of`).
    let widgetOriginKey: String
    private var uiDelegate: GcUIDelegate?
    var errorView: UIView?
    /// A dead web content process waits for the foreground and the screen to be reloaded.
    var recoveryPending = false

    /// - Parameters:
    ///   - gcURL: `gc_url` from thread-load (`GET {base_url}/api/pub/thread-load/`).
    ///   - apiPublicKey: the site's SSO public key; nil for the service's own accounts.
    ///   - ssoProvider: fetches fresh ssoData from the app's backend.
    ///   - appUser: identity of the app's signed-in user (any string), nil when signed out.
    ///   - keepWidgetSession: by default, while `appUser` is nil a ready widget is signed out (it
    ///     restores its own stored session, a previous user's, by itself); true keeps that session,
    ///     for apps that let signed-out users use the service's own accounts.
    public init(
        gcURL: URL,
        apiPublicKey: String?,
        ssoProvider: GcSsoDataProvider?,
        appUser: String? = nil,
        keepWidgetSession: Bool = GcSsoCoordinator.keepWidgetSessionDefault
    ) throws {
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
        widgetOriginKey = GcOrigin.of(gcURL) ?? ""
        self.ssoProvider = ssoProvider
        coordinator = GcSsoCoordinator(
            user: appUser,
            sso: apiPublicKey?.isEmpty == false && ssoProvider != nil,
            keepWidgetSession: keepWidgetSession
        )
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
            source: bridgeSource + "\n" + GcSsoScripts.lifecycleScript,
            injectionTime: .atDocumentEnd,
            forMainFrameOnly: true,
            in: Self.bridgeWorld
        ))
        // A weak proxy: WKUserContentController retains its handlers strongly. Registered in
        // the bridge's world only: the page world of no frame gets window.webkit.messageHandlers.gcBridge.
        contentController.add(WeakScriptMessageHandler(self), contentWorld: Self.bridgeWorld, name: Self.handlerName)
        configuration.userContentController = contentController
        configuration.preferences.javaScriptCanOpenWindowsAutomatically = false // pop-ups need a tap
        configureWebView?(configuration)
        // after the app's hook: its own application name keeps the token too (once)
        configuration.applicationNameForUserAgent = GcUserAgent.withSuffix(configuration.applicationNameForUserAgent)
        let webView = makeWebView?(configuration) ?? WKWebView(frame: .zero, configuration: configuration)
        webView.navigationDelegate = self
        let delegate = GcUIDelegate(widgetOrigin: widgetOriginKey, host: self) { url, _ in
            UIApplication.shared.open(url)
        }
        delegate.presenter = dialogPresenter
        uiDelegate = delegate
        webView.uiDelegate = delegate
        self.webView = webView
        view = webView
        applyInspectable()
    }

    override public func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        recoverIfDue() // a web content process that died while this screen was not shown
    }

    override public func viewDidLoad() {
        super.viewDidLoad()
        // UIKit posts both on the main thread; selector observers are removed with the controller.
        let center = NotificationCenter.default
        center.addObserver(self, selector: #selector(wentToBackground),
                           name: UIApplication.didEnterBackgroundNotification, object: nil)
        center.addObserver(self, selector: #selector(cameToForeground),
                           name: UIApplication.willEnterForegroundNotification, object: nil)
        webView.load(URLRequest(url: widgetURL))
    }

    deinit {
        fetchTask?.cancel()
    }

    // MARK: - App lifecycle

    @objc private func wentToBackground() {
        if backgroundSince == nil {
            backgroundSince = clock()
        }
    }

    @objc private func cameToForeground() {
        guard let since = backgroundSince else {
            return
        }
        backgroundSince = nil
        perform(coordinator.resume(seconds: max(0, clock() - since)))
        checkContentProcess()
    }

    // MARK: - App login state

    /// Call when the app's own user signs in, switches or signs out (`user`: any identity, nil when signed out).
    public func appLoginStateChanged(user: String?) {
        if let user {
            perform(coordinator.appLogin(user))
        } else {
            perform(coordinator.appLogout())
        }
    }

    /// Fetch fresh ssoData for the current app user and inject it (after the app's own re-login).
    public func refreshSso() {
        if let user = coordinator.user {
            perform(coordinator.appLogin(user))
        }
    }

    // MARK: - Effects

    /// Performs what the coordinator decided; `cause` is the failure behind an `.error` effect.
    func perform(_ effects: [GcSsoEffect], cause: Error? = nil) {
        for effect in effects {
            switch effect {
            case let .fetch(id, _, _):
                fetch(id)
            case let .login(ssoData, _):
                // JSON-encoded: ssoData is data, never code.
                if let script = GcSsoScripts.login(ssoData) {
                    evaluateOnWidget(script)
                }
            case .logout:
                evaluateOnWidget(GcSsoScripts.logout)
            case let .askConflict(id, username):
                askConflict(id, username: username)
            case let .error(reason, error):
                onError?(cause ?? GcSsoError(reason: reason, message: error))
            case let .notify(name, event):
                onWidgetEvent?(name, event)
            case .reload:
                onContentProcessGone?()
                recoveryPending = true
                recoverIfDue()
            case .ignore, .discard:
                break
            }
        }
    }

    private func fetch(_ id: Int) {
        guard let provider = ssoProvider else {
            return
        }
        fetchTask?.cancel() // the coordinator discards its answer anyway: a newer fetch supersedes it
        fetchTask = Task { [weak self] in
            do {
                let ssoData = try await provider.fetchSsoData()
                guard let self else { return }
                self.perform(self.coordinator.fetchResult(id, ssoData: ssoData))
            } catch is CancellationError {
                // superseded; the coordinator already treats it as stale
            } catch {
                guard let self else { return }
                self.perform(self.coordinator.fetchResult(id, ssoData: nil, error: "\(error)"), cause: error)
            }
        }
    }

    private func askConflict(_ id: Int, username: String) {
        guard let provider = ssoProvider else {
            return
        }
        Task { [weak self] in
            do {
                let ssoData = try await provider.resolveConflict(username: username)
                guard let self else { return }
                self.perform(self.coordinator.conflictResult(id, ssoData: ssoData))
            } catch {
                guard let self else { return }
                self.perform(self.coordinator.conflictResult(id, ssoData: nil, error: "\(error)"), cause: error)
            }
        }
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


    // MARK: - Web -> App

    public func userContentController(
        _ userContentController: WKUserContentController,
        didReceive message: WKScriptMessage
    ) {
        // Only the widget's own main frame speaks for the widget; the coordinator decides the rest
        // (size, JSON, name, what to do).
        guard message.name == Self.handlerName else {
            return
        }
        let fromWidget = message.frameInfo.isMainFrame
            && Origin(securityOrigin: message.frameInfo.securityOrigin) == widgetOrigin
        // A non-string body is what `body as? String` cannot read: malformed for the coordinator.
        let body = message.body as? String ?? ""
        if fromWidget && body == GcSsoScripts.restoredMessage {
            perform(coordinator.restored()) // the lifecycle script: back from the back-forward cache
        } else {
            perform(coordinator.message(body, fromWidget: fromWidget))
        }
    }

    // MARK: - Navigation

    /// A new document replaced the one shown (launch, reload, navigation): wait for the widget to be
    /// ready again; answers for the old document are discarded. At the commit ("the web view has
    /// started to receive content for the main frame"), not at `didStartProvisionalNavigation`
    /// ("before it receives a response"): a provisional load that fails (offline, a 204, which
    /// WebKit reports as frame load interrupted) ends in `didFailProvisionalNavigation` with the
    /// old document still shown, and still ready. A same-document navigation (a fragment,
    /// `pushState`) calls neither.
    public func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!) {
        perform(coordinator.pageStarted())
    }

    /// The web content process died (memory pressure, a crash): a blank view and a dead bridge.
    /// The coordinator answers `.reload`; the user script and handler come back with the page.
    public func webViewWebContentProcessDidTerminate(_ webView: WKWebView) {
        perform(coordinator.contentTerminated())
    }

    /// The main frame finished loading: the widget's page is there (no trigger on iOS by default).
    public func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
        if let url = webView.url, Origin(url: url) == widgetOrigin {
            perform(coordinator.pageFinished())
        }
    }
}

/// A failure reported by the coordinator without an underlying Swift error.
public struct GcSsoError: Error, Equatable {
    public let reason: String
    public let message: String
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
#endif
