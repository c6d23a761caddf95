package dev.gcbridge.comments

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test

class GcLoadErrorTest {
    private val widget = "https://comments.example"

    @Test
    fun onlyTheWidgetsMainDocumentIsALoadError() {
        assertTrue(GcLoadErrorPolicy.isWidgetLoadError("https://comments.example/t/1", true, widget))
        assertFalse(GcLoadErrorPolicy.isWidgetLoadError("https://comments.example/avatar.png", false, widget))
        assertFalse(GcLoadErrorPolicy.isWidgetLoadError("https://news.example/", true, widget))
    }

    @Test
    fun errorStatuses() {
        assertFalse(GcLoadErrorPolicy.isErrorStatus(200))
        assertFalse(GcLoadErrorPolicy.isErrorStatus(304))
        assertTrue(GcLoadErrorPolicy.isErrorStatus(404))
        assertTrue(GcLoadErrorPolicy.isErrorStatus(503))
    }

    @Test
    fun theUserAgentCarriesTheBridgeVersionOnce() {
        assertEquals("gc-bridge/" + GcBridgePin.VERSION, GcUserAgent.TOKEN)
        val ua = "Mozilla/5.0 (Linux; Android 15) Chrome/130 Mobile Safari/537.36"
        val once = GcUserAgent.withSuffix(ua)
        assertEquals("$ua gc-bridge/${GcBridgePin.VERSION}", once)
        assertEquals(once, GcUserAgent.withSuffix(once))
        assertEquals(GcUserAgent.TOKEN, GcUserAgent.withSuffix(null))
    }
}
