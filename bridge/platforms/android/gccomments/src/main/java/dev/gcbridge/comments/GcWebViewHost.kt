package dev.gcbridge.comments

import android.os.Handler
import android.os.Looper
import android.view.View
import android.view.ViewGroup
import android.view.ViewTreeObserver
import android.webkit.WebView

/**
 * What the controller shows in its WebView's place, and when a replaced WebView loads:
 * - the error view (the app's, or [GcDefaultErrorView]) over a load error or a crash loop, with
 *   the app's `onLoadError`;
 * - the load of a WebView that replaced one whose render process died, when [GcRecoveryPolicy]
 *   allows it: now, or once the app is resumed and the view shown (checked at `onResume` and
 *   before every frame the window draws), or never (the crash guard's budget is spent).
 */
internal class GcWebViewHost(
    private val options: GcCommentsOptions,
    private val clock: () -> Long,
    private val isForeground: () -> Boolean,
    /** The controller's WebView now. */
    private val currentWebView: () -> WebView,
    /** Loads the widget into the current WebView. */
    private val load: () -> Unit,
    private val retry: () -> Unit,
) {
    private val mainThread = Handler(Looper.getMainLooper())
    private var errorView: View? = null
    private var pendingLoad: ViewTreeObserver.OnPreDrawListener? = null

    /** A new WebView took a dead one's place: load it now, later, or show the error view. */
    fun recover() = loadIfDue(recovering = true)

    /** The app is resumed: a deferred load may be due. */
    fun resumed() = loadIfDue(recovering = pendingLoad != null)

    private fun loadIfDue(recovering: Boolean) {
        if (!recovering) return
        val view = currentWebView()
        when (GcRecoveryPolicy.decide(options.crashGuard, clock(), isForeground(), view.isShown)) {
            GcRecovery.NOW -> {
                cancelLoad()
                load()
            }
            GcRecovery.DEFER -> if (pendingLoad == null) {
                val listener = ViewTreeObserver.OnPreDrawListener {
                    if (isForeground() && currentWebView().isShown) mainThread.post { resumed() }
                    true
                }
                pendingLoad = listener
                view.viewTreeObserver.addOnPreDrawListener(listener)
            }
            GcRecovery.GIVE_UP -> {
                cancelLoad()
                showError(GcLoadError(null, description = "the web content process died too often"))
            }
        }
    }

    /** Forgets a deferred load (Retry, a newer replacement, destroy). */
    fun cancelLoad() {
        val listener = pendingLoad ?: return
        pendingLoad = null
        currentWebView().viewTreeObserver.removeOnPreDrawListener(listener)
    }

    /** The app's `onLoadError`, and the error view in the WebView's place (same parent, same layout params). */
    fun showError(error: GcLoadError) {
        options.onLoadError(error, retry)
        val factory = options.errorView ?: return
        val webView = currentWebView()
        val parent = webView.parent as? ViewGroup ?: return
        hideError()
        val view = factory.create(webView.context, error, retry)
        parent.addView(view, parent.indexOfChild(webView) + 1, webView.layoutParams)
        webView.visibility = View.INVISIBLE
        errorView = view
    }

    fun hideError() {
        val view = errorView ?: return
        errorView = null
        (view.parent as? ViewGroup)?.removeView(view)
        currentWebView().visibility = View.VISIBLE
    }
}
