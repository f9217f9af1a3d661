import { Counter, Gauge, type Registry } from 'prom-client';
import type { RoutingSnapshot } from '../gateway/routing-table.ts';
import type { BreakerState } from '../routing/breaker-cell.ts';
import type { TranslationSnapshot } from './translation-stats.ts';

const BREAKER_STATES: readonly BreakerState[] = ['closed', 'half_open', 'open'];

export interface StateSources {
  /** Breaker state, trips and lane concurrency, read at scrape time (RoutingTable.snapshot). */
  readonly routing: () => RoutingSnapshot;
  /** Translation hops and warnings so far (TranslationStats.snapshot). */
  readonly translations: () => TranslationSnapshot;
}

/**
 * Metrics read from the gateway's state when scraped, so the request path does no extra work for
 * them. The routing state is one per process (shared by the data-plane workers, see
 * ARCHITECTURE.md), so when several workers' registries are aggregated its series are taken from
 * one of them (`aggregator: 'first'`), while translation counts are per worker and summed.
 */
export function registerStateMetrics(registry: Registry, sources: StateSources): void {
  const registers = [registry];
  new Gauge({
    name: 'gateway_breaker_state',
    help: 'Breaker state of each (pool, lane) cell: 1 for the current state (closed, half_open, open), 0 for the others',
    labelNames: ['pool', 'lane', 'state'],
    registers,
    aggregator: 'first',
    collect() {
      this.reset();
      for (const pool of sources.routing()) {
        for (const lane of pool.lanes) {
          for (const state of BREAKER_STATES) this.set({ pool: pool.pool, lane: lane.lane, state }, lane.state === state ? 1 : 0);
        }
      }
    },
  });
  new Counter({
    name: 'gateway_breaker_trips_total',
    help: 'Times each (pool, lane) breaker opened',
    labelNames: ['pool', 'lane'],
    registers,
    aggregator: 'first',
    collect() {
      this.reset();
      for (const pool of sources.routing()) for (const lane of pool.lanes) this.inc({ pool: pool.pool, lane: lane.lane }, lane.counters.trips);
    },
  });
  new Gauge({
    name: 'gateway_lane_in_flight',
    help: 'Requests in flight on each lane (attempting, or streaming the answer)',
    labelNames: ['lane'],
    registers,
    aggregator: 'first',
    collect() {
      this.reset();
      const seen = new Set<string>(); // a lane in several pools has one limiter
      for (const pool of sources.routing()) {
        for (const lane of pool.lanes) {
          if (seen.has(lane.lane)) continue;
          seen.add(lane.lane);
          this.set({ lane: lane.lane }, lane.inFlight);
        }
      }
    },
  });
  new Counter({
    name: 'gateway_translations_total',
    help: "Upstream answers translated across protocols, by (from, to): the client's protocol and the lane's",
    labelNames: ['from', 'to'],
    registers,
    collect() {
      this.reset();
      for (const [pair, count] of Object.entries(sources.translations().hops)) {
        const [from = '', to = ''] = pair.split('->');
        this.inc({ from, to }, count);
      }
    },
  });
  new Counter({
    name: 'gateway_translation_warnings_total',
    help: 'Fields a translation could not carry (x-gateway-warnings), by kind',
    labelNames: ['kind'],
    registers,
    collect() {
      this.reset();
      for (const [kind, count] of Object.entries(sources.translations().warnings)) this.inc({ kind }, count);
    },
  });
}
