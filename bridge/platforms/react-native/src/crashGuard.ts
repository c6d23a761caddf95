/**
 * Bounds the recoveries from a dead web content process: at most `limit` in any `windowMs`.
 *
 * Why 3 a minute: a process killed for memory, or a one-off crash, is recovered at once, and a
 * second one within the minute can still be bad luck. A third means the page itself kills its
 * process: each recovery then costs a blank view, a network load and battery, and fails the
 * same way. The guard then stops and the kit shows its error view, whose Retry starts afresh.
 * Pure and clock-injected. The same rule as the iOS and Android kits' `GcCrashGuard`.
 */
export const DEFAULT_CRASH_LIMIT = 3;
export const DEFAULT_CRASH_WINDOW_MS = 60_000;

export class CrashGuard {
  private recoveries: number[] = [];

  constructor(
    readonly limit: number = DEFAULT_CRASH_LIMIT,
    readonly windowMs: number = DEFAULT_CRASH_WINDOW_MS,
  ) {
    if (limit < 1 || windowMs <= 0) {
      throw new RangeError('a crash guard allows at least one recovery in a positive window');
    }
  }

  /** A recovery is due at `now` (ms, monotonic): true to recover, false to stop (a refusal spends nothing). */
  allow(now: number): boolean {
    this.recoveries = this.recoveries.filter((at) => now - at < this.windowMs);
    if (this.recoveries.length >= this.limit) {
      return false;
    }
    this.recoveries.push(now);
    return true;
  }

  /** The user asked to retry: a fresh budget. */
  reset(): void {
    this.recoveries = [];
  }
}

export type Recovery = 'now' | 'defer' | 'give-up';

/** Recover now, once the app is active again, or not at all (the error view). */
export function decideRecovery(guard: CrashGuard, now: number, foreground: boolean): Recovery {
  if (!foreground) {
    return 'defer';
  }
  return guard.allow(now) ? 'now' : 'give-up';
}
