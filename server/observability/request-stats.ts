import type { Usage } from '../ir/index.ts';
import { LatencyWindow, type LatencySummary } from './latency-window.ts';
import { failoverCount, requestFailed, type RequestObserver, type RequestRecord } from './request-record.ts';

export interface RequestTotalsSnapshot {
  readonly total: number;
  readonly completed: number;
  readonly failed: number;
  readonly clientGone: number;
  readonly failovers: number;
  readonly tokens: Usage;
  readonly costMicrocents: bigint;
}

/**
 * Totals of finished requests (counts, tokens, spend) and latency percentiles of the recent
 * answered ones, for GET /stats. A RequestObserver: it sees each record once. Snapshots are plain
 * data that add up across worker threads (the percentiles would need their windows merged).
 */
export class RequestStats implements RequestObserver {
  private total = 0;
  private completed = 0;
  private failed = 0;
  private clientGone = 0;
  private failovers = 0;
  private costMicrocents = 0n;
  private readonly tokens = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  private readonly latency: LatencyWindow;
  private readonly ttfb: LatencyWindow;

  constructor(windowSize?: number) {
    this.latency = new LatencyWindow(windowSize);
    this.ttfb = new LatencyWindow(windowSize);
  }

  record(record: RequestRecord): void {
    this.total++;
    const failed = requestFailed(record);
    if (failed) this.failed++;
    else this.completed++;
    if (record.clientGone) this.clientGone++;
    this.failovers += failoverCount(record);
    if (record.costMicrocents !== undefined) this.costMicrocents += record.costMicrocents;
    const usage = record.usage;
    if (usage !== null) {
      this.tokens.inputTokens += usage.inputTokens;
      this.tokens.outputTokens += usage.outputTokens;
      this.tokens.cacheReadTokens += usage.cacheReadTokens;
      this.tokens.cacheWriteTokens += usage.cacheWriteTokens;
      this.tokens.reasoningTokens += usage.reasoningTokens;
    }
    // Refusals answered in a millisecond would drag the percentiles down: only answers count.
    if (!failed) {
      this.latency.add(record.latencyMs);
      if (record.ttfbMs !== undefined) this.ttfb.add(record.ttfbMs);
    }
  }

  totals(): RequestTotalsSnapshot {
    return {
      total: this.total,
      completed: this.completed,
      failed: this.failed,
      clientGone: this.clientGone,
      failovers: this.failovers,
      tokens: { ...this.tokens },
      costMicrocents: this.costMicrocents,
    };
  }

  latencySummary(): { readonly latencyMs: LatencySummary; readonly ttfbMs: LatencySummary } {
    return { latencyMs: this.latency.summary(), ttfbMs: this.ttfb.summary() };
  }
}
