/** Time and chance, injected so routing is deterministic under test (no Date.now, no Math.random). */
export interface Clock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Uniform in [0, 1). */
  random(): number;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => performance.now(),
  random: () => Math.random(),
};
