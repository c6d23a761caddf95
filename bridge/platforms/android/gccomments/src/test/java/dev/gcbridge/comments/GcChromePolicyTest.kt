package dev.gcbridge.comments

import dev.gcbridge.comments.GcDialogKind.ALERT
import dev.gcbridge.comments.GcDialogKind.CONFIRM
import dev.gcbridge.comments.GcDialogKind.PROMPT
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

class GcChromePolicyTest {
    private val widget = "https://comments.example"

    @Test
    fun dialogsShowForTheWidgetOnlyWhileTheScreenLives() {
        assertTrue(GcChromePolicy.showDialog("https://comments.example/t/1", widget, hostAlive = true))
        assertFalse(GcChromePolicy.showDialog("https://ads.example/frame", widget, hostAlive = true))
        assertFalse(GcChromePolicy.showDialog("https://comments.example/t/1", widget, hostAlive = false))
    }

    @Test
    fun okConfirmsCancelDoesNot() {
        assertEquals(GcDialogAnswer(true), GcChromePolicy.confirmed(CONFIRM))
        assertEquals(GcDialogAnswer(false), GcChromePolicy.dismissed(CONFIRM))
        assertEquals(GcDialogAnswer(true, "typed"), GcChromePolicy.confirmed(PROMPT, "typed"))
        assertEquals(GcDialogAnswer(true, ""), GcChromePolicy.confirmed(PROMPT, null))
        assertEquals(GcDialogAnswer(false, null), GcChromePolicy.dismissed(PROMPT))
        assertEquals(GcDialogAnswer(true), GcChromePolicy.dismissed(ALERT)) // an alert has one answer
        assertEquals(GcDialogAnswer(false), GcChromePolicy.unshownAnswer(CONFIRM)) // as WebView's own default
    }

    @Test
    fun theTitleNamesWhoAsks() {
        assertEquals("comments.example", GcChromePolicy.dialogTitle("https://comments.example/t/1"))
        assertEquals("comments.example:8443", GcChromePolicy.dialogTitle("https://comments.example:8443/"))
        assertEquals("This page", GcChromePolicy.dialogTitle("data:text/html,x"))
    }

    @Test
    fun onlyTheWidgetMayAskForCameraMicrophoneOrProtectedMedia() {
        val all = listOf(
            "android.webkit.resource.VIDEO_CAPTURE", "android.webkit.resource.AUDIO_CAPTURE",
            "android.webkit.resource.MIDI_SYSEX", "android.webkit.resource.PROTECTED_MEDIA_ID",
        )
        assertEquals(
            listOf("android.webkit.resource.VIDEO_CAPTURE", "android.webkit.resource.AUDIO_CAPTURE",
                "android.webkit.resource.PROTECTED_MEDIA_ID"),
            GcChromePolicy.askableResources("https://comments.example/", widget, all),
        )
        assertEquals(emptyList<String>(), GcChromePolicy.askableResources("https://other.example/", widget, all))
    }

    @Test
    fun acceptTypesBecomeMimeTypes() {
        assertEquals(listOf("image/*"), GcChromePolicy.mimeTypes(listOf("image/*")))
        assertEquals(listOf("image/jpeg", "image/png", "application/pdf"),
            GcChromePolicy.mimeTypes(listOf(".jpg, .JPEG", ".png,application/pdf", "")))
        assertEquals(emptyList<String>(), GcChromePolicy.mimeTypes(listOf("")))
        assertEquals(emptyList<String>(), GcChromePolicy.mimeTypes(listOf(".unknownext")))
    }

    @Test
    fun theCameraIsOfferedForImagesWhenTheAppGaveAPlace() {
        assertTrue(GcChromePolicy.offerCamera(listOf("image/*"), captureAvailable = true))
        assertTrue(GcChromePolicy.offerCamera(emptyList(), captureAvailable = true))
        assertFalse(GcChromePolicy.offerCamera(listOf("application/pdf"), captureAvailable = true))
        assertFalse(GcChromePolicy.offerCamera(listOf("image/*"), captureAvailable = false))
    }

    @Test
    fun consoleLevelsMapToLogPriorities() {
        assertEquals(6, GcChromePolicy.logPriority("ERROR"))
        assertEquals(5, GcChromePolicy.logPriority("WARNING"))
        assertEquals(4, GcChromePolicy.logPriority("LOG"))
        assertEquals(3, GcChromePolicy.logPriority("DEBUG"))
    }

    @Test
    fun aNewChooserAnswersTheOldOneAndEachIsAnsweredOnce() {
        val answers = mutableListOf<String>()
        val files = GcPendingFiles()
        files.begin { answers.add("first:" + it?.size) }
        files.begin { answers.add("second:" + it?.size) }
        assertEquals(listOf("first:null"), answers)
        files.finish(emptyArray())
        files.finish(null)
        assertEquals(listOf("first:null", "second:0"), answers)
        assertFalse(files.isPending)
        assertNull(null)
    }
}
