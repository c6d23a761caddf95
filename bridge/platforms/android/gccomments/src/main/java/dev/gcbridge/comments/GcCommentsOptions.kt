package dev.gcbridge.comments

import android.content.Context
import android.content.Intent
import android.net.Uri
import android.view.View
import android.webkit.WebView

/**
 * What an app may change of the kit's WebView host; every field has a working default.
 *
 * ```kotlin
 * GcCommentsOptions(
 *     onLoadError = { error, retry -> Log.w("comments", "load failed: $error") },
 *     webViewFactory = { context -> WebView(context) },          // your WebView subclass
 *     configureWebView = { it.settings.textZoom = 110 },        // every WebView, replacements too
 * )
 * ```
 */
class GcCommentsOptions(
    /** The widget's page failed to load (after the kit showed [errorView]); call `retry` to load it again. */
    val onLoadError: (GcLoadError, retry: () -> Unit) -> Unit = { _, _ -> },
    /** The view shown in the WebView's place after a load error or too many crashes; null: none (use [onLoadError]). */
    val errorView: GcErrorViewFactory? = GcDefaultErrorView,
    /** Makes the WebView that replaces one whose render process is gone (your subclass, your attributes). */
    val webViewFactory: (Context) -> WebView = { context -> WebView(context) },
    /**
     * Your settings, applied after the kit's to the first WebView and to every replacement (user
     * agent, text zoom, media, dark mode...). Keep the kit's `webViewClient` and `webChromeClient`.
     */
    val configureWebView: (WebView) -> Unit = {},
    /** The render process is gone ([didCrash]: `RenderProcessGoneDetail.didCrash()`; false: killed for memory). */
    val onRenderProcessGone: (didCrash: Boolean) -> Unit = {},
    /** Bounds the recoveries from dead render processes (3 a minute; see [GcCrashGuard]). */
    val crashGuard: GcCrashGuard = GcCrashGuard(),
    /** Dialogs, files, full screen, permissions and the console ([GcChromeOptions]). */
    val chrome: GcChromeOptions = GcChromeOptions(),
    /**
     * `WebView.setWebContentsDebuggingEnabled` (chrome://inspect, Appium): null follows the app's
     * `android:debuggable` (on in debug builds, off in release), true or false forces it.
     */
    val webContentsDebugging: Boolean? = null,
)

/** The kit's `WebChromeClient` ([GcChromeClient]): what the app decides. */
class GcChromeOptions(
    /**
     * A page of the widget's origin asks for the camera, the microphone or protected media:
     * ask your user (and Android's runtime permission), then `grant` or `deny`. Null: denied.
     */
    val onPermissionRequest: ((GcPermissionAsk) -> Unit)? = null,
    /**
     * A `content://` Uri the camera may write a photo to (your `FileProvider`), for
     * an image file input (`accept="image/jpeg"` or any image type); null: the chooser offers documents only.
     */
    val cameraOutput: (() -> Uri?)? = null,
    /**
     * Starts the file chooser's intent with your `ActivityResultLauncher` and calls back with
     * its result. Null: the kit calls `Activity.startActivityForResult`, and you forward
     * `onActivityResult` to [GcCommentsController.onActivityResult].
     */
    val launchChooser: ((Intent, (resultCode: Int, data: Intent?) -> Unit) -> Unit)? = null,
    /** Full-screen video: called with the view to show, then with null. Null: the kit covers the Activity's window. */
    val onFullScreen: ((View?) -> Unit)? = null,
    /** Page console messages to Logcat (tag `GcComments`). */
    val logConsole: Boolean = true,
)

/** A permission request of the widget's page, for the app to answer once. */
class GcPermissionAsk(
    val origin: String,
    /** `PermissionRequest.RESOURCE_*` values, already limited by [GcChromePolicy.askableResources]. */
    val resources: List<String>,
    private val onGrant: (List<String>) -> Unit,
    private val onDeny: () -> Unit,
) {
    fun grant(resources: List<String> = this.resources) = onGrant(resources.filter { it in this.resources })
    fun deny() = onDeny()
}
