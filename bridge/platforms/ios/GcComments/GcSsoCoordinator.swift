import Foundation

/// What the glue does; ssoData appears in `.login` only.
public enum GcSsoEffect {
    case fetch(fetch: Int, user: String, trigger: String)
    case login(ssoData: String, trigger: String)
    case logout
    case askConflict(conflict: Int, username: String)
    case discard(reason: String)
    case error(reason: String, error: String)
    case ignore(reason: String)
    /// Bring the page back (`webView.reload()`); reason `content-process-terminated`.
    case reload(reason: String)
    /// Every named widget event, last; `event` is the parsed object.
    case notify(name: String, event: [String: Any])

    /// The effect as the app-side table (`bridge/protocol/app-protocol.json`) writes it.
    public var tableEntry: [String: AnyHashable] {
        switch self {
        case let .fetch(fetch, user, trigger):
            return ["do": "fetch", "fetch": fetch, "user": user, "trigger": trigger]
        case let .login(ssoData, trigger):
            return ["do": "login", "ssoData": ssoData, "trigger": trigger]
        case .logout:
            return ["do": "logout"]
        case let .askConflict(conflict, username):
            return ["do": "ask-conflict", "conflict": conflict, "username": username]
        case let .discard(reason):
            return ["do": "discard", "reason": reason]
        case let .error(reason, error):
            return ["do": "error", "reason": reason, "error": error]
        case let .ignore(reason):
            return ["do": "ignore", "reason": reason]
        case let .reload(reason):
            return ["do": "reload", "reason": reason]
        case let .notify(name, _):
            return ["do": "notify", "name": name]
        }
    }
}

/// The app's side of the gc-bridge protocol as a pure state machine: inputs in, effects out.
///
/// No UIKit, no WebKit: `GcCommentsViewController` feeds it what happens (a bridge message,
/// the app's login state, a fetch result, a page load) and performs the effects it returns.
/// `bridge/protocol/app-protocol.json` lists the cases it is held to. No Swift compiler runs on
/// this project's machines, so this file is written to the table line by line, in the same
/// order as `GcSsoCoordinator.kt` and `coordinator.ts`, which do run against it. Main thread only.
///
/// The WebView's life is input too: `pageStarted()`, `restored()`, `contentTerminated()` (->
/// `.reload`), `resume(seconds:)`; an answer to a fetch made for another document, or before a
/// resume, is never injected.
///
/// The widget is signed in as exactly the app's user, and nobody else: with SSO on and no app
/// user, a widget that becomes ready is signed out (it may have restored a previous user's session
/// from its storage), once per document; a sign-out or a user switch before ready is applied when
/// it is ready. `keepWidgetSession` leaves a signed-out app's widget to the service's own accounts
/// (the app's own sign-out still lands).
public final class GcSsoCoordinator {
    /// The bridge protocol these decisions belong to (`app-protocol.json` `protocol`).
    public static let protocolVersion = 1
    /// Widget events after which the app fetches and injects ssoData (docs/explanation/service.md#the-widgets-events).
    public static let defaultTriggers: Set<String> = ["gc-ready", "gc-loaded", "gc-sso-auth"]
    /// Default: a ready widget is signed out while the app has no user (its stored session goes).
    public static let keepWidgetSessionDefault = false
    /// bridge.js forwards at most 64 KiB (UTF-16 code units); anything larger is not from it.
    static let maxMessageLength = 65_536
    static let maxDepth = 32
    static let maxConflictRounds = 3
    /// How long the service accepts ssoData after its timestamp; a resume this late re-injects.
    public static let ssoLifetimeSeconds: Double = 300
    private static let readyEvents: Set<String> = ["gc-ready", "gc-loaded"]
    private static let knownEvents: Set<String> = ["gc-ready", "gc-loaded", "gc-sso-auth", "gc-sso-conflict"]

    public private(set) var user: String?
    public let sso: Bool
    public let triggers: Set<String>
    /// True: while the app has no user, the widget may keep a session of the service's own accounts
    /// (an app that lets signed-out users sign in there); the app's own sign-out still lands.
    public let keepWidgetSession: Bool
    public private(set) var ready = false
    private var next = 0
    private var fetching: Int?
    private var fetchTrigger = ""
    private var asking: Int?
    private var askedUsername = ""
    private var resolved = Set<String>()
    private var rounds = 0
    private var finished = false // page-finished already seen for this document
    private var stale: [Int: String] = [:] // fetch / conflict id -> why its answer is discarded
    private var signedOut = false // a logout went to this document
    private var logoutOwed = false // the app signed out while no document was ready

    /// - Parameters:
    ///   - user: identity of the app's signed-in user (any string), nil when signed out.
    ///   - sso: false without api_public_key: the widget would ignore gcSsoLogin, so nothing is done.
    ///   - keepWidgetSession: leave a signed-out app's widget to the service's own accounts.
    public init(
        user: String? = nil,
        sso: Bool = true,
        triggers: Set<String> = GcSsoCoordinator.defaultTriggers,
        keepWidgetSession: Bool = GcSsoCoordinator.keepWidgetSessionDefault
    ) {
        self.user = user
        self.sso = sso
        self.triggers = triggers
        self.keepWidgetSession = keepWidgetSession
    }

    /// Whether a ready widget is signed out while the app has no user: always, unless the app keeps
    /// the widget's own session; even then when the app's sign-out came before the widget was ready.
    public static func signsOutAtReady(keepWidgetSession: Bool, logoutOwed: Bool) -> Bool {
        logoutOwed || !keepWidgetSession
    }

    /// A string the bridge forwarded; `fromWidget`: the glue's sender check passed.
    public func message(_ data: String, fromWidget: Bool = true) -> [GcSsoEffect] {
        guard fromWidget else {
            return [.ignore(reason: "foreign")]
        }
        guard data.utf16.count <= Self.maxMessageLength else {
            return [.ignore(reason: "oversized")]
        }
        guard Self.withinDepth(data, limit: Self.maxDepth) else {
            return [.ignore(reason: "too-deep")]
        }
        guard let bytes = data.data(using: .utf8),
              let parsed = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])
        else {
            return [.ignore(reason: "malformed")]
        }
        guard let event = parsed as? [String: Any], let name = event["name"] as? String else {
            return [.ignore(reason: "unnamed")]
        }
        if Self.readyEvents.contains(name) {
            ready = true
        }
        let effects: [GcSsoEffect]
        if name == "gc-sso-conflict" {
            effects = conflict(event["username"])
        } else if triggers.contains(name) {
            effects = trigger(name)
        } else if Self.knownEvents.contains(name) {
            effects = [.ignore(reason: "not-a-trigger")]
        } else {
            effects = [.ignore(reason: "unknown-event")]
        }
        return effects + [.notify(name: name, event: event)]
    }

    /// The main frame finished loading the widget page.
    public func pageFinished() -> [GcSsoEffect] {
        guard !finished else {
            return [.ignore(reason: "already-finished")]
        }
        finished = true
        ready = true
        guard triggers.contains("page-finished") else {
            return [.ignore(reason: "not-a-trigger")]
        }
        return trigger("page-finished")
    }

    /// The app's own user signed in, switched or re-authenticated.
    public func appLogin(_ user: String) -> [GcSsoEffect] {
        newLoginState(user)
        return trigger("app-login")
    }

    /// The app's own user signed out.
    public func appLogout() -> [GcSsoEffect] {
        newLoginState(nil)
        guard sso else {
            return [.ignore(reason: "sso-off")]
        }
        guard ready else {
            logoutOwed = true // applied when the widget is ready
            return [.ignore(reason: "not-ready")]
        }
        return logout()
    }

    /// The answer to a `.fetch`: ssoData, nil (no app session), or an error.
    public func fetchResult(_ fetch: Int, ssoData: String?, error: String? = nil) -> [GcSsoEffect] {
        guard fetch == fetching else {
            return [.discard(reason: stale.removeValue(forKey: fetch) ?? "stale")]
        }
        fetching = nil
        if let error {
            return [.logout, .error(reason: "fetch-failed", error: error)]
        }
        guard let ssoData, !ssoData.isEmpty else {
            return [.logout]
        }
        return [.login(ssoData: ssoData, trigger: fetchTrigger)]
    }

    /// The answer to an `.askConflict`: new ssoData, nil (cancelled), or an error.
    public func conflictResult(_ conflict: Int, ssoData: String?, error: String? = nil) -> [GcSsoEffect] {
        guard conflict == asking else {
            return [.discard(reason: stale.removeValue(forKey: conflict) ?? "stale")]
        }
        asking = nil
        if let error {
            return [.error(reason: "conflict-failed", error: error)]
        }
        guard let ssoData, !ssoData.isEmpty else {
            return [.ignore(reason: "conflict-cancelled")]
        }
        resolved.insert(askedUsername.lowercased())
        return [.login(ssoData: ssoData, trigger: "gc-sso-conflict")]
    }

    /// The main frame starts loading a page (launch, reload, navigation): wait for ready.
    public func relaunch() -> [GcSsoEffect] {
        ready = false
        finished = false
        signedOut = false
        fetching = nil
        asking = nil
        return []
    }

    /// A new document started loading in this view (`didStartProvisionalNavigation`).
    public func pageStarted() -> [GcSsoEffect] {
        newDocument()
        return []
    }

    /// The page came back from the back-forward cache: ready, but its login may be old.
    public func restored() -> [GcSsoEffect] {
        orphan("stale-document", conflicts: true)
        ready = true
        finished = true
        signedOut = false // what happened to it while it was away is unknown
        return trigger("restored")
    }

    /// The web content process died (`webViewWebContentProcessDidTerminate`): reload.
    public func contentTerminated() -> [GcSsoEffect] {
        newDocument()
        return [.reload(reason: "content-process-terminated")]
    }

    /// The app came back to the foreground after `seconds` away (the app's own clock).
    public func resume(seconds: Double) -> [GcSsoEffect] {
        let wasFetching = fetching != nil
        orphan("fetched-before-resume", conflicts: false) // an open conflict question stays open
        guard wasFetching || seconds >= Self.ssoLifetimeSeconds else {
            return []
        }
        guard sso, ready, user != nil else {
            return []
        }
        return trigger("resume")
    }

    private func orphan(_ reason: String, conflicts: Bool) {
        if let id = fetching {
            stale[id] = reason
        }
        fetching = nil
        if conflicts {
            if let id = asking {
                stale[id] = reason
            }
            asking = nil
        }
    }

    private func newDocument() {
        orphan("stale-document", conflicts: true)
        ready = false
        finished = false
        signedOut = false
    }

    private func newLoginState(_ user: String?) {
        self.user = user
        logoutOwed = false // a login at ready replaces whatever session the widget has
        fetching = nil // a fetch for the previous state is stale from now on
        asking = nil
        resolved.removeAll()
        rounds = 0
    }

    private func trigger(_ trigger: String) -> [GcSsoEffect] {
        guard sso else {
            return [.ignore(reason: "sso-off")]
        }
        guard ready else {
            return [.ignore(reason: "not-ready")]
        }
        guard let current = user else {
            return noAppUser()
        }
        guard fetching == nil else {
            return [.ignore(reason: "fetch-in-flight")]
        }
        next += 1
        fetching = next
        fetchTrigger = trigger
        return [.fetch(fetch: next, user: current, trigger: trigger)]
    }

    /// A ready widget and nobody signed in to the app: sign it out, once per document.
    private func noAppUser() -> [GcSsoEffect] {
        guard !signedOut, Self.signsOutAtReady(keepWidgetSession: keepWidgetSession, logoutOwed: logoutOwed) else {
            return [.ignore(reason: "signed-out")]
        }
        return logout()
    }

    private func logout() -> [GcSsoEffect] {
        signedOut = true
        logoutOwed = false
        return [.logout]
    }

    private func conflict(_ username: Any?) -> [GcSsoEffect] {
        guard sso else {
            return [.ignore(reason: "sso-off")]
        }
        guard user != nil else {
            return [.ignore(reason: "signed-out")]
        }
        guard let username = username as? String, !username.isEmpty else {
            return [.ignore(reason: "no-username")]
        }
        guard asking == nil else {
            return [.ignore(reason: "conflict-pending")]
        }
        guard !resolved.contains(username.lowercased()) else {
            return [.ignore(reason: "conflict-resolved")]
        }
        guard rounds < Self.maxConflictRounds else {
            return [.ignore(reason: "too-many-conflicts")]
        }
        rounds += 1
        next += 1
        asking = next
        askedUsername = username
        return [.askConflict(conflict: next, username: username)]
    }

    /// Whether `text` nests at most `limit` objects/arrays: one linear scan, as bridge.js does.
    static func withinDepth(_ text: String, limit: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for unit in text.utf16 {
            if inString {
                if escaped {
                    escaped = false
                } else if unit == 0x5C {
                    escaped = true
                } else if unit == 0x22 {
                    inString = false
                }
            } else if unit == 0x22 {
                inString = true
            } else if unit == 0x7B || unit == 0x5B {
                depth += 1
                if depth > limit {
                    return false
                }
            } else if unit == 0x7D || unit == 0x5D {
                depth -= 1
            }
        }
        return true
    }
}
