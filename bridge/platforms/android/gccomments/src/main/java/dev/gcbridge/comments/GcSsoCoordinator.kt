package dev.gcbridge.comments

/**
 * What the glue does; ssoData appears in [Login] only. `toMap()` is the effect as the
 * app-side table (`bridge/protocol/app-protocol.json`) writes it.
 */
sealed class GcSsoEffect {
    abstract fun toMap(): Map<String, Any?>

    data class Fetch(val fetch: Int, val user: String, val trigger: String) : GcSsoEffect() {
        override fun toMap() = mapOf("do" to "fetch", "fetch" to fetch, "user" to user, "trigger" to trigger)
    }

    data class Login(val ssoData: String, val trigger: String) : GcSsoEffect() {
        override fun toMap() = mapOf("do" to "login", "ssoData" to ssoData, "trigger" to trigger)
        override fun toString() = "Login(ssoData=<${ssoData.length} chars>, trigger=$trigger)"
    }

    object Logout : GcSsoEffect() {
        override fun toMap() = mapOf("do" to "logout")
    }

    data class AskConflict(val conflict: Int, val username: String) : GcSsoEffect() {
        override fun toMap() = mapOf("do" to "ask-conflict", "conflict" to conflict, "username" to username)
    }

    data class Discard(val reason: String) : GcSsoEffect() {
        override fun toMap() = mapOf("do" to "discard", "reason" to reason)
    }

    data class Error(val reason: String, val error: String) : GcSsoEffect() {
        override fun toMap() = mapOf("do" to "error", "reason" to reason, "error" to error)
    }

    data class Ignore(val reason: String) : GcSsoEffect() {
        override fun toMap() = mapOf("do" to "ignore", "reason" to reason)
    }

    /** Bring the page back: destroy the dead WebView, create a new one, load the widget. */
    data class Reload(val reason: String) : GcSsoEffect() {
        override fun toMap() = mapOf("do" to "reload", "reason" to reason)
    }

    /** Every named widget event, last; [event] is the parsed object (left out of [toMap]). */
    data class Notify(val name: String, val event: Map<String, Any?>) : GcSsoEffect() {
        override fun toMap() = mapOf("do" to "notify", "name" to name)
    }
}

/**
 * The app's side of the gc-bridge protocol as a pure state machine: inputs in, effects out.
 *
 * No android.*, no org.json, no coroutines: [GcCommentsController] feeds it what happens (a
 * bridge message, page finished, the app's login state, a fetch result, a page load) and
 * performs the effects it returns. `bridge/protocol/app-protocol.json` lists the cases it is
 * held to; `make kits-check` compiles this file with kotlinc and runs every case on the JVM.
 * The WebView's life is input too: [pageStarted], [restored], [contentTerminated] (-> [GcSsoEffect.Reload]),
 * [resume] with the seconds the app was away; an answer to a fetch made for another document,
 * or before a resume, is never injected. Not thread-safe: call it from the main thread.
 *
 * The widget is signed in as exactly the app's user, and nobody else: with SSO on and no app user,
 * a widget that becomes ready is signed out (it may have restored a previous user's session from its
 * storage), once per document; a sign-out or a user switch before ready is applied when it is ready.
 * [keepWidgetSession] leaves a signed-out app's widget to the service's own accounts (the app's own
 * sign-out still lands).
 */
class GcSsoCoordinator(
    /** Identity of the app's signed-in user (any string), null when signed out. */
    user: String? = null,
    /** False without api_public_key: the widget would ignore gcSsoLogin, so nothing is done. */
    val sso: Boolean = true,
    val triggers: Set<String> = ANDROID_TRIGGERS,
    /**
     * True: while the app has no user, the widget may keep a session of the service's own accounts
     * (an app that lets signed-out users sign in there); the app's own sign-out still lands.
     */
    val keepWidgetSession: Boolean = KEEP_WIDGET_SESSION
) {
    var user: String? = user
        private set
    var ready = false
        private set
    private var next = 0
    private var fetching: Int? = null
    private var fetchTrigger = ""
    private var asking: Int? = null
    private var askedUsername = ""
    private val resolved = HashSet<String>()
    private var rounds = 0
    private var finished = false // page-finished already seen for this document
    private val stale = HashMap<Int, String>() // fetch / conflict id -> why its answer is discarded
    private var signedOut = false // a logout went to this document
    private var logoutOwed = false // the app signed out while no document was ready

    /** A string the bridge forwarded; [fromWidget]: the glue's sender check passed. */
    fun message(data: String, fromWidget: Boolean = true): List<GcSsoEffect> {
        if (!fromWidget) return listOf(GcSsoEffect.Ignore("foreign"))
        if (data.length > MAX_MESSAGE_CHARS) return listOf(GcSsoEffect.Ignore("oversized"))
        if (!GcJson.withinDepth(data, MAX_DEPTH)) return listOf(GcSsoEffect.Ignore("too-deep"))
        val parsed = try {
            GcJson.parse(data)
        } catch (e: IllegalArgumentException) {
            return listOf(GcSsoEffect.Ignore("malformed"))
        }
        @Suppress("UNCHECKED_CAST")
        val event = parsed as? Map<String, Any?> ?: return listOf(GcSsoEffect.Ignore("unnamed"))
        val name = event["name"] as? String ?: return listOf(GcSsoEffect.Ignore("unnamed"))
        if (name in READY_EVENTS) ready = true
        val effects = when {
            name == "gc-sso-conflict" -> conflict(event["username"])
            name in triggers -> trigger(name)
            name in KNOWN_EVENTS -> listOf(GcSsoEffect.Ignore("not-a-trigger"))
            else -> listOf(GcSsoEffect.Ignore("unknown-event"))
        }
        return effects + GcSsoEffect.Notify(name, event)
    }

    /** The main frame finished loading the widget page (`WebViewClient.onPageFinished`). */
    fun pageFinished(): List<GcSsoEffect> {
        if (finished) return listOf(GcSsoEffect.Ignore("already-finished")) // Android: twice for one document
        finished = true
        ready = true
        if ("page-finished" !in triggers) return listOf(GcSsoEffect.Ignore("not-a-trigger"))
        return trigger("page-finished")
    }

    /** The app's own user signed in, switched or re-authenticated. */
    fun appLogin(user: String): List<GcSsoEffect> {
        newLoginState(user)
        return trigger("app-login")
    }

    /** The app's own user signed out. */
    fun appLogout(): List<GcSsoEffect> {
        newLoginState(null)
        if (!sso) return listOf(GcSsoEffect.Ignore("sso-off"))
        if (!ready) {
            logoutOwed = true // applied when the widget is ready
            return listOf(GcSsoEffect.Ignore("not-ready"))
        }
        return logout()
    }

    /** The answer to a [GcSsoEffect.Fetch]: ssoData, null (no app session), or an error. */
    fun fetchResult(fetch: Int, ssoData: String?, error: String? = null): List<GcSsoEffect> {
        if (fetch != fetching) return listOf(GcSsoEffect.Discard(stale.remove(fetch) ?: "stale"))
        fetching = null
        if (error != null) return listOf(GcSsoEffect.Logout, GcSsoEffect.Error("fetch-failed", error))
        if (ssoData.isNullOrEmpty()) return listOf(GcSsoEffect.Logout)
        return listOf(GcSsoEffect.Login(ssoData, fetchTrigger))
    }

    /** The answer to a [GcSsoEffect.AskConflict]: new ssoData, null (cancelled), or an error. */
    fun conflictResult(conflict: Int, ssoData: String?, error: String? = null): List<GcSsoEffect> {
        if (conflict != asking) return listOf(GcSsoEffect.Discard(stale.remove(conflict) ?: "stale"))
        asking = null
        if (error != null) return listOf(GcSsoEffect.Error("conflict-failed", error))
        if (ssoData.isNullOrEmpty()) return listOf(GcSsoEffect.Ignore("conflict-cancelled"))
        resolved.add(askedUsername.toLowerCase())
        return listOf(GcSsoEffect.Login(ssoData, "gc-sso-conflict"))
    }

    /** The main frame starts loading a page (launch, reload, navigation): wait for ready. */
    fun relaunch(): List<GcSsoEffect> {
        ready = false
        finished = false
        signedOut = false
        fetching = null
        asking = null
        return emptyList()
    }

    /** A new document started loading in this view (`onPageStarted`: reload, navigation, new WebView). */
    fun pageStarted(): List<GcSsoEffect> {
        newDocument()
        return emptyList()
    }

    /** The page came back from the back-forward cache: ready, but its login may be old. */
    fun restored(): List<GcSsoEffect> {
        orphan("stale-document", conflicts = true)
        ready = true
        finished = true
        signedOut = false // what happened to it while it was away is unknown
        return trigger("restored")
    }

    /** The render process is gone (`onRenderProcessGone`): the glue recreates the WebView. */
    fun contentTerminated(): List<GcSsoEffect> {
        newDocument()
        return listOf(GcSsoEffect.Reload("content-process-terminated"))
    }

    /** The app came back to the foreground after [seconds] away (`onResume`, the app's clock). */
    fun resume(seconds: Double): List<GcSsoEffect> {
        val wasFetching = fetching != null
        orphan("fetched-before-resume", conflicts = false) // an open conflict question stays open
        if (!(wasFetching || seconds >= SSO_LIFETIME_SECONDS)) return emptyList()
        if (!sso || !ready || user == null) return emptyList()
        return trigger("resume")
    }

    private fun orphan(reason: String, conflicts: Boolean) {
        fetching?.let { stale[it] = reason }
        fetching = null
        if (conflicts) {
            asking?.let { stale[it] = reason }
            asking = null
        }
    }

    private fun newDocument() {
        orphan("stale-document", conflicts = true)
        ready = false
        finished = false
        signedOut = false
    }

    private fun newLoginState(user: String?) {
        this.user = user
        logoutOwed = false // a login at ready replaces whatever session the widget has
        fetching = null // a fetch for the previous state is stale from now on
        asking = null
        resolved.clear()
        rounds = 0
    }

    private fun trigger(trigger: String): List<GcSsoEffect> {
        if (!sso) return listOf(GcSsoEffect.Ignore("sso-off"))
        if (!ready) return listOf(GcSsoEffect.Ignore("not-ready"))
        val current = user ?: return noAppUser()
        if (fetching != null) return listOf(GcSsoEffect.Ignore("fetch-in-flight"))
        next += 1
        fetching = next
        fetchTrigger = trigger
        return listOf(GcSsoEffect.Fetch(next, current, trigger))
    }

    /** A ready widget and nobody signed in to the app: sign it out, once per document. */
    private fun noAppUser(): List<GcSsoEffect> {
        if (signedOut || !signsOutAtReady(keepWidgetSession, logoutOwed)) {
            return listOf(GcSsoEffect.Ignore("signed-out"))
        }
        return logout()
    }

    private fun logout(): List<GcSsoEffect> {
        signedOut = true
        logoutOwed = false
        return listOf(GcSsoEffect.Logout)
    }

    private fun conflict(username: Any?): List<GcSsoEffect> {
        if (!sso) return listOf(GcSsoEffect.Ignore("sso-off"))
        if (user == null) return listOf(GcSsoEffect.Ignore("signed-out"))
        if (username !is String || username == "") return listOf(GcSsoEffect.Ignore("no-username"))
        if (asking != null) return listOf(GcSsoEffect.Ignore("conflict-pending"))
        if (username.toLowerCase() in resolved) return listOf(GcSsoEffect.Ignore("conflict-resolved"))
        if (rounds >= MAX_CONFLICT_ROUNDS) return listOf(GcSsoEffect.Ignore("too-many-conflicts"))
        rounds += 1
        next += 1
        asking = next
        askedUsername = username
        return listOf(GcSsoEffect.AskConflict(next, username))
    }

    companion object {
        /** The bridge protocol these decisions belong to (`app-protocol.json` `protocol`). */
        const val PROTOCOL = 1

        /** Widget events after which the app fetches and injects ssoData (docs/explanation/service.md#the-widgets-events). */
        val DEFAULT_TRIGGERS: Set<String> = setOf("gc-ready", "gc-loaded", "gc-sso-auth")

        /** On Android, onPageFinished installs the bridge after gc-ready fired: a trigger too. */
        val ANDROID_TRIGGERS: Set<String> = DEFAULT_TRIGGERS + "page-finished"

        /** Default: a ready widget is signed out while the app has no user (its stored session goes). */
        const val KEEP_WIDGET_SESSION = false

        /**
         * Whether a ready widget is signed out while the app has no user: always, unless the app keeps
         * the widget's own session; even then when the app's sign-out came before the widget was ready.
         */
        fun signsOutAtReady(keepWidgetSession: Boolean, logoutOwed: Boolean): Boolean =
            logoutOwed || !keepWidgetSession

        /** bridge.js forwards at most 64 KiB (UTF-16 code units); anything larger is not from it. */
        const val MAX_MESSAGE_CHARS = 65_536
        const val MAX_DEPTH = 32
        const val MAX_CONFLICT_ROUNDS = 3

        /** How long the service accepts ssoData after its timestamp; a resume this late re-injects. */
        const val SSO_LIFETIME_SECONDS = 300
        private val READY_EVENTS = setOf("gc-ready", "gc-loaded")
        private val KNOWN_EVENTS = setOf("gc-ready", "gc-loaded", "gc-sso-auth", "gc-sso-conflict")
    }
}
