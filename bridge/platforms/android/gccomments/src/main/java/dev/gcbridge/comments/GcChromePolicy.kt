package dev.gcbridge.comments

/** A JavaScript dialog: `alert()`, `confirm()`, `prompt()`. */
enum class GcDialogKind { ALERT, CONFIRM, PROMPT }

/** What the kit answers a page's dialog. [text] is a prompt's value (null: no value). */
data class GcDialogAnswer(val confirmed: Boolean, val text: String? = null)

/**
 * The kit's rules for the standard web chrome, pure (no android.*, so JVM tests pin them).
 *
 * Dialogs: the widget's own origin gets native dialogs (its delete and report actions ask
 * `confirm()`); a frame of another origin (an embed inside a comment) gets none, so it cannot
 * pose as the app; nor does any page while the screen is going away.
 */
object GcChromePolicy {
    /** Whether a dialog from the page at [url] is shown at all ([hostAlive]: the Activity is not finishing). */
    fun showDialog(url: String?, widgetOrigin: String, hostAlive: Boolean): Boolean =
        hostAlive && GcOrigin.of(url) == widgetOrigin

    /** The answer when the dialog is not shown: as if dismissed (WebView's own default is to cancel). */
    fun unshownAnswer(kind: GcDialogKind): GcDialogAnswer = dismissed(kind)

    /** The user pressed OK ([text]: a prompt's field). */
    fun confirmed(kind: GcDialogKind, text: String? = null): GcDialogAnswer =
        GcDialogAnswer(confirmed = true, text = if (kind == GcDialogKind.PROMPT) text.orEmpty() else null)

    /**
     * The user pressed Cancel, Back or outside: `confirm()` is false and `prompt()` null. An
     * alert has one answer, so its dismissal confirms it (the page goes on as after OK).
     */
    fun dismissed(kind: GcDialogKind): GcDialogAnswer = GcDialogAnswer(confirmed = kind == GcDialogKind.ALERT)

    /** The dialog's title: who asks (the host of the page's origin), never the page's own words. */
    fun dialogTitle(url: String?): String = GcOrigin.of(url)?.substringAfter("://") ?: "This page"

    /**
     * The resources of a `PermissionRequest` ([resources]: `PermissionRequest.RESOURCE_*`
     * strings) that the app may be asked about: only from the widget's origin, only the
     * camera, the microphone and protected media. Anything else is denied without asking.
     */
    fun askableResources(origin: String?, widgetOrigin: String, resources: List<String>): List<String> {
        if (GcOrigin.of(origin) != widgetOrigin) return emptyList()
        return resources.filter { it in ASKABLE_RESOURCES }
    }

    /** The values of `PermissionRequest.RESOURCE_VIDEO_CAPTURE`, `_AUDIO_CAPTURE`, `_PROTECTED_MEDIA_ID`. */
    val ASKABLE_RESOURCES: Set<String> = setOf(
        "android.webkit.resource.VIDEO_CAPTURE",
        "android.webkit.resource.AUDIO_CAPTURE",
        "android.webkit.resource.PROTECTED_MEDIA_ID",
    )

    /** `android.util.Log` priority for a console message level (`ConsoleMessage.MessageLevel.name`). */
    fun logPriority(level: String): Int = when (level) {
        "ERROR" -> 6 // Log.ERROR
        "WARNING" -> 5 // Log.WARN
        "DEBUG", "TIP" -> 3 // Log.DEBUG
        else -> 4 // LOG: Log.INFO
    }

    /**
     * The MIME types an `<input type=file accept=...>` asks for, as an `Intent` takes them
     * (`FileChooserParams.getAcceptTypes()`: entries may be empty, comma lists or extensions).
     * Extensions become MIME types where known; an empty result means any file.
     */
    fun mimeTypes(acceptTypes: List<String>): List<String> =
        acceptTypes.flatMap { it.split(',') }
            .map { it.trim().lowercase() }
            .filter { it.isNotEmpty() }
            .map { EXTENSIONS[it] ?: it }
            .filter { '/' in it }
            .distinct()

    /** Whether the chooser also offers the camera: images (or anything) accepted and the app gave a place for the photo. */
    fun offerCamera(mimeTypes: List<String>, captureAvailable: Boolean): Boolean =
        captureAvailable && (mimeTypes.isEmpty() || mimeTypes.any { it == "*/*" || it.startsWith("image/") })

    private val EXTENSIONS = mapOf(
        ".jpg" to "image/jpeg", ".jpeg" to "image/jpeg", ".png" to "image/png", ".gif" to "image/gif",
        ".webp" to "image/webp", ".heic" to "image/heic", ".pdf" to "application/pdf", ".txt" to "text/plain",
        ".mp4" to "video/mp4",
    )
}
