package dev.gcbridge.comments

import android.content.ActivityNotFoundException
import android.content.Context
import android.content.Intent
import android.net.Uri
import java.net.URISyntaxException

/** Opens what [GcLinkPolicy] sends out of the WebView: the system browser, or the OS. */
internal object GcLinks {
    /** Opens [url] as [action] says (BROWSER or OS); false when nothing could open it. */
    fun openLink(context: Context, url: String, action: GcLinkAction): Boolean {
        val intent = when (action) {
            GcLinkAction.BROWSER -> browsable(Uri.parse(url))
            GcLinkAction.OS -> intentFor(url) ?: return false
            GcLinkAction.STAY, GcLinkAction.BLOCK -> return false
        }
        if (context !is android.app.Activity) intent.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK)
        return try {
            context.startActivity(intent)
            true
        } catch (e: ActivityNotFoundException) {
            val fallback = fallbackUrl(url) ?: return false
            openLink(context, fallback, GcLinkAction.BROWSER)
        } catch (e: SecurityException) {
            false
        }
    }

    /**
     * The intent for an OS link. An `intent:` URL is parsed as Chrome does it safely: only
     * BROWSABLE activities, no explicit component and no selector, so a page cannot start a
     * private activity of this or another app.
     */
    fun intentFor(url: String): Intent? {
        if (GcLinkPolicy.schemeOf(url) != "intent") return browsable(Uri.parse(url))
        val intent = try {
            Intent.parseUri(url, Intent.URI_INTENT_SCHEME)
        } catch (e: URISyntaxException) {
            return null
        }
        intent.addCategory(Intent.CATEGORY_BROWSABLE)
        intent.component = null
        intent.selector = null
        return intent
    }

    /** An `intent:` URL's `S.browser_fallback_url`, when it is http(s). */
    fun fallbackUrl(url: String): String? {
        if (GcLinkPolicy.schemeOf(url) != "intent") return null
        val fallback = Regex(";S\\.browser_fallback_url=([^;]*)").find(url)?.groupValues?.get(1) ?: return null
        val decoded = Uri.decode(fallback)
        return decoded.takeIf { GcOrigin.of(it) != null }
    }

    private fun browsable(uri: Uri) = Intent(Intent.ACTION_VIEW, uri).addCategory(Intent.CATEGORY_BROWSABLE)
}
