package dev.gcbridge.comments

import android.app.Activity
import android.app.AlertDialog
import android.content.Intent
import android.graphics.Bitmap
import android.net.Uri
import android.os.Message
import android.provider.MediaStore
import android.util.Log
import android.view.View
import android.view.ViewGroup
import android.webkit.ConsoleMessage
import android.webkit.GeolocationPermissions
import android.webkit.JsPromptResult
import android.webkit.JsResult
import android.webkit.PermissionRequest
import android.webkit.ValueCallback
import android.webkit.WebChromeClient
import android.webkit.WebResourceRequest
import android.webkit.WebView
import android.webkit.WebViewClient
import android.widget.EditText
import android.widget.FrameLayout

/**
 * The kit's `WebChromeClient`: what a browser gives a page and a bare WebView does not.
 * Without one, WebView cancels `confirm()` (false) and `prompt()`, ignores file inputs, full
 * screen, permission requests and new windows. Every decision is [GcChromePolicy]'s or
 * [GcLinkPolicy]'s; this class only shows dialogs and starts activities.
 *
 * - `alert` / `confirm` / `prompt`: `AlertDialog`s titled with the page's host, for the
 *   widget's origin only; the result is answered exactly once (OK, Cancel or dismissal).
 * - `<input type=file>`: `FileChooserParams.createIntent()` (documents), plus the camera when
 *   the app gives a place for the photo ([GcChromeOptions.cameraOutput]).
 * - full-screen video (`onShowCustomView`), permission requests (asked of the app), the console
 *   to Logcat, and new windows: the widget's origin opens in place, others in the browser.
 */
internal class GcChromeClient(
    private val widgetOrigin: String,
    private val options: GcChromeOptions,
    /** The kit's WebView now (a replacement after the render process died). */
    private val currentWebView: () -> WebView,
    /** Loads a URL of the widget's origin in the kit's WebView (a new window, in place). */
    private val loadInPlace: (String) -> Unit,
) : WebChromeClient() {
    private val files = GcPendingFiles()
    private var cameraUri: Uri? = null
    private var fullScreen: Pair<View, CustomViewCallback>? = null

    // Dialogs

    override fun onJsAlert(view: WebView, url: String?, message: String?, result: JsResult): Boolean =
        dialog(view, url, message, GcDialogKind.ALERT, null) { answer -> answer(result, answer) }

    override fun onJsConfirm(view: WebView, url: String?, message: String?, result: JsResult): Boolean =
        dialog(view, url, message, GcDialogKind.CONFIRM, null) { answer -> answer(result, answer) }

    override fun onJsPrompt(view: WebView, url: String?, message: String?, defaultValue: String?, result: JsPromptResult): Boolean =
        dialog(view, url, message, GcDialogKind.PROMPT, defaultValue) { answer ->
            if (answer.confirmed) result.confirm(answer.text) else result.cancel()
        }

    private fun answer(result: JsResult, answer: GcDialogAnswer) = if (answer.confirmed) result.confirm() else result.cancel()

    /** Shows the dialog (or answers at once when it must not show); `true`: the kit answers. */
    private fun dialog(
        view: WebView,
        url: String?,
        message: String?,
        kind: GcDialogKind,
        defaultValue: String?,
        reply: (GcDialogAnswer) -> Unit,
    ): Boolean {
        val activity = view.context as? Activity
        val alive = activity != null && !activity.isFinishing && !activity.isDestroyed
        if (activity == null || !GcChromePolicy.showDialog(url, widgetOrigin, alive)) {
            reply(GcChromePolicy.unshownAnswer(kind))
            return true
        }
        var answered = false
        fun once(answer: GcDialogAnswer) {
            if (!answered) {
                answered = true
                reply(answer)
            }
        }
        val field = if (kind == GcDialogKind.PROMPT) EditText(activity).apply { setText(defaultValue.orEmpty()) } else null
        val builder = AlertDialog.Builder(activity)
            .setTitle(GcChromePolicy.dialogTitle(url))
            .setMessage(message.orEmpty())
            .setPositiveButton(android.R.string.ok) { _, _ -> once(GcChromePolicy.confirmed(kind, field?.text?.toString())) }
            .setOnDismissListener { once(GcChromePolicy.dismissed(kind)) }
        if (kind != GcDialogKind.ALERT) builder.setNegativeButton(android.R.string.cancel) { _, _ -> once(GcChromePolicy.dismissed(kind)) }
        if (field != null) builder.setView(field)
        builder.show()
        return true
    }

    // Files

    override fun onShowFileChooser(
        webView: WebView,
        filePathCallback: ValueCallback<Array<Uri>>,
        fileChooserParams: FileChooserParams,
    ): Boolean {
        files.begin(filePathCallback) // an earlier chooser still open gets null: its input works again
        val mimeTypes = GcChromePolicy.mimeTypes(fileChooserParams.acceptTypes.toList())
        val documents = fileChooserParams.createIntent().apply {
            if (mimeTypes.size == 1) type = mimeTypes[0]
            if (mimeTypes.size > 1) {
                type = "*/*" // EXTRA_MIME_TYPES narrows it
                putExtra(Intent.EXTRA_MIME_TYPES, mimeTypes.toTypedArray())
            }
            if (fileChooserParams.mode == FileChooserParams.MODE_OPEN_MULTIPLE) putExtra(Intent.EXTRA_ALLOW_MULTIPLE, true)
        }
        cameraUri = if (GcChromePolicy.offerCamera(mimeTypes, options.cameraOutput != null)) options.cameraOutput?.invoke() else null
        val chooser = Intent.createChooser(documents, fileChooserParams.title)
        cameraUri?.let { output ->
            val camera = Intent(MediaStore.ACTION_IMAGE_CAPTURE)
                .putExtra(MediaStore.EXTRA_OUTPUT, output)
                .addFlags(Intent.FLAG_GRANT_WRITE_URI_PERMISSION or Intent.FLAG_GRANT_READ_URI_PERMISSION)
            chooser.putExtra(Intent.EXTRA_INITIAL_INTENTS, arrayOf(camera))
        }
        val launch = options.launchChooser
        if (launch != null) {
            launch(chooser) { resultCode, data -> chooserResult(resultCode, data) }
            return true
        }
        val activity = webView.context as? Activity
        if (activity == null) {
            files.finish(null)
            return true
        }
        return try {
            @Suppress("DEPRECATION") // the framework's Activity API; apps with ActivityResult pass launchChooser
            activity.startActivityForResult(chooser, FILE_CHOOSER_REQUEST)
            true
        } catch (e: android.content.ActivityNotFoundException) {
            files.finish(null)
            true
        }
    }

    /** The chooser's result: the picked files, the photo taken, or nothing (cancelled). */
    fun chooserResult(resultCode: Int, data: Intent?) {
        // parseResult reads data.data only: several files (EXTRA_ALLOW_MULTIPLE) come as ClipData
        val clip = data?.clipData?.takeIf { resultCode == Activity.RESULT_OK }
        val picked = clip?.let { c -> Array(c.itemCount) { c.getItemAt(it).uri } }
            ?: FileChooserParams.parseResult(resultCode, data)
        val photo = cameraUri.takeIf { resultCode == Activity.RESULT_OK && picked.isNullOrEmpty() }
        files.finish(picked?.takeIf { it.isNotEmpty() } ?: photo?.let { arrayOf(it) })
        cameraUri = null
    }

    // Full screen

    override fun onShowCustomView(view: View, callback: CustomViewCallback) {
        if (fullScreen != null) {
            callback.onCustomViewHidden()
            return
        }
        fullScreen = view to callback
        val show = options.onFullScreen
        if (show != null) return show(view)
        val activity = currentWebView().context as? Activity ?: return
        val decor = activity.window?.decorView as? FrameLayout ?: return
        decor.addView(view, FrameLayout.LayoutParams(ViewGroup.LayoutParams.MATCH_PARENT, ViewGroup.LayoutParams.MATCH_PARENT))
    }

    override fun onHideCustomView() {
        val (view, callback) = fullScreen ?: return
        fullScreen = null
        val hide = options.onFullScreen
        if (hide != null) hide(null) else (view.parent as? ViewGroup)?.removeView(view)
        callback.onCustomViewHidden()
    }

    /** Leaves full screen (for the Activity's back handling): true if it was. */
    fun exitFullScreen(): Boolean {
        if (fullScreen == null) return false
        onHideCustomView()
        return true
    }

    // Permissions

    override fun onPermissionRequest(request: PermissionRequest) {
        val askable = GcChromePolicy.askableResources(request.origin.toString(), widgetOrigin, request.resources.toList())
        val ask = options.onPermissionRequest
        if (askable.isEmpty() || ask == null) return request.deny()
        ask(GcPermissionAsk(request.origin.toString(), askable, { request.grant(it.toTypedArray()) }, { request.deny() }))
    }

    override fun onGeolocationPermissionsShowPrompt(origin: String?, callback: GeolocationPermissions.Callback) {
        callback.invoke(origin, false, false) // the widget needs no location
    }

    // Console

    override fun onConsoleMessage(consoleMessage: ConsoleMessage): Boolean {
        if (!options.logConsole) return false
        val priority = GcChromePolicy.logPriority(consoleMessage.messageLevel().name)
        Log.println(priority, TAG, "${consoleMessage.message()} (${consoleMessage.sourceId()}:${consoleMessage.lineNumber()})")
        return true
    }

    // New windows

    /**
     * `target=_blank` and `window.open` (the settings allow multiple windows): the new window's
     * URL is known only once it starts loading, so a throwaway WebView receives it, the kit
     * decides ([GcLinkPolicy.forNewWindow]) and destroys it. No user gesture: no window.
     */
    override fun onCreateWindow(view: WebView, isDialog: Boolean, isUserGesture: Boolean, resultMsg: Message): Boolean {
        if (!isUserGesture) return false
        val popup = WebView(view.context)
        popup.webViewClient = object : WebViewClient() {
            private var handled = false

            private fun decide(url: String?) {
                if (handled) return
                handled = true
                when (val action = GcLinkPolicy.forNewWindow(url, widgetOrigin, hasGesture = true)) {
                    GcLinkAction.STAY -> loadInPlace(url ?: return)
                    GcLinkAction.BROWSER, GcLinkAction.OS -> GcLinks.openLink(view.context, url ?: return, action)
                    GcLinkAction.BLOCK -> Unit
                }
                popup.post { popup.destroy() }
            }

            override fun shouldOverrideUrlLoading(view: WebView, request: WebResourceRequest): Boolean {
                decide(request.url.toString())
                return true
            }

            override fun onPageStarted(view: WebView, url: String?, favicon: Bitmap?) {
                view.stopLoading()
                decide(url)
            }
        }
        val transport = resultMsg.obj as? WebView.WebViewTransport ?: return false
        transport.webView = popup
        resultMsg.sendToTarget()
        return true
    }

    /** The page is going away (the controller's destroy): no chooser or dialog result is owed any more. */
    fun release() {
        files.finish(null)
        exitFullScreen()
    }

    companion object {
        const val TAG = "GcComments"

        /** The request code of the kit's `startActivityForResult` (forward it to `onActivityResult`). */
        const val FILE_CHOOSER_REQUEST = 0x6763
    }
}

/**
 * The file chooser's one pending callback. WebView waits for exactly one answer per
 * `onShowFileChooser`: until it comes, the page's file input does nothing more. So a new
 * chooser answers the old one with null, and every answer is given once.
 */
class GcPendingFiles {
    private var pending: ValueCallback<Array<Uri>>? = null

    fun begin(callback: ValueCallback<Array<Uri>>) {
        finish(null)
        pending = callback
    }

    fun finish(uris: Array<Uri>?) {
        val callback = pending ?: return
        pending = null
        callback.onReceiveValue(uris)
    }

    val isPending: Boolean get() = pending != null
}
