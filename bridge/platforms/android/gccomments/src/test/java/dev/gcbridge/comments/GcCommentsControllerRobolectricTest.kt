package dev.gcbridge.comments

import android.app.Activity
import android.content.Context
import android.content.ContextWrapper
import android.content.Intent
import android.content.res.AssetManager
import android.net.Uri
import android.view.View
import android.view.ViewGroup
import android.webkit.RenderProcessGoneDetail
import android.webkit.WebResourceError
import android.webkit.WebResourceRequest
import android.webkit.WebView
import android.widget.Button
import android.widget.FrameLayout
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNotSame
import org.junit.Assert.assertNull
import org.junit.Assert.assertSame
import org.junit.Assert.assertTrue
import org.junit.Before
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.Robolectric
import org.robolectric.RobolectricTestRunner
import org.robolectric.Shadows.shadowOf
import org.robolectric.annotation.Config

/**
 * The controller's glue on Robolectric's Android (API 35): what it sets up on the WebView, where
 * links go, the replacement of a WebView whose render process died (in place, with the app's
 * settings, deferred while paused, bounded by the crash guard), and load errors. Robolectric's
 * WebView runs no page: the WebViewClient's callbacks are called as WebView would.
 */
@RunWith(RobolectricTestRunner::class)
@Config(sdk = [35], manifest = Config.NONE)
class GcCommentsControllerRobolectricTest {
    private val widget = "https://comments.example/thread/1"
    private var now = 0L
    private val loadErrors = mutableListOf<GcLoadError>()
    private lateinit var activity: Activity
    private lateinit var parent: FrameLayout
    private lateinit var controller: GcCommentsController

    @Before
    fun setUp() {
        activity = Robolectric.buildActivity(Activity::class.java).setup().get()
        parent = FrameLayout(activity)
        activity.setContentView(parent)
        val webView = WebView(withKitAssets(activity)).apply {
            id = 42
            settings.textZoom = 130 // the app's own setting
        }
        parent.addView(webView, FrameLayout.LayoutParams(ViewGroup.LayoutParams.MATCH_PARENT, ViewGroup.LayoutParams.MATCH_PARENT))
        controller = GcCommentsController(
            webView = webView,
            gcUrl = widget,
            apiPublicKey = null,
            ssoProvider = null,
            scope = CoroutineScope(Dispatchers.Unconfined),
            clock = { now },
            options = GcCommentsOptions(onLoadError = { error, _ -> loadErrors.add(error) }),
        )
        controller.start()
    }

    @Test
    fun startSetsUpTheHost() {
        val view = controller.webView
        assertEquals(widget, shadowOf(view).lastLoadedUrl)
        assertTrue(view.webChromeClient is GcChromeClient)
        assertTrue(view.settings.userAgentString.endsWith(" " + GcUserAgent.TOKEN))
        assertTrue(view.settings.supportMultipleWindows())
        assertTrue(view.settings.domStorageEnabled)
        // no WEB_MESSAGE_LISTENER here (the androidx.webkit stub): the checked fallback channel
        assertTrue(shadowOf(view).getJavascriptInterface(GcCommentsController.CHANNEL) != null)
    }

    @Test
    fun mailtoGoesToTheOsAndTheWidgetStays() {
        val view = controller.webView
        assertTrue(view.webViewClient.shouldOverrideUrlLoading(view, request("mailto:a@b.example")))
        val started = shadowOf(activity).nextStartedActivity
        assertEquals(Intent.ACTION_VIEW, started.action)
        assertEquals("mailto:a@b.example", started.dataString)
        assertFalse(view.webViewClient.shouldOverrideUrlLoading(view, request("https://comments.example/thread/2")))
        assertTrue(view.webViewClient.shouldOverrideUrlLoading(view, request("javascript:alert(1)")))
        assertNull(shadowOf(activity).nextStartedActivity)
    }

    @Test
    fun aDeadRenderProcessIsReplacedInPlaceWithTheAppsSettings() {
        val dead = controller.webView
        assertTrue(dead.webViewClient.onRenderProcessGone(dead, gone(crashed = true)))
        val fresh = controller.webView
        assertNotSame(dead, fresh)
        assertSame(parent, fresh.parent)
        assertEquals(0, parent.indexOfChild(fresh))
        assertEquals(1, parent.childCount)
        assertEquals(42, fresh.id)
        assertEquals(130, fresh.settings.textZoom)
        assertTrue(fresh.webChromeClient is GcChromeClient)
        assertEquals(1, fresh.settings.userAgentString.split(GcUserAgent.TOKEN).size - 1)
        assertEquals(widget, shadowOf(fresh).lastLoadedUrl)
    }

    @Test
    fun whilePausedTheReplacementWaitsForResume() {
        controller.onPause()
        val dead = controller.webView
        dead.webViewClient.onRenderProcessGone(dead, gone(crashed = false))
        assertNull(shadowOf(controller.webView).lastLoadedUrl)
        controller.onResume()
        assertEquals(widget, shadowOf(controller.webView).lastLoadedUrl)
    }

    @Test
    fun aCrashLoopEndsInTheErrorViewAndRetryLoadsAgain() {
        repeat(3) {
            now += 1_000
            val dead = controller.webView
            dead.webViewClient.onRenderProcessGone(dead, gone(crashed = true))
            assertEquals(widget, shadowOf(controller.webView).lastLoadedUrl)
        }
        now += 1_000
        val dead = controller.webView
        dead.webViewClient.onRenderProcessGone(dead, gone(crashed = true))
        assertNull(shadowOf(controller.webView).lastLoadedUrl) // the fourth in a minute is not loaded
        assertEquals(1, loadErrors.size)
        assertEquals(2, parent.childCount)
        assertEquals(View.INVISIBLE, controller.webView.visibility)
        val retry = (parent.getChildAt(1) as ViewGroup).getChildAt(1) as Button
        assertEquals(GcDefaultErrorView.RETRY, retry.text.toString())
        retry.performClick()
        assertEquals(1, parent.childCount)
        assertEquals(View.VISIBLE, controller.webView.visibility)
        assertEquals(widget, shadowOf(controller.webView).lastLoadedUrl)
    }

    @Test
    fun aLoadErrorOfTheWidgetShowsTheErrorViewOthersDoNot() {
        val view = controller.webView
        view.webViewClient.onReceivedError(view, request("https://cdn.example/a.png", mainFrame = false), failure())
        assertEquals(1, parent.childCount)
        view.webViewClient.onReceivedError(view, request(widget), failure())
        assertEquals(2, parent.childCount)
        assertEquals(listOf(-2), loadErrors.map { it.errorCode })
    }

    private fun request(url: String, mainFrame: Boolean = true) = object : WebResourceRequest {
        override fun getUrl(): Uri = Uri.parse(url)
        override fun isForMainFrame() = mainFrame
        override fun isRedirect() = false
        override fun hasGesture() = true
        override fun getMethod() = "GET"
        override fun getRequestHeaders(): Map<String, String> = emptyMap()
    }

    private fun gone(crashed: Boolean) = object : RenderProcessGoneDetail() {
        override fun didCrash() = crashed
        override fun rendererPriorityAtExit() = 0
    }

    private fun failure() = object : WebResourceError() {
        override fun getErrorCode() = -2 // WebViewClient.ERROR_HOST_LOOKUP
        override fun getDescription(): CharSequence = "net::ERR_NAME_NOT_RESOLVED"
    }

    companion object {
        /**
         * [base] with the kit's assets: Gradle's `unitTests.isIncludeAndroidResources` gives the
         * app's own; kits-check, which has no Android Gradle plugin, passes a zip of them
         * (`gc.test.assetsApk`), loaded as Android loads an APK's assets.
         */
        fun withKitAssets(base: Context): Context {
            val zip = System.getProperty("gc.test.assetsApk") ?: return base
            val apkAssets = Class.forName("android.content.res.ApkAssets")
            val loaded = apkAssets.getMethod("loadFromPath", String::class.java).invoke(null, zip)
            val builderClass = Class.forName("android.content.res.AssetManager\$Builder")
            val builder = builderClass.getDeclaredConstructor().newInstance()
            builderClass.getMethod("addApkAssets", apkAssets).invoke(builder, loaded)
            val assets = builderClass.getMethod("build").invoke(builder) as AssetManager
            return object : ContextWrapper(base) {
                override fun getAssets(): AssetManager = assets
            }
        }
    }
}
