import type { RoutingTable } from '../gateway/routing-table.ts';
import type { HookStatus } from '../hooks/hooks.ts';
import type { RequestStats } from '../observability/request-stats.ts';
import type { Clock } from '../shared/clock.ts';

/** The running gateway's state the admin plane reads (GET /stats, the hooks list); never changes it. */
export interface LiveState {
  readonly routing: RoutingTable;
  /** The routing clock: breaker deadlines are on it, and are shown as wall-clock times. */
  readonly clock: Clock;
  readonly requests: RequestStats;
  /** Chat requests being handled now, in every worker. */
  readonly inFlight: { readonly current: number };
  /** Every hook with its counters (gate counters summed over the workers). */
  readonly hooks: { list(): HookStatus[] };
  /** Brings the other workers' counts up to date; called before a read that shows them. */
  refresh?(): Promise<void>;
}
