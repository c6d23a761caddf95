package dev.gcbridge.comments

import java.net.URI
import java.net.URISyntaxException

/** Where a URL the widget navigates to, or opens in a new window, should go. */
enum class GcLinkAction {
    /** Load it in the kit's WebView (the widget's own origin). */
    STAY,
    /** Hand it to the system browser (`Intent.ACTION_VIEW`): a page of another origin. */
    BROWSER,
    /** Hand it to the OS (`mailto:`, `tel:`, `sms:`, `geo:`, `intent:`): an app of the user's. */
    OS,
    /** Refuse it: a scheme nothing should open from a comment (`javascript:`, `file:`, ...). */
    BLOCK,
}

/**
 * The kit's link rules, pure (no android.*, so JVM tests pin them):
 * - the widget's origin stays in the WebView, in place, for a new window too;
 * - other http(s) pages go to the system browser;
 * - `mailto:`, `tel:`, `sms:`, `geo:` and `intent:` go to the OS, only on a user's tap;
 * - anything else in the main frame is refused (WebView cannot load these schemes, and
 *   `file:` / `content:` / `javascript:` from a page must not reach the app's files or run as
 *   the app); a sub-frame's own loads stay in it.
 */
object GcLinkPolicy {
    /** Schemes that an app of the user's handles (dialer, mail, maps). */
    val OS_SCHEMES: Set<String> = setOf("mailto", "tel", "sms", "smsto", "geo", "intent")

    /** A navigation ([isMainFrame]: of the top document; [hasGesture]: the user tapped). */
    fun forNavigation(url: String?, widgetOrigin: String, isMainFrame: Boolean, hasGesture: Boolean): GcLinkAction {
        val scheme = schemeOf(url) ?: return GcLinkAction.BLOCK
        if (scheme in OS_SCHEMES) return if (hasGesture) GcLinkAction.OS else GcLinkAction.BLOCK
        // a sub-frame's own loads (an embed, about:srcdoc, blob:) are the frame's business
        if (!isMainFrame) return GcLinkAction.STAY
        if (scheme == "http" || scheme == "https") {
            return if (GcOrigin.of(url) == widgetOrigin) GcLinkAction.STAY else GcLinkAction.BROWSER
        }
        if (url == "about:blank") return GcLinkAction.STAY
        return GcLinkAction.BLOCK
    }

    /**
     * A new window (`target=_blank`, `window.open`): the widget's origin opens in place, other
     * pages in the system browser; without a user's tap nothing opens (pop-ups).
     */
    fun forNewWindow(url: String?, widgetOrigin: String, hasGesture: Boolean): GcLinkAction {
        if (!hasGesture) return GcLinkAction.BLOCK
        return forNavigation(url, widgetOrigin, isMainFrame = true, hasGesture = true)
    }

    /** The URL's scheme, lower-cased, or null when it has none. */
    fun schemeOf(url: String?): String? {
        val colon = url?.indexOf(':') ?: return null
        if (colon <= 0) return null
        val scheme = url.substring(0, colon)
        if (!scheme[0].isLetter() || !scheme.all { it.isLetterOrDigit() || it == '+' || it == '-' || it == '.' }) {
            return null
        }
        return scheme.lowercase()
    }
}

/** Origins as the kit compares them: `scheme://host[:port]`, lower-cased, default port dropped. */
object GcOrigin {
    /** The origin of an http(s) URL, or null (another scheme, or no host). */
    fun of(url: String?): String? {
        val uri = try {
            URI(url ?: return null)
        } catch (e: URISyntaxException) {
            return null
        }
        val scheme = uri.scheme?.lowercase() ?: return null
        val host = uri.host?.lowercase() ?: return null
        if (scheme != "https" && scheme != "http") return null
        val port = uri.port
        val isDefault = port == -1 || (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
        return if (isDefault) "$scheme://$host" else "$scheme://$host:$port"
    }
}
