package dev.gcbridge.comments

import android.annotation.SuppressLint
import android.content.Intent
import android.content.pm.ApplicationInfo
import android.graphics.Bitmap
import android.net.Uri
import android.net.http.SslError
import android.os.Handler
import android.os.Looper
import android.os.SystemClock
import android.view.ViewGroup
import android.webkit.JavascriptInterface
import android.webkit.RenderProcessGoneDetail
import android.webkit.SslErrorHandler
import android.webkit.WebResourceError
import android.webkit.WebResourceRequest
import android.webkit.WebResourceResponse
import android.webkit.WebView
import android.webkit.WebViewClient
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.launch
import org.json.JSONObject

/**
 * The hosted comment widget in an Android WebView, with gc-bridge bridge.js and the SSO loop.
 *
 * App -> Web (injection): bridge.js through `WebViewCompat.addDocumentStartJavaScript` where
 * `WebViewFeature.DOCUMENT_START_SCRIPT` is supported, and through `evaluateJavascript` in
 * `onPageFinished` (a no-op when already installed); `window.gcSsoLogin(ssoData)` /
 * `window.gcSsoLogout()` through `evaluateJavascript`.
 *
 * Web -> App (messages): bridge.js calls `window.GcBridgeAndroid.postMessage(string)`, an object
 * made by `WebViewCompat.addWebMessageListener` for the widget's origin only (main frame checked
 * here); on WebViews without `WEB_MESSAGE_LISTENER`, by `addJavascriptInterface` (see README:
 * that fallback cannot tell frames apart).
 *
 * The WebView's life: `onPageStarted` -> `pageStarted()`, `onPageFinished` -> `pageFinished()`
 * (a second one for the same document is ignored), a `pageshow` with `persisted` ->
 * `restored()`, `onRenderProcessGone` -> `contentTerminated()`: the kit destroys the dead
 * WebView, puts a new one in its place in the parent, loads the widget and returns true (the
 * app lives on; [onWebViewReplaced] hands the app the new view). Call [onPause] / [onResume]
 * from the Activity's: a resume renews a fetch in flight, and the widget's login after the
 * ssoData lifetime.
 *
 * Call from the main thread; pass the Activity's or Fragment's `lifecycleScope` as [scope].
 */
class GcCommentsController(
    webView: WebView,
    gcUrl: String,
    apiPublicKey: String?,
    private val ssoProvider: SsoDataProvider?,
    private val scope: CoroutineScope,
    /** Every widget event after the controller acted on it: (name, the whole JSON object). */
    private val onWidgetEvent: (String, JSONObject) -> Unit = { _, _ -> },
    /** Failures of the ssoData provider (the widget stays signed out). */
    private val onError: (Throwable) -> Unit = {},
    /** Identity of the app's signed-in user at start (any string), null when signed out. */
    appUser: String? = null,
    /** The WebView that replaced a dead one (after `onRenderProcessGone`): keep it, not the old one. */
    private val onWebViewReplaced: (WebView) -> Unit = {},
    /** Milliseconds clock for the time spent paused (default `SystemClock.elapsedRealtime`). */
    private val clock: () -> Long = { SystemClock.elapsedRealtime() },
    /** Load errors, the error view, the WebView factory and hook, dialogs, files, crashes ([GcCommentsOptions]). */
    private val options: GcCommentsOptions = GcCommentsOptions(),
    /**
     * By default, while the app has no user a ready widget is signed out (it restores its own
     * stored session, a previous user's, by itself); true keeps that session, for apps that let
     * signed-out users use the service's own accounts.
     */
    keepWidgetSession: Boolean = GcSsoCoordinator.KEEP_WIDGET_SESSION,
) {
    /** The WebView now showing the widget (a new one after the render process died). */
    var webView: WebView = webView
        private set
    private val widgetUrl: String = withApiPublicKey(gcUrl, apiPublicKey)
    private val widgetOrigin: String = requireNotNull(originOf(gcUrl)) { "gc_url must be http(s)" }
    private val usesSso = !apiPublicKey.isNullOrEmpty()
    private val bridgeSource: String = GcBridgeScript.load(webView.context)
    /** bridge.js, then the lifecycle script (both no-ops when injected again into a document). */
    private val pageScripts: String = bridgeSource + "\n" + GcSsoScripts.LIFECYCLE_SCRIPT
    private val mainThread = Handler(Looper.getMainLooper())

    /** Every decision (when to fetch, inject, sign out, ask, discard) is the coordinator's. */
    private val coordinator = GcSsoCoordinator(
        user = appUser,
        sso = usesSso && ssoProvider != null,
        keepWidgetSession = keepWidgetSession,
    )
    private var fetchJob: Job? = null
    private var pausedAt: Long? = null

    /** Dialogs, files, full screen, permissions, console, new windows (one for every WebView). */
    private val chromeClient = GcChromeClient(widgetOrigin, options.chrome, { this.webView }) { url -> this.webView.loadUrl(url) }
    /** The error view in the WebView's place, and the deferred load of a replaced WebView. */
    private val host = GcWebViewHost(
        options,
        clock,
        isForeground = { pausedAt == null },
        currentWebView = { this.webView },
        load = { this.webView.loadUrl(widgetUrl) },
        retry = ::retry,
    )

    /** Configure the WebView, install the bridge and the channel, load the widget. */
    fun start() {
        setUp(webView)
        webView.loadUrl(widgetUrl)
    }

    /** Call from `Activity.onDestroy` (or the Fragment's `onDestroyView`): the WebView is destroyed. */
    fun destroy() {
        fetchJob?.cancel()
        chromeClient.release()
        host.cancelLoad()
        webView.destroy()
    }

    /** Load the widget again (the error view's Retry; after `onLoadError`): a fresh crash budget. */
    fun retry() {
        options.crashGuard.reset()
        host.hideError()
        host.cancelLoad()
        webView.loadUrl(widgetUrl)
    }

    /** Forward `Activity.onActivityResult` here when the kit started the file chooser: true if it was its request. */
    fun onActivityResult(requestCode: Int, resultCode: Int, data: Intent?): Boolean {
        if (requestCode != GcChromeClient.FILE_CHOOSER_REQUEST) return false
        chromeClient.chooserResult(resultCode, data)
        return true
    }

    /** Leaves full-screen video (call from the Activity's back handling): true if it was full screen. */
    fun exitFullScreen(): Boolean = chromeClient.exitFullScreen()

    /** Call from `Activity.onPause` (or the Fragment's). */
    fun onPause() {
        webView.onPause()
        if (pausedAt == null) pausedAt = clock()
    }

    /** Call from `Activity.onResume`: the coordinator learns how long the app was away. */
    fun onResume() {
        webView.onResume()
        val since = pausedAt ?: return
        pausedAt = null
        perform(coordinator.resume(maxOf(0L, clock() - since) / 1000.0))
        host.resumed() // a render process that died while the app was away
    }

    @SuppressLint("SetJavaScriptEnabled")
    private fun setUp(webView: WebView) {
        webView.settings.javaScriptEnabled = true
        // The widget keeps its session token in localStorage: without DOM storage the user is
        // signed out on every launch.
        webView.settings.domStorageEnabled = true
        // target=_blank and window.open reach onCreateWindow (GcChromeClient), which opens the
        // widget's origin in place and other pages in the browser; only on a user's tap
        webView.settings.setSupportMultipleWindows(true)
        webView.settings.javaScriptCanOpenWindowsAutomatically = false
        installChannel(webView)
        GcWebkit.addDocumentStartScript(webView, pageScripts, widgetOrigin)
        webView.webViewClient = Client()
        webView.webChromeClient = chromeClient
        val debuggable = webView.context.applicationInfo.flags and ApplicationInfo.FLAG_DEBUGGABLE != 0
        WebView.setWebContentsDebuggingEnabled(options.webContentsDebugging ?: debuggable)
        options.configureWebView(webView)
        // after the app's hook: its own user agent keeps the token too (once)
        webView.settings.userAgentString = GcUserAgent.withSuffix(webView.settings.userAgentString)
    }

    /**
     * The render process is gone: the dead WebView leaves the hierarchy at once (Android's
     * documented duty), a new one from the app's factory takes its place with the app's
     * settings ([GcWebViewSettings.copy], then the app's hook), and loads the widget when
     * [GcRecoveryPolicy] says so: now, once the app is back and the view on screen, or never
     * (too many crashes in a minute: the error view, whose Retry starts afresh).
     */
    private fun replaceWebView() {
        val dead = webView
        val fresh = options.webViewFactory(dead.context)
        GcWebViewSettings.copy(dead, fresh)
        val parent = dead.parent as? ViewGroup
        if (parent != null) {
            val index = parent.indexOfChild(dead)
            val params = dead.layoutParams
            parent.removeView(dead)
            parent.addView(fresh, index, params)
        }
        host.cancelLoad()
        dead.destroy()
        webView = fresh
        setUp(fresh)
        onWebViewReplaced(fresh)
        host.recover()
    }

    /** Call when the app's own user signs in, switches or signs out ([user]: any identity, null when signed out). */
    fun appLoginStateChanged(user: String?) {
        perform(if (user != null) coordinator.appLogin(user) else coordinator.appLogout())
    }

    /** Fetch fresh ssoData for the current app user and inject it (after the app's own re-login). */
    fun refreshSso() {
        val user = coordinator.user ?: return
        perform(coordinator.appLogin(user))
    }

    /** Performs what the coordinator decided; [cause] is the failure behind an Error effect. */
    private fun perform(effects: List<GcSsoEffect>, cause: Throwable? = null) {
        for (effect in effects) {
            when (effect) {
                is GcSsoEffect.Fetch -> fetch(effect.fetch)
                // GcJson.quote makes a JavaScript string literal: ssoData is data, never code.
                is GcSsoEffect.Login -> evaluateOnWidget(GcSsoScripts.login(effect.ssoData))
                is GcSsoEffect.Logout -> evaluateOnWidget(GcSsoScripts.LOGOUT)
                is GcSsoEffect.AskConflict -> askConflict(effect.conflict, effect.username)
                is GcSsoEffect.Error -> onError(cause ?: IllegalStateException("${effect.reason}: ${effect.error}"))
                is GcSsoEffect.Notify -> onWidgetEvent(effect.name, JSONObject(effect.event))
                is GcSsoEffect.Reload -> replaceWebView()
                is GcSsoEffect.Ignore, is GcSsoEffect.Discard -> Unit
            }
        }
    }

    private fun fetch(id: Int) {
        val provider = ssoProvider ?: return
        fetchJob?.cancel() // the coordinator discards its answer anyway: a newer fetch supersedes it
        fetchJob = scope.launch {
            val ssoData = try {
                provider.fetchSsoData()
            } catch (e: CancellationException) {
                throw e
            } catch (e: Exception) {
                perform(coordinator.fetchResult(id, null, e.toString()), e)
                return@launch
            }
            perform(coordinator.fetchResult(id, ssoData))
        }
    }

    private fun askConflict(id: Int, username: String) {
        val provider = ssoProvider ?: return
        scope.launch {
            val ssoData = try {
                provider.resolveConflict(username)
            } catch (e: CancellationException) {
                throw e
            } catch (e: Exception) {
                perform(coordinator.conflictResult(id, null, e.toString()), e)
                return@launch
            }
            perform(coordinator.conflictResult(id, ssoData))
        }
    }

    /** Evaluates [script] only while the WebView shows the widget's origin (ssoData stays there). */
    private fun evaluateOnWidget(script: String) {
        if (originOf(webView.url) != widgetOrigin) return
        webView.evaluateJavascript(script, null)
    }

    /** A message from the page: the lifecycle script's restore report, or one for the coordinator. */
    private fun received(message: String, fromWidget: Boolean) {
        perform(
            if (fromWidget && message == GcSsoScripts.RESTORED_MESSAGE) coordinator.restored()
            else coordinator.message(message, fromWidget)
        )
    }

    private fun installChannel(webView: WebView) {
        val listening = GcWebkit.addMessageListener(webView, CHANNEL, widgetOrigin) { message ->
            // Runs on the main thread. The origin rule already filters; check it again together
            // with the frame, as the platform docs advise. A message that is not a string (an
            // ArrayBuffer) is refused like one of another origin, never read.
            val fromWidget = GcChannelPolicy.fromWidget(message, widgetOrigin)
            received(GcChannelPolicy.textFor(message, widgetOrigin), fromWidget)
        }
        // No WEB_MESSAGE_LISTENER, or the origin rule refused: the checked fallback channel.
        if (!listening) webView.addJavascriptInterface(JavascriptChannel(), CHANNEL)
    }

    /** Fallback channel; called on a WebView background thread, so hop to the main thread. */
    private inner class JavascriptChannel {
        @JavascriptInterface
        fun postMessage(message: String?) {
            mainThread.post {
                received(message ?: "", originOf(webView.url) == widgetOrigin)
            }
        }
    }

    private inner class Client : WebViewClient() {
        override fun onPageStarted(view: WebView, url: String?, favicon: Bitmap?) {
            super.onPageStarted(view, url, favicon)
            // A new document (launch, reload, navigation, a new WebView): wait for the widget to
            // be ready again; answers for the old document are discarded. WebView calls this when
            // the navigation commits, and not for same-document ones (a fragment, pushState:
            // Chromium's AwWebContentsObserver.didFinishNavigation); a navigation aborted before
            // it commits (a 204) gives onPageFinished alone, already-finished for the coordinator.
            perform(coordinator.pageStarted())
        }

        override fun onPageFinished(view: WebView, url: String?) {
            super.onPageFinished(view, url)
            // Android's documented injection point; a no-op where the document-start script
            // already installed the bridge (bridge.js ignores a second injection).
            if (originOf(url) == widgetOrigin) {
                view.evaluateJavascript(pageScripts, null)
                // gc-ready fired before this bridge existed: page finished is a trigger here
                // (a second onPageFinished for the same document is ignored by the coordinator).
                perform(coordinator.pageFinished())
            }
        }

        /**
         * The render process crashed or was killed to reclaim memory. Returning false would kill
         * the app; the kit recreates the WebView (the [GcSsoEffect.Reload] effect) and returns true.
         */
        override fun onRenderProcessGone(view: WebView, detail: RenderProcessGoneDetail): Boolean {
            if (view !== webView) return true // an earlier, already replaced WebView
            options.onRenderProcessGone(detail.didCrash())
            perform(coordinator.contentTerminated())
            return true
        }

        /**
         * Links in comments leave the widget ([GcLinkPolicy]): other pages open in the system
         * browser; `mailto:`, `tel:`, `intent:` in the user's apps; the widget's origin stays.
         */
        override fun shouldOverrideUrlLoading(view: WebView, request: WebResourceRequest): Boolean {
            val url = request.url.toString()
            val action = GcLinkPolicy.forNavigation(url, widgetOrigin, request.isForMainFrame, request.hasGesture())
            if (action == GcLinkAction.STAY) return false
            GcLinks.openLink(view.context, url, action)
            return true
        }

        /** The widget's page could not be loaded (offline, DNS, TLS, timeout): the error view, `onLoadError`. */
        override fun onReceivedError(view: WebView, request: WebResourceRequest, error: WebResourceError) {
            val url = request.url.toString()
            if (view !== webView || !GcLoadErrorPolicy.isWidgetLoadError(url, request.isForMainFrame, widgetOrigin)) return
            host.showError(GcLoadError(url, error.errorCode, error.description?.toString().orEmpty()))
        }

        /** An HTTP error status for the widget's page (4xx, 5xx): no widget on it either. */
        override fun onReceivedHttpError(view: WebView, request: WebResourceRequest, errorResponse: WebResourceResponse) {
            val url = request.url.toString()
            if (view !== webView || !GcLoadErrorPolicy.isWidgetLoadError(url, request.isForMainFrame, widgetOrigin)) return
            if (!GcLoadErrorPolicy.isErrorStatus(errorResponse.statusCode)) return
            host.showError(GcLoadError(url, description = errorResponse.reasonPhrase.orEmpty(), httpStatus = errorResponse.statusCode))
        }

        /** A TLS error is never overridden (the load is cancelled, as by default); for the widget's page, the error view. */
        override fun onReceivedSslError(view: WebView, handler: SslErrorHandler, error: SslError) {
            handler.cancel()
            if (view === webView && GcOrigin.of(error.url) == widgetOrigin) {
                host.showError(GcLoadError(error.url, ERROR_FAILED_SSL_HANDSHAKE, "TLS error ${error.primaryError}"))
            }
        }
    }

    companion object {
        /** The JavaScript object bridge.js posts to; the name is part of the contract. */
        const val CHANNEL = "GcBridgeAndroid"

        /** bridge.js forwards at most 64 KiB; anything larger is not from it. */
        const val MAX_MESSAGE_CHARS = GcSsoCoordinator.MAX_MESSAGE_CHARS

        /** `scheme://host[:port]`, lower-cased, default port dropped; null unless http(s). */
        fun originOf(url: String?): String? {
            val uri = Uri.parse(url ?: return null)
            val scheme = uri.scheme?.lowercase() ?: return null
            val host = uri.host?.lowercase() ?: return null
            if (scheme != "https" && scheme != "http") return null
            val port = uri.port
            val isDefault = port == -1 || (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
            return if (isDefault) "$scheme://$host" else "$scheme://$host:$port"
        }

        /** gc_url with `api_public_key` appended (docs/explanation/service.md#loading-the-widget); without a key the widget ignores SSO. */
        fun withApiPublicKey(gcUrl: String, apiPublicKey: String?): String {
            if (apiPublicKey.isNullOrEmpty()) return gcUrl
            return Uri.parse(gcUrl).buildUpon()
                .appendQueryParameter("api_public_key", apiPublicKey)
                .build()
                .toString()
        }
    }
}
