import type { Usage } from '../ir/index.ts';
import { LatencyWindow, summarise, type LatencySummary } from './latency-window.ts';
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

/** One thread's figures as plain data (posted by a worker when asked): totals and its recent samples. */
export interface RequestStatsReport {
  readonly totals: RequestTotalsSnapshot;
  readonly latencyMs: Float64Array;
  readonly ttfbMs: Float64Array;
}

/** What GET /stats reads: one thread's RequestStats, or every thread's added up (requestStatsSum). */
export interface RequestFigures {
  totals(): RequestTotalsSnapshot;
  latencySummary(): { readonly latencyMs: LatencySummary; readonly ttfbMs: LatencySummary };
}

/**
 * Totals of finished requests (counts, tokens, spend) and latency percentiles of the recent
 * answered ones, for GET /stats. A RequestObserver: it sees each record once. Snapshots are plain
 * data that add up across worker threads (the percentiles would need their windows merged).
 */
export class RequestStats implements RequestObserver, RequestFigures {
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

  report(): RequestStatsReport {
    return { totals: this.totals(), latencyMs: this.latency.recent(), ttfbMs: this.ttfb.recent() };
  }
}

/**
 * The figures of several threads as one: totals added, percentiles over every thread's recent
 * samples together (each thread keeps its own window, so the window is up to one per thread).
 */
export function requestStatsSum(reports: () => readonly RequestStatsReport[]): RequestFigures {
  return {
    totals() {
      const all = reports().map((r) => r.totals);
      const sum = (pick: (t: RequestTotalsSnapshot) => number) => all.reduce((n, t) => n + pick(t), 0);
      return {
        total: sum((t) => t.total),
        completed: sum((t) => t.completed),
        failed: sum((t) => t.failed),
        clientGone: sum((t) => t.clientGone),
        failovers: sum((t) => t.failovers),
        tokens: {
          inputTokens: sum((t) => t.tokens.inputTokens),
          outputTokens: sum((t) => t.tokens.outputTokens),
          cacheReadTokens: sum((t) => t.tokens.cacheReadTokens),
          cacheWriteTokens: sum((t) => t.tokens.cacheWriteTokens),
          reasoningTokens: sum((t) => t.tokens.reasoningTokens),
        },
        costMicrocents: all.reduce((n, t) => n + t.costMicrocents, 0n),
      };
    },
    latencySummary() {
      const all = reports();
      return { latencyMs: summarise(all.map((r) => r.latencyMs)), ttfbMs: summarise(all.map((r) => r.ttfbMs)) };
    },
  };
}
