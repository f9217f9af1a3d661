/**
 * "Who spent what, on which model, on which day": the spend ledger (one row per settled request)
 * summed over a time range and grouped. The same query on either store.
 */
export type UsageGroupBy = 'day' | 'model' | 'key' | 'team';

export const USAGE_GROUP_BY: readonly UsageGroupBy[] = ['day', 'model', 'key', 'team'];

export interface UsageQuery {
  /** Rows settled at or after this moment (epoch ms); undefined: from the first. */
  readonly fromMs?: number | undefined;
  /** Rows settled before this moment (epoch ms, exclusive); undefined: up to now. */
  readonly toMs?: number | undefined;
  /** Grouped by these, in this order; empty: one row of totals. */
  readonly groupBy: readonly UsageGroupBy[];
  /** Only this key's rows. */
  readonly keyId?: string | undefined;
}

/** One group: the members named in groupBy are set, the others absent. */
export interface UsageRow {
  /** YYYY-MM-DD, the UTC day the request was settled. */
  readonly day?: string;
  /** The upstream model that served (the ledger's `model`). */
  readonly model?: string;
  readonly keyId?: string;
  /** The key's team when the request was settled; null: none. */
  readonly team?: string | null;
  readonly requests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly costMicrocents: bigint;
}

export interface UsageReport {
  /** Sorted by the groups in groupBy order (day ascending, names ascending). */
  readonly rows: readonly UsageRow[];
  /** Over every row. */
  readonly total: UsageRow;
}
