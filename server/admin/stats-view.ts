import type { components } from '../../generated/admin-api.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { KeyAdmin } from '../governance/governance.ts';
import { microcentsToCentsUp, microcentsToUsd } from '../shared/money.ts';
import type { LatencySummary } from '../observability/latency-window.ts';
import { SERVER_VERSION } from '../version.ts';
import type { LiveState } from './live-state.ts';

type StatsView = components['schemas']['StatsView'];

/**
 * GET /stats: a snapshot read from RoutingTable.snapshot() (which never takes a half-open probe),
 * the request observers' totals and windows, and the key store. Reads only.
 */
export async function statsView(options: {
  config: RuntimeConfig;
  startedAt: number;
  live: LiveState;
  keys: KeyAdmin | undefined;
  now?: number;
}): Promise<StatsView> {
  const { config, live } = options;
  const now = options.now ?? Date.now();
  const monotonicNow = live.clock.now();
  // Deadlines are on the monotonic routing clock; a past one (or none, 0) is shown as null.
  const wallTime = (deadline: number) => (deadline > monotonicNow ? new Date(now + (deadline - monotonicNow)).toISOString() : null);
  const totals = live.requests.totals();
  const { latencyMs, ttfbMs } = live.requests.latencySummary();
  const keys = options.keys === undefined ? undefined : await options.keys.listKeys();
  return {
    version: SERVER_VERSION,
    started_at: new Date(options.startedAt).toISOString(),
    uptime_seconds: Math.max(0, (now - options.startedAt) / 1000),
    config_version: config.configVersion,
    requests: {
      in_flight: live.inFlight.current,
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
    pools: live.routing.snapshot().map((pool) => ({
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
    ...(keys !== undefined && {
      keys: { total: keys.length, active: keys.filter((k) => k.revokedAt === null).length, revoked: keys.filter((k) => k.revokedAt !== null).length },
    }),
  };
}

function latency(summary: LatencySummary): StatsView['latency_ms'] {
  return { window: summary.window, p50: summary.p50, p90: summary.p90, p99: summary.p99 };
}
