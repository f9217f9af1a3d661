/** Time and chance, injected so routing is deterministic under test (no Date.now, no Math.random). */
export interface Clock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Uniform in [0, 1). */
  random(): number;
}

/**
 * Milliseconds since the epoch at high resolution, counted on the monotonic clock from the
 * thread's start. Every worker thread has its own `performance.now()` origin, so the origin is
 * added back: breaker deadlines in shared memory then mean the same moment in every thread.
 */
export const SYSTEM_CLOCK: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  random: () => Math.random(),
};
