package dev.gcbridge.comments

/**
 * Bounds the recoveries from a dead web content process: at most [limit] in any [windowMillis].
 *
 * Why 3 a minute: a renderer killed for memory, or a one-off crash, is recovered at once, and a
 * second one within the minute can still be bad luck (the system reclaims memory again as the
 * app comes back). A third means the page itself kills its process: each recovery then costs
 * the user a blank view, a network load and battery, and the next one fails the same way. The
 * guard then stops and the kit shows its error view, whose Retry starts a fresh budget.
 *
 * Pure and clock-injected ([now] is passed in), so the tests need no real time.
 */
class GcCrashGuard(
    val limit: Int = DEFAULT_LIMIT,
    val windowMillis: Long = DEFAULT_WINDOW_MILLIS,
) {
    private val recoveries = ArrayDeque<Long>()

    init {
        require(limit >= 1) { "limit must be at least 1" }
        require(windowMillis > 0) { "windowMillis must be positive" }
    }

    /** A recovery is due at [now] (milliseconds, monotonic): true to recover, false to stop. */
    fun allow(now: Long): Boolean {
        while (recoveries.isNotEmpty() && now - recoveries.first() >= windowMillis) recoveries.removeFirst()
        if (recoveries.size >= limit) return false
        recoveries.addLast(now)
        return true
    }

    /** The user asked to retry (the error view's button): a fresh budget. */
    fun reset() = recoveries.clear()

    companion object {
        const val DEFAULT_LIMIT = 3
        const val DEFAULT_WINDOW_MILLIS = 60_000L
    }
}

/** What to do about a dead web content process now. */
enum class GcRecovery {
    /** Recreate / reload the view and load the widget now. */
    NOW,
    /** Wait: the app is in the background, or the view is not on screen. */
    DEFER,
    /** Too many recoveries in a minute: show the error view (Retry starts afresh). */
    GIVE_UP,
}

/**
 * When to recover from a dead web content process, as Hotwire Native does: never while the app
 * is in the background (the system may kill the new process too, and nobody sees it), never for
 * a view that is not on screen (it recovers when it is shown again), and within the
 * [GcCrashGuard]'s budget. Deferred recoveries spend the budget only when they happen.
 *
 * On Android both kinds of death count: `RenderProcessGoneDetail.didCrash()` true (the renderer
 * crashed) and false (the system killed it to reclaim memory: a page that exhausts memory is
 * killed over and over too). The kit reports which it was to the app.
 */
object GcRecoveryPolicy {
    fun decide(guard: GcCrashGuard, now: Long, foreground: Boolean, visible: Boolean): GcRecovery {
        if (!foreground || !visible) return GcRecovery.DEFER
        return if (guard.allow(now)) GcRecovery.NOW else GcRecovery.GIVE_UP
    }
}
