package dev.gcbridge.comments

import dev.gcbridge.comments.GcLinkAction.BLOCK
import dev.gcbridge.comments.GcLinkAction.BROWSER
import dev.gcbridge.comments.GcLinkAction.OS
import dev.gcbridge.comments.GcLinkAction.STAY
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test

class GcLinkPolicyTest {
    private val widget = "https://comments.example"

    private fun nav(url: String?, mainFrame: Boolean = true, gesture: Boolean = true) =
        GcLinkPolicy.forNavigation(url, widget, mainFrame, gesture)

    @Test
    fun theWidgetsOriginStaysOtherPagesGoToTheBrowser() {
        assertEquals(STAY, nav("https://comments.example/thread/1"))
        assertEquals(STAY, nav("HTTPS://Comments.Example:443/x"))
        assertEquals(BROWSER, nav("https://news.example/article"))
        assertEquals(BROWSER, nav("http://comments.example/")) // another scheme is another origin
        assertEquals(BROWSER, nav("https://comments.example:8443/"))
        assertEquals(STAY, nav("https://video.example/embed", mainFrame = false)) // an embed's own frame
    }

    @Test
    fun mailTelAndIntentGoToTheOsOnATap() {
        for (url in listOf("mailto:a@b.example", "tel:+15551234", "sms:+15551234", "geo:0,0",
            "intent://scan/#Intent;scheme=zxing;package=com.example;end", "MAILTO:x@y.example")) {
            assertEquals(url, OS, nav(url))
            assertEquals(url, BLOCK, nav(url, gesture = false))
        }
    }

    @Test
    fun dangerousOrUnknownSchemesAreRefused() {
        for (url in listOf("javascript:alert(1)", "file:///data/data/app/x", "content://app/x", "data:text/html,x",
            "chrome://settings", "about:config", "no scheme", ":nothing", "", null)) {
            assertEquals(url.toString(), BLOCK, nav(url))
        }
        assertEquals(STAY, nav("about:blank"))
    }

    @Test
    fun aSubFramesOwnLoadsStayInIt() {
        assertEquals(STAY, nav("about:srcdoc", mainFrame = false))
        assertEquals(STAY, nav("blob:https://comments.example/1d2c", mainFrame = false))
        assertEquals(OS, nav("tel:+15551234", mainFrame = false))
        assertEquals(BLOCK, nav("blob:https://comments.example/1d2c"))
    }

    @Test
    fun newWindowsOfTheWidgetOpenInPlaceOthersInTheBrowser() {
        assertEquals(STAY, GcLinkPolicy.forNewWindow("https://comments.example/profile/7", widget, hasGesture = true))
        assertEquals(BROWSER, GcLinkPolicy.forNewWindow("https://author.example/", widget, hasGesture = true))
        assertEquals(OS, GcLinkPolicy.forNewWindow("mailto:a@b.example", widget, hasGesture = true))
        assertEquals(BLOCK, GcLinkPolicy.forNewWindow("https://comments.example/", widget, hasGesture = false))
    }

    @Test
    fun originsAreNormalised() {
        assertEquals("https://a.example", GcOrigin.of("https://A.example:443/p?q#f"))
        assertEquals("http://a.example:8080", GcOrigin.of("http://a.example:8080"))
        assertNull(GcOrigin.of("mailto:a@b.example"))
        assertNull(GcOrigin.of("https://exa mple.com/"))
        assertNull(GcOrigin.of(null))
    }
}
