package dev.gcbridge.comments

/**
 * The widget's page could not be loaded: no network, DNS, TLS, a timeout ([errorCode]: a
 * `WebViewClient.ERROR_*` value, [description] the WebView's text), or an HTTP error status
 * ([httpStatus] >= 400). The kit shows its error view (or the app's) with a Retry.
 */
data class GcLoadError(
    val url: String?,
    val errorCode: Int = 0,
    val description: String = "",
    val httpStatus: Int? = null,
)

/** Which load failures are the widget's (pure: JVM tests pin it). */
object GcLoadErrorPolicy {
    /**
     * A failure of the main frame's document at the widget's origin. Sub-resources (an image
     * in a comment, an embed) and pages of other origins do not blank the widget: they are not
     * load errors of the widget.
     */
    fun isWidgetLoadError(url: String?, isForMainFrame: Boolean, widgetOrigin: String): Boolean =
        isForMainFrame && GcOrigin.of(url) == widgetOrigin

    /** An HTTP status that leaves no widget on the page (4xx, 5xx). */
    fun isErrorStatus(status: Int): Boolean = status >= 400
}

/** `gc-bridge/<version>` appended to the WebView's user agent (the bridge.js version of [GcBridgePin]). */
object GcUserAgent {
    val TOKEN: String = "gc-bridge/" + GcBridgePin.VERSION

    /** [userAgent] with the token appended once (again on a replaced WebView: no duplicate). */
    fun withSuffix(userAgent: String?): String {
        val base = userAgent.orEmpty().trim()
        if (base.split(' ').contains(TOKEN)) return base
        return if (base.isEmpty()) TOKEN else "$base $TOKEN"
    }
}
