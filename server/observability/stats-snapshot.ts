import type { components } from '../../generated/admin-api.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { RoutingTable } from '../gateway/routing-table.ts';
import type { Clock } from '../shared/clock.ts';
import { microcentsToCentsUp, microcentsToUsd } from '../shared/money.ts';
import { SERVER_VERSION } from '../version.ts';
import type { LatencySummary } from './latency-window.ts';
import type { RequestFigures } from './request-stats.ts';

type StatsView = components['schemas']['StatsView'];

/**
 * GET /stats without the key store's counts: what both planes show (the admin plane adds `keys`;
 * the data plane shows it, its pools narrowed to what the asking key may use). Plain data, so a
 * worker thread can be sent it.
 */
export type StatsSnapshot = Omit<StatsView, 'keys'>;

/** The running gateway's state a snapshot reads; never changed by reading it. */
export interface StatsSources {
  readonly routing: RoutingTable;
  /** The routing clock: breaker deadlines are on it, and are shown as wall-clock times. */
  readonly clock: Clock;
  /** Finished requests' totals and percentiles, every worker's. */
  readonly requests: RequestFigures;
  /** Requests being handled now, in every worker. */
  readonly inFlight: { readonly current: number };
}

/**
 * A snapshot read from RoutingTable.snapshot() (which never takes a half-open probe) and the
 * request observers' totals and windows. Callers bring the other workers' counts up to date first.
 */
export function statsSnapshot(options: { config: RuntimeConfig; startedAt: number; sources: StatsSources; now?: number }): StatsSnapshot {
  const { config, sources } = options;
  const now = options.now ?? Date.now();
  const monotonicNow = sources.clock.now();
  // Deadlines are on the monotonic routing clock; a past one (or none, 0) is shown as null.
  const wallTime = (deadline: number) => (deadline > monotonicNow ? new Date(now + (deadline - monotonicNow)).toISOString() : null);
  const totals = sources.requests.totals();
  const { latencyMs, ttfbMs } = sources.requests.latencySummary();
  return {
    version: SERVER_VERSION,
    started_at: new Date(options.startedAt).toISOString(),
    uptime_seconds: Math.max(0, (now - options.startedAt) / 1000),
    config_version: config.configVersion,
    requests: {
      in_flight: sources.inFlight.current,
      total: totals.total,
      completed: totals.completed,
      failed: totals.failed,
      client_gone: totals.clientGone,
      failovers: totals.failovers,
    },
    latency_ms: latency(latencyMs),
    ttfb_ms: latency(ttfbMs),
    tokens: {
      input_tokens: totals.tokens.inputTokens,
      output_tokens: totals.tokens.outputTokens,
      cache_read_tokens: totals.tokens.cacheReadTokens,
      cache_write_tokens: totals.tokens.cacheWriteTokens,
      reasoning_tokens: totals.tokens.reasoningTokens,
    },
    spent_cents: microcentsToCentsUp(totals.costMicrocents),
    spent_usd: microcentsToUsd(totals.costMicrocents),
    pools: sources.routing.snapshot().map((pool) => ({
      pool: pool.pool,
      failovers: pool.failovers,
      lanes: pool.lanes.map((lane) => ({
        lane: lane.lane,
        weight: lane.weight,
        state: lane.state,
        in_flight: lane.inFlight,
        consecutive_failures: lane.consecutiveFailures,
        probe_in_flight: lane.probeInFlight,
        open_until: wallTime(lane.openUntil),
        capacity_cooldown_until: wallTime(lane.capacityCooldownUntil),
        config_cooldown_until: wallTime(lane.configCooldownUntil),
        counters: {
          successes: lane.counters.successes,
          lane_faults: lane.counters.laneFaults,
          capacity_faults: lane.counters.capacityFaults,
          config_faults: lane.counters.configFaults,
          client_faults: lane.counters.clientFaults,
          trips: lane.counters.trips,
        },
      })),
    })),
  };
}

function latency(summary: LatencySummary): StatsView['latency_ms'] {
  return { window: summary.window, p50: summary.p50, p90: summary.p90, p99: summary.p99 };
}
