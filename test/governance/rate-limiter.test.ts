// Requests per minute, checked as properties over random arrival sequences with an injected clock:
// no 60 s window ever holds more than rpm admissions, nothing is refused while a window has room,
// Retry-After is exactly when the oldest counted request leaves, and state stays bounded.
import { describe, expect, it } from 'vitest';
import { RATE_WINDOW_MS, RateLimiter } from '../../server/governance/rate-limiter.ts';
import { manualClock, seededRandom } from './support.ts';

/** The most admissions any half-open window [t, t + 60 s) holds. */
function busiestWindow(admitted: readonly number[]): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < admitted.length; last++) {
    while (admitted[last]! - admitted[first]! >= RATE_WINDOW_MS) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

function countIn(admitted: readonly number[], from: number, to: number): number {
  return admitted.filter((t) => t > from && t <= to).length;
}

describe('RateLimiter', () => {
  it.each([1, 2, 7, 30, 120])('random arrivals at rpm %i: no 60 s window over rpm, no refusal with room, Retry-After exact', (rpm) => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = seededRandom(seed * 7919 + rpm);
      const clock = manualClock(0);
      const limiter = new RateLimiter(clock);
      const admitted: number[] = [];
      // Bursts and lulls: gaps from 0 ms to 40 s, clustered so windows fill up.
      for (let i = 0; i < 600; i++) {
        const r = random();
        clock.advance(r < 0.5 ? 0 : r < 0.8 ? Math.floor(random() * 500) : r < 0.97 ? Math.floor(random() * 5000) : Math.floor(random() * 40_000));
        const now = clock.now();
        const decision = limiter.take('key', rpm);
        if (decision.allowed) {
          expect(countIn(admitted, now - RATE_WINDOW_MS, now)).toBeLessThan(rpm);
          admitted.push(now);
        } else {
          // Refused only when the last 60 s already hold rpm admissions...
          expect(countIn(admitted, now - RATE_WINDOW_MS, now)).toBe(rpm);
          // ...and Retry-After is when the oldest of them leaves the window.
          const oldest = admitted[admitted.length - rpm]!;
          expect(decision.retryAfterMs).toBe(oldest + RATE_WINDOW_MS - now);
          expect(decision.retryAfterSeconds).toBe(Math.ceil(decision.retryAfterMs / 1000));
        }
      }
      expect(busiestWindow(admitted)).toBeLessThanOrEqual(rpm);
    }
  });

  it('admits again exactly when the oldest counted request leaves the window, not a millisecond before', () => {
    const clock = manualClock(10_000);
    const limiter = new RateLimiter(clock);
    expect(limiter.take('k', 2).allowed).toBe(true);
    clock.advance(1500);
    expect(limiter.take('k', 2).allowed).toBe(true);
    clock.advance(2300);
    const refused = limiter.take('k', 2);
    expect(refused).toEqual({ allowed: false, retryAfterMs: 60_000 - 3800, retryAfterSeconds: 57 });
    clock.advance(56_199); // 1 ms early
    expect(limiter.take('k', 2).allowed).toBe(false);
    clock.advance(1);
    expect(limiter.take('k', 2).allowed).toBe(true);
    // Waiting the whole seconds Retry-After said is always enough.
    const next = limiter.take('k', 2);
    expect(next.allowed).toBe(false);
    if (!next.allowed) clock.advance(next.retryAfterSeconds * 1000);
    expect(limiter.take('k', 2).allowed).toBe(true);
  });

  it('counts refused requests for nothing, and a refund takes the newest admission back', () => {
    const clock = manualClock(0);
    const limiter = new RateLimiter(clock);
    expect(limiter.take('k', 1).allowed).toBe(true);
    for (let i = 0; i < 5; i++) expect(limiter.take('k', 1).allowed).toBe(false);
    clock.advance(RATE_WINDOW_MS);
    expect(limiter.take('k', 1).allowed).toBe(true);
    limiter.refund('k');
    expect(limiter.take('k', 1).allowed).toBe(true);
  });

  it('keeps keys apart', () => {
    const limiter = new RateLimiter(manualClock(0));
    expect(limiter.take('a', 1).allowed).toBe(true);
    expect(limiter.take('b', 1).allowed).toBe(true);
    expect(limiter.take('a', 1).allowed).toBe(false);
  });

  it('holds state only for keys admitted in the last minute, however many keys it has seen', () => {
    const clock = manualClock(0);
    const limiter = new RateLimiter(clock);
    let most = 0;
    for (let i = 0; i < 200_000; i++) {
      clock.advance(5);
      limiter.take(`key-${i}`, 100);
      most = Math.max(most, limiter.trackedKeys);
    }
    expect(most).toBeLessThanOrEqual(RATE_WINDOW_MS / 5);
    clock.advance(RATE_WINDOW_MS);
    limiter.take('one-more', 100);
    expect(limiter.trackedKeys).toBe(1);
  });

  it('keeps a busy key while idle ones are dropped around it', () => {
    const clock = manualClock(0);
    const limiter = new RateLimiter(clock);
    limiter.take('busy', 3);
    for (let i = 0; i < 1000; i++) {
      clock.advance(1000);
      limiter.take(`idle-${i}`, 3);
      if (i % 30 === 0) limiter.take('busy', 3);
    }
    expect(limiter.trackedKeys).toBeLessThanOrEqual(61);
    clock.advance(1000);
    // busy's last admissions are still counted
    const counted = [limiter.take('busy', 3), limiter.take('busy', 3), limiter.take('busy', 3)].filter((d) => d.allowed).length;
    expect(counted).toBeLessThan(3);
  });

  it('refuses a nonsensical rpm', () => {
    const limiter = new RateLimiter(manualClock());
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => limiter.take('k', bad)).toThrow(RangeError);
  });
});
