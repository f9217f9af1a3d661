// The tpm window on its own: what it holds and for how long, settle and release after the entry has
// left the window, and memory that only keys active in the last minute hold.
import { describe, expect, it } from 'vitest';
import { TokenWindow } from '../../server/governance/token-window.ts';
import { manualClock } from './support.ts';

describe('TokenWindow', () => {
  it('counts each request for 60 s from its admission, at its worst case until settled', () => {
    const clock = manualClock(0);
    const window = new TokenWindow(clock);
    expect(window.decide('k', 100, 60)).toEqual({ allowed: true });
    window.hold('k', 1, 60);
    expect(window.decide('k', 100, 41)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    window.settle(1, 10);
    expect(window.decide('k', 100, 90)).toEqual({ allowed: true });
    clock.advance(59_999);
    expect(window.decide('k', 100, 91)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(1);
    expect(window.decide('k', 100, 100)).toEqual({ allowed: true });
  });

  it('settling or releasing after the entry left the window, or twice, changes nothing', () => {
    const clock = manualClock(0);
    const window = new TokenWindow(clock);
    window.hold('k', 1, 50);
    window.hold('k', 2, 50);
    window.settle(2, 5);
    window.release(2); // already settled: it stays at its real tokens
    expect(window.decide('k', 100, 45)).toEqual({ allowed: true });
    expect(window.decide('k', 100, 46)).toMatchObject({ allowed: false });
    clock.advance(60_000);
    window.settle(1, 1000);
    window.release(1);
    expect(window.decide('k', 100, 100)).toEqual({ allowed: true });
  });

  it('keeps state only for keys active in the last minute', () => {
    const clock = manualClock(0);
    const window = new TokenWindow(clock);
    for (let i = 0; i < 100; i++) window.hold(`k${i}`, i, 1);
    expect(window.trackedKeys).toBe(100);
    clock.advance(30_000);
    window.hold('late', 1000, 1);
    clock.advance(30_000);
    window.decide('other', 10, 1);
    expect(window.trackedKeys).toBe(1);
  });
});
