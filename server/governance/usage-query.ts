import type { DatabaseSync } from 'node:sqlite';
import { USAGE_GROUP_BY, type UsageGroupBy, type UsageQuery, type UsageReport, type UsageRow } from './usage-report.ts';

/** Each group's column: fixed text from this table, never from the query, so the SQL is never built from input. */
const GROUP_COLUMNS: Readonly<Record<UsageGroupBy, string>> = {
  // The UTC calendar date of the settlement (created_at is epoch ms; integer division floors it).
  day: "strftime('%Y-%m-%d', created_at / 1000, 'unixepoch')",
  model: 'model',
  key: 'key_id',
  team: 'team',
};

interface SumRow {
  day?: string;
  model?: string;
  key?: string;
  team?: string | null;
  requests: bigint;
  input_tokens: bigint;
  output_tokens: bigint;
  cache_read_tokens: bigint;
  cache_write_tokens: bigint;
  cost: bigint;
}

/** Throws a RangeError for a group that is not one of USAGE_GROUP_BY. */
export function checkUsageQuery(query: UsageQuery): void {
  for (const group of query.groupBy) if (!USAGE_GROUP_BY.includes(group)) throw new RangeError(`cannot group usage by ${String(group)}`);
}

/**
 * "Who spent what, on which model, on which day": one GROUP BY over the spend ledger, in range
 * [from, to) (the key_id index serves a key's rows, the created_at index a range over every key).
 * Rows are sorted by the groups in order, names ascending with no team (null) last, as PostgreSQL
 * sorts them too. `db` is the store's own connection or a read-only one (usage-thread.ts).
 */
export function queryUsage(db: DatabaseSync, query: UsageQuery): UsageReport {
  checkUsageQuery(query);
  const groups = [...new Set(query.groupBy)];
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (query.fromMs !== undefined) {
    where.push('created_at >= ?');
    params.push(query.fromMs);
  }
  if (query.toMs !== undefined) {
    where.push('created_at < ?');
    params.push(query.toMs);
  }
  if (query.keyId !== undefined) {
    where.push('key_id = ?');
    params.push(query.keyId);
  }
  const selected = groups.map((group) => `${GROUP_COLUMNS[group]} AS "${group}"`);
  const sql = `
    SELECT ${selected.map((column) => `${column},`).join(' ')}
      count(*) AS requests,
      coalesce(sum(input_tokens), 0) AS input_tokens,
      coalesce(sum(output_tokens), 0) AS output_tokens,
      coalesce(sum(cache_read_tokens), 0) AS cache_read_tokens,
      coalesce(sum(cache_write_tokens), 0) AS cache_write_tokens,
      coalesce(sum(cost_microcents), 0) AS cost
    FROM spend_ledger
    ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
    ${groups.length === 0 ? '' : `GROUP BY ${groups.map((g) => `"${g}"`).join(', ')} ORDER BY ${groups.map((g) => `"${g}" IS NULL, "${g}"`).join(', ')}`}`;
  const statement = db.prepare(sql);
  statement.setReadBigInts(true);
  const rows = (statement.all(...params) as unknown as SumRow[]).map((row) => usageRow(row, groups));
  if (groups.length === 0) return { rows, total: rows[0]! };
  return { rows, total: totalOf(rows) };
}

function usageRow(row: SumRow, groups: readonly UsageGroupBy[]): UsageRow {
  return {
    ...(groups.includes('day') && { day: row.day! }),
    ...(groups.includes('model') && { model: row.model! }),
    ...(groups.includes('key') && { keyId: row.key! }),
    ...(groups.includes('team') && { team: row.team ?? null }),
    requests: Number(row.requests),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    cacheReadTokens: Number(row.cache_read_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
    costMicrocents: row.cost,
  };
}

function totalOf(rows: readonly UsageRow[]): UsageRow {
  const total = { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costMicrocents: 0n };
  for (const row of rows) {
    total.requests += row.requests;
    total.inputTokens += row.inputTokens;
    total.outputTokens += row.outputTokens;
    total.cacheReadTokens += row.cacheReadTokens;
    total.cacheWriteTokens += row.cacheWriteTokens;
    total.costMicrocents += row.costMicrocents;
  }
  return total;
}
