import type { KeyRecord } from '../governance/key-record.ts';
import { modelAllowed } from '../governance/model-allow-list.ts';
import type { StatsSnapshot } from '../observability/stats-snapshot.ts';

/**
 * The data plane's GET /stats for one key: only the pools (a model used on its own is a pool of
 * one) its `models` allow-list names, with their lanes; every pool for a key without a list, or
 * with governance off. The totals stay the gateway's: they name no model, pool or key.
 */
export function statsForKey(snapshot: StatsSnapshot, key: KeyRecord | undefined): StatsSnapshot {
  if (key?.models === undefined || key.models === null) return snapshot;
  return { ...snapshot, pools: snapshot.pools.filter((pool) => modelAllowed(key, pool.pool)) };
}
