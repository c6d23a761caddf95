import Foundation

/// Bounds the recoveries from a dead web content process: at most `limit` in any `window`.
///
/// Why 3 a minute: a process killed for memory, or a one-off crash, is recovered at once, and a
/// second one within the minute can still be bad luck (the system reclaims memory again as the
/// app comes back). A third means the page itself kills its process: each recovery then costs
/// the user a blank view, a network load and battery, and the next one fails the same way. The
/// guard then stops and the kit shows its error view, whose Retry starts a fresh budget.
///
/// Pure and clock-injected (`now` is passed in, seconds on a monotonic clock), so the tests need
/// no real time. The same rule as the Android kit's `GcCrashGuard.kt`.
public final class GcCrashGuard {
    public static let defaultLimit = 3
    public static let defaultWindow: TimeInterval = 60

    public let limit: Int
    public let window: TimeInterval
    private var recoveries: [TimeInterval] = []

    public init(limit: Int = GcCrashGuard.defaultLimit, window: TimeInterval = GcCrashGuard.defaultWindow) {
        precondition(limit >= 1, "limit must be at least 1")
        precondition(window > 0, "window must be positive")
        self.limit = limit
        self.window = window
    }

    /// A recovery is due at `now`: true to recover, false to stop (a refusal spends nothing).
    public func allow(now: TimeInterval) -> Bool {
        recoveries.removeAll { now - $0 >= window }
        guard recoveries.count < limit else {
            return false
        }
        recoveries.append(now)
        return true
    }

    /// The user asked to retry (the error view's button): a fresh budget.
    public func reset() {
        recoveries.removeAll()
    }
}

/// What to do about a dead web content process now.
public enum GcRecovery: Equatable {
    /// Reload the widget now.
    case now
    /// Wait: the app is in the background, or the view is not on screen.
    case deferred
    /// Too many recoveries in a minute: show the error view (Retry starts afresh).
    case giveUp
}

/// When to recover, as Hotwire Native's Navigator does: never while the app is in the
/// background (nobody sees it, and the system may kill the new process too), never for a view
/// that is not on screen (it recovers when it appears), and within the `GcCrashGuard`'s budget.
/// Deferred recoveries spend the budget only when they happen.
public enum GcRecoveryPolicy {
    public static func decide(_ crashGuard: GcCrashGuard, now: TimeInterval, foreground: Bool, visible: Bool) -> GcRecovery {
        guard foreground, visible else {
            return .deferred
        }
        return crashGuard.allow(now: now) ? .now : .giveUp
    }
}
