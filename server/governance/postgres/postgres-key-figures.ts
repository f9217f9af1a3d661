import type pg from 'pg';
import type { KeyRecord, KeyState } from '../key-record.ts';
import type { KeyRow } from './postgres-keys.ts';

type Query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<R[]>;

/**
 * Keys with their live figures for the admin plane. A key with a budget period gets its current
 * period's start and spend in one query for all of them: the counted column when it is for the
 * current period, else the ledger's sum since the period's start (a period that rolled over with
 * no request since is not yet re-based, and a read does not write). `nowMs` null: the database's
 * clock, the one reservations decide by.
 */
export async function keyStates(
  query: Query,
  rows: readonly KeyRow[],
  nowMs: number | null,
  local: (row: KeyRow) => { record: KeyRecord; lastUsedAt: number | null },
): Promise<KeyState[]> {
  const periodic = rows.filter((row) => row.budget_period !== null).map((row) => row.id);
  const periods = new Map<string, { started: number; spent: bigint }>();
  if (periodic.length > 0) {
    const figures = await query<{ id: string; started: string; spent: string }>(
      `SELECT k.id, s.started::text AS started,
         (CASE WHEN k.period_start = s.started THEN k.period_spent_microcents
           ELSE (SELECT coalesce(sum(l.cost_microcents), 0) FROM gateway_spend_ledger l WHERE l.key_id = k.id AND l.created_at >= s.started) END)::text AS spent
       FROM gateway_keys k CROSS JOIN LATERAL (SELECT gateway_period_start(k.budget_period, coalesce($2::bigint, gateway_now_ms())) AS started) s
       WHERE k.id = ANY ($1::text[]) AND k.budget_period IS NOT NULL`,
      [periodic, nowMs],
    );
    for (const f of figures) periods.set(f.id, { started: Number(f.started), spent: BigInt(f.spent) });
  }
  return rows.map((row) => {
    const { record, lastUsedAt: localUse } = local(row);
    const stored = row.last_used_at === null ? null : Number(row.last_used_at);
    const spent = BigInt(row.spent_microcents);
    const period = periods.get(row.id);
    return {
      ...record,
      spentMicrocents: spent,
      periodSpentMicrocents: period?.spent ?? spent,
      periodStartedAt: period?.started ?? null,
      reservedMicrocents: BigInt(row.reserved_microcents),
      // This node's newer use (written every few seconds) over the stored one.
      lastUsedAt: localUse === null || (stored !== null && stored > localUse) ? stored : localUse,
    };
  });
}
