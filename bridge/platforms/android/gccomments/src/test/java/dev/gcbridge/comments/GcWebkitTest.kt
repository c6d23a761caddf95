package dev.gcbridge.comments

import androidx.webkit.WebMessageCompat
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/** The channel: a message is read only when it is a string; a refused origin rule falls back. */
class GcWebkitTest {
    private val widget = "https://comments.example"

    @Test
    fun anArrayBufferIsNotReadAndDoesNotThrow() {
        // WebMessageCompat.getData() throws IllegalStateException for TYPE_ARRAY_BUFFER
        assertNull(GcWebkit.textOf(WebMessageCompat(byteArrayOf(1))))
    }

    @Test
    fun aStringIsRead() {
        assertEquals("{\"name\":\"gc-ready\"}", GcWebkit.textOf(WebMessageCompat("{\"name\":\"gc-ready\"}")))
        assertEquals("", GcWebkit.textOf(WebMessageCompat(null as String?)))
    }

    @Test
    fun aNonStringIsRefusedAsAnotherOriginIs() {
        val buffer = GcInboundMessage(null, widget, isMainFrame = true)
        val foreign = GcInboundMessage("{}", "https://evil.example", isMainFrame = true)
        val subFrame = GcInboundMessage("{}", widget, isMainFrame = false)
        for (message in listOf(buffer, foreign, subFrame)) {
            assertFalse(message.toString(), GcChannelPolicy.fromWidget(message, widget))
            assertEquals("", GcChannelPolicy.textFor(message, widget))
        }
        val own = GcInboundMessage("{\"name\":\"gc-ready\"}", "https://comments.example:443", isMainFrame = true)
        assertTrue(GcChannelPolicy.fromWidget(own, widget))
        assertEquals(own.text, GcChannelPolicy.textFor(own, widget))
    }

    @Test
    fun anOriginRuleRefusedFallsBackInsteadOfCrashing() {
        assertFalse(GcChannelPolicy.installed { throw IllegalArgumentException("allowedOriginRules bad is invalid") })
        assertTrue(GcChannelPolicy.installed { })
    }

    @Test
    fun otherExceptionsAreNotSwallowed() {
        val thrown = runCatching { GcChannelPolicy.installed { throw IllegalStateException("not a rule") } }
        assertTrue(thrown.exceptionOrNull() is IllegalStateException)
    }
}
