import type pg from 'pg';
import type { UsageGroupBy, UsageQuery, UsageReport, UsageRow } from '../usage-report.ts';

type Query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<R[]>;

/** Each group's expression over gateway_spend_ledger; a day is the UTC date of settlement. */
const GROUPS: Record<UsageGroupBy, { expression: string; member: keyof UsageRow }> = {
  day: { expression: "to_char(to_timestamp((created_at / 1000.0)::double precision) AT TIME ZONE 'UTC', 'YYYY-MM-DD')", member: 'day' },
  model: { expression: 'model', member: 'model' },
  key: { expression: 'key_id', member: 'keyId' },
  team: { expression: 'team', member: 'team' },
};

interface SumRow {
  requests: string;
  input: string;
  output: string;
  cache_read: string;
  cache_write: string;
  cost: string;
  [group: string]: string | null;
}

const SUMS =
  'count(*)::text AS requests, coalesce(sum(input_tokens), 0)::text AS input, coalesce(sum(output_tokens), 0)::text AS output, coalesce(sum(cache_read_tokens), 0)::text AS cache_read, coalesce(sum(cache_write_tokens), 0)::text AS cache_write, coalesce(sum(cost_microcents), 0)::text AS cost';

function figures(row: SumRow): Omit<UsageRow, 'day' | 'model' | 'keyId' | 'team'> {
  return {
    requests: Number(row.requests),
    inputTokens: Number(row.input),
    outputTokens: Number(row.output),
    cacheReadTokens: Number(row.cache_read),
    cacheWriteTokens: Number(row.cache_write),
    costMicrocents: BigInt(row.cost),
  };
}

/**
 * The spend ledger summed in the database (GROUP BY over the time index), so a report over
 * millions of requests sends back only its groups. Groups are sorted ascending in groupBy order,
 * byte order (as SQLite compares text), a request without a team last. The total is its own aggregate.
 */
export async function usageReport(query: Query, spec: UsageQuery): Promise<UsageReport> {
  const groups = [...new Set(spec.groupBy)].map((name) => ({ name, ...GROUPS[name] }));
  const where = '($1::bigint IS NULL OR created_at >= $1) AND ($2::bigint IS NULL OR created_at < $2) AND ($3::text IS NULL OR key_id = $3)';
  const values = [spec.fromMs ?? null, spec.toMs ?? null, spec.keyId ?? null];
  const total = (await query<SumRow>(`SELECT ${SUMS} FROM gateway_spend_ledger WHERE ${where}`, values))[0]!;
  if (groups.length === 0) return { rows: [figures(total)], total: figures(total) };
  const selected = groups.map((g, i) => `${g.expression} AS g${i}`).join(', ');
  const positions = groups.map((_, i) => String(i + 1));
  const rows = await query<SumRow>(
    `SELECT ${selected}, ${SUMS} FROM gateway_spend_ledger WHERE ${where} GROUP BY ${positions.join(', ')} ORDER BY ${groups.map((g) => `${g.expression} COLLATE "C" ASC NULLS LAST`).join(', ')}`,
    values,
  );
  return {
    rows: rows.map((row) => {
      const named: Record<string, string | null> = {};
      groups.forEach((g, i) => {
        named[g.member] = row[`g${i}`] ?? null;
      });
      return { ...named, ...figures(row) } as UsageRow;
    }),
    total: figures(total),
  };
}
