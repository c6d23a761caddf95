package dev.gcbridge.comments.compose

import android.view.ViewGroup
import android.widget.FrameLayout
import androidx.activity.compose.rememberLauncherForActivityResult
import androidx.activity.result.contract.ActivityResultContracts
import androidx.compose.runtime.Composable
import androidx.compose.runtime.DisposableEffect
import androidx.compose.runtime.LaunchedEffect
import androidx.compose.runtime.getValue
import androidx.compose.runtime.mutableStateOf
import androidx.compose.runtime.remember
import androidx.compose.runtime.rememberCoroutineScope
import androidx.compose.runtime.rememberUpdatedState
import androidx.compose.runtime.setValue
import androidx.compose.ui.Modifier
import androidx.compose.ui.platform.LocalContext
import androidx.compose.ui.viewinterop.AndroidView
import androidx.lifecycle.Lifecycle
import androidx.lifecycle.LifecycleEventObserver
import androidx.lifecycle.compose.LocalLifecycleOwner
import dev.gcbridge.comments.GcChromeOptions
import dev.gcbridge.comments.GcCommentsController
import dev.gcbridge.comments.GcCommentsOptions
import dev.gcbridge.comments.SsoDataProvider
import org.json.JSONObject

/**
 * The hosted comment widget as a composable: a [GcCommentsController] in an `AndroidView`.
 *
 * The WebView sits in a container of the kit's own, so a WebView whose render process died is
 * replaced in place; the controller follows the composition's lifecycle (`ON_PAUSE` /
 * `ON_RESUME`, destroyed when the composable leaves); [appUser] changes re-inject fresh ssoData
 * or sign the widget out; the file chooser runs through an `ActivityResultLauncher` (unless
 * [options] brings its own `launchChooser`).
 *
 * ```kotlin
 * GcComments(gcUrl = thread.gcUrl, apiPublicKey = "pk_...", ssoProvider = provider,
 *            appUser = session.userId, modifier = Modifier.fillMaxSize())
 * ```
 */
@Composable
fun GcComments(
    gcUrl: String,
    apiPublicKey: String?,
    ssoProvider: SsoDataProvider?,
    appUser: String?,
    modifier: Modifier = Modifier,
    onWidgetEvent: (String, JSONObject) -> Unit = { _, _ -> },
    onError: (Throwable) -> Unit = {},
    options: GcCommentsOptions = GcCommentsOptions(),
    /** The controller, once made (for `retry()`, `exitFullScreen()`, `webView`). */
    onController: (GcCommentsController) -> Unit = {},
) {
    val context = LocalContext.current
    val lifecycleOwner = LocalLifecycleOwner.current
    val scope = rememberCoroutineScope()
    val events by rememberUpdatedState(onWidgetEvent)
    val errors by rememberUpdatedState(onError)
    var chooserReply by remember { mutableStateOf<((Int, android.content.Intent?) -> Unit)?>(null) }
    val chooser = rememberLauncherForActivityResult(ActivityResultContracts.StartActivityForResult()) { result ->
        chooserReply?.invoke(result.resultCode, result.data)
        chooserReply = null
    }
    val controller = remember(gcUrl, apiPublicKey) {
        val container = FrameLayout(context)
        val webView = options.webViewFactory(context)
        container.addView(webView, ViewGroup.LayoutParams(ViewGroup.LayoutParams.MATCH_PARENT, ViewGroup.LayoutParams.MATCH_PARENT))
        GcCommentsController(
            webView = webView,
            gcUrl = gcUrl,
            apiPublicKey = apiPublicKey,
            ssoProvider = ssoProvider,
            scope = scope,
            onWidgetEvent = { name, event -> events(name, event) },
            onError = { error -> errors(error) },
            appUser = appUser,
            options = withChooser(options) { intent, reply ->
                chooserReply = reply
                chooser.launch(intent)
            },
        ).also { it.start() }
    }
    AndroidView(factory = { controller.webView.parent as FrameLayout }, modifier = modifier)
    DisposableEffect(lifecycleOwner, controller) {
        onController(controller)
        val observer = LifecycleEventObserver { _, event ->
            when (event) {
                Lifecycle.Event.ON_PAUSE -> controller.onPause()
                Lifecycle.Event.ON_RESUME -> controller.onResume()
                else -> Unit
            }
        }
        lifecycleOwner.lifecycle.addObserver(observer)
        onDispose {
            lifecycleOwner.lifecycle.removeObserver(observer)
            controller.destroy()
        }
    }
    var injectedFor by remember(controller) { mutableStateOf(appUser) }
    LaunchedEffect(controller, appUser) {
        if (appUser != injectedFor) {
            injectedFor = appUser
            controller.appLoginStateChanged(appUser)
        }
    }
}

/** [options] with the composable's launcher as the file chooser, unless the app brought one. */
private fun withChooser(
    options: GcCommentsOptions,
    launch: (android.content.Intent, (Int, android.content.Intent?) -> Unit) -> Unit,
): GcCommentsOptions {
    val chrome = options.chrome
    if (chrome.launchChooser != null) return options
    return GcCommentsOptions(
        onLoadError = options.onLoadError,
        errorView = options.errorView,
        webViewFactory = options.webViewFactory,
        configureWebView = options.configureWebView,
        onRenderProcessGone = options.onRenderProcessGone,
        crashGuard = options.crashGuard,
        chrome = GcChromeOptions(
            onPermissionRequest = chrome.onPermissionRequest,
            cameraOutput = chrome.cameraOutput,
            launchChooser = launch,
            onFullScreen = chrome.onFullScreen,
            logConsole = chrome.logConsole,
        ),
        webContentsDebugging = options.webContentsDebugging,
    )
}
