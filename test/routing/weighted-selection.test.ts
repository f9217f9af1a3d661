import { describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER } from '../../server/routing/breaker-settings.ts';
import { PoolRouter } from '../../server/routing/pool-router.ts';
import { SmoothWeightedRoundRobin } from '../../server/routing/smooth-weighted-round-robin.ts';
import { FakeClock } from './fake-clock.ts';

describe('SmoothWeightedRoundRobin', () => {
  it('interleaves instead of bunching: weights 3 and 1 give a a b a, repeating', () => {
    const wrr = new SmoothWeightedRoundRobin([3, 1]);
    const picks = Array.from({ length: 8 }, () => 'ab'[wrr.pick(() => true)!]).join('');
    expect(picks).toBe('aabaaaba');
  });

  it('spreads many picks exactly by weight', () => {
    const wrr = new SmoothWeightedRoundRobin([5, 3, 2]);
    const counts = [0, 0, 0];
    for (let i = 0; i < 10_000; i++) counts[wrr.pick(() => true)!]!++;
    expect(counts).toEqual([5_000, 3_000, 2_000]);
  });

  it('skips members that are not eligible, sharing their load among the rest by weight', () => {
    const wrr = new SmoothWeightedRoundRobin([2, 1, 1]);
    const counts = [0, 0, 0];
    for (let i = 0; i < 3_000; i++) counts[wrr.pick((j) => j !== 0)!]!++;
    expect(counts).toEqual([0, 1_500, 1_500]);
    expect(new SmoothWeightedRoundRobin([1]).pick(() => false)).toBeUndefined();
  });
});

describe('PoolRouter.plan', () => {
  const router = (weights: number[], maxAttempts = 3) => {
    const clock = new FakeClock();
    return {
      clock,
      router: new PoolRouter({
        name: 'p',
        clock,
        settings: { ...DEFAULT_BREAKER, consecutiveFailures: 1 },
        members: weights.map((weight, i) => ({ lane: `lane${i}`, name: `lane${i}`, weight })),
        limits: { maxAttempts, deadlineMs: 60_000 },
      }),
    };
  };

  it('puts the weighted pick first and the other members after it, within the attempt budget', () => {
    const { router: r } = router([1, 3, 2], 2);
    const plan = r.plan();
    expect(plan.order.map((m) => m.name)).toEqual(['lane1', 'lane2']);
  });

  it('leaves out members whose breaker is open, and says when the soonest returns if none is left', () => {
    const { router: r, clock } = router([1, 1]);
    r.members[0]!.cell.record('lane_fault');
    expect(r.plan().order.map((m) => m.name)).toEqual(['lane1']);
    r.members[1]!.cell.record('lane_capacity', 5_000);
    const plan = r.plan();
    expect(plan.order).toEqual([]);
    expect(plan.retryAt).toBe(clock.now() + 5_000);
  });
});
