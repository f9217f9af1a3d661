// Money arithmetic: exact integers (bigint microcents), prices read as the decimals the operator
// wrote, cache tokens charged at their own prices, and rounding always up.
import { describe, expect, it } from 'vitest';
import { costMicrocents, worstCaseMicrocents } from '../../server/governance/cost.ts';
import { centsToMicrocents, microcentsToCentsDown, microcentsToCentsUp } from '../../server/shared/money.ts';
import { microcentsPerToken } from '../../server/governance/token-price.ts';
import { usage } from './support.ts';

describe('microcentsPerToken', () => {
  it.each([
    [1, 100n, 1n], // $1 per million tokens = 100 µ¢ per token
    [0.4, 40n, 1n],
    [1.6, 160n, 1n],
    [0.075, 75n, 10n], // 7.5 µ¢
    [0.01875, 1875n, 1000n], // 1.875 µ¢
    [15, 1500n, 1n],
    [0, 0n, 1n],
    [1e-7, 1n, 100000n], // written with an exponent by String()
    [2.5e21, 250000000000000000000000n, 1n],
  ])('%s USD/M is %s/%s µ¢ per token', (price, numerator, denominator) => {
    const exact = microcentsPerToken(price);
    expect(exact.numerator * denominator).toBe(numerator * exact.denominator);
  });

  it('refuses negative and non-finite prices', () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => microcentsPerToken(bad)).toThrow(RangeError);
  });
});

describe('costMicrocents', () => {
  const gpt = { input: 0.4, output: 1.6, cache_read: 0.1 };

  it('charges input and output exactly', () => {
    // 1000 × 40 + 500 × 160
    expect(costMicrocents(usage(1000, 500), gpt)).toBe(120_000n);
    expect(costMicrocents(usage(1_000_000, 1_000_000), { input: 3, output: 15 })).toBe(centsToMicrocents(1800)); // $3 + $15
  });

  it('charges cache reads and writes apart from the uncached input (input counts them too)', () => {
    const price = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };
    // input 1000 of which 600 read and 300 written: 100 × 300 + 600 × 30 + 300 × 375 + 10 × 1500
    expect(costMicrocents(usage(1000, 10, 600, 300), price)).toBe(30_000n + 18_000n + 112_500n + 15_000n);
  });

  it('charges cache tokens at the input price when the model has no cache prices', () => {
    expect(costMicrocents(usage(1000, 0, 600, 300), { input: 3, output: 15 })).toBe(costMicrocents(usage(1000, 0), { input: 3, output: 15 }));
    // cache_read only: writes still at the input price
    expect(costMicrocents(usage(1000, 0, 0, 300), gpt)).toBe(1000n * 40n);
    expect(costMicrocents(usage(1000, 0, 300, 0), gpt)).toBe(700n * 40n + 300n * 10n);
  });

  it('rounds the total up to a whole microcent, once', () => {
    const price = { input: 0.075, output: 0.3 }; // 7.5 µ¢ and 30 µ¢ per token
    expect(costMicrocents(usage(1, 0), price)).toBe(8n); // 7.5 → 8
    expect(costMicrocents(usage(2, 0), price)).toBe(15n); // exact
    expect(costMicrocents(usage(3, 1), price)).toBe(53n); // 22.5 + 30 = 52.5 → 53
    // per-line rounding would give 8 + 8 = 16 for two cache-read-priced halves; the sum rounds once
    expect(costMicrocents(usage(2, 0, 1, 0), { input: 0.075, output: 0, cache_read: 0.075 })).toBe(15n);
  });

  it('stays exact far beyond 2^53 microcents', () => {
    const cost = costMicrocents(usage(1e12, 1e12), { input: 1000, output: 1000 });
    expect(cost).toBe(2n * 10n ** 12n * 100_000n);
    expect(cost > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });

  it('does not undercharge an inconsistent report (cache larger than input) or trust a fractional count below its ceiling', () => {
    expect(costMicrocents(usage(100, 0, 200, 0), { input: 1, output: 1, cache_read: 1 })).toBe(200n * 100n);
    expect(costMicrocents(usage(1.2, 0), { input: 1, output: 1 })).toBe(200n);
    expect(costMicrocents(usage(-5, 0), { input: 1, output: 1 })).toBe(0n);
  });
});

describe('worstCaseMicrocents', () => {
  it('bounds input by the request bytes and output by its limit', () => {
    expect(worstCaseMicrocents({ requestBytes: 1000, maxOutputTokens: 500, price: { input: 0.4, output: 1.6 } })).toBe(1000n * 40n + 500n * 160n);
  });

  it('charges the input at the dearest input price (a provider may bill it as cache writes)', () => {
    const price = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };
    expect(worstCaseMicrocents({ requestBytes: 100, maxOutputTokens: 0, price })).toBe(100n * 375n);
  });

  it('adds input the bytes do not show', () => {
    const price = { input: 1, output: 2 };
    expect(worstCaseMicrocents({ requestBytes: 100, maxOutputTokens: 10, extraInputTokens: 1600, price })).toBe(1700n * 100n + 10n * 200n);
  });

  it('is never below the real cost of any usage the request could have', () => {
    const price = { input: 0.075, output: 0.3, cache_read: 0.01875, cache_write: 0.1 };
    const worst = worstCaseMicrocents({ requestBytes: 400, maxOutputTokens: 64, price });
    for (const [input, output, read, write] of [
      [400, 64, 0, 0],
      [400, 64, 400, 0],
      [400, 64, 0, 400],
      [400, 64, 200, 200],
      [1, 1, 0, 0],
    ] as const) {
      expect(costMicrocents(usage(input, output, read, write), price)).toBeLessThanOrEqual(worst);
    }
  });
});

describe('cents and microcents', () => {
  it('converts exactly, rounding spend up and what is left down', () => {
    expect(centsToMicrocents(1)).toBe(1_000_000n);
    expect(centsToMicrocents(1e12)).toBe(10n ** 18n);
    expect(microcentsToCentsUp(0n)).toBe(0);
    expect(microcentsToCentsUp(1n)).toBe(1);
    expect(microcentsToCentsUp(1_000_000n)).toBe(1);
    expect(microcentsToCentsUp(1_000_001n)).toBe(2);
    expect(microcentsToCentsDown(1_999_999n)).toBe(1);
    expect(microcentsToCentsDown(-1n)).toBe(-1);
    expect(microcentsToCentsUp(10n ** 18n)).toBe(1e12);
  });

  it('refuses fractional and negative cents', () => {
    for (const bad of [-1, 0.5, Number.NaN]) expect(() => centsToMicrocents(bad)).toThrow(RangeError);
  });
});
