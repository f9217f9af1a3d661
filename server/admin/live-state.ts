import type { RoutingTable } from '../gateway/routing-table.ts';
import type { Hooks } from '../hooks/hooks.ts';
import type { RequestStats } from '../observability/request-stats.ts';
import type { RequestsInFlight } from '../observability/requests-in-flight.ts';
import type { Clock } from '../routing/clock.ts';

/** The running gateway's state the admin plane reads (GET /stats, the hooks list); never changes it. */
export interface LiveState {
  readonly routing: RoutingTable;
  /** The routing clock: breaker deadlines are on it, and are shown as wall-clock times. */
  readonly clock: Clock;
  readonly requests: RequestStats;
  readonly inFlight: RequestsInFlight;
  readonly hooks: Hooks;
}
