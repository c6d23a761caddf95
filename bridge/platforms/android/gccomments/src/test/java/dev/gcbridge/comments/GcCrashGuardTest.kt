package dev.gcbridge.comments

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test

/** The crash-loop guard and when a dead web content process is recovered; time is passed in. */
class GcCrashGuardTest {
    @Test
    fun threeRecoveriesAMinuteThenNone() {
        val guard = GcCrashGuard()
        assertEquals(3, guard.limit)
        assertEquals(60_000L, guard.windowMillis)
        assertTrue(guard.allow(0))
        assertTrue(guard.allow(1_000))
        assertTrue(guard.allow(2_000))
        assertFalse(guard.allow(3_000))
        assertFalse(guard.allow(59_999))
    }

    @Test
    fun theWindowSlides() {
        val guard = GcCrashGuard(limit = 2, windowMillis = 10_000)
        assertTrue(guard.allow(0))
        assertTrue(guard.allow(5_000))
        assertFalse(guard.allow(9_999))
        assertTrue(guard.allow(10_000)) // the first left the window
        assertFalse(guard.allow(14_999))
        assertTrue(guard.allow(15_000))
    }

    @Test
    fun aRefusalSpendsNothingAndRetryStartsAfresh() {
        val guard = GcCrashGuard(limit = 1, windowMillis = 1_000)
        assertTrue(guard.allow(0))
        repeat(5) { assertFalse(guard.allow(500)) }
        assertTrue(guard.allow(1_000))
        guard.reset()
        assertTrue(guard.allow(1_001))
    }

    @Test
    fun recoveryWaitsForTheForegroundAndTheScreen() {
        val guard = GcCrashGuard(limit = 1)
        assertEquals(GcRecovery.DEFER, GcRecoveryPolicy.decide(guard, 0, foreground = false, visible = true))
        assertEquals(GcRecovery.DEFER, GcRecoveryPolicy.decide(guard, 0, foreground = true, visible = false))
        // deferring spent nothing
        assertEquals(GcRecovery.NOW, GcRecoveryPolicy.decide(guard, 10, foreground = true, visible = true))
        assertEquals(GcRecovery.GIVE_UP, GcRecoveryPolicy.decide(guard, 20, foreground = true, visible = true))
    }

    @Test
    fun aPageThatKillsItsProcessEveryTimeEndsInTheErrorView() {
        val guard = GcCrashGuard()
        val outcomes = (0 until 10).map { GcRecoveryPolicy.decide(guard, it * 2_000L, foreground = true, visible = true) }
        assertEquals(List(3) { GcRecovery.NOW } + List(7) { GcRecovery.GIVE_UP }, outcomes)
    }

    @Test(expected = IllegalArgumentException::class)
    fun aGuardAllowsAtLeastOne() {
        GcCrashGuard(limit = 0)
    }
}
