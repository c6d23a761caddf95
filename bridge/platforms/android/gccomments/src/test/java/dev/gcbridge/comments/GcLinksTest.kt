package dev.gcbridge.comments

import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test

/** What the kit hands the OS for an `intent:` link (android.content.Intent from android-all). */
class GcLinksTest {
    @Test
    fun anIntentLinkIsFallbackOnlyWhenHttp() {
        assertEquals("https://play.example/app",
            GcLinks.fallbackUrl("intent://x#Intent;scheme=app;S.browser_fallback_url=https%3A%2F%2Fplay.example%2Fapp;end"))
        assertNull(GcLinks.fallbackUrl("intent://x#Intent;scheme=app;S.browser_fallback_url=javascript%3Aalert(1);end"))
        assertNull(GcLinks.fallbackUrl("https://x.example/"))
    }

    @Test
    fun anIntentLinkCannotNameAComponent() {
        val intent = GcLinks.intentFor("intent://scan/#Intent;scheme=zxing;component=com.victim/.Private;end")!!
        assertNull(intent.component)
        assertNull(intent.selector)
        assertEquals(setOf("android.intent.category.BROWSABLE"), intent.categories)
    }
}
