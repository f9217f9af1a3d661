// The /stats observers on made-up records: totals, spend, and nearest-rank percentiles over a
// bounded window of the most recent answered requests.
import { describe, expect, it } from 'vitest';
import { LatencyWindow } from '../../server/observability/latency-window.ts';
import { RequestStats, requestStatsSum } from '../../server/observability/request-stats.ts';
import { fabricatedRecord } from '../hooks/fabricated-record.ts';

describe('LatencyWindow', () => {
  it('nearest-rank percentiles of 1..100', () => {
    const window = new LatencyWindow(1000);
    for (let ms = 100; ms >= 1; ms--) window.add(ms);
    expect(window.summary()).toEqual({ window: 100, p50: 50, p90: 90, p99: 99 });
  });

  it('keeps only the most recent samples', () => {
    const window = new LatencyWindow(4);
    for (const ms of [1000, 1000, 1000, 1, 2, 3, 4]) window.add(ms);
    expect(window.summary()).toEqual({ window: 4, p50: 2, p90: 4, p99: 4 });
  });

  it('empty: nulls; one sample: that sample', () => {
    const window = new LatencyWindow(8);
    expect(window.summary()).toEqual({ window: 0, p50: null, p90: null, p99: null });
    window.add(12.345);
    expect(window.summary()).toEqual({ window: 1, p50: 12.3, p90: 12.3, p99: 12.3 });
  });
});

describe('RequestStats', () => {
  it('adds up counts, tokens, spend and failovers; only answered requests feed the percentiles', () => {
    const stats = new RequestStats(16);
    stats.record(fabricatedRecord({ latencyMs: 100, ttfbMs: 10 }));
    stats.record(fabricatedRecord({ latencyMs: 300, ttfbMs: 30, costMicrocents: 300n, attempts: [] }));
    stats.record(fabricatedRecord({ status: 502, errorKind: 'server', latencyMs: 5, ttfbMs: 5, usage: null, costMicrocents: undefined }));
    stats.record(fabricatedRecord({ status: 200, clientGone: true, latencyMs: 9000, ttfbMs: undefined, usage: null, costMicrocents: undefined, attempts: [] }));
    expect(stats.totals()).toEqual({
      total: 4,
      completed: 2,
      failed: 2,
      clientGone: 1,
      failovers: 2,
      tokens: { inputTokens: 24, outputTokens: 10, cacheReadTokens: 4, cacheWriteTokens: 0, reasoningTokens: 2 },
      costMicrocents: 2_000n,
    });
    expect(stats.latencySummary()).toEqual({
      latencyMs: { window: 2, p50: 100, p90: 300, p99: 300 },
      ttfbMs: { window: 2, p50: 10, p90: 30, p99: 30 },
    });
  });
});

describe('requestStatsSum (every data-plane thread)', () => {
  it('adds the totals and takes the percentiles over every thread’s recent samples together', () => {
    const main = new RequestStats(16);
    const worker = new RequestStats(16);
    main.record(fabricatedRecord({ latencyMs: 100, ttfbMs: 10 }));
    worker.record(fabricatedRecord({ latencyMs: 300, ttfbMs: 30 }));
    worker.record(fabricatedRecord({ status: 502, errorKind: 'server', latencyMs: 5, ttfbMs: 5, usage: null, costMicrocents: undefined }));
    const sum = requestStatsSum(() => [main.report(), worker.report()]);
    const one = main.totals();
    expect(sum.totals()).toMatchObject({ total: 3, completed: 2, failed: 1, costMicrocents: one.costMicrocents * 2n });
    expect(sum.totals().tokens.inputTokens).toBe(one.tokens.inputTokens * 2);
    expect(sum.latencySummary()).toEqual({
      latencyMs: { window: 2, p50: 100, p90: 300, p99: 300 },
      ttfbMs: { window: 2, p50: 10, p90: 30, p99: 30 },
    });
  });
});
