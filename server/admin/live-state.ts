import type { HookStatus } from '../hooks/hooks.ts';
import type { StatsSources } from '../observability/stats-snapshot.ts';

/** The running gateway's state the admin plane reads (GET /stats, the hooks list); never changes it. */
export interface LiveState extends StatsSources {
  /** Every hook with its counters (gate counters summed over the workers). */
  readonly hooks: { list(): HookStatus[] };
  /** Brings the other workers' counts up to date; called before a read that shows them. */
  refresh?(): Promise<void>;
}
