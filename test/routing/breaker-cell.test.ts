import { describe, expect, it } from 'vitest';
import { BreakerCell } from '../../server/routing/breaker-cell.ts';
import { DEFAULT_BREAKER, type BreakerSettings } from '../../server/routing/breaker-settings.ts';
import { FakeClock } from './fake-clock.ts';

const SETTINGS: BreakerSettings = {
  ...DEFAULT_BREAKER,
  consecutiveFailures: 3,
  openMs: 10_000,
  maxOpenMs: 25_000,
  jitter: 0.2,
  minRequests: 10,
  failureRate: 0.5,
  windowMs: 60_000,
};

function cell(settings: Partial<BreakerSettings> = {}) {
  const clock = new FakeClock();
  return { clock, cell: new BreakerCell({ ...SETTINGS, ...settings }, clock) };
}

const failTimes = (c: BreakerCell, n: number) => {
  for (let i = 0; i < n; i++) {
    c.admit();
    c.record('lane_fault');
  }
};

describe('BreakerCell', () => {
  it('opens after N consecutive lane faults, not before, and a success in between resets the count', () => {
    const { cell: c } = cell();
    failTimes(c, 2);
    c.record('success');
    failTimes(c, 2);
    expect(c.snapshot().state).toBe('closed');
    failTimes(c, 1);
    expect(c.snapshot().state).toBe('open');
    expect(c.admit()).toMatchObject({ kind: 'unavailable', reason: 'breaker open' });
  });

  it('opens on a failure rate over the window once the minimum volume is reached', () => {
    const { cell: c, clock } = cell({ consecutiveFailures: 100 });
    for (let i = 0; i < 9; i++) {
      c.record(i % 2 === 0 ? 'lane_fault' : 'success'); // 5 faults of 9: below the minimum volume
      clock.advance(1000);
    }
    expect(c.snapshot().state).toBe('closed');
    c.record('success'); // 10 attempts, 5 faults = 50 %: the next fault decides
    c.record('lane_fault');
    expect(c.snapshot().state).toBe('open');
  });

  it('forgets failures older than the window', () => {
    const { cell: c, clock } = cell({ consecutiveFailures: 100, minRequests: 4 });
    c.record('lane_fault');
    c.record('lane_fault');
    c.record('lane_fault');
    clock.advance(61_000);
    c.record('success');
    c.record('success');
    c.record('success');
    c.record('lane_fault');
    expect(c.snapshot().state).toBe('closed'); // 1 fault of 4 in the window
  });

  it('admits exactly one probe when half-open; success closes', () => {
    const { cell: c, clock } = cell();
    failTimes(c, 3);
    clock.advance(10_001);
    expect(c.wouldAdmit().kind).toBe('probe'); // looking does not take the probe
    expect(c.admit().kind).toBe('probe');
    expect(c.admit()).toMatchObject({ kind: 'unavailable', reason: 'half-open probe in flight' });
    c.record('success');
    expect(c.snapshot().state).toBe('closed');
    expect(c.admit().kind).toBe('normal');
  });

  it('a failed probe reopens for longer each trip, up to the cap', () => {
    const { cell: c, clock } = cell({ jitter: 0 });
    failTimes(c, 3);
    const first = c.snapshot().openUntil - clock.now();
    clock.advance(first);
    c.admit();
    c.record('lane_fault');
    const second = c.snapshot().openUntil - clock.now();
    clock.advance(second);
    c.admit();
    c.record('lane_fault');
    const third = c.snapshot().openUntil - clock.now();
    expect([first, second, third]).toEqual([10_000, 20_000, 25_000]);
    expect(c.counters.trips).toBe(3);
  });

  it('spreads open times by the jitter share, both ways', () => {
    const low = cell();
    low.clock.randomValue = 0;
    failTimes(low.cell, 3);
    const high = cell();
    high.clock.randomValue = 0.999999;
    failTimes(high.cell, 3);
    expect(low.cell.snapshot().openUntil - low.clock.now()).toBeCloseTo(8_000);
    expect(high.cell.snapshot().openUntil - high.clock.now()).toBeCloseTo(12_000, -1);
  });

  it('never moves on client faults, even many, and a probe ending in one stays half-open', () => {
    const { cell: c, clock } = cell();
    for (let i = 0; i < 50; i++) c.record('client_fault');
    expect(c.snapshot()).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
    failTimes(c, 3);
    clock.advance(10_001);
    c.admit();
    c.record('client_fault');
    expect(c.snapshot().state).toBe('half_open');
    expect(c.admit().kind).toBe('probe');
  });

  it('an abandoned probe (client gone) frees the slot without a verdict', () => {
    const { cell: c, clock } = cell();
    failTimes(c, 3);
    clock.advance(10_001);
    c.admit();
    c.abandon();
    expect(c.admit().kind).toBe('probe');
  });

  it('cools a rate-limited lane until Retry-After, and a later shorter one never shortens it', () => {
    const { cell: c, clock } = cell();
    c.record('lane_capacity', 30_000);
    c.record('lane_capacity', 2_000);
    expect(c.snapshot().capacityCooldownUntil - clock.now()).toBe(30_000);
    expect(c.snapshot().state).toBe('closed'); // capacity is not a failure
    clock.advance(29_999);
    expect(c.admit()).toMatchObject({ kind: 'unavailable', reason: 'rate limited by the upstream' });
    clock.advance(1);
    expect(c.admit().kind).toBe('normal');
  });

  it('uses the default cooldown for a 429 without Retry-After and clamps long ones', () => {
    const { cell: c, clock } = cell({ rateLimitCooldownMs: 5_000, maxRateLimitCooldownMs: 60_000 });
    c.record('lane_capacity');
    expect(c.snapshot().capacityCooldownUntil - clock.now()).toBe(5_000);
    c.record('lane_capacity', 3_600_000);
    expect(c.snapshot().capacityCooldownUntil - clock.now()).toBe(60_000);
  });

  it('gives config faults (upstream 401, quota) the long cooldown without counting them', () => {
    const { cell: c, clock } = cell({ configFaultCooldownMs: 900_000 });
    c.record('lane_config_fault');
    expect(c.snapshot()).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
    clock.advance(899_999);
    expect(c.admit().kind).toBe('unavailable');
    clock.advance(1);
    expect(c.admit().kind).toBe('normal');
  });
});
