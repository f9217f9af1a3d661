import type { components } from '../../generated/admin-api.ts';
import type { UsageQuery, UsageReport, UsageRow } from '../governance/usage-report.ts';
import { isoOrNull, spentCents, usd } from './money-view.ts';

type UsageReportView = components['schemas']['UsageReport'];
type UsageRowView = components['schemas']['UsageRow'];

/**
 * A usage report as the admin API shows it: the range and groups asked for, and each row with the
 * cost in cents (rounded up) and exactly in USD. `keyNames` names the keys of rows grouped by key.
 */
export function usageReportView(query: UsageQuery, report: UsageReport, keyNames: ReadonlyMap<string, string | null>): UsageReportView {
  const byKey = query.groupBy.includes('key');
  return {
    from: isoOrNull(query.fromMs ?? null),
    to: isoOrNull(query.toMs ?? null),
    group_by: [...query.groupBy],
    rows: report.rows.map((row) => usageRowView(row, byKey ? keyNames : undefined)),
    total: usageRowView(report.total, undefined),
  };
}

function usageRowView(row: UsageRow, keyNames: ReadonlyMap<string, string | null> | undefined): UsageRowView {
  return {
    ...(row.day !== undefined && { day: row.day }),
    ...(row.model !== undefined && { model: row.model }),
    ...(row.keyId !== undefined && { key_id: row.keyId }),
    ...(row.keyId !== undefined && keyNames !== undefined && { key_name: keyNames.get(row.keyId) ?? null }),
    ...(row.team !== undefined && { team: row.team }),
    requests: row.requests,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cache_read_tokens: row.cacheReadTokens,
    cache_write_tokens: row.cacheWriteTokens,
    cost_cents: spentCents(row.costMicrocents),
    cost_usd: usd(row.costMicrocents),
  };
}
