package dev.gcbridge.comments

import android.webkit.WebView
import androidx.webkit.WebMessageCompat
import androidx.webkit.WebViewCompat
import androidx.webkit.WebViewFeature

/**
 * Everything the kit uses of androidx.webkit, in this one file: no other file of the kit
 * imports it. (gc-bridge's own checks compile it against a stub written from androidx.webkit's
 * API reference, `android/check/stubs/`, because androidx is served only by Google's Maven
 * repository; an app builds it against the real `androidx.webkit:webkit`.)
 */
internal object GcWebkit {
    /**
     * Adds [script] at document start in frames of [origin], where the WebView supports it;
     * false when it does not, or refuses the origin rule (`IllegalArgumentException`): the kit
     * then relies on its `onPageFinished` injection alone.
     */
    fun addDocumentStartScript(webView: WebView, script: String, origin: String): Boolean {
        if (!WebViewFeature.isFeatureSupported(WebViewFeature.DOCUMENT_START_SCRIPT)) return false
        return GcChannelPolicy.installed {
            WebViewCompat.addDocumentStartJavaScript(webView, script, setOf(origin))
        }
    }

    /**
     * Adds the JavaScript object [name] in frames of [origin] only, whose messages go to
     * [onMessage] on the main thread. False when the WebView lacks `WEB_MESSAGE_LISTENER` or
     * refuses the origin rule (`addWebMessageListener` throws `IllegalArgumentException` for a
     * malformed rule): the caller falls back to its checked channel.
     */
    fun addMessageListener(webView: WebView, name: String, origin: String, onMessage: (GcInboundMessage) -> Unit): Boolean {
        if (!WebViewFeature.isFeatureSupported(WebViewFeature.WEB_MESSAGE_LISTENER)) return false
        return GcChannelPolicy.installed {
            WebViewCompat.addWebMessageListener(webView, name, setOf(origin)) { _, message, sourceOrigin, isMainFrame, _ ->
                onMessage(GcInboundMessage(textOf(message), sourceOrigin.toString(), isMainFrame))
            }
        }
    }

    /**
     * The message's text, or null when it is not a string. `getData()` throws
     * `IllegalStateException` for an ArrayBuffer (`TYPE_ARRAY_BUFFER`): the type is checked
     * first, so a page's `postMessage(new ArrayBuffer(1))` cannot crash the app.
     */
    fun textOf(message: WebMessageCompat): String? =
        if (message.type == WebMessageCompat.TYPE_STRING) message.data.orEmpty() else null
}

/** A message on the kit's channel: [text] null when it was not a string (an ArrayBuffer). */
data class GcInboundMessage(val text: String?, val sourceOrigin: String, val isMainFrame: Boolean)

/** The channel's rules (pure: JVM tests pin them). */
object GcChannelPolicy {
    /**
     * Whether a message speaks for the widget: a string, from the main frame, of the widget's
     * origin. Anything else is refused alike (the coordinator ignores it as foreign).
     */
    fun fromWidget(message: GcInboundMessage, widgetOrigin: String): Boolean =
        message.text != null && message.isMainFrame && GcOrigin.of(message.sourceOrigin) == widgetOrigin

    /** The text handed to the coordinator: the message's own when it is from the widget, else "". */
    fun textFor(message: GcInboundMessage, widgetOrigin: String): String =
        if (fromWidget(message, widgetOrigin)) message.text.orEmpty() else ""

    /** Runs a platform install that may refuse its origin rule: true if it took, false if refused. */
    fun installed(install: () -> Unit): Boolean = try {
        install()
        true
    } catch (e: IllegalArgumentException) {
        false
    }
}
